"""The real board loop (``referee.board.run``) on CPython, with fake hardware and a fake clock.

Usage::

    from rel_boardloop import Loop
    loop = Loop(root, source=table)            # table: rhinoref.table.Table-like next_sample()
    loop.hx.mode = "unplugged"                  # or "stuck", "saturated", "spikes", "oserror", "ok"
    loop.acc.mode = "gone"                      # or "flaky", "ok"
    loop.at(2000, lambda: loop.send(b'{"cmd": "status"}\\n'))   # bytes on the USB port
    loop.at(4000, lambda: loop.press("seat2"))  # a button held 150 ms
    loop.at(9000, table.place_wall)             # anything, at a board time (ms)
    loop.run_until(30000, hook=None)            # once: board time in ms; hook(loop) every pass
    loop.events("fault"), loop.replies, loop.ref

``board.run`` counts its own time from 0, so a Loop runs once; scripted actions come from
``at()`` and the ``hook``, both called from inside the loop (at each clock read).

What is fake and what is not: ``referee.board.run`` runs unchanged; ``machine``, ``time``,
``select`` and ``sys`` (as seen by ``referee.board``) are replaced for the run by fakes that
share one clock in microseconds. The clock moves only when the loop sleeps in ``poll`` (by the
timeout) and by a few microseconds per clock read, so runs are deterministic. The HX711 fake
answers ``read_nowait`` from the simulated table at its sample times and can be unplugged
(no data: what the PIO driver sees), raise OSError, stick at one value, saturate or burst
spikes; the accelerometer fake returns the table's reading with each sample, or OSError.
Buttons are pin levels (pressed = 0). The serial port holds bytes the loop reads through
``select.poll`` and ``readinto``; everything the loop prints is split into lines.
"""

import importlib
import json
import sys
import types

from rhinoref.firmware import FIRMWARE_DIR  # noqa: F401  (firmware on sys.path)

_CPU_US = 20  # simulated CPU time per clock read
_FULL = 0x7FFFFF


class Stop(BaseException):
    """Ends a run (raised by the fakes; passes every ``except Exception``)."""


class Reset(BaseException):
    """machine.reset() was called (the soft watchdog fired)."""


class Clock:
    def __init__(self):
        self.us = 0
        self.frozen = None  # callable: True while no time may pass (serial bytes waiting)
        self.hook = None
        self.end_ms = None
        self._in_hook = False
        self._hooked_at = -1

    def ms(self):
        if self.frozen is None or not self.frozen():
            self.us += _CPU_US
        t = self.us // 1000
        if self.end_ms is not None and t >= self.end_ms:
            raise Stop()
        if t == self._hooked_at and not (self.frozen is not None and self.frozen()):
            return t  # once per board millisecond is enough (and every read while a line waits)
        self._hooked_at = t
        if self.hook is not None and not self._in_hook:
            self._in_hook = True
            try:
                self.hook()
            finally:
                self._in_hook = False
        return t


class FakeHX711:
    """HX711 driver look-alike fed by a table. ``mode`` says how the part behaves now."""

    def __init__(self, clock, source):
        self.clock = clock
        self.source = source
        self.mode = "ok"
        self.stuck_value = None  # None: stick at the last good reading
        self.spike_burst = 3  # samples per burst in "spikes" mode
        self.spike_every = 40  # samples between bursts
        self.saturated = False
        self.powered = True
        self.restarts = 0
        self.samples = 0  # samples the table produced
        self.delivered = 0  # readings handed to the loop
        self.last = None  # the table's last (t, raw, ax, ay, az, inp)
        self._ahead = None
        self._burst = 0
        self._n = 0

    def _due(self):
        if self._ahead is None:
            self._ahead = self.source.next_sample()
            self.samples += 1
        return self._ahead if self._ahead[0] * 1000 <= self.clock.us else None

    def due(self):
        """True when a conversion is waiting (the loop will take it at its next pass)."""
        return self._due() is not None

    def read_nowait(self):
        s = self._due()
        if s is None:
            return None
        self._ahead = None
        self.last = s
        mode = self.mode
        if mode == "unplugged" or not self.powered:
            return None
        if mode == "oserror":
            raise OSError("HX711 not responding: DOUT stays low (check wiring)")
        self.delivered += 1
        raw = s[1]
        self.saturated = False
        if mode == "stuck":
            if self.stuck_value is None:
                self.stuck_value = self.good if hasattr(self, "good") else raw
            return self.stuck_value
        if mode == "saturated":
            self.saturated = True
            return _FULL
        if mode == "spikes":
            self._n += 1
            if self._burst == 0 and self._n % self.spike_every == 0:
                self._burst = self.spike_burst
            if self._burst:
                self._burst -= 1
                n = 14 + self._n % 8  # wild readings near 2**n - 1 (SPEC 1), back to back
                return (1 << n) - 1 if self._n & 1 else raw | ((1 << n) - 1)
        self.good = raw
        return raw

    def power_down(self):
        self.powered = False

    def power_up(self):
        self.powered = True
        self.restarts += 1


