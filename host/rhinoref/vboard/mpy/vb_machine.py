# Simulated `machine` module of the virtual board (a Raspberry Pi Pico, RP2040), installed as
# sys.modules["machine"] before the firmware runs. Backed by vb_hw (simulated time, the host's
# simulated table). Usage is the Pico's:
#
#     from machine import Pin, I2C, WDT
#     b = Pin(6, Pin.IN, Pin.PULL_UP); b.value()          # 1, 0 while the seat button is held
#     i2c = I2C(0, sda=Pin(4), scl=Pin(5), freq=400_000); i2c.scan()   # [104]: the MPU-6050
#
# What is modelled: GPIO levels (outputs, pulls, buttons pressed from the host, edge IRQs),
# an MPU-6050 on the I2C bus and pins the host configures (register model: WHO_AM_I,
# PWR_MGMT_1 sleep bit, ACCEL_CONFIG range, burst reads of the data registers), the watchdog
# (a missed feed resets the board, also at the REPL: the RP2040's watchdog cannot be stopped),
# PWM (reported to the host: the buzzer), soft timers, resets, unique_id, freq, irq masking.
# What is not: UART, SPI, ADC channels other than the temperature sensor, pin drive strength.

import vb_hw
from micropython import const

PWRON_RESET = const(1)
WDT_RESET = const(3)
_reset_cause = PWRON_RESET
_freq = 125000000


def _boot(cause):
    global _reset_cause
    _reset_cause = WDT_RESET if cause == "wdt" else PWRON_RESET


def reset_cause():
    return _reset_cause


def reset():
    vb_hw.exit_board("hard")


def soft_reset():
    # As on the board: unwinds to the REPL, which soft-resets on SystemExit.
    raise SystemExit


def bootloader(*args):
    # A real Pico would turn into a USB drive; the virtual one just restarts.
    vb_hw.exit_board("hard")


def deepsleep(ms=0):
    vb_hw.exit_board("hard")


def lightsleep(ms=-1):
    vb_hw.wait_event(ms * 1000 if ms >= 0 else -1)


def idle():
    vb_hw.wait_event(1000)


def unique_id():
    return bytes(vb_hw.unique)


def freq(hz=None):
    global _freq
    if hz is None:
        return _freq
    if not 10000000 <= hz <= 250000000:
        raise ValueError("cannot change frequency")
    _freq = hz


def disable_irq():
    was = vb_hw.irq_enabled
    vb_hw.irq_enabled = False
    return 1 if was else 0


def enable_irq(state=1):
    if state:
        vb_hw.irq_enabled = True
        vb_hw.run_irq_backlog()


def time_pulse_us(pin, level, timeout_us=1000000):
    return -1


def bitstream(pin, encoding, timing, buf):
    # WS2812 data as the RP2040 would clock it out: the host gets the bytes.
    vb_hw.led_frame(pin._id, buf)


class Pin:
    IN = const(0)
    OUT = const(1)
    OPEN_DRAIN = const(2)
    ALT = const(3)
    PULL_UP = const(1)
    PULL_DOWN = const(2)
    IRQ_FALLING = const(4)
    IRQ_RISING = const(8)
    ALT_PIO0 = const(6)
    ALT_PIO1 = const(7)

    def __init__(self, id, mode=-1, pull=-1, *, value=None, drive=0, alt=-1):
        if isinstance(id, Pin):
            id = id._id
        elif isinstance(id, str):
            if id == "LED":
                id = 25
            elif id.startswith("GP") and id[2:].isdigit():
                id = int(id[2:])
            else:
                raise ValueError("unknown named pin \"%s\"" % id)
        if not 0 <= id < vb_hw.NPINS:
            raise ValueError("invalid pin")
        self._id = id
        self.init(mode, pull, value=value, alt=alt)

    def init(self, mode=-1, pull=-1, *, value=None, drive=0, alt=-1):
        g = self._id
        if value is not None:
            vb_hw.out[g] = 1 if value else 0
        if mode != -1:
            if mode not in (0, 1, 2, 3, 6, 7):
                raise ValueError("invalid pin mode")
            vb_hw.mode[g] = mode
        elif vb_hw.mode[g] == 255:
            vb_hw.mode[g] = 0
        if pull != -1:
            vb_hw.pull[g] = pull if pull is not None else 0

    def value(self, v=None):
        g = self._id
        if v is None:
            vb_hw.now_us()
            return vb_hw.level(g)
        before = vb_hw.level(g)
        vb_hw.out[g] = 1 if v else 0
        after = vb_hw.level(g)
        if before != after:
            vb_hw._edge(g, after)

    __call__ = value

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)

    high = on
    low = off

    def toggle(self):
        self.value(1 - vb_hw.out[self._id])

    def irq(self, handler=None, trigger=12, hard=False):
        g = self._id
        vb_hw.irq_handler[g] = None if handler is None else (handler, self)
        vb_hw.irq_trigger[g] = trigger
        return _PinIRQ(self)

    def mode(self, m=None):
        if m is None:
            return vb_hw.mode[self._id]
        self.init(m)

    def pull(self, p=None):
        if p is None:
            return vb_hw.pull[self._id] or None
        self.init(-1, p)

    def __repr__(self):
        m = ("IN", "OUT", "OPEN_DRAIN", "ALT")[vb_hw.mode[self._id] & 3]
        p = ("", ", pull=PULL_UP", ", pull=PULL_DOWN")[vb_hw.pull[self._id] % 3]
        return "Pin(GPIO%d, mode=%s%s)" % (self._id, m, p)


