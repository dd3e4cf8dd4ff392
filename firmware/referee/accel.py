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
# DLPF_CFG for an accel bandwidth (Hz); sample rate base is 1 kHz with the DLPF on
_MPU_DLPF = {260: 0, 184: 1, 94: 2, 44: 3, 21: 4, 10: 5, 5: 6}

# LIS3DH registers (ST datasheet DocID17530)
_LIS_WHO_AM_I = const(0x0F)
_LIS_ID = const(0x33)
_LIS_CTRL_REG1 = const(0x20)
_LIS_CTRL_REG4 = const(0x23)
_LIS_OUT_X_L = const(0x28)
_LIS_AUTO_INC = const(0x80)  # register address MSB: increment through a burst
_LIS_ODR = {1: 1, 10: 2, 25: 3, 50: 4, 100: 5, 200: 6, 400: 7}

# ADXL345 registers (Analog Devices datasheet)
_ADXL_DEVID = const(0x00)
_ADXL_ID = const(0xE5)
_ADXL_BW_RATE = const(0x2C)
_ADXL_POWER_CTL = const(0x2D)
_ADXL_DATA_FORMAT = const(0x31)
_ADXL_DATAX0 = const(0x32)
_ADXL_RATE = {25: 0x08, 50: 0x09, 100: 0x0A, 200: 0x0B, 400: 0x0C}

_RANGES = (2, 4)


def _s16(hi, lo):
    v = (hi << 8) | lo
    return v - 0x10000 if v & 0x8000 else v


class NoAccel:
    """No accelerometer: reads zeros. ``reason`` says why (shown by the board's status)."""

    name = "none"

    def __init__(self, reason="no accelerometer"):
        self.reason = reason

    def read(self):
        return (0, 0, 0)

    def read_into(self, xyz):
        xyz[0] = 0
        xyz[1] = 0
        xyz[2] = 0


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


class MPU6050(_I2CAccel):
    """InvenSense MPU-6050 (GY-521) accelerometer part; the gyro is left unused.

    ``range_g`` 2 or 4 (a tower of cards never sees more; +-2 g resolves 0.06 mg per count);
    ``bandwidth_hz`` picks the digital low-pass filter (44 Hz: anti-aliasing for 80 samples/s);
    ``rate_hz`` the internal sample rate (1 kHz / (1 + SMPLRT_DIV)).
    """

    name = "mpu6050"

    def __init__(self, i2c, addr=0x68, range_g=2, bandwidth_hz=44, rate_hz=200):
        super().__init__(i2c, addr, range_g)
        if bandwidth_hz not in _MPU_DLPF:
            raise ValueError("bandwidth_hz must be one of 260, 184, 94, 44, 21, 10, 5")
        if not 4 <= rate_hz <= 1000:
            raise ValueError("rate_hz must be 4 to 1000")
        who = self._identify(_MPU_WHO_AM_I, _MPU_IDS, "MPU-6050", "WHO_AM_I", "AD0")
        self.part = _MPU_IDS[who]
        self._write(_MPU_PWR_MGMT_1, _MPU_CLOCK_PLL_X)  # wake from the power-on sleep
        self._write(_MPU_CONFIG, _MPU_DLPF[bandwidth_hz])
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


# (driver, addresses): the order probe() tries them in
_PARTS = ((MPU6050, (0x68, 0x69)), (LIS3DH, (0x18, 0x19)), (ADXL345, (0x53, 0x1D)))


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
        for driver, addrs in _PARTS:
            for addr in addrs:
                if addr in found:
                    try:
                        return driver(i2c, addr)
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
        return TiltSwitch(tilt_pin, why)
    return NoAccel(why)
