"""The virtual board: the firmware on the MicroPython unix port behind a pseudo-terminal.

Usage::

    from rhinoref.vboard import VirtualBoard
    with VirtualBoard(flash_dir="/tmp/myboard", speed=1.0) as vb:
        print(vb.port)                  # /dev/pts/7: mpremote connect /dev/pts/7 exec "print(1)"
        vb.press("seat0")               # a button press at the next sample
        vb.wait_output(b">>> ", timeout=5)
        vb.frame                        # the last LED frame (GRB bytes) the firmware wrote

Pieces (docs/virtual-board.md has the whole story):

* one MicroPython process per boot (``mpy/vboot.py``), with a Pico-sized heap; its stdin and
  stdout are pipes to this object, its simulated hardware talks over a socket pair;
* the serial bridge: a pty in raw mode whose slave is the port. Bytes from the port go to the
  process's stdin, except the interrupt character (Ctrl-C) while code runs: that becomes a
  KeyboardInterrupt at the program's next sample fetch (a SIGINT if it fetches nothing), as
  the Pico's USB stack raises one between bytecodes. Output "\\n" becomes
  "\\r\\n", as the Pico's stdout does; nobody reading the port loses output, as on USB;
* the table feed: the simulated table's samples and button presses, in simulated time;
* resets: a soft reset (Ctrl-D, machine.soft_reset, sys.exit) or a hard one (machine.reset,
  watchdog) ends the process; the next one starts with the same flash image, the clock going
  on (soft) or from 0 (hard), the port staying open.
"""

import errno
import json
import os
import pty
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty
import zlib
from pathlib import Path

from ..errors import RhinorefError
from ..mpy import MICROPYTHON_MISSING, micropython_binary, mpy_cross_binary, word_bits
from .feed import IdleTable, TableFeed

MPY_DIR = Path(__file__).resolve().parent / "mpy"
FLASH_BLOCKS = 352  # 1408 KB, the Pico's MicroPython filesystem
FLASH_FILE = "flash.img"
PICO_HEAP_KB = 192
# A Pico's heap in the units of the MicroPython build that runs the virtual board. Objects on
# the 64-bit unix port are made of 8-byte words: the whole firmware deployed as .mpy files
# holds 1.32-1.36 times the heap it holds on a 32-bit build (124.8 / 94.4 KB after boot,
# 141.8 / 104.5 KB during a game; bench_firmware_resources.py on both, session 44). With a
# Pico's 192 KB in 64-bit units the firmware as files had a few KB left once the commands, a
# calibration or the self-test were loaded, and ran out of memory in tests, where a Pico
# keeps tens of KB (docs/heap.md). So it gets 192 KB times 1.3 (rounded down: still the
# stricter side); the heap's figures are measured with gc.mem_alloc, which the heap's size
# does not change, and tests/test_heap_*.py hold them to their limits.
WORD_SCALE = {32: 1.0, 64: 1.3}
# The virtual board's own modules (simulated machine/rp2/time, the REPL, buffers) live in the
# same MicroPython heap: about 73 KB on the 64-bit unix port, 50 KB on a 32-bit one. They get
# their own share on top of the firmware's.
RUNTIME_KB = 64
# The ROMFS partition of the reference build (docs/heap.md): the referee's .mpy files in flash,
# run in place. The virtual board holds it in a region of its heap that the firmware never
# shares, so the heap grows by as much.
ROMFS_KB = 128
ROMFS_FILE = "romfs.img"


def default_heap_kb(romfs_kb=ROMFS_KB, bits=32):
    """The heap a virtual board gets: a Pico's for the firmware (in the units of a ``bits``-bit
    build), the virtual board's own share and its ROMFS partition."""
    return int(PICO_HEAP_KB * WORD_SCALE.get(bits, 1.0)) + RUNTIME_KB + romfs_kb


