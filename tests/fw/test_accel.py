"""Accelerometer drivers against register-level fakes of the datasheets, and probe().
Runs on CPython and MicroPython (the allocation checks only mean something on MicroPython)."""

import gc
import sys
from array import array

from fakes import FakeADXL345, FakeI2C, FakeLIS3DH, FakeMPU6050, FakePin
from mptest import raises

from referee import accel

_MICROPYTHON = sys.implementation.name == "micropython"


def _close(got, want, tol=2):
    for g, w in zip(got, want):
        assert abs(g - w) <= tol, (got, want)


def _allocated(fn, n=500):
    """Bytes allocated by n calls of fn() (MicroPython; 0 on CPython where it is not known)."""
    if not _MICROPYTHON:
        for _ in range(n):
            fn()
        return 0
    fn()
    gc.collect()
    before = gc.mem_alloc()
    for _ in range(n):
        fn()
    return gc.mem_alloc() - before


def test_mpu6050_identity_is_checked():
    with raises(OSError) as err:
        accel.MPU6050(FakeI2C())
    assert "MPU-6050 not found at 0x68" in str(err.value)
    with raises(OSError) as err:
        accel.MPU6050(FakeI2C(FakeMPU6050(who=0x12)))
    assert "WHO_AM_I is 0x12 (expected 0x68)" in str(err.value)
    assert accel.MPU6050(FakeI2C(FakeMPU6050(who=0x70))).part == "MPU-6500"


def test_mpu6050_wakes_and_sets_range_rate_and_filter():
    chip = FakeMPU6050(addr=0x69)
    acc = accel.MPU6050(FakeI2C(chip), addr=0x69, range_g=4, bandwidth_hz=21, rate_hz=100)
    assert acc.name == "mpu6050"
    assert chip.regs[0x6B] & 0x40 == 0  # SLEEP cleared
    assert chip.regs[0x1C] == 0x08  # AFS_SEL = 1: +-4 g
    assert chip.regs[0x1A] & 7 == 4  # DLPF 21 Hz
    assert chip.regs[0x19] == 9  # 1 kHz / (1 + 9) = 100 Hz
    chip2 = FakeMPU6050()
    accel.MPU6050(FakeI2C(chip2))
    assert chip2.regs[0x1C] == 0x00  # +-2 g by default
    with raises(ValueError):
        accel.MPU6050(FakeI2C(FakeMPU6050()), range_g=8)
    with raises(ValueError):
        accel.MPU6050(FakeI2C(FakeMPU6050()), bandwidth_hz=33)


def test_mpu6050_reads_milli_g():
    for range_g in (2, 4):
        chip = FakeMPU6050()
        acc = accel.MPU6050(FakeI2C(chip), range_g=range_g)
        for mg in ((0, 0, 1000), (100, -250, 980), (-1999, 1999, -1000), (3, -3, 0)):
            chip.set_mg(*mg)
            _close(acc.read(), mg, tol=1 if range_g == 2 else 1)
        assert isinstance(acc.read(), tuple)


def test_mpu6050_burst_is_big_endian_signed():
    chip = FakeMPU6050()
    acc = accel.MPU6050(FakeI2C(chip))
    # write raw registers directly: X = 0x4000 (1 g), Y = 0xC000 (-1 g), Z = 0x0001
    chip.regs[0x3B:0x41] = bytearray((0x40, 0x00, 0xC0, 0x00, 0x00, 0x01))
    assert acc.read() == (1000, -1000, 0)


def test_read_into_fills_arrays_and_lists():
    chip = FakeMPU6050()
    chip.set_mg(10, 20, 30)
    acc = accel.MPU6050(FakeI2C(chip))
    for xyz in (array("h", (0, 0, 0)), array("i", (0, 0, 0)), [0, 0, 0]):
        acc.read_into(xyz)
        _close(list(xyz), (10, 20, 30), tol=1)


def test_read_into_allocates_nothing():
    chip = FakeMPU6050()
    chip.set_mg(-500, 250, 1000)
    i2c = FakeI2C(chip, FakeLIS3DH(), FakeADXL345())
    i2c.devices[0x18].set_mg(-500, 250, 1000)
    i2c.devices[0x53].set_mg(-500, 250, 1000)
    xyz = array("h", (0, 0, 0))
    for acc in (accel.MPU6050(i2c), accel.LIS3DH(i2c), accel.ADXL345(i2c),
                accel.NoAccel(), accel.TiltSwitch(FakePin(level=1))):
        read_into = acc.read_into
        assert _allocated(lambda: read_into(xyz)) == 0, acc.name


def test_lis3dh():
    with raises(OSError) as err:
        accel.LIS3DH(FakeI2C())
    assert "LIS3DH not found at 0x18" in str(err.value)
    with raises(OSError) as err:
        accel.LIS3DH(FakeI2C(FakeMPU6050(addr=0x18)))
    assert "WHO_AM_I is 0x00 (expected 0x33)" in str(err.value)
    for range_g in (2, 4):
        chip = FakeLIS3DH(addr=0x19)
        acc = accel.LIS3DH(FakeI2C(chip), addr=0x19, range_g=range_g, rate_hz=100)
        assert acc.name == "lis3dh"
        assert chip.regs[0x20] == 0x57  # 100 Hz, X/Y/Z on
        assert chip.regs[0x23] & 0x88 == 0x88  # BDU + high resolution
        assert (chip.regs[0x23] >> 4) & 3 == (0 if range_g == 2 else 1)
        for mg in ((0, 0, 1000), (120, -340, 990), (-1500, 1500, 0)):
            chip.set_mg(*mg)
            _close(acc.read(), mg, tol=range_g)  # 1 or 2 mg per digit


