"""Analog Devices ADXL345 accelerometer driver (one of ``referee.accel``'s parts, in its own
module so that a board loads only the part it runs).

Usage::

    from referee.adxl345 import ADXL345     # or accel.ADXL345, or what accel.probe() finds

    acc = ADXL345(i2c, addr=0x53, range_g=2, rate_hz=100)
    ax, ay, az = acc.read()                 # milli-g; acc.read_into(xyz) allocates nothing
"""

from referee.accel import _I2CAccel, _s16

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


# ADXL345 registers (Analog Devices datasheet)
_ADXL_DEVID = const(0x00)
_ADXL_ID = const(0xE5)
_ADXL_BW_RATE = const(0x2C)
_ADXL_POWER_CTL = const(0x2D)
_ADXL_DATA_FORMAT = const(0x31)
_ADXL_DATAX0 = const(0x32)
_ADXL_RATE = {25: 0x08, 50: 0x09, 100: 0x0A, 200: 0x0B, 400: 0x0C}


class ADXL345(_I2CAccel):
    """Analog Devices ADXL345 in full-resolution mode (3.9 mg per count at any range)."""

    name = "adxl345"

    def __init__(self, i2c, addr=0x53, range_g=2, rate_hz=100):
        super().__init__(i2c, addr, range_g)
        if rate_hz not in _ADXL_RATE:
            raise ValueError("rate_hz must be one of 25, 50, 100, 200, 400")
        self._identify(_ADXL_DEVID, (_ADXL_ID,), "ADXL345", "DEVID", "SDO")
        self._write(_ADXL_BW_RATE, _ADXL_RATE[rate_hz])
        self._write(_ADXL_DATA_FORMAT, 0x08 | (0 if range_g == 2 else 1))  # FULL_RES, range
        self._write(_ADXL_POWER_CTL, 0x08)  # measure
        self.range_g = range_g

    def read_into(self, xyz):
        b = self._buf
        self._i2c.readfrom_mem_into(self.addr, _ADXL_DATAX0, b)  # little-endian X, Y, Z
        xyz[0] = (_s16(b[1], b[0]) * 125 + 16) // 32  # 256 counts per g, rounded
        xyz[1] = (_s16(b[3], b[2]) * 125 + 16) // 32
        xyz[2] = (_s16(b[5], b[4]) * 125 + 16) // 32
