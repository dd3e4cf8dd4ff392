"""A ball tilt switch read as a very coarse accelerometer: the low-cost fallback of
``referee.accel`` (in its own module: a board with an I2C part never loads it).

Usage::

    from machine import Pin
    from referee.tiltswitch import TiltSwitch   # or accel.TiltSwitch, or accel.probe(i2c, pin)

    acc = TiltSwitch(Pin(15, Pin.IN, Pin.PULL_UP))
    ax, ay, az = acc.read()     # (0, 0, 1000) at rest; a jolt after the ball rolled
"""

from array import array


class TiltSwitch:
    """A ball tilt switch on one GPIO, read as a very coarse accelerometer.

    At rest it reads (0, 0, 1000): 1 g down, like a level accelerometer. When the pin changed
    since the last read (the ball rolled: a knock, a bump or a tilt) that read reports a large
    synthetic jolt of ``jolt_mg`` on X and Y. While the pin stays away from its level at
    start-up (the platform is tilted), X reads ``tilt_mg``. Changes between two reads are
    latched by a pin interrupt where the pin offers one (the handler only counts).
    """

    name = "tilt"
    jolt_mg = 2000
    tilt_mg = 500

    def __init__(self, pin, reason=None):
        self._pin = pin
        self._rest = pin.value()
        self._last = self._rest
        self._edges = 0
        self._seen = 0
        self._xyz = array("i", (0, 0, 0))
        self.reason = reason  # probe() says why no I2C part is used
        irq = getattr(pin, "irq", None)
        if irq is not None:
            try:
                irq(handler=self._edge, trigger=pin.IRQ_FALLING | pin.IRQ_RISING)
            except (AttributeError, TypeError, ValueError, OSError):
                pass  # polling still sees changes that last until the next read

    def _edge(self, pin):
        self._edges += 1  # interrupt context: count only

    def read_into(self, xyz):
        level = self._pin.value()
        edges = self._edges
        jolt = level != self._last or edges != self._seen
        self._last = level
        self._seen = edges
        x = self.tilt_mg if level != self._rest else 0
        if jolt:
            xyz[0] = x + self.jolt_mg
            xyz[1] = self.jolt_mg
        else:
            xyz[0] = x
            xyz[1] = 0
        xyz[2] = 1000

    def read(self):
        xyz = self._xyz
        self.read_into(xyz)
        return (xyz[0], xyz[1], xyz[2])
