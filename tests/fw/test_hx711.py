"""HX711 driver against the pin-level datasheet fake (both back ends; the PIO back end runs its
real PIO program in the fake state machine). Runs on CPython and MicroPython."""

import sys

from fakes import FakeHX711, FakeRP2
from mptest import raises

from referee import hx711
from referee.hx711 import HX711GPIO, HX711PIO, decode


def _gpio(chip, gain=128):
    return HX711GPIO(chip.dout, chip.sck, gain=gain, sleep_ms=chip.sleep_ms)


class _PIO:
    """HX711PIO with the fake rp2 in sys.modules only while the block runs."""

    def __init__(self, chip, sm_id=0, gain=128):
        self.chip = chip
        self.sm_id = sm_id
        self.gain = gain

    def __enter__(self):
        self.saved = sys.modules.get("rp2")
        self.rp2 = FakeRP2(self.chip)
        sys.modules["rp2"] = self.rp2
        hx = HX711PIO(self.sm_id, self.chip.dout, self.chip.sck, gain=self.gain,
                      sleep_ms=self.chip.sleep_ms)
        return hx, self.rp2

    def __exit__(self, *exc):
        if self.saved is None:
            del sys.modules["rp2"]
        else:
            sys.modules["rp2"] = self.saved
        return False


def test_decode_twos_complement():
    assert decode(0) == 0
    assert decode(1) == 1
    assert decode(0x7FFFFF) == 8388607
    assert decode(0x800000) == -8388608
    assert decode(0xFFFFFF) == -1
    assert decode(0xFFFF38) == -200
    assert decode(0x1000005) == 5  # bits above 24 are not data


def test_gpio_reads_signed_values():
    chip = FakeHX711(sps=80)
    hx = _gpio(chip)
    for level in (0, 1, -1, 123456, -654321, 8388606, -8388607):
        chip.level_a = level
        assert hx.read() == level
        assert not hx.saturated


def test_gpio_clocks_24_bits_msb_first():
    chip = FakeHX711(sps=80)
    hx = _gpio(chip)
    hx.read()  # settled
    patterns = (0xA5A5A5, 0x5A5A5B, 0x800001, 0x000080, 0xFFFFFE, 0x123456)
    for p in patterns:
        chip.queue.append(p)
    for p in patterns:
        assert hx.read() == decode(p)
    assert chip.reads >= 6 + hx.settle_samples


def test_gpio_saturation_flag():
    chip = FakeHX711(sps=80)
    hx = _gpio(chip)
    chip.level_a = 9000000  # beyond full scale: the chip clamps to 0x7FFFFF
    assert hx.read() == 0x7FFFFF
    assert hx.saturated
    chip.level_a = -9000000
    assert hx.read() == -0x800000
    assert hx.saturated
    chip.level_a = 42
    assert hx.read() == 42
    assert not hx.saturated


def test_gpio_gain_pulses_select_channel_and_gain():
    chip = FakeHX711(sps=80)
    chip.level_a = -20000
    chip.level_b = 777
    hx = _gpio(chip)
    assert hx.read() == -20000
    hx.gain = 64
    assert hx.read() == -10000
    assert chip.gain == 64
    hx.gain = 32
    assert hx.read() == 777
    assert chip.gain == 32
    hx.gain = 128
    assert hx.read() == -20000
    assert chip.gain == 128
    with raises(ValueError):
        hx.gain = 100
    with raises(ValueError):
        _gpio(FakeHX711(), gain=16)


def test_settling_readings_are_dropped():
    # the fake returns garbage while settling: without the drop it shows through
    chip = FakeHX711(sps=80)
    chip.level_a = 1000
    hx = _gpio(chip)
    hx.settle_samples = 0
    hx._drop = 0
    first = [hx.read() for _ in range(5)]
    assert first[0] != 1000 and first[-1] == 1000
    hx.settle_samples = 4
    hx.gain = 64
    assert hx.read() == 500  # every reading returned is settled