CAP = 64  # records per batch; must match vb_hw.CAP
_REC = 8  # int64 fields per record; must match vb_hw._REC
_REPLY_S = 16 + CAP * _REC * 8
# The reply to a sample fetch that carries a Ctrl-C instead of samples (vb_hw._took_batch).
INTERRUPTED_REPLY = struct.pack("<q", -1) + bytes(_REPLY_S - 8)
CTRL_C_GRACE = 0.5  # s a Ctrl-C waits for a sample fetch before it becomes a SIGINT


def _pins():
    try:
        from ..firmware import fw

        return fw("pins")
    except ImportError:
        return None


class VirtualBoard:
    """A Raspberry Pi Pico running the firmware, simulated. See the module docstring.

    flash_dir: folder holding the flash image (``flash.img``, made on first use); None for a
        temporary one removed on stop().
    speed: simulated seconds per real second; 0 = as fast as the firmware runs (tests).
    table: the simulated table (``rhinoref.table.Table``-like: ``next_sample()``, ``press()``);
        None for an idle one.
    driver: called with the table time before each sample is used (bots acting on the table).
    accel: whether the MPU-6050 is on the I2C bus.
    tilt_pin: the GPIO a ball tilt switch is wired to (the firmware finds it there when its
        pin map says so: ``pins.TILT_SWITCH``), driven by the table's switch
        (``Table(tilt_mg=)``: two edges when its ball rolled); None for none.
    hx711: False for a dead HX711 (no conversion ever comes: DOUT never goes low).
    heap_kb: the MicroPython heap; None for the default (``default_heap_kb``): a Pico's 192
        KB for the firmware, in the units of the build's word size, plus the board's own
        runtime modules and the ROMFS partition, see docs/virtual-board.md.
    romfs_kb: size of the ROMFS partition (``romfs.img`` beside the flash image), as a Pico
        whose MicroPython was built with one; 0 for none, as the stock builds.
    heap_probe: every this many sample batches (64 samples each), the board collects garbage
        and reports ``gc.mem_alloc()`` into ``heap_marks``, while the firmware runs; 0: never.
    """

    def __init__(self, flash_dir=None, speed=1.0, table=None, driver=None, accel=True,
                 sps=80, seed=1, heap_kb=None, log=None, on_frame=None, on_line=None,
                 hx711=True, romfs_kb=ROMFS_KB, heap_probe=0, tilt_pin=None):
        exe = micropython_binary()
        if exe is None:
            raise RhinorefError(MICROPYTHON_MISSING)
        self._exe = exe
        self._tmp = None
        if flash_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="rhinoref-vboard-")
            flash_dir = self._tmp.name
        self.flash_dir = Path(flash_dir)
        self.speed = float(speed)
        self.accel = accel
        self.tilt_pin = tilt_pin
        self.hx711 = hx711
        self.romfs_kb = romfs_kb
        self.heap_probe = heap_probe
        self.heap_marks = []  # (t_us, gc.mem_alloc() after gc.collect()) while the firmware runs
        self._probing = False  # the board is collecting for the heap probe: interrupts wait
        self._ctrl_c_at = None  # monotonic time of a Ctrl-C not yet delivered (None: none)
        self.heap_kb = heap_kb or default_heap_kb(romfs_kb, word_bits(exe))
        self.log = log or (lambda msg: None)
        self.on_frame = on_frame
        self.on_line = on_line
        pins = _pins()
        self.pins = pins
        buttons = dict(pins.BUTTONS) if pins is not None else {}
        self.table = table if table is not None else IdleTable(seed=seed, sps=sps, accel=accel)
        self.feed = TableFeed(self.table, buttons, driver=driver, log=self.log)
        self.port = None
        # what the firmware did, for tests and renderers
        self.frame = b""
        self.frame_t_us = 0
        self.frames = 0
        self.pwm = []
        self.boots = []  # (cause, mode) per process started
        self.output = bytearray()  # everything the board printed (bounded)
        self.lines = []  # complete output lines (bounded)
        self.dropped = 0  # output bytes nobody read
        self._lock = threading.Condition()
        self._proc = None
        self._thread = None
        self._stop = False
        self._intr = -1
        self._sigint_at = 0.0
        self._now_us = 0
        self._to_child = bytearray()
        self._cooked_cr = False
        self._line = bytearray()
        self._next = ("power", "friendly")
        self._pending_exit = None
        self._mpy_path = None
        self._crash_at = 0.0
        self._crash_delay = 0.1

    # -- life cycle ---------------------------------------------------------------------------
    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        self.flash_dir.mkdir(parents=True, exist_ok=True)
        img = self.flash_dir / FLASH_FILE
        if not img.exists() or img.stat().st_size != FLASH_BLOCKS * 4096:
            img.write_bytes(b"\xff" * (FLASH_BLOCKS * 4096))
        rom = self.flash_dir / ROMFS_FILE
        if self.romfs_kb and (not rom.exists() or rom.stat().st_size != self.romfs_kb * 1024):
            rom.write_bytes(b"\xff" * (self.romfs_kb * 1024))
        self._mpy_path = self._compile_runtime()
        master, slave = pty.openpty()
        tty.setraw(slave)
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        os.set_blocking(master, False)
        self._master = master
        self._slave = slave  # held open so the port never hangs up between clients
        self.port = os.ttyname(slave)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(master, selectors.EVENT_READ, "pty")
        self._sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        self.feed.power_on()
        self._spawn()
        self._thread = threading.Thread(target=self._run, name="vboard", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._thread is None:
            return
        self._stop = True
        os.write(self._wake_w, b"x")
        self._thread.join(10)
        self._thread = None
        self._kill()
        for fd in (self._master, self._slave, self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def _compile_runtime(self):
        # Precompiled runtime modules load faster and leave no compiler garbage in the heap.
        cache = Path(tempfile.mkdtemp(prefix="rhinoref-vbmpy-"))
        self._cache = cache
        cross = mpy_cross_binary()
        for src in MPY_DIR.glob("vb_*.py"):
            out = cache / (src.stem + ".mpy")
            ok = False
            if cross:
                r = subprocess.run([cross, "-o", str(out), "-s", src.name, str(src)],
                                   capture_output=True)
                ok = r.returncode == 0
            if not ok:
                (cache / src.name).write_bytes(src.read_bytes())
        (cache / "vboot.py").write_bytes((MPY_DIR / "vboot.py").read_bytes())
        return cache

    def _spawn(self):
        cause, mode = self._next
        if cause in ("power", "hard", "wdt"):
            self._now_us = 0
            if cause != "power":
                self.feed.power_on()
        parent, child = socket.socketpair()
        env = {k: v for k, v in os.environ.items() if not k.startswith("MICROPY")}
        self._proc = subprocess.Popen(
            [self._exe, "-X", "heapsize=%dk" % self.heap_kb, str(self._mpy_path / "vboot.py"),
             str(child.fileno())],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            pass_fds=(child.fileno(),), cwd=str(self._mpy_path), env=env,
            start_new_session=True,
        )
        child.close()
        self._ctl = parent
        self._ctl_buf = bytearray()
        self._cfg = self._config(cause, mode)
        os.set_blocking(self._proc.stdin.fileno(), False)
        os.set_blocking(self._proc.stdout.fileno(), False)
        self._sel.register(self._proc.stdout, selectors.EVENT_READ, "out")
        self._sel.register(parent, selectors.EVENT_READ, "ctl")
        self._intr = -1
        self._probing = False
        self._ctrl_c_at = None
        self._pending_exit = None
        with self._lock:
            self.boots.append((cause, mode))
            self._lock.notify_all()

    def _config(self, cause, mode):
        p = self.pins
        seed_id = zlib.crc32(str(self.flash_dir).encode()).to_bytes(4, "little")
        return {
            "speed": self.speed,
            "now_us": self._now_us,
            "boot": cause,
            "mode": mode,
            "flash": str(self.flash_dir / FLASH_FILE),
            "flash_blocks": FLASH_BLOCKS,
            "romfs": str(self.flash_dir / ROMFS_FILE),
            "romfs_bytes": self.romfs_kb * 1024,
            "heap_probe": self.heap_probe,
            # a dead HX711: no state machine reads its DOUT (no pin -2), so none gets a conversion
            "hx711_dout": (p.HX711_DOUT if p else 2) if self.hx711 else -2,
            "hx711_sck": p.HX711_SCK if p else 3,
            "i2c": [p.I2C_ID, p.I2C_SDA, p.I2C_SCL] if p else [0, 4, 5],
            "accel_addr": (getattr(p, "ACCEL_ADDR", 0x68) if p else 0x68) if self.accel else None,
            "led_pin": p.LED_DATA if p else 22,
            "tilt_pin": -1 if self.tilt_pin is None else self.tilt_pin,
            "unique_id": (b"\xe6\x61\x38\x52" + seed_id).hex(),
            "accel_now": list(self.feed.accel_now()),
        }

    def _kill(self):
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for f in (proc.stdout,):
            try:
                self._sel.unregister(f)
            except (KeyError, ValueError):
                pass
        try:
            self._sel.unregister(self._ctl)
        except (KeyError, ValueError):
            pass
        # Whatever the process printed before it ended still goes out, in order.
        try:
            rest = proc.stdout.read()
        except (OSError, ValueError):
            rest = None
        if rest:
            self._from_child(rest)
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self._ctl.close()
        self._proc = None
        self._to_child = bytearray()

    # -- the loop -----------------------------------------------------------------------------
    def _run(self):
        try:
            while not self._stop:
                want_pty = len(self._to_child) < 65536
                self._set_interest(self._master, want_pty, "pty")
                if self._to_child and self._proc is not None and self._ctrl_c_at is None:
                    self._set_interest(self._proc.stdin, True, "in", selectors.EVENT_WRITE)
                elif self._proc is not None:
                    self._set_interest(self._proc.stdin, False, "in", selectors.EVENT_WRITE)
                wait = 0.5 if self._ctrl_c_at is None else 0.05
                for key, _ in self._sel.select(wait):
                    what = key.data
                    if what == "pty":
                        self._from_port()
                    elif what == "out":
                        self._read_child_out()
                    elif what == "ctl":
                        self._read_ctl()
                    elif what == "in":
                        self._write_child()
                    elif what == "wake":
                        try:
                            os.read(self._wake_r, 64)
                        except BlockingIOError:
                            pass
                if self._proc is not None and self._proc.poll() is not None and \
                        self._pending_exit is None:
                    self._crashed()
                self._late_interrupt()
        except Exception as err:  # never die silently: the port would just hang
            self.log("vboard: internal error: %r" % (err,))
            raise

    def _set_interest(self, fileobj, on, tag, ev=selectors.EVENT_READ):
        try:
            key = self._sel.get_key(fileobj)
        except (KeyError, ValueError):
            key = None
        if on and key is None:
            self._sel.register(fileobj, ev, tag)
        elif not on and key is not None:
            self._sel.unregister(fileobj)

    def _crashed(self):
        code = self._proc.returncode
        self._drain_child_out()
        self.log("vboard: MicroPython ended unexpectedly (exit %s): hard reset" % code)
        self._kill()
        self._next = ("hard", "friendly")
        # A firmware that crashes the runtime at once must not spin: back off up to 5 s.
        now = time.monotonic()
        self._crash_delay = min(5.0, self._crash_delay * 2) if now - self._crash_at < 10 else 0.1
        self._crash_at = now
        time.sleep(self._crash_delay)
        self._spawn()

    # port -> child
    def _from_port(self):
        try:
            data = os.read(self._master, 4096)
        except (BlockingIOError, OSError):
            return
        if not data:
            return
        intr = self._intr
        if intr >= 0 and bytes((intr,)) in data:
            for b in data:
                if b == intr and self._intr >= 0:
                    self._interrupt()
                else:
                    self._to_child.append(b)
        else:
            self._to_child += data
        self._write_child()

    def _interrupt(self):
        # A Pico checks for Ctrl-C between bytecodes. The unix port's SIGINT handler instead
        # raises KeyboardInterrupt wherever the C code is: inside gc.collect() or an
        # allocation it locks the heap for good or crashes the process. So the interrupt is
        # first handed over at a safe point: the board's next sample fetch gets an
        # "interrupted" reply and raises it there (vb_hw._took_batch). Only code that fetches
        # nothing for CTRL_C_GRACE s (a busy loop typed at the REPL) gets a SIGINT.
        if self._ctrl_c_at is None:
            self._ctrl_c_at = time.monotonic()

    def _late_interrupt(self):
        """SIGINT for a Ctrl-C that no sample fetch took within CTRL_C_GRACE s."""
        if self._ctrl_c_at is None or self._proc is None or self._probing:
            return  # the heap probe's own collection: the interrupt waits for its answer
        now = time.monotonic()
        if now - self._ctrl_c_at < CTRL_C_GRACE:
            return
        self._ctrl_c_at = None
        # One SIGINT at a time: the unix port exits on a second one before the first is seen.
        if now - self._sigint_at < 0.2:
            return
        self._sigint_at = now
        try:
            self._proc.send_signal(signal.SIGINT)
        except ProcessLookupError:
            pass

    def _write_child(self):
        # What follows a Ctrl-C waits until the interrupt is delivered: on a Pico the code
        # that runs after it (the REPL) reads those bytes, never the program it stopped.
        if not self._to_child or self._proc is None or self._ctrl_c_at is not None:
            return
        try:
            n = os.write(self._proc.stdin.fileno(), self._to_child)
        except BlockingIOError:
            return
        except (BrokenPipeError, OSError):
            self._to_child = bytearray()
            return
        del self._to_child[:n]

    # child -> port
    def _read_child_out(self):
        try:
            data = os.read(self._proc.stdout.fileno(), 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            try:
                self._sel.unregister(self._proc.stdout)
            except (KeyError, ValueError):
                pass
            return
        self._from_child(data)

    def _drain_child_out(self):
        if self._proc is None:
            return
        while True:
            try:
                data = os.read(self._proc.stdout.fileno(), 65536)
            except (BlockingIOError, OSError, ValueError):
                return
            if not data:
                return
            self._from_child(data)

    def _from_child(self, data):
        # The Pico's stdout turns "\n" into "\r\n"; keep an existing "\r\n" as it is.
        cooked = bytearray()
        cr = self._cooked_cr
        for b in data:
            if b == 10 and not cr:
                cooked += b"\r\n"
            else:
                cooked.append(b)
            cr = b == 13
        self._cooked_cr = cr
        self._to_port(bytes(cooked))
        with self._lock:
            self.output += cooked
            if len(self.output) > 1_000_000:
                del self.output[:500_000]
            for b in cooked:
                if b == 10:
                    line = bytes(self._line).rstrip(b"\r")
                    self._line = bytearray()
                    self.lines.append(line)
                    if len(self.lines) > 20000:
                        del self.lines[:10000]
                    if self.on_line is not None:
                        self.on_line(line)
                elif len(self._line) < 4096:
                    self._line.append(b)
            self._lock.notify_all()

    def _to_port(self, data):
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._master, view)
            except BlockingIOError:
                # Nobody reads the port: drop what waits unread, as USB output is dropped
                # when no program has the port open, then try once more.
                termios.tcflush(self._slave, termios.TCIFLUSH)
                try:
                    n = os.write(self._master, view)
                except BlockingIOError:
                    self.dropped += len(view)
                    return
            except OSError:
                self.dropped += len(view)
                return
            view = view[n:]

    # control messages
    def _read_ctl(self):
        try:
            data = self._ctl.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            try:
                self._sel.unregister(self._ctl)
            except (KeyError, ValueError):
                pass
            if self._pending_exit is None and self._proc is not None:
                self._proc.wait()
                self._crashed()
            return
        ctl = self._ctl
        buf = self._ctl_buf
        buf += data
        while len(buf) >= 4 and self._ctl is ctl:
            n = buf[1] | buf[2] << 8 | buf[3] << 16
            if len(buf) < 4 + n:
                break
            kind = chr(buf[0])
            payload = bytes(buf[4:4 + n])
            del buf[:4 + n]
            self._message(kind, payload)

    def _reply(self, data):
        try:
            self._ctl.sendall(data)
        except OSError:
            pass  # MicroPython is gone (a power cut): the loop sees it and boots it again

    def _message(self, kind, payload):
        if kind == "m":  # the heap probe starts collecting (vb_hw._probe_heap)
            self._probing = True
            self._reply((0).to_bytes(8, "little"))
            return
        self._probing = False  # "M", or anything else if an interrupt beat the probe's start
        if kind == "S":
            # The board printed before it asked: its event lines are read first, so that
            # whoever drives the table (bots) sees them before choosing what comes next.
            self._drain_child_out()
            if self._ctrl_c_at is not None:  # a count of -1: "Ctrl-C", nothing consumed
                self._ctrl_c_at = None
                self._reply(INTERRUPTED_REPLY)
                return
            t_until, min_count = struct.unpack("<qq", payload)
            self._now_us = max(self._now_us, t_until)
            recs, horizon = self.feed.records(t_until, min_count, self.speed <= 0, CAP)
            out = bytearray(_REPLY_S)
            struct.pack_into("<qq", out, 0, len(recs), horizon)
            flat = [v for r in recs for v in r]
            struct.pack_into("<%dq" % len(flat), out, 16, *flat)
            self._reply(out)
        elif kind == "L":
            t_us, pin = struct.unpack_from("<qB", payload)
            frame = payload[9:]
            self._now_us = max(self._now_us, t_us)
            with self._lock:
                if pin == self._cfg["led_pin"]:
                    self.frame = frame
                    self.frame_t_us = t_us
                    self.frames += 1
                    self._lock.notify_all()
            if self.on_frame is not None:
                self.on_frame(t_us, pin, frame)
        elif kind == "M":
            self.heap_marks.append((self._now_us, int.from_bytes(payload, "little")))
        elif kind == "I":
            self._intr = int(payload)
            if self._intr < 0:  # the code ended first: as on a Pico, the Ctrl-C is dropped
                self._ctrl_c_at = None
            self._reply((0).to_bytes(8, "little"))
        elif kind == "P":
            self.pwm.append(tuple(int(x) for x in payload.split()))
            del self.pwm[:-1000]
        elif kind == "H":
            body = json.dumps(self._cfg).encode()
            n = len(body)
            self._reply(bytes((ord("h"), n & 255, (n >> 8) & 255, n >> 16)) + body)
        elif kind == "Z":
            how, mode, now = payload.decode().split()
            self._pending_exit = how
            self._now_us = int(now)
            self._drain_child_out()
            self._kill()
            if how == "wdt":
                self.log("vboard: watchdog reset")
            self._next = (how, mode if how == "soft" else "friendly")
            self._spawn()

    # -- for tests and tools ------------------------------------------------------------------
    def press(self, name):
        """Press a button ("seat0".."seat4", "reverse", ..., "menu", "menu_long") at the next
        sample the board reads."""
        self.feed.press(name)

    def wait_output(self, needle, timeout=10.0, start=0):
        """Wait until the board has printed ``needle`` (bytes) after offset ``start`` of
        ``output``; returns the offset just past it."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                i = self.output.find(needle, start)
                if i >= 0:
                    return i + len(needle)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("virtual board did not print %r within %.1f s; last: %r"
                                       % (needle, timeout, bytes(self.output[-300:])))
                self._lock.wait(left)

    def wait(self, predicate, timeout=10.0):
        """Wait until predicate(self) is true (checked whenever the board prints or lights)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("virtual board: condition not met within %.1f s" % timeout)
                self._lock.wait(min(left, 0.2))
        return True
