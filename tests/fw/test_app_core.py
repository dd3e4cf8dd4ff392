"""The board's Referee on MicroPython itself (and CPython): a short game from the sensor samples
of tests/fw/tracegen.py with buttons pressed in between, and no allocation per sample."""

import gc
from array import array

from referee import detector
from referee.app import Referee
from tracegen import Gen


def _ref(gen):
    def make(cal, sps, accel):
        return detector.Detector(gen.cal, sps=sps, accel=accel)

    return Referee(root=None, sps=gen.sps, make_detector=make)


def _play(ref, gen, presses):
    """Feed every sample; ``presses`` is a list of (t_ms, button) in time order."""
    i = 0
    n = len(presses)
    for t, raw, ax, ay, az in gen.samples():
        while i < n and presses[i][0] <= t:
            ref.press(t, presses[i][1])
            i += 1
        ref.sample(t, raw, ax, ay, az)
    ref.pop_events()


def test_a_short_game_from_samples():
    gen = Gen(seed=3, sps=80)
    gen.idle(12000)  # the family sits down; seats 3 then 1 join, menu starts
    presses = [(3000, "seat3"), (3500, "seat1"), (4000, "menu")]
    gen.place(gen.cal.wall_g)
    gen.idle(1500)
    gen.place(gen.cal.roof_g)
    gen.idle(1000)
    presses.append((gen.t, "skip"))  # 2 players: seat 3 goes again
    gen.idle(1500)
    gen.place(gen.cal.wall_g)
    gen.idle(1500)
    gen.place(gen.cal.roof_g)
    gen.idle(9000)  # no symbol pressed: plain after the window
    ref = _ref(gen)
    _play(ref, gen, presses)
    g = ref.game
    assert ref.seats == [1, 3] and g.first == 1
    st = g.state()
    assert st["walls_left"] == 26 and st["hands"] == [7, 5], st
    assert g.turn == 0 and not g.awaiting_symbol
    assert ref.seat_cues()[1] == ["turn_cw"]
    assert ref.seat_cues()[3] == []
    assert len(ref.log_lines) == 7  # header, wall, roof, skip, wall, roof, none
    assert '"timeout"' in ref.log_lines[-1]


def test_collapse_ends_the_game():
    gen = Gen(seed=4, sps=80)
    gen.idle(12000)
    presses = [(2000, "seat0"), (2500, "seat2"), (3000, "menu")]
    gen.place(gen.cal.wall_g)
    gen.idle(1500)
    gen.place(gen.cal.roof_g)
    gen.idle(1000)
    presses.append((gen.t, "reverse"))
    gen.idle(3000)
    gen.place(gen.cal.wall_g)
    gen.idle(1500)
    gen.collapse(gen.cal.wall_g * 2 + gen.cal.roof_g)
    gen.idle(2000)
    ref = _ref(gen)
    _play(ref, gen, presses)
    g = ref.game
    assert g.over and g.result == "collapse"
    assert g.loser == 1 and g.winners == [0]
    assert ref.seat_cues()[2] == ["loser"] and ref.seat_cues()[0] == ["winner"]


def test_no_allocation_per_sample_in_steady_state():
    gen = Gen(seed=5, sps=80)
    gen.idle(30000)
    ref = _ref(gen)
    for s in ("seat0", "seat4", "menu"):
        ref.press(0, s)
    ref.pop_events()
    it = gen.samples()
    for _ in range(1200):  # 15 s: the detector settles
        row = next(it)
        ref.sample(row[0], row[1], row[2], row[3], row[4])
    n = 120
    gc.collect()
    rows = array("i", bytearray(4 * 5 * n))  # samples made up front: the generator allocates
    for i in range(n):
        row = next(it)
        for k in range(5):
            rows[5 * i + k] = row[k]
    row = None
    ref.pop_events()
    sample = ref.sample
    alloc = getattr(gc, "mem_alloc", None)
    gc.collect()
    before = alloc() if alloc is not None else 0
    for i in range(0, 5 * n, 5):
        sample(rows[i], rows[i + 1], rows[i + 2], rows[i + 3], rows[i + 4])
    if alloc is not None:  # MicroPython; CPython has no heap counter, the path still runs
        used = alloc() - before
        assert used < 64, "Referee.sample allocated %d bytes over %d samples" % (used, n)
    assert ref.pop_events() == []


def test_cue_ids_in_the_app_match_the_cue_table():
    from referee import app, appcues, cues

    checked = 0
    for mod in (app, appcues):
        for name in cues.NAMES:
            v = getattr(mod, "_C_" + name.upper(), None)  # const()s vanish on MicroPython
            if v is not None:
                assert v == cues.cue_id(name), name
                checked += 1
    assert checked >= len(cues.NAMES) or checked == 0