class _PinIRQ:
    def __init__(self, pin):
        self._pin = pin

    def flags(self):
        return 0

    def trigger(self, t=None):
        return vb_hw.irq_trigger[self._pin._id]


class Signal:
    def __init__(self, pin, *args, invert=False, **kw):
        self._pin = pin if isinstance(pin, Pin) else Pin(pin, *args, **kw)
        self._inv = 1 if invert else 0

    def value(self, v=None):
        if v is None:
            return self._pin.value() ^ self._inv
        self._pin.value((1 if v else 0) ^ self._inv)

    __call__ = value

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


# I2C with an MPU-6050 ----------------------------------------------------------------------------

_EIO = const(5)
_MPU_ACCEL_CONFIG = const(0x1C)
_MPU_DATA = const(0x3B)
_MPU_PWR1 = const(0x6B)
_MPU_WHO = const(0x75)
_VALID = {  # bus id: (SDA pins, SCL pins) of the RP2040
    0: ((0, 4, 8, 12, 16, 20), (1, 5, 9, 13, 17, 21)),
    1: ((2, 6, 10, 14, 18, 26), (3, 7, 11, 15, 19, 27)),
}

_regs = bytearray(128)
_regs[_MPU_PWR1] = 0x40  # reset value: asleep
_regs[_MPU_WHO] = 0x68
_ptr = [0]


def _mpu_fill():
    # Data registers from the table's latest accelerometer sample (milli-g), big-endian.
    r = _regs
    if r[_MPU_PWR1] & 0x40:
        return  # asleep: the registers keep their old values
    lsb = 16384 >> ((r[_MPU_ACCEL_CONFIG] >> 3) & 3)
    a = vb_hw.accel
    for k in range(3):
        v = a[k] * lsb // 1000
        if v > 32767:
            v = 32767
        elif v < -32768:
            v = -32768
        v &= 0xFFFF
        r[_MPU_DATA + 2 * k] = v >> 8
        r[_MPU_DATA + 2 * k + 1] = v & 255
    r[0x41] = 0xF0  # temperature about 25 C: (25 - 36.53) * 340 = -3920
    r[0x42] = 0xB0


class I2C:
    def __init__(self, id=0, *, scl=None, sda=None, freq=400000, timeout=50000):
        if id not in (0, 1):
            raise ValueError("I2C(%d) doesn't exist" % id)
        sda_g = sda._id if isinstance(sda, Pin) else (sda if sda is not None else (0, 2)[id] + 0)
        scl_g = scl._id if isinstance(scl, Pin) else (scl if scl is not None else (1, 3)[id] + 0)
        if sda_g not in _VALID[id][0] or scl_g not in _VALID[id][1]:
            raise ValueError("bad SDA/SCL pin for I2C(%d)" % id)
        self._id = id
        self._sda = sda_g
        self._scl = scl_g
        self.freq = freq

    def _dev(self, addr):
        # True when the simulated MPU-6050 answers at addr on this bus.
        return (
            vb_hw.accel_addr == addr
            and vb_hw.i2c_bus is not None
            and vb_hw.i2c_bus == (self._id, self._sda, self._scl)
        )

    def _check(self, addr):
        if not self._dev(addr):
            raise OSError(_EIO)
        vb_hw.now_us()

    def scan(self):
        vb_hw.now_us()
        return [vb_hw.accel_addr] if self._dev(vb_hw.accel_addr) else []

    def readfrom_mem_into(self, addr, memaddr, buf, *, addrsize=8):
        self._check(addr)
        if memaddr <= _MPU_DATA + 7 and memaddr + len(buf) > _MPU_DATA:
            _mpu_fill()
        r = _regs
        for k in range(len(buf)):
            buf[k] = r[(memaddr + k) & 127]
        _ptr[0] = (memaddr + len(buf)) & 127

    def readfrom_mem(self, addr, memaddr, nbytes, *, addrsize=8):
        buf = bytearray(nbytes)
        self.readfrom_mem_into(addr, memaddr, buf)
        return bytes(buf)

    def writeto_mem(self, addr, memaddr, buf, *, addrsize=8):
        self._check(addr)
        for k in range(len(buf)):
            reg = (memaddr + k) & 127
            v = buf[k]
            if reg == _MPU_PWR1 and v & 0x80:
                for j in range(128):
                    _regs[j] = 0
                _regs[_MPU_PWR1] = 0x40
                _regs[_MPU_WHO] = 0x68
                continue
            if reg != _MPU_WHO and not 0x3B <= reg <= 0x48:
                _regs[reg] = v
        _ptr[0] = (memaddr + len(buf)) & 127

    def writeto(self, addr, buf, stop=True):
        if not self._dev(addr):
            raise OSError(_EIO)
        if len(buf) == 0:
            return 1
        _ptr[0] = buf[0] & 127
        if len(buf) > 1:
            self.writeto_mem(addr, buf[0], memoryview(buf)[1:])
        return len(buf)

    def readfrom_into(self, addr, buf, stop=True):
        self.readfrom_mem_into(addr, _ptr[0], buf)

    def readfrom(self, addr, nbytes, stop=True):
        buf = bytearray(nbytes)
        self.readfrom_into(addr, buf)
        return bytes(buf)

    def writevto(self, addr, vector, stop=True):
        data = b"".join(bytes(v) for v in vector)
        return self.writeto(addr, data, stop)


