"""InvenSense MPU-6050 accelerometer driver (one of ``referee.accel``'s parts, in its own
module so that a board loads only the part it runs).

Usage::

    from machine import I2C, Pin
    from referee.mpu6050 import MPU6050     # or accel.MPU6050, or what accel.probe() finds

    acc = MPU6050(I2C(0, sda=Pin(4), scl=Pin(5), freq=400000), addr=0x68, range_g=2,
                  bandwidth_hz=44)
    ax, ay, az = acc.read()                 # milli-g; acc.read_into(xyz) allocates nothing
"""

from referee.accel import _I2CAccel, _s16

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


# MPU-6050 registers (InvenSense register map RM-MPU-6000A)
_MPU_SMPLRT_DIV = const(0x19)
_MPU_CONFIG = const(0x1A)
_MPU_ACCEL_CONFIG = const(0x1C)
_MPU_ACCEL_XOUT_H = const(0x3B)
_MPU_PWR_MGMT_1 = const(0x6B)
_MPU_WHO_AM_I = const(0x75)
_MPU_CLOCK_PLL_X = const(0x01)  # awake (SLEEP bit 6 clear), gyro X PLL: the stable clock
# WHO_AM_I of the MPU-6050 and of register-compatible parts sold on GY-521-style boards
_MPU_IDS = {0x68: "MPU-6050", 0x70: "MPU-6500", 0x71: "MPU-9250", 0x73: "MPU-9255"}
# Accel bandwidth (Hz) of DLPF_CFG 0..6; sample rate base is 1 kHz with the DLPF on
_MPU_BANDWIDTHS = (260, 184, 94, 44, 21, 10, 5)


class MPU6050(_I2CAccel):
    """InvenSense MPU-6050 (GY-521) accelerometer part; the gyro is left unused.

    ``range_g`` 2 or 4 (a tower of cards never sees more; +-2 g resolves 0.06 mg per count);
    ``bandwidth_hz`` picks the digital low-pass filter (44 Hz: anti-aliasing for 80 samples/s);
    ``rate_hz`` the internal sample rate (1 kHz / (1 + SMPLRT_DIV)).
    """

    name = "mpu6050"

    def __init__(self, i2c, addr=0x68, range_g=2, bandwidth_hz=44, rate_hz=200):
        super().__init__(i2c, addr, range_g)
        if bandwidth_hz not in _MPU_BANDWIDTHS:
            raise ValueError("bandwidth_hz must be one of 260, 184, 94, 44, 21, 10, 5")
        if not 4 <= rate_hz <= 1000:
            raise ValueError("rate_hz must be 4 to 1000")
        who = self._identify(_MPU_WHO_AM_I, _MPU_IDS, "MPU-6050", "WHO_AM_I", "AD0")
        self.part = _MPU_IDS[who]
        self._write(_MPU_PWR_MGMT_1, _MPU_CLOCK_PLL_X)  # wake from the power-on sleep
        self._write(_MPU_CONFIG, _MPU_BANDWIDTHS.index(bandwidth_hz))
        self._write(_MPU_SMPLRT_DIV, 1000 // rate_hz - 1)
        self._write(_MPU_ACCEL_CONFIG, (0 if range_g == 2 else 1) << 3)  # AFS_SEL bits 4:3
        self.range_g = range_g
        # counts -> milli-g: 16384 counts/g at +-2 g is x * 125 // 2048 (all small ints)
        self._div = 2048 if range_g == 2 else 1024

    def read_into(self, xyz):
        """Fill ``xyz`` (array('h'/'i', 3) or list) with milli-g; allocates nothing."""
        b = self._buf
        self._i2c.readfrom_mem_into(self.addr, _MPU_ACCEL_XOUT_H, b)  # big-endian X, Y, Z
        d = self._div
        h = d >> 1  # rounds to the nearest milli-g
        xyz[0] = (_s16(b[0], b[1]) * 125 + h) // d
        xyz[1] = (_s16(b[2], b[3]) * 125 + h) // d
        xyz[2] = (_s16(b[4], b[5]) * 125 + h) // d