class FakeAccel:
    def __init__(self, hx, name="mpu6050"):
        self.hx = hx
        self.name = name
        self.mode = "ok"  # "gone": every read fails; "flaky": every 7th read fails
        self.reads = 0
        self.errors = 0

    def read_into(self, buf):
        self.reads += 1
        if self.mode == "gone" or (self.mode == "flaky" and self.reads % 7 == 0):
            self.errors += 1
            raise OSError(5)  # EIO: the I2C transfer was not acknowledged
        s = self.hx.last
        buf[0], buf[1], buf[2] = s[2], s[3], s[4]


class FakePin:
    def __init__(self, level=1):
        self.level = level

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = v


class FakeSerial:
    """The USB CDC port: bytes waiting for the loop, lines the loop printed."""

    def __init__(self):
        self.inbox = bytearray()
        self.out = []
        self.replies = 0  # reply lines ({"ok": ...}) printed
        self._partial = ""
        self.bytes_read = 0

    # sys.stdin.buffer
    def readinto(self, buf):
        if not self.inbox:
            return 0
        buf[0] = self.inbox[0]
        del self.inbox[0]
        self.bytes_read += 1
        return 1

    # sys.stdout
    def write(self, text):
        self._partial += text
        while "\n" in self._partial:
            line, self._partial = self._partial.split("\n", 1)
            self.out.append(line)
            if line.startswith('{"ok"'):
                self.replies += 1
        return len(text)


class _Poll:
    def __init__(self, serial, clock):
        self.serial = serial
        self.clock = clock
        self.sleeps = 0

    def register(self, obj, mask):
        pass

    def poll(self, timeout=-1):
        if self.serial.inbox:
            return [(self.serial, 1)]
        if timeout and timeout > 0:
            self.sleeps += 1
            self.clock.us += timeout * 1000
            self.clock.ms()  # the hook and the end of the run
        return []


class FakeHardware:
    """What ``referee.board.run`` uses of ``board.Hardware``."""

    def __init__(self, clock, source, accel=True):
        from referee import buttons, pins

        self.problems = []
        self.hx = FakeHX711(clock, source)
        self.acc = FakeAccel(self.hx, "mpu6050" if accel else "none")
        self.np = None
        self.button_pins = [FakePin() for _ in pins.BUTTONS]
        self.buttons = buttons.Buttons([n for n, _g in pins.BUTTONS],
                                       active_low=pins.BUTTONS_ACTIVE_LOW)
        self.pwm = None
        self.frames = 0
        self.frame = b""
        self.beeps = 0

    def show(self, frame):
        self.frames += 1
        self.frame = bytes(frame)

    def beep(self, t, hz, ms):
        self.beeps += 1

    def quiet(self, t):
        pass

    def off(self):
        self.frame = b"\x00" * len(self.frame)


def _fake_modules(clock, serial, poller):
    time_mod = types.SimpleNamespace(
        ticks_ms=clock.ms, ticks_diff=lambda a, b: a - b, ticks_add=lambda a, b: a + b,
        sleep_ms=lambda ms: setattr(clock, "us", clock.us + ms * 1000))

    class Timer:
        def __init__(self, *a, **k):
            self.callback = k.get("callback")

        def deinit(self):
            self.callback = None

    def reset():
        raise Reset()

    machine = types.SimpleNamespace(Timer=Timer, reset=reset, WDT=None, Pin=FakePin,
                                    soft_reset=reset)
    select_mod = types.SimpleNamespace(poll=lambda: poller, POLLIN=1)
    sys_mod = types.SimpleNamespace(stdin=types.SimpleNamespace(buffer=serial),
                                    stdout=serial)
    return time_mod, machine, select_mod, sys_mod


