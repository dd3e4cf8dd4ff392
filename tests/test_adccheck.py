"""``rhinoref.adccheck``: the HX711's filter read off a finger's press let go at once, on the
simulated table under each converter model."""

import random

import pytest

from rhinoref.adccheck import verdict
from rhinoref.table import Table


def _pressed(sps, adc, seed, presses=5, release_ms=10.0):
    """Readings (grams) of an empty platform pressed ``presses`` times by a fingertip (50-400 g,
    its tremor and wander, held 0.6-1.2 s), the finger taken away in ``release_ms``."""
    rng = random.Random(seed)
    t = Table(seed=seed, sps=sps, adc=adc)
    t0 = 1500.0
    push = rng.uniform(50, 400)
    for _ in range(presses):
        hold = rng.uniform(600, 1200)
        t.finger_press(push, hold, release_ms, rise_ms=rng.uniform(60, 150), at_ms=t0, hand=rng)
        t0 += 150 + hold + release_ms + rng.uniform(1200, 2000)
    t.idle(int(t0) + 6000 - t.cursor_ms)       # (and the platform left alone after)
    cal = t.calibration()
    grams = []
    while t.busy():
        grams.append((t.next_sample()[1] - cal.offset) / cal.counts_per_gram)
    return grams


@pytest.mark.parametrize("adc", ["sinc1", "sinc4"])
def test_the_filter_is_told_from_five_presses_at_10_sps(adc):
    told = 0
    for seed in range(1, 21):
        found, spreads = verdict(_pressed(10, adc, seed), 10)
        assert found in (adc, None), (seed, spreads)      # never the wrong one here
        assert len(spreads) == 5
        told += found == adc
    assert told >= 18


def test_a_wandering_finger_is_no_sinc4():
    # (seed 51: the finger wanders 25 % under its push before it lets go; measured from the
    # top alone, its readings on the way down counted as partway in every release, 2, 2 and
    # 3, and the check of three presses read sinc4)
    found, spreads = verdict(_pressed(10, "sinc1", 51, presses=3, release_ms=8), 10)
    assert found != "sinc4" and min(spreads) <= 1, spreads


def test_releases_that_disagree_give_no_answer():
    # (one reading partway in one release of five is not enough for sinc1, and too many for
    # sinc4: a wrong answer is worse than none)
    grams = _pressed(10, "sinc4", 3)
    found, spreads = verdict(grams, 10)
    assert found == "sinc4" and min(spreads) >= 2
    from rhinoref import adccheck

    real = adccheck.releases
    try:
        adccheck.releases = lambda g, sps: [(j, d, 1 if k == 0 else p)
                                            for k, (j, d, p) in enumerate(real(g, sps))]
        assert adccheck.verdict(grams, 10)[0] is None
        adccheck.releases = lambda g, sps: [(j, d, 1 if k < 2 else p)
                                            for k, (j, d, p) in enumerate(real(g, sps))]
        assert adccheck.verdict(grams, 10)[0] == "sinc1"
    finally:
        adccheck.releases = real


def test_a_sinc4_filter_leaves_two_readings_partway_where_one_conversions_mean_leaves_one():
    one = verdict(_pressed(10, "sinc1", 5), 10)[1]
    four = verdict(_pressed(10, "sinc4", 5), 10)[1]
    assert min(one) <= 1 and min(four) >= 2


def test_no_verdict_at_80_sps_where_a_finger_is_as_slow_as_a_conversion():
    for adc in ("sinc1", "sinc4"):
        found, spreads = verdict(_pressed(80, adc, 3), 80)
        assert found is None and len(spreads) == 5


def test_a_release_in_the_first_readings_is_read_too():
    # (the readings may begin while the finger already presses: fewer than five before the top)
    from rhinoref.adccheck import releases

    grams = [100.0, 100.0, 100.0, 100.0, 50.0, 30.0, 10.0] + [0.0] * 10
    assert releases(grams, 10) == [(7, 100.0, 3)]


def test_no_verdict_without_three_releases():
    found, spreads = verdict(_pressed(10, "sinc4", 7, presses=2), 10)
    assert found is None and len(spreads) == 2
    assert verdict(_pressed(10, "sinc1", 7, presses=0), 10) == (None, [])


def test_lone_spikes_are_no_releases():
    grams = _pressed(10, "sinc1", 7, presses=0)
    grams[20] = 3900.0          # (the HX711's 2**n - 1, as grams)
    grams[50] = 3900.0
    assert verdict(grams, 10) == (None, [])
    pressed = _pressed(10, "sinc4", 7)
    top = max(range(len(pressed)), key=lambda i: pressed[i])
    pressed[top] = 3900.0       # a spike while the finger holds
    assert verdict(pressed, 10)[0] == "sinc4"


def test_a_cell_mounted_the_other_way_up_reads_the_same_filter():
    for adc in ("sinc1", "sinc4"):
        grams = _pressed(10, adc, 11)
        assert verdict([-g for g in grams], 10) == verdict(grams, 10)