def test_gpio_sck_high_stays_far_below_power_down():
    chip = FakeHX711(sps=80)
    hx = _gpio(chip, gain=64)
    for _ in range(20):
        hx.read()
    assert chip.max_high_us < 60
    assert chip.power_downs == 0
    assert chip.stray_pulses == 0  # never clocks while no data is waiting


def test_gpio_ready_and_read_nowait_do_not_block():
    chip = FakeHX711(sps=10)
    hx = _gpio(chip)
    hx.read()
    t = chip.now_us
    assert not hx.ready()
    assert hx.read_nowait() is None
    assert chip.now_us - t < 100  # a pin read or two, no waiting
    chip.sleep_ms(100)
    assert hx.ready()
    chip.level_a = 77
    chip.sleep_ms(100)
    assert hx.read_nowait() == 77
    assert hx.read_nowait() is None


def test_gpio_missing_chip_times_out_with_a_clear_error():
    chip = FakeHX711(sps=80, absent=True)
    hx = _gpio(chip)
    start = chip.now_us
    with raises(OSError) as err:
        hx.read()
    assert "HX711 not responding: no data ready within 500 ms" in str(err.value)
    waited_ms = (chip.now_us - start) // 1000
    assert 500 <= waited_ms <= 520


def test_gpio_timeout_is_configurable():
    chip = FakeHX711(sps=80, absent=True)
    hx = HX711GPIO(chip.dout, chip.sck, timeout_ms=30, sleep_ms=chip.sleep_ms)
    with raises(OSError) as err:
        hx.read()
    assert "within 30 ms" in str(err.value)
    assert chip.now_us < 40000


def test_gpio_dout_stuck_low_is_reported():
    chip = FakeHX711(sps=80, stuck_low=True)
    hx = _gpio(chip)
    with raises(OSError) as err:
        hx.read()
    assert "DOUT stays low" in str(err.value)


def test_gpio_power_down_and_up():
    chip = FakeHX711(sps=80)
    chip.level_a = 3000
    hx = _gpio(chip, gain=64)
    assert hx.read() == 1500
    hx.power_down()
    chip.sleep_ms(1)
    chip.advance(chip.now_us)
    assert not chip.powered
    assert chip.power_downs == 1
    assert not hx.ready()
    with raises(OSError) as err:
        hx.read()
    assert "powered down" in str(err.value)
    hx.power_up()
    assert chip.powered
    assert chip.gain == 128  # the chip woke reset ...
    assert hx.read() == 1500  # ... and the driver restored gain 64 (settled)
    assert chip.gain == 64


def test_back_ends_load_on_demand():
    # each back end is its own module: a board holds only the one it runs (docs/heap.md)
    saved = {}
    for name in ("referee.hx711pio", "referee.hx711gpio"):
        saved[name] = sys.modules.pop(name, None)
    try:
        chip = FakeHX711(sps=80)
        assert hx711.HX711GPIO(chip.dout, chip.sck, sleep_ms=chip.sleep_ms).read() == 0
        assert "referee.hx711gpio" in sys.modules and "referee.hx711pio" not in sys.modules
        assert getattr(hx711, "HX711SPI", None) is None
    finally:  # the classes this file imported stay the ones the module hands out
        for name, mod in saved.items():
            if mod is not None:
                sys.modules[name] = mod


def test_module_imports_without_rp2():
    # CPython and the unix port have no rp2: the module and the GPIO back end still work
    assert hx711.HX711GPIO is HX711GPIO
    if "rp2" not in sys.modules:
        with raises(ImportError):
            HX711PIO(0, None, None)


def test_pio_reads_values_and_puts_the_gain_word_once():
    chip = FakeHX711(sps=80)
    chip.level_a = -4242
    with _PIO(chip, sm_id=4) as (hx, rp2):
        assert hx.read() == -4242
        assert hx.read() == -4242
        sm = rp2.machines[-1]
        assert sm.id == 4
        assert sm.puts == [0]  # extra pulses - 1 for A/128
        assert sm.prog.options["sideset_init"] == rp2.PIO.OUT_LOW
        assert chip.max_high_us < 60
        assert chip.power_downs == 0


