# Simulated `time` for the virtual board (MicroPython unix port): installed as sys.modules["time"]
# (and "utime") before the firmware imports it. ticks_* wrap like a Pico's: period 2**30.
#
#     import time
#     t0 = time.ticks_ms(); time.sleep_ms(5)
#     time.ticks_diff(time.ticks_ms(), t0)          # 5 (or a bit more)
#
# Simulated time starts at 0 at power-on (hard reset) and keeps running across soft resets.
# time.time() counts from the RP2040's power-on RTC setting, 2021-01-01 00:00:00.

import time as _rt
import vb_hw

_PERIOD = const(1 << 30)
_MASK = const((1 << 30) - 1)
_HALF = const(1 << 29)
_EPOCH_2021 = const(1609459200)  # seconds from 1970 to 2021-01-01


def ticks_us():
    return vb_hw.now_us() & _MASK


def ticks_ms():
    return (vb_hw.now_us() // 1000) & _MASK


def ticks_cpu():
    return vb_hw.now_us() & _MASK


def ticks_diff(a, b):
    return ((a - b + _HALF) & _MASK) - _HALF


def ticks_add(t, delta):
    if not -_HALF <= delta < _HALF:
        raise OverflowError("ticks interval overflow")
    return (t + delta) & _MASK


def sleep_us(us):
    if us > 0:
        vb_hw.wait_us(us)


def sleep_ms(ms):
    if ms > 0:
        vb_hw.wait_us(ms * 1000)


def sleep(s):
    if s > 0:
        vb_hw.wait_us(int(s * 1000000))


def time():
    return _EPOCH_2021 + vb_hw.now_us() // 1000000


def time_ns():
    return (_EPOCH_2021 * 1000000 + vb_hw.now_us()) * 1000


def gmtime(secs=None):
    return _rt.gmtime(time() if secs is None else secs)


localtime = gmtime


def mktime(t):
    return _rt.mktime(t)
