"""The simulated table's converter filter (``Table(adc=...)``): what a sudden change of the load
looks like in the readings under each model, and that the model changes nothing else."""

import pytest

from rhinoref.scenarios import play_game
from rhinoref.table import ADC_MODELS, Table

STEP_G = 10.0
STEP_AT_MS = 1000.0


def _readings_around_a_step(adc, sps, seed=4):
    """Readings (grams) of a table at rest on which 10 g arrive in an instant 1 s in (a coin
    dropped onto the platform), with the index of the first reading after it."""
    t = Table(seed=seed, sps=sps, adc=adc)
    t.idle(2500)
    # (the table's own way for a mass to arrive: a change of its static load at an instant)
    t._at(STEP_AT_MS, lambda: t._change(STEP_G))
    t._sort()
    cal = t.calibration()
    times, grams = [], []
    while t.busy():
        s = t.next_sample()
        times.append(s[0])
        grams.append((s[1] - cal.offset) / cal.counts_per_gram)
    first = next(i for i, ms in enumerate(times) if ms > STEP_AT_MS)
    base = sum(grams[first - 8:first - 1]) / 7
    return [g - base for g in grams], first


def _partial_readings(g):
    """How many readings lie partway through the change (2-98 % of it)."""
    return sum(1 for x in g if 0.02 * STEP_G < x < 0.98 * STEP_G)


@pytest.mark.parametrize("sps", [80, 10])
def test_one_conversions_mean_shows_a_step_within_one_or_two_readings(sps):
    g, first = _readings_around_a_step("sinc1", sps)
    assert _partial_readings(g) <= 1
    assert abs(g[first + 1] - STEP_G) < 0.1


@pytest.mark.parametrize("sps", [80, 10])
def test_the_sinc4_filter_spreads_a_step_over_four_readings(sps):
    g, first = _readings_around_a_step("sinc4", sps)
    steps = [b - a for a, b in zip(g[first - 1:first + 6], g[first:first + 7])]
    # a cubic B-spline over four periods: the largest step between two readings carries 46-60 %
    # of the change, never all of it, and two readings or more lie partway through it
    assert 0.44 * STEP_G < max(steps) < 0.62 * STEP_G
    assert _partial_readings(g) >= 2
    # ... and the whole change is there after four conversions (the filter's gain is 1)
    assert abs(g[first + 4] - STEP_G) < 0.1
    assert abs(g[-1] - STEP_G) < 0.1


def _rest_noise(adc, sps):
    """(sd in datasheet units, lag-1 correlation) of 1,600 readings at rest with the table's
    temperature drift and creep set aside (the correlation's own error is then 0.025)."""
    t = Table(seed=9, sps=sps, adc=adc)
    t._drift_a = t._drift_slope = t._creep_frac = 0.0
    t.idle(1600 * 1000 // sps)
    raw = []
    while t.busy():
        raw.append(t.next_sample()[1])
    m = sum(raw) / len(raw)
    e = [y - m for y in raw]
    var = sum(x * x for x in e) / len(e)
    return var ** 0.5 / t._noise_counts, sum(a * b for a, b in zip(e, e[1:])) / len(e) / var


@pytest.mark.parametrize("sps", [80, 10])
def test_a_readings_noise_is_the_datasheets_under_either_model(sps):
    for adc in ADC_MODELS:
        sd, _ = _rest_noise(adc, sps)
        assert 0.85 < sd < 1.15


@pytest.mark.parametrize("sps", [80, 10])
def test_the_sinc4_filter_makes_consecutive_readings_noise_correlate(sps):
    # (four-period windows that overlap by three: 0.49 for white input noise)
    assert abs(_rest_noise("sinc1", sps)[1]) < 0.1
    assert 0.35 < _rest_noise("sinc4", sps)[1] < 0.65


def test_a_seed_plays_the_same_game_under_either_converter_model():
    a = play_game(17, sps=10, adc="sinc1")
    b = play_game(17, sps=10, adc="sinc4")
    assert [(x["name"], x["t"]) for x in a.actions] == [(x["name"], x["t"]) for x in b.actions]
    assert a.samples == b.samples


def test_an_unknown_converter_model_is_refused():
    with pytest.raises(ValueError, match="sinc1"):
        Table(seed=1, adc="sinc3")


def test_the_virtual_boards_table_takes_the_filter_from_its_options():
    import argparse

    from rhinoref.cmd import board

    parser = argparse.ArgumentParser()
    board.add_arguments(parser)
    table = board._table(parser.parse_args(["--sps", "10", "--adc", "sinc4", "--seed", "3"]))
    assert (table.adc, table.sps) == ("sinc4", 10)
    assert board._table(parser.parse_args([])).adc == "sinc1"
    with pytest.raises(SystemExit):
        parser.parse_args(["--adc", "sinc3"])