def test_pio_program_clocks_exact_bit_patterns():
    chip = FakeHX711(sps=80)
    with _PIO(chip) as (hx, rp2):
        hx.read()
        patterns = (0xA5A5A5, 0x000001, 0x800000, 0x7FFFFF, 0xFFFFFF, 0x0F0F0F)
        for p in patterns:
            chip.queue.append(p)
        got = [hx.read() for _ in patterns]
        assert got == [decode(p) for p in patterns]
        assert hx.saturated is False  # last one 0x0F0F0F
        chip.queue.append(0x800000)
        assert hx.read() == -8388608 and hx.saturated


def test_pio_gain_change_restarts_with_the_new_word():
    chip = FakeHX711(sps=80)
    chip.level_a = 8000
    chip.level_b = -99
    with _PIO(chip, gain=64) as (hx, rp2):
        assert rp2.machines[-1].puts == [2]
        assert hx.read() == 4000
        assert chip.gain == 64
        hx.gain = 32
        assert rp2.machines[-1].puts == [1]
        assert not rp2.machines[-2].running
        assert hx.read() == -99
        hx.gain = 128
        assert rp2.machines[-1].puts == [0]
        assert hx.read() == 8000
        assert rp2.assembled == 1  # the program is assembled once


def test_pio_fifo_fills_then_stalls_with_sck_low():
    chip = FakeHX711(sps=80)
    chip.level_a = 5
    with _PIO(chip) as (hx, rp2):
        hx.read()
        sm = rp2.machines[-1]
        chip.sleep_ms(1000)  # nobody reads for a second: 80 conversions
        assert sm.rx_fifo() == 4
        chip.advance(chip.now_us)
        assert chip.sck_level == 0
        assert chip.power_downs == 0
        assert [hx.read_nowait() for _ in range(5)] == [5, 5, 5, 5, None]
        chip.sleep_ms(13)
        assert hx.ready()
        assert hx.read() == 5


def test_pio_read_nowait_returns_oldest_first():
    chip = FakeHX711(sps=80)
    with _PIO(chip) as (hx, rp2):
        hx.read()
        for v in (10, 20, 30):
            chip.level_a = v
            chip.sleep_ms(13)
        assert hx.read_nowait() == 10
        assert hx.read_nowait() == 20
        assert hx.read_nowait() == 30
        assert hx.read_nowait() is None


def test_pio_missing_chip_times_out():
    chip = FakeHX711(sps=80, absent=True)
    with _PIO(chip) as (hx, rp2):
        start = chip.now_us
        with raises(OSError) as err:
            hx.read()
        assert "no data ready within 500 ms" in str(err.value)
        assert 500 <= (chip.now_us - start) // 1000 <= 520


def test_pio_power_down_and_up():
    chip = FakeHX711(sps=10)
    chip.level_a = 640
    with _PIO(chip, gain=64) as (hx, rp2):
        assert hx.read() == 320
        hx.power_down()
        assert not rp2.machines[-1].running
        chip.sleep_ms(5)
        chip.advance(chip.now_us)
        assert not chip.powered
        assert not hx.ready()
        hx.power_up()
        assert chip.powered
        assert rp2.machines[-1].running and rp2.machines[-1].puts == [2]
        assert hx.read() == 320
        assert chip.gain == 64


def test_pio_at_10_sps():
    chip = FakeHX711(sps=10)
    chip.level_a = -1
    with _PIO(chip) as (hx, rp2):
        start = chip.now_us
        for _ in range(3):
            assert hx.read() == -1
        # 4 settling + 3 readings at 100 ms each
        assert 600000 <= chip.now_us - start <= 800000


def test_power_cycle_back_to_back_is_a_real_reset():
    # power_down() returns only once the chip sleeps, so down + up resets it
    chip = FakeHX711(sps=80)
    chip.level_a = 100
    hx = _gpio(chip, gain=64)
    assert hx.read() == 50
    hx.power_down()
    hx.power_up()
    assert chip.power_downs == 1
    assert hx.read() == 50
    with _PIO(chip) as (hx, rp2):
        assert hx.read() == 100
        hx.power_down()
        hx.power_up()
        assert chip.power_downs == 2
        assert hx.read() == 100
