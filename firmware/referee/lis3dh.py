"""ST LIS3DH (and LIS2DH12) accelerometer driver (one of ``referee.accel``'s parts, in its own
module so that a board loads only the part it runs).

Usage::

    from referee.lis3dh import LIS3DH       # or accel.LIS3DH, or what accel.probe() finds

    acc = LIS3DH(i2c, addr=0x18, range_g=2, rate_hz=100)
    ax, ay, az = acc.read()                 # milli-g; acc.read_into(xyz) allocates nothing
"""

from referee.accel import _I2CAccel, _s16

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


# LIS3DH registers (ST datasheet DocID17530)
_LIS_WHO_AM_I = const(0x0F)
_LIS_ID = const(0x33)
_LIS_CTRL_REG1 = const(0x20)
_LIS_CTRL_REG4 = const(0x23)
_LIS_OUT_X_L = const(0x28)
_LIS_AUTO_INC = const(0x80)  # register address MSB: increment through a burst
_LIS_ODR = {1: 1, 10: 2, 25: 3, 50: 4, 100: 5, 200: 6, 400: 7}


class LIS3DH(_I2CAccel):
    """ST LIS3DH (and LIS2DH12) in high-resolution 12-bit mode, block data update on."""

    name = "lis3dh"

    def __init__(self, i2c, addr=0x18, range_g=2, rate_hz=100):
        super().__init__(i2c, addr, range_g)
        if rate_hz not in _LIS_ODR:
            raise ValueError("rate_hz must be one of 1, 10, 25, 50, 100, 200, 400")
        self._identify(_LIS_WHO_AM_I, (_LIS_ID,), "LIS3DH", "WHO_AM_I", "SA0")
        self._write(_LIS_CTRL_REG1, (_LIS_ODR[rate_hz] << 4) | 0x07)  # X, Y, Z on
        # BDU (bit 7): high and low bytes of one sample; FS bits 5:4; HR (bit 3): 12 bits
        self._write(_LIS_CTRL_REG4, 0x80 | (0 if range_g == 2 else 1) << 4 | 0x08)
        self.range_g = range_g
        # left-justified 12-bit: (raw >> 4) counts at 1 mg (+-2 g) or 2 mg (+-4 g) each
        self._shift = 4 if range_g == 2 else 3

    def read_into(self, xyz):
        b = self._buf
        self._i2c.readfrom_mem_into(self.addr, _LIS_OUT_X_L | _LIS_AUTO_INC, b)  # little-endian
        s = self._shift
        xyz[0] = _s16(b[1], b[0]) >> s
        xyz[1] = _s16(b[3], b[2]) >> s
        xyz[2] = _s16(b[5], b[4]) >> s
