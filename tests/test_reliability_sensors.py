"""Sensor faults during play (issue 8, part 4): referee.board.run with a faulty HX711 or
accelerometer under a game on the simulated table (tests/rel_sensors.py), and the board-loop
bugs those runs found. bench/bench_reliability.py runs every fault over more seeds."""

import pytest
from app_rig import NoDetector
from rel_boardloop import Loop
from rel_sensors import FAULTS, run_fault

from rhinoref.vboard.feed import IdleTable


@pytest.mark.parametrize("fault", FAULTS)
def test_fault_gives_its_cue_no_false_event_and_recovers(fault):
    r = run_fault(fault, seed=2)
    assert r.ok, r.problems
    assert r.cue_ms is not None and r.cue_ms <= 1600
    assert r.recover_ms is not None
    assert r.sensor_inputs == r.truth and len(r.truth) >= 4


def _cue_after(mode, value=None, ms=3000):
    """The HX711 goes ``mode`` at 2 s on an idle table (80 SPS, one reading per 12.5 ms as
    on the board, not one per loop pass); seat cues at the end."""
    loop = Loop(None, IdleTable(seed=4), make_detector=NoDetector)

    def go():
        loop.hx.mode = mode
        loop.hx.stuck_value = value

    loop.at(2000, go)
    loop.run_until(2000 + ms)
    return loop


@pytest.mark.parametrize("mode,value", [("saturated", None), ("stuck", None), ("stuck", 0)])
def test_a_converter_that_repeats_itself_is_a_fault_at_the_real_sample_rate(mode, value):
    # Found by the sensor-fault runs: a saturated HX711 was never declared lost on a board
    # (the saturation timer restarted on every loop pass without a sample, i.e. between any
    # two conversions); a stuck converter was not noticed at all, and one stuck at 0 (DOUT
    # held low) was fed to the detector as a 56 g drop: a false collapse.
    loop = _cue_after(mode, value)
    assert "hx711" in loop.ref.faults
    assert all(c and c[0] == "fault" for c in loop.ref.seat_cues())
    assert loop.hx.restarts >= 2


def test_readings_are_fed_once_and_a_resting_level_on_a_spike_pattern_is_no_spike():
    fed = []
    loop = Loop(None, IdleTable(seed=4), make_detector=NoDetector)
    orig = loop.ref.sample

    def sample(t, raw, ax, ay, az):
        fed.append(raw)
        orig(t, raw, ax, ay, az)

    loop.ref.sample = sample

    class OnPattern(IdleTable):
        # a platform whose resting level sits on -49153 (low 12 bits all ones): many exact hits
        def next_sample(self):
            s = list(IdleTable.next_sample(self))
            s[1] = -49153 + (s[1] - 120000) // 8
            return tuple(s)

    loop.hx.source = OnPattern(seed=5)
    loop.run_until(20000)
    assert all(fed[i] != fed[i - 1] for i in range(1, len(fed)))  # no repeat fed
    assert fed.count(-49153) > 20  # hits of the pattern at rest are readings, not spikes
    assert loop.ref.faults == []


def test_spike_bursts_are_not_fed_and_show_the_cue_until_they_stop():
    loop = Loop(None, IdleTable(seed=6), make_detector=NoDetector)
    fed = []
    orig = loop.ref.sample
    loop.ref.sample = lambda t, raw, ax, ay, az: (fed.append(raw), orig(t, raw, ax, ay, az))
    seen = []
    loop.at(2000, lambda: setattr(loop.hx, "mode", "spikes"))
    loop.at(6000, lambda: seen.append(list(loop.ref.faults)))
    loop.at(7000, lambda: setattr(loop.hx, "mode", "ok"))
    loop.run_until(14000)
    assert seen == [["hx711_spikes"]]
    assert loop.ref.faults == []
    assert not [r for r in fed if r & 0xFFF == 0xFFF and abs(r - 120000) > 4096]


def test_the_detector_goes_on_after_a_spike_fault_and_starts_over_after_silence():
    # A placement settling when a spike fault ends must not be lost: the detector was fed all
    # along, so it is not restarted then (it is after the HX711 was silent).
    from referee.app import Referee

    ref = Referee(root=None, make_detector=NoDetector)
    det = ref.det
    ref.fault("hx711_spikes", True)
    ref.fault("hx711_spikes", False)
    assert ref.det is det and ref.faults == []
    ref.fault("hx711", True)
    ref.fault("hx711", False)
    assert ref.det is not det
