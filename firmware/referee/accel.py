"""Accelerometers for knock, bump and tilt sensing: one small interface, several parts.

Usage::

    from machine import I2C, Pin
    from array import array
    from referee import accel

    i2c = I2C(0, sda=Pin(4), scl=Pin(5), freq=400000)
    acc = accel.probe(i2c)          # MPU6050 / LIS3DH / ADXL345, or NoAccel (acc.reason says why)
    ax, ay, az = acc.read()         # milli-g ints (allocates only the tuple)
    xyz = array("h", (0, 0, 0))     # made once ...
    acc.read_into(xyz)              # ... and filled on every sample with no allocation
    acc.name                        # "mpu6050", "lis3dh", "adxl345", "tilt" or "none"

    acc = accel.MPU6050(i2c, addr=0x68, range_g=2, bandwidth_hz=44)
    acc = accel.TiltSwitch(Pin(15, Pin.IN, Pin.PULL_UP))   # ball switch: the low-cost fallback

Each part is its own module (``mpu6050``, ``lis3dh``, ``adxl345``, ``tiltswitch``, and
``noaccel`` for none), imported only when ``probe`` picks it or ``accel.<Part>`` is first asked
for: a board holds only the driver it runs. This module keeps the I2C base class and ``probe``.

Every driver takes a bus or pin object (never numbers), checks the chip's identity at
construction (``OSError`` with a sentence if it is missing or a different part), sets range and
rate, and reads the three axes in one burst into a buffer made once. Values are milli-g with
integer arithmetic only (a float on MicroPython is a heap object).
"""

from array import array

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


_RANGES = (2, 4)


def _s16(hi, lo):
    v = (hi << 8) | lo
    return v - 0x10000 if v & 0x8000 else v


class _I2CAccel:
    """Shared by the I2C parts: the bus, the address and a 6-byte buffer made once."""

    name = "?"

    def __init__(self, i2c, addr, range_g):
        if range_g not in _RANGES:
            raise ValueError("range_g must be 2 or 4")
        self._i2c = i2c
        self.addr = addr
        self._buf = bytearray(6)
        self._one = bytearray(1)
        self._xyz = array("i", (0, 0, 0))
        self.reason = None

    def _reg(self, reg):
        try:
            self._i2c.readfrom_mem_into(self.addr, reg, self._one)
        except OSError:
            return None
        return self._one[0]

    def _write(self, reg, value):
        self._one[0] = value
        self._i2c.writeto_mem(self.addr, reg, self._one)

    def _identify(self, reg, ids, part, id_reg, addr_pin):
        """The chip's identity register, checked against ``ids`` (the accepted values, lowest
        first when printed); ``OSError`` with a sentence a maker can act on when the chip is
        absent or another one."""
        who = self._reg(reg)
        if who is None:
            raise OSError("%s not found at 0x%02x: no answer on I2C (check SDA/SCL, power and "
                          "the %s pin)" % (part, self.addr, addr_pin))
        if who not in ids:
            raise OSError("%s not found at 0x%02x: %s is 0x%02x (expected 0x%02x)"
                          % (part, self.addr, id_reg, who, min(ids)))
        return who

    def read_into(self, xyz):
        raise NotImplementedError  # each part decodes its own registers

    def read(self):
        """(ax, ay, az) in milli-g; allocates only the tuple."""
        xyz = self._xyz
        self.read_into(xyz)
        return (xyz[0], xyz[1], xyz[2])


# The I2C parts probe() tries, in this order, each at its two addresses (class name, addresses)
_PARTS = (("MPU6050", b"\x68\x69"), ("LIS3DH", b"\x18\x19"), ("ADXL345", b"\x53\x1d"))


def __getattr__(name):
    """``accel.MPU6050``, ``accel.LIS3DH``, ``accel.ADXL345``, ``accel.TiltSwitch``,
    ``accel.NoAccel``: each part lives in its own module, imported the first time it is asked
    for, so a board holds only the driver it runs (about 1-2 KB of heap each)."""
    if name == "MPU6050":
        from referee.mpu6050 import MPU6050 as part
    elif name == "LIS3DH":
        from referee.lis3dh import LIS3DH as part
    elif name == "ADXL345":
        from referee.adxl345 import ADXL345 as part
    elif name == "TiltSwitch":
        from referee.tiltswitch import TiltSwitch as part
    elif name == "NoAccel":
        from referee.noaccel import NoAccel as part
    else:
        raise AttributeError(name)
    return part


def probe(i2c, tilt_pin=None):
    """The accelerometer found on ``i2c``; else a ``TiltSwitch`` on ``tilt_pin`` if given;
    else ``NoAccel`` whose ``reason`` says what was seen. Never raises for a missing part."""
    if i2c is None:
        found = []
        why = "no I2C bus configured"
    else:
        try:
            found = i2c.scan()
        except OSError as err:
            found = []
            why = "I2C bus error (%s): check SDA/SCL wiring and pull-ups" % err
        else:
            why = None
        errors = []
        for part, addrs in _PARTS:
            for addr in addrs:
                if addr in found:  # only now is the part's module imported
                    try:
                        return __getattr__(part)(i2c, addr)
                    except OSError as err:
                        errors.append(str(err))
        if why is None:
            if errors:
                why = "; ".join(errors)
            elif found:
                why = "no known accelerometer on I2C (found %s)" % ", ".join(
                    ["0x%02x" % a for a in found]
                )
            else:
                why = "no device answers on I2C (check SDA/SCL wiring and power)"
    if tilt_pin is not None:
        return __getattr__("TiltSwitch")(tilt_pin, why)
    return __getattr__("NoAccel")(why)
