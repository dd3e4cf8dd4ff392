"""HX711 24-bit load-cell ADC: an RP2 PIO back end and a GPIO bit-bang back end, one API.

Usage::

    from machine import Pin
    from referee.hx711 import HX711PIO, HX711GPIO

    hx = HX711PIO(0, Pin(16, Pin.IN), Pin(17, Pin.OUT))   # state machine 0 (config: Pico W)
    # hx = HX711GPIO(Pin(16, Pin.IN), Pin(17, Pin.OUT))   # any port, no PIO
    raw = hx.read()            # signed 24-bit count; OSError if no data within timeout_ms
    if hx.ready():             # non-blocking: a sample is waiting
        raw = hx.read_nowait() # int, or None when nothing is waiting
    hx.saturated               # True when the last reading was 0x7FFFFF or 0x800000
    hx.gain = 64               # 128 / 64: channel A, 32: channel B (next readings settle first)
    hx.power_down(); hx.power_up()

The chip (datasheet): DOUT goes low when a conversion is ready; each rising edge of PD_SCK shifts
out the next of 24 bits, MSB first, two's complement; 1, 2 or 3 further pulses (25, 26, 27 in
all) choose channel A gain 128, channel B gain 32 or channel A gain 64 for the NEXT conversion.
PD_SCK held high for more than 60 us powers the chip down; on power-up it resets to channel A,
gain 128. After power-up or a gain change the output needs 4 conversions to settle (datasheet
"output settling time" 400 ms at 10 SPS, 50 ms at 80 SPS): the driver drops those readings.

The two back ends are modules of their own, ``hx711pio`` (a Pico) and ``hx711gpio`` (any port),
imported only when asked for (``hx711.HX711PIO`` works as before): a board holds only the one
it runs. The PIO contract is in ``hx711pio``'s docstring.
"""

import time

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


_MASK = const(0xFFFFFF)
_SIGN = const(0x800000)
_POS_FULL = const(0x7FFFFF)  # the chip clamps to these two codes outside its input range
_NEG_FULL = const(-0x800000)


def _pulses(gain):
    """Pulses after the 24 data bits that choose ``gain`` (and its channel) for the next
    conversion: 1 for A/128, 2 for B/32, 3 for A/64 (25, 26, 27 in all)."""
    if gain == 128:
        return 1
    if gain == 32:
        return 2
    if gain == 64:
        return 3
    raise ValueError("gain must be 128, 64 (channel A) or 32 (channel B)")


def decode(word):
    """Signed value of a 24-bit two's complement word (higher bits are ignored)."""
    word &= _MASK
    return word - 0x1000000 if word & _SIGN else word


def _default_sleep_ms(ms):
    sleep_ms = getattr(time, "sleep_ms", None)
    if sleep_ms is not None:
        sleep_ms(ms)
    else:  # CPython
        time.sleep(ms / 1000)


class _HX711:
    """What both back ends share: gain bookkeeping, settling, saturation, bounded waits."""

    settle_samples = 4  # readings dropped after power-up / gain change (datasheet settling)

    def __init__(self, gain, timeout_ms, sleep_ms):
        self._extra = _pulses(gain)
        self._gain = gain
        self.timeout_ms = timeout_ms
        self._sleep_ms = sleep_ms or _default_sleep_ms
        self.saturated = False
        self._drop = self.settle_samples  # fresh chip: settle whatever the gain
        self.powered = True

    @property
    def gain(self):
        return self._gain

    @gain.setter
    def gain(self, value):
        extra = _pulses(value)
        if value != self._gain:
            self._gain = value
            self._extra = extra
            self._set_gain()
            self._drop = self.settle_samples

    def _value(self, word):
        v = decode(word)
        self.saturated = v == _POS_FULL or v == _NEG_FULL
        return v

    # what each back end provides
    def ready(self):
        raise NotImplementedError

    def _fetch(self):
        raise NotImplementedError

    def _set_gain(self):
        raise NotImplementedError

    def read_nowait(self):
        """The next reading if one is waiting, else None (settling readings are dropped)."""
        while self.ready():
            word = self._fetch()
            if self._drop:
                self._drop -= 1
                continue
            return self._value(word)
        return None

    def read(self):
        """Wait for the next reading (at most ``timeout_ms`` per conversion) and return it."""
        if not self.powered:
            raise OSError("HX711 is powered down: call power_up() first")
        while True:
            waited = 0
            while not self.ready():
                if waited >= self.timeout_ms:
                    raise OSError(
                        "HX711 not responding: no data ready within %d ms" % self.timeout_ms
                    )
                self._sleep_ms(1)
                waited += 1
            word = self._fetch()
            if self._drop:
                self._drop -= 1
                continue
            return self._value(word)


def __getattr__(name):
    """``hx711.HX711PIO`` and ``hx711.HX711GPIO``: each back end is imported the first time it
    is asked for, so a board holds only the one it runs."""
    if name == "HX711PIO":
        from referee.hx711pio import HX711PIO as cls
    elif name == "HX711GPIO":
        from referee.hx711gpio import HX711GPIO as cls
    else:
        raise AttributeError(name)
    return cls
