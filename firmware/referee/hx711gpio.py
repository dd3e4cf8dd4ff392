"""HX711 bit-banged on two GPIOs: the back end for ports without PIO (``referee.hx711`` holds
what both back ends share; this module is imported only by a board that runs it).

Usage::

    from machine import Pin
    from referee.hx711gpio import HX711GPIO    # or hx711.HX711GPIO

    hx = HX711GPIO(Pin(16, Pin.IN), Pin(17, Pin.OUT))   # any port, no PIO
    raw = hx.read()            # the API of referee.hx711
"""

from referee.hx711 import _HX711

try:  # disable_irq guards the GPIO bit-bang where the port has it (rp2, esp32, ...)
    import machine

    _disable_irq = getattr(machine, "disable_irq", None)
    _enable_irq = getattr(machine, "enable_irq", None)
except ImportError:
    _disable_irq = _enable_irq = None


class HX711GPIO(_HX711):
    """Bit-banged HX711 on two ``machine.Pin`` objects: ``dout`` (input), ``sck`` (output).

    Each SCK high phase is one pin write long (a few us on a Pico), far below the 60 us that
    powers the chip down; interrupts are disabled around the 25-27 pulses where the port allows.
    """

    def __init__(self, dout, sck, gain=128, timeout_ms=500, sleep_ms=None):
        self._dout = dout
        self._sck = sck
        sck.value(0)
        super().__init__(gain, timeout_ms, sleep_ms)

    def ready(self):
        return self.powered and self._dout.value() == 0

    def _set_gain(self):
        pass  # the pulses of the next read select it

    def _fetch(self):
        sck = self._sck.value  # bound to locals: the loop must stay tight
        dout = self._dout.value
        extra = self._extra
        word = 0
        state = _disable_irq() if _disable_irq is not None else None
        try:
            for _ in range(24):
                sck(1)
                sck(0)
                word = (word << 1) | dout()  # valid from the rising edge to the next one
            for _ in range(extra):
                sck(1)
                sck(0)
        finally:
            if _enable_irq is not None:
                _enable_irq(state)
        if dout() == 0:
            # the last pulse forces DOUT high until the next conversion; low means no chip
            raise OSError("HX711 not responding: DOUT stays low (check wiring)")
        return word

    def power_down(self):
        """SCK high; returns 1 ms later, when the chip surely sleeps (> 60 us), so that
        ``power_down(); power_up()`` is a real reset."""
        self._sck.value(0)
        self._sck.value(1)
        self._sleep_ms(1)
        self.powered = False

    def power_up(self):
        self._sck.value(0)  # the chip wakes reset to channel A, gain 128
        self.powered = True
        self._drop = self.settle_samples  # the first reading's pulses set our gain again
