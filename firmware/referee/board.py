"""The one board module: builds the hardware from ``referee.pins`` and runs the referee loop.

Usage (this is what ``main.py`` does)::

    from referee import board
    board.main()                 # build the hardware, Referee(root="/data"), loop until Ctrl-C

    hw = board.Hardware()        # or step by step (tests, the REPL)
    ref = board.make_referee(hw)
    board.run(ref, hw)

Wiring comes only from ``referee.pins`` (generated from ``hardware/pinmap.json``): the HX711 on
a PIO state machine (GPIO bit-bang where the port has no ``rp2``), the accelerometer found by
``accel.probe`` (degraded mode without one), the WS2812B strip via ``neopixel``, every button
as ``Pin.IN, Pin.PULL_UP``, the optional piezo on PWM.

The loop, each pass: read the HX711 without waiting (``read_nowait``) and, when a sample came,
the accelerometer into a buffer made once, then ``ref.sample``; else ``ref.tick``. Poll the
buttons (debounced in ``referee.buttons``), read waiting serial bytes into the protocol's fixed
512-byte line buffer (``select.poll`` on stdin: never blocks), answer each command line with
exactly one reply, print event lines, write the LED frame when it changed, and beat the
watchdog. When nothing was waiting it sleeps in ``poll`` for at most 2 ms.

Ctrl-C raises KeyboardInterrupt here (MicroPython's kbd_intr, never disabled): the ``finally``
turns the LEDs and buzzer off, stops the watchdog timer and lets the interrupt reach the REPL,
so mpremote and Thonny connect as to any MicroPython board.

Watchdog: a soft ``machine.Timer`` checks every second that the loop is still turning and
resets the board when it stopped for ``pins.WDT_MS``. The RP2's hardware WDT cannot be
stopped once started, so by default it is NOT used: after Ctrl-C, or a raw-REPL soft reset by
mpremote (which does not run main.py again), it would reset the board under the tool. A box
that never meets a laptop can opt in with the option ``{"hw_watchdog": true}``; then hold the
menu button at power-on (safe mode) to connect tools.

HX711 faults: no new reading for 1 s (1.5 s at 10 SPS) means the sensor is lost:
``ref.fault("hx711", True)`` shows the fault cue, nothing is fed to the detector (so no false
collapse), and the driver is restarted with back-off (0.5 s doubling to 30 s). The first good
sample ends the fault. A reading equal to the one before is not new: a real HX711 never
repeats its count (its noise is tens of counts), so repeats are a converter stuck at one value
(DOUT held low reads 0 every time) or saturated, and they are not fed (a stuck value would look
like a step). A reading with its low 12 bits all ones that jumps 2 g or more away from the
last good one is the datasheet's spike (2**n - 1, or the low n bits set): not fed either. Lone
spikes are ordinary; spikes back to back twice within 2 s show the fault cue as
``"hx711_spikes"`` until 5 s pass without such a burst.
"""

import gc
import select
import sys
import time
from array import array

import machine
from machine import Pin

from referee import buttons, pins, protocol

try:
    from micropython import const
except ImportError:  # CPython (the tests' fake machine)

    def const(x):
        return x


DATA = "/data"
_STALE_MS = const(1000)  # no HX711 sample for this long (at 80 SPS) is a fault
_BACKOFF_MIN_MS = const(500)
_BACKOFF_MAX_MS = const(30000)
_IDLE_WAIT_MS = const(2)  # sleep in poll() when nothing was waiting
_BUTTON_EVERY_MS = const(4)  # poll the buttons at most this often
_SERIAL_BYTES = const(64)  # bytes taken from the serial port per pass (keeps the loop turning)
_ACCEL_RETRY_MS = const(10000)
_SPIKE_MASK = const(0xFFF)  # a reading with these bits all ones, far from the last one, is a spike
_SPIKE_JUMP = const(4096)  # counts (~2 g): a level that happens to sit on such a value is no spike
_SPIKES = const(2)  # back-to-back spikes within _SPIKE_WINDOW_MS that show the fault cue
_SPIKE_WINDOW_MS = const(2000)
_SPIKE_CLEAR_MS = const(5000)
_ERROR_EVERY_MS = const(1000)  # survived exceptions are reported at most this often
# event name prefix -> (frequency Hz, duration ms) for the optional piezo
_BEEPS = (
    ('{"ev": "result"', 880, 400),
    ('{"ev": "collapse"', 131, 500),
    ('{"ev": "refused"', 220, 150),
    ('{"ev": "fault"', 330, 300),
)