def board_module():
    """``referee.board``, imported on CPython (a stand-in ``machine`` while it imports)."""
    if "referee.board" in sys.modules:
        return sys.modules["referee.board"]
    stub = "machine" not in sys.modules
    if stub:
        sys.modules["machine"] = types.SimpleNamespace(Pin=FakePin)
    try:
        return importlib.import_module("referee.board")
    finally:
        if stub:
            del sys.modules["machine"]


class Loop:
    """One board (files under ``root``) whose loop runs in simulated time; see the module doc."""

    def __init__(self, root, source, accel=True, make_detector=None, sps=80):
        self.board = board_module()
        self.clock = Clock()
        self.serial = FakeSerial()
        self.poller = _Poll(self.serial, self.clock)
        # The port hands over a line in no time: nothing else happens while a line is read,
        # so what a line changed is what the line did.
        self.clock.frozen = lambda: bool(self.serial.inbox)
        self.hw = FakeHardware(self.clock, source, accel)
        self.hx = self.hw.hx
        self.acc = self.hw.acc
        self.source = source
        self.root = root
        self._presses = []  # (t_down_ms, t_up_ms, pin index)
        self._held = False
        from referee import pins
        from referee.app import Referee

        self._names = [n for n, _g in pins.BUTTONS]
        self.ref = Referee(root=None if root is None else str(root), sps=sps,
                           accel=self.acc.name != "none", leds_per_seat=pins.LEDS_PER_SEAT,
                           make_detector=make_detector)
        self.hook = None
        self._todo = []  # (t_ms, seq, fn)
        self._ran = False
        self.resets = 0
        self.exited = None  # what ended the last run: "stop", "reset" or the exception

    # -- driving --------------------------------------------------------------------------------
    def now(self):
        return self.clock.us // 1000

    def send(self, data):
        self.serial.inbox += data

    def press(self, name, hold_ms=150, at=None):
        t = self.now() if at is None else at
        self._presses.append((t, t + hold_ms, self._names.index(name)))

    def _pins(self):
        if not self._presses and not self._held:
            return
        self._held = bool(self._presses)
        t = self.clock.us // 1000
        pins = self.hw.button_pins
        for p in pins:
            p.level = 1
        keep = []
        for down, up, i in self._presses:
            if down <= t < up:
                pins[i].level = 0
            if t < up:
                keep.append((down, up, i))
        self._presses = keep

    def at(self, t_ms, fn):
        """Call ``fn()`` once the board time reaches ``t_ms``."""
        self._todo.append((t_ms, len(self._todo), fn))
        self._todo.sort(key=lambda x: (x[0], x[1]))

    def _hook(self):
        t = self.clock.us // 1000
        while self._todo and self._todo[0][0] <= t:
            self._todo.pop(0)[2]()
        self._pins()
        if self.hook is not None:
            self.hook(self)

    def run_until(self, t_ms, hook=None):
        """Run the board loop until board time ``t_ms``; returns how it ended."""
        assert not self._ran, "board.run counts time from 0: one run per Loop"
        self._ran = True
        board = self.board
        saved = (board.time, board.machine, board.select, board.sys)
        fakes = _fake_modules(self.clock, self.serial, self.poller)
        board.time, board.machine, board.select, board.sys = fakes
        self.hook = hook
        self.clock.hook = self._hook
        self.clock.end_ms = t_ms
        try:
            board.run(self.ref, self.hw)
        except Stop:
            self.exited = "stop"
        except Reset:
            self.resets += 1
            self.exited = "reset"
        finally:
            board.time, board.machine, board.select, board.sys = saved
            self.clock.hook = None
            self.clock.end_ms = None
        return self.exited

    # -- what came out --------------------------------------------------------------------------
    @property
    def lines(self):
        return self.serial.out

    def parsed(self):
        out = []
        for line in self.serial.out:
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append({"unparsed": line})
        return out

    @property
    def replies(self):
        return [m for m in self.parsed() if "ok" in m]

    def events(self, name=None):
        return [m for m in self.parsed() if "ev" in m and (name is None or m["ev"] == name)]