class SoftI2C(I2C):
    def __init__(self, scl, sda, *, freq=400000, timeout=50000):
        self._id = -1
        self._sda = sda._id if isinstance(sda, Pin) else sda
        self._scl = scl._id if isinstance(scl, Pin) else scl
        self.freq = freq

    def _dev(self, addr):
        b = vb_hw.i2c_bus
        return vb_hw.accel_addr == addr and b is not None and (b[1], b[2]) == (self._sda, self._scl)


# Watchdog, PWM, ADC, timers, RTC -----------------------------------------------------------------


class WDT:
    def __init__(self, id=0, timeout=5000):
        if not 1 <= timeout <= 8388:
            raise ValueError("timeout exceeds 8388 ms" if timeout > 8388 else "timeout too short")
        vb_hw.wdt_timeout = timeout * 1000
        self.feed()

    def feed(self):
        vb_hw.wdt_deadline = vb_hw.now_us() + vb_hw.wdt_timeout
        vb_hw._recompute_next()


class PWM:
    def __init__(self, dest, *, freq=0, duty_u16=-1, duty_ns=-1, invert=False):
        self._pin = dest._id if isinstance(dest, Pin) else dest
        self._freq = freq
        self._duty = 0
        if duty_u16 >= 0:
            self._duty = duty_u16
        self._report()

    def _report(self):
        msg = "%d %d %d %d" % (vb_hw.peek_us(), self._pin, self._freq, self._duty)
        vb_hw.send(ord("P"), msg.encode())

    def init(self, *, freq=-1, duty_u16=-1, duty_ns=-1, invert=False):
        if freq >= 0:
            self._freq = freq
        if duty_u16 >= 0:
            self._duty = duty_u16
        self._report()

    def freq(self, f=None):
        if f is None:
            return self._freq
        self._freq = f
        self._report()

    def duty_u16(self, d=None):
        if d is None:
            return self._duty
        self._duty = d
        self._report()

    def duty_ns(self, ns=None):
        if ns is None:
            return self._duty * 1000000000 // 65535 // max(1, self._freq)
        self._duty = ns * max(1, self._freq) * 65535 // 1000000000
        self._report()

    def deinit(self):
        self._duty = 0
        self._report()


class ADC:
    CORE_TEMP = const(4)

    def __init__(self, pin):
        self._ch = pin._id - 26 if isinstance(pin, Pin) else (pin - 26 if pin >= 26 else pin)

    def read_u16(self):
        # Channel 4 is the RP2040's temperature sensor: 0.706 V at 27 C of a 3.3 V range.
        return 14020 if self._ch == 4 else 0


class Timer:
    ONE_SHOT = const(0)
    PERIODIC = const(1)

    def __init__(self, id=-1, *, mode=1, period=-1, freq=-1, callback=None):
        self._ev = None
        if callback is not None:
            self.init(mode=mode, period=period, freq=freq, callback=callback)

    def init(self, *, mode=1, period=-1, freq=-1, callback=None):
        self.deinit()
        if freq > 0:
            period = 1000 // freq
        self._mode = mode
        self._period = max(1, period) * 1000
        self._cb = callback
        self._ev = vb_hw.schedule(vb_hw.now_us() + self._period, 1, self)

    def _due(self, ev):
        self._ev = None
        if self._mode == 1:
            self._ev = vb_hw.schedule(ev[0] + self._period, 1, self)
        if self._cb is not None:
            self._cb(self)

    def deinit(self):
        if self._ev is not None:
            vb_hw.unschedule(self._ev)
            self._ev = None


class RTC:
    def datetime(self, dt=None):
        import time

        t = time.localtime()
        return (t[0], t[1], t[2], t[6], t[3], t[4], t[5], 0)