class Hardware:
    """Every part of the board, built from ``referee.pins``. ``problems`` lists what failed."""

    def __init__(self):
        self.problems = []
        self.hx = self._hx711()
        self.acc = self._accel()
        self.np = self._leds()
        self.button_pins = [Pin(g, Pin.IN, Pin.PULL_UP) for _name, g in pins.BUTTONS]
        self.buttons = buttons.Buttons([n for n, _g in pins.BUTTONS],
                                       active_low=pins.BUTTONS_ACTIVE_LOW)
        self.pwm = self._buzzer()
        self._beep_off = 0

    def _hx711(self):
        from referee import hx711

        dout = Pin(pins.HX711_DOUT, Pin.IN)
        sck = Pin(pins.HX711_SCK, Pin.OUT, value=0)
        try:
            return hx711.HX711PIO(pins.HX711_SM, dout, sck, gain=pins.HX711_GAIN)
        except ImportError:  # no rp2 on this port: bit-bang the same chip
            return hx711.HX711GPIO(dout, sck, gain=pins.HX711_GAIN)
        except (OSError, ValueError) as err:
            self.problems.append("HX711: %s" % err)
            return hx711.HX711GPIO(dout, sck, gain=pins.HX711_GAIN)

    def _accel(self):
        from referee import accel

        i2c = None
        try:
            i2c = machine.I2C(pins.I2C_ID, sda=Pin(pins.I2C_SDA), scl=Pin(pins.I2C_SCL),
                              freq=pins.I2C_FREQ)
        except (OSError, ValueError) as err:
            self.problems.append("I2C: %s" % err)
        tilt = None
        if getattr(pins, "TILT_SWITCH", None) is not None:
            tilt = Pin(pins.TILT_SWITCH, Pin.IN, Pin.PULL_UP)
        acc = accel.probe(i2c, tilt)
        if acc.name == "none":
            self.problems.append("accelerometer: %s" % getattr(acc, "reason", "none"))
        self.i2c = i2c
        return acc

    def _leds(self):
        try:
            import neopixel

            return neopixel.NeoPixel(Pin(pins.LED_DATA, Pin.OUT), pins.LED_COUNT)
        except (ImportError, OSError, ValueError) as err:
            self.problems.append("LEDs: %s" % err)
            return None

    def _buzzer(self):
        if getattr(pins, "BUZZER", None) is None:
            return None
        try:
            pwm = machine.PWM(Pin(pins.BUZZER))
            pwm.duty_u16(0)
            return pwm
        except (AttributeError, OSError, ValueError):
            return None

    def show(self, frame):
        """Write a GRB frame (3 bytes per LED) to the strip."""
        np = self.np
        if np is None:
            return
        buf = getattr(np, "buf", None)
        if buf is not None and len(buf) == len(frame):
            buf[:] = frame  # neopixel's own GRB buffer: no per-pixel work
        else:
            for i in range(len(frame) // 3):
                np[i] = (frame[3 * i + 1], frame[3 * i], frame[3 * i + 2])
        np.write()

    def beep(self, t, hz, ms):
        if self.pwm is None:
            return
        self.pwm.freq(hz)
        self.pwm.duty_u16(16384)
        self._beep_off = t + ms

    def quiet(self, t):
        if self._beep_off and t >= self._beep_off and self.pwm is not None:
            self.pwm.duty_u16(0)
            self._beep_off = 0

    def off(self):
        """LEDs and buzzer off (on the way out: Ctrl-C, errors)."""
        if self.np is not None:
            self.show(bytearray(3 * pins.LED_COUNT))
        if self.pwm is not None:
            self.pwm.duty_u16(0)


def make_referee(hw, root=DATA):
    from referee.app import Referee

    from referee.detector import TILT

    # (a ball tilt switch is no accelerometer: the detector has a mode of its own for it)
    ref = Referee(root=root, sps=pins.HX711_SPS,
                  accel=TILT if hw.acc.name == "tilt" else hw.acc.name != "none",
                  leds_per_seat=pins.LEDS_PER_SEAT)
    ref.accel_part = hw.acc.name  # the trace metadata names the part
    for p in hw.problems:
        ref.problems.append(p)
    # what was found, for the self-test's report (a tilt switch standing in is no accelerometer)
    ref.parts = {"accel": hw.acc.name, "accel_why": getattr(hw.acc, "reason", None)}
    if hw.acc.name == "none":
        ref._emit("fault", {"sensor": "accel", "on": True, "message": "degraded mode: %s"
                            % getattr(hw.acc, "reason", "no accelerometer")})
    return ref


class _Watchdog:
    """Resets the board when the loop stops turning (soft Timer; hardware WDT on request)."""

    def __init__(self, ms, hardware):
        self.ms = ms
        self.beat = time.ticks_ms()
        self.timer = None
        self.wdt = None
        if hardware:
            try:
                self.wdt = machine.WDT(timeout=ms)
            except (AttributeError, ValueError, OSError):
                self.wdt = None
        timer = getattr(machine, "Timer", None)
        if timer is not None:
            try:
                self.timer = timer(-1, period=1000, callback=self._check)
            except (TypeError, ValueError, OSError):
                try:
                    self.timer = timer(period=1000, callback=self._check)
                except (TypeError, ValueError, OSError):
                    self.timer = None

    def _check(self, _timer):
        if time.ticks_diff(time.ticks_ms(), self.beat) > self.ms:
            machine.reset()

    def feed(self):
        self.beat = time.ticks_ms()
        if self.wdt is not None:
            self.wdt.feed()

    def stop(self):
        if self.timer is not None:
            self.timer.deinit()
            self.timer = None


def _write(line):
    sys.stdout.write(line)
    sys.stdout.write("\n")


_last_error = [-_ERROR_EVERY_MS, 0]  # when the last error was reported, how many since


_OOM_REPLY = ('{"ok": false, "error": "out of memory: no reply could be made; ask for status '
              'to see whether the command was carried out"}')


def _answer(ref, t, reader):
    """The one reply to a command line, even when the heap runs short or a bug raises: the
    host counts on exactly one reply per line (SPEC 3.3)."""
    try:
        return ref.command(t, reader.take())
    except MemoryError:
        reader.n = 0
        gc.collect()
        return _OOM_REPLY  # made at import: needs no heap now
    except Exception as err:
        reader.n = 0
        return protocol.error("internal error: %s" % type(err).__name__)


def _error(t, message):
    """Report an exception the loop survived (an event line, at most one a second, with the
    number of others since); the loop goes on."""
    last = _last_error
    if t - last[0] < _ERROR_EVERY_MS:
        last[1] += 1
        return
    try:
        _write(protocol.event("error", {"message": message, "more": last[1]}))
    except Exception:
        pass
    last[0] = t
    last[1] = 0


def run(ref, hw):
    """The board loop (see the module docstring). Returns only by an exception."""
    hx = hw.hx
    acc = hw.acc
    xyz = array("h", (0, 0, 0))
    has_accel = acc.name != "none"
    names = hw.buttons
    bpins = hw.button_pins
    nbtn = len(bpins)
    reader = protocol.LineReader()
    byte = bytearray(1)
    stdin = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    stale_ms = _STALE_MS if ref.sps >= 40 else 3 * _STALE_MS // 2
    dog = _Watchdog(pins.WDT_MS, bool(getattr(ref, "hw_watchdog", False)))
    t = 0
    last = time.ticks_ms()
    last_sample = 0
    last_raw = None
    good_raw = None  # the last reading fed
    after_spike = False
    spikes = 0
    spike_t0 = spike_at = 0
    spiky = False
    hx_fault = False
    backoff = _BACKOFF_MIN_MS
    retry_at = 0
    acc_fault = False
    acc_retry = 0
    btn_at = 0
    frame_ver = -1
    gc.collect()  # start the game with the boot's leftovers gone
    try:
        _write(protocol.event("hello", {"pins": pins.PINMAP_VERSION, "problems": hw.problems}))
        while True:
            try:
                now = time.ticks_ms()
                t += time.ticks_diff(now, last)
                last = now
                # -- the load cell (and the accelerometer with each sample)
                try:
                    raw = hx.read_nowait()
                except OSError:
                    raw = None
                if raw is not None:
                    # Repeats (stuck, saturated) and spikes are not fed: see the module doc.
                    prev = last_raw
                    last_raw = raw
                    if raw == prev:
                        raw = None
                    elif raw & _SPIKE_MASK == _SPIKE_MASK and good_raw is not None and \
                            (raw - good_raw > _SPIKE_JUMP or good_raw - raw > _SPIKE_JUMP):
                        raw = None
                        if after_spike:  # a burst: the converter is failing
                            if t - spike_t0 > _SPIKE_WINDOW_MS:
                                spike_t0 = t
                                spikes = 0
                            spikes += 1
                            spike_at = t
                            if spikes >= _SPIKES and not spiky:
                                spiky = True
                                ref.fault("hx711_spikes", True)
                        after_spike = True
                if spiky and t - spike_at > _SPIKE_CLEAR_MS:
                    spiky = False
                    ref.fault("hx711_spikes", False)
                if raw is not None:
                    good_raw = raw
                    after_spike = False
                    last_sample = t
                    if hx_fault:
                        hx_fault = False
                        backoff = _BACKOFF_MIN_MS
                        ref.fault("hx711", False)
                    if has_accel and not acc_fault:
                        try:
                            acc.read_into(xyz)
                        except OSError:
                            acc_fault = True
                            acc_retry = t + _ACCEL_RETRY_MS
                            xyz[0] = xyz[1] = xyz[2] = 0
                            ref.fault("accel", True)
                    elif acc_fault and t >= acc_retry:
                        try:
                            acc.read_into(xyz)
                            acc_fault = False
                            ref.fault("accel", False)
                        except OSError:
                            acc_retry = t + _ACCEL_RETRY_MS
                    ref.sample(t, raw, xyz[0], xyz[1], xyz[2])
                else:
                    if t - last_sample > stale_ms and (not hx_fault or t >= retry_at):
                        if not hx_fault:
                            hx_fault = True
                            ref.fault("hx711", True)
                        else:
                            backoff = backoff * 2 if backoff < _BACKOFF_MAX_MS else _BACKOFF_MAX_MS
                        retry_at = t + backoff
                        _restart_hx(hx)
                    ref.tick(t)
                # -- buttons
                if t - btn_at >= _BUTTON_EVERY_MS:
                    btn_at = t
                    for i in range(nbtn):
                        ev = names.update(t, i, bpins[i].value())
                        if ev is not None:
                            ref.press(t, ev)
                # -- serial commands
                waiting = poller.poll(0)
                if waiting:
                    for _ in range(_SERIAL_BYTES):
                        if not poller.poll(0):
                            break
                        if not stdin.readinto(byte):
                            break
                        st = reader.feed(byte[0])
                        if st == protocol.LINE:
                            _write(_answer(ref, t, reader))
                        elif st == protocol.OVERSIZE:
                            _write(protocol.error("line too long: the limit is %d bytes"
                                                  % protocol.MAX_LINE))
                # -- events, lights, sound
                events = ref.pop_events()
                if events:
                    for line in events:
                        _write(line)
                        if hw.pwm is not None:
                            for prefix, hz, ms in _BEEPS:
                                if line.startswith(prefix):
                                    hw.beep(t, hz, ms)
                hw.quiet(t)
                frame = ref.frame
                if ref.frame_version != frame_ver:
                    frame_ver = ref.frame_version
                    hw.show(frame)
                dog.feed()
                if raw is None and not waiting:
                    poller.poll(_IDLE_WAIT_MS)  # nothing to do: wait for serial or time
            except MemoryError:
                # Never let a passing shortage of heap end the referee: free what can be
                # freed and go on (the command or event that needed it is lost).
                gc.collect()
                _error(t, "out of memory")
            except Exception as err:  # a bug must not stop the game; Ctrl-C is not caught
                _error(t, "%s: %s" % (type(err).__name__, err))

    finally:
        dog.stop()
        hw.off()


def _restart_hx(hx):
    """Power-cycle the HX711 (restarts its PIO program); errors are retried later."""
    try:
        hx.power_down()
        hx.power_up()
    except (OSError, AttributeError):
        pass


def main():
    """Load every module, then build the hardware and the referee, and run."""
    _load()
    hw = Hardware()
    ref = make_referee(hw)
    run(ref, hw)


def _load():
    """Import the game's code first, while the heap is still in one piece: code and its strings
    stay for good, and loading them between the referee's many small objects would leave the
    heap in fragments too small for the next module (seen on the virtual board: 60 KB free
    but no block of 3 KB). The serial commands (9 KB on the 64-bit port) are not loaded: a
    board without a host never uses them, and ``Referee.command`` loads them with the first
    command line (collecting and retrying once); with the game's code alone there is room.
    The drivers' parts are not loaded here either: ``Hardware`` imports the one HX711 back end
    and the one accelerometer it finds (``hx711.HX711PIO``, ``accel.probe``), nothing else."""
    gc.collect()
    from referee import app, detector, hx711, accel  # noqa: F401
    gc.collect()