def test_adxl345():
    with raises(OSError) as err:
        accel.ADXL345(FakeI2C())
    assert "ADXL345 not found at 0x53" in str(err.value)
    chip = FakeADXL345(addr=0x1D)
    acc = accel.ADXL345(FakeI2C(chip), addr=0x1D, range_g=4)
    assert acc.name == "adxl345"
    assert chip.regs[0x2D] & 0x08  # measuring
    assert chip.regs[0x31] == 0x09  # full resolution, +-4 g
    for mg in ((0, 0, 1000), (100, -250, 980), (-1900, 1900, 0)):
        chip.set_mg(*mg)
        _close(acc.read(), mg, tol=4)  # 3.9 mg per count


def test_no_accel_reads_zeros():
    acc = accel.NoAccel("because")
    assert acc.name == "none" and acc.reason == "because"
    assert acc.read() == (0, 0, 0)
    xyz = array("h", (5, 5, 5))
    acc.read_into(xyz)
    assert list(xyz) == [0, 0, 0]


def test_tilt_switch_jolts_on_change_and_shows_tilt():
    pin = FakePin(level=1)
    acc = accel.TiltSwitch(pin)
    assert acc.name == "tilt"
    assert acc.read() == (0, 0, 1000)
    pin.value(0)  # the ball rolls: the platform tilted
    assert acc.read() == (acc.tilt_mg + acc.jolt_mg, acc.jolt_mg, 1000)
    assert acc.read() == (acc.tilt_mg, 0, 1000)  # still tilted, no new jolt
    pin.value(1)
    assert acc.read() == (acc.jolt_mg, acc.jolt_mg, 1000)
    assert acc.read() == (0, 0, 1000)


def test_tilt_switch_latches_a_bounce_between_reads():
    pin = FakePin(level=1)
    acc = accel.TiltSwitch(pin)
    assert pin.handler is not None  # interrupt registered
    pin.value(0)
    pin.value(1)  # a knock: back where it was before the next read
    assert acc.read()[1] == acc.jolt_mg
    assert acc.read() == (0, 0, 1000)


def test_probe_finds_each_part():
    cases = (
        (FakeMPU6050(addr=0x68), "mpu6050", 0x68),
        (FakeMPU6050(addr=0x69), "mpu6050", 0x69),
        (FakeLIS3DH(addr=0x18), "lis3dh", 0x18),
        (FakeLIS3DH(addr=0x19), "lis3dh", 0x19),
        (FakeADXL345(addr=0x53), "adxl345", 0x53),
        (FakeADXL345(addr=0x1D), "adxl345", 0x1D),
    )
    for chip, name, addr in cases:
        acc = accel.probe(FakeI2C(chip))
        assert acc.name == name and acc.addr == addr


def test_probe_prefers_the_mpu6050():
    acc = accel.probe(FakeI2C(FakeADXL345(), FakeLIS3DH(), FakeMPU6050()))
    assert acc.name == "mpu6050"


def test_probe_falls_back_with_a_reason():
    acc = accel.probe(FakeI2C())
    assert acc.name == "none" and "no device answers" in acc.reason

    other = FakeMPU6050(addr=0x3C)  # e.g. an OLED display
    acc = accel.probe(FakeI2C(other))
    assert acc.name == "none" and "0x3c" in acc.reason

    acc = accel.probe(FakeI2C(FakeMPU6050(who=0x42)))
    assert acc.name == "none" and "WHO_AM_I is 0x42" in acc.reason

    i2c = FakeI2C(FakeMPU6050())
    i2c.broken = True
    acc = accel.probe(i2c)
    assert acc.name == "none" and "bus error" in acc.reason

    acc = accel.probe(None)
    assert acc.name == "none" and "no I2C bus" in acc.reason


def test_probe_uses_the_tilt_switch_when_no_i2c_part_answers():
    pin = FakePin(level=1)
    acc = accel.probe(FakeI2C(), tilt_pin=pin)
    assert acc.name == "tilt" and "no device answers" in acc.reason
    acc = accel.probe(FakeI2C(FakeMPU6050()), tilt_pin=pin)
    assert acc.name == "mpu6050"


_PART_MODULES = ("referee.mpu6050", "referee.lis3dh", "referee.adxl345", "referee.tiltswitch",
                 "referee.noaccel")


def _forget_parts():
    saved = {}
    for name in _PART_MODULES:
        saved[name] = sys.modules.pop(name, None)
    return saved


def test_probe_loads_only_the_part_it_returns():
    # each part is its own module: a board holds only the driver it runs (docs/heap.md)
    cases = ((FakeI2C(FakeLIS3DH()), None, "lis3dh"), (FakeI2C(FakeMPU6050()), None, "mpu6050"),
             (FakeI2C(FakeADXL345()), None, "adxl345"), (FakeI2C(), FakePin(level=1), "tilt"),
             (FakeI2C(), None, "none"))
    saved = _forget_parts()
    try:
        for i2c, pin, name in cases:
            _forget_parts()
            assert accel.probe(i2c, tilt_pin=pin).name == name
            loaded = [m for m in _PART_MODULES if m in sys.modules]
            want = {"tilt": "tiltswitch", "none": "noaccel"}.get(name, name)
            assert loaded == ["referee." + want], (name, loaded)
    finally:
        for name, mod in saved.items():
            if mod is not None:
                sys.modules[name] = mod


def test_parts_are_attributes_of_accel():
    from referee.lis3dh import LIS3DH
    from referee.tiltswitch import TiltSwitch

    from referee.noaccel import NoAccel

    assert accel.LIS3DH is LIS3DH and accel.TiltSwitch is TiltSwitch and accel.NoAccel is NoAccel
    assert getattr(accel, "BMA180", None) is None
    with raises(AttributeError):
        accel.BMA180  # noqa: B018
