"""Detector tests at 80 SPS for the cases found on held-out games, on small generated traces
with noise, spikes and drift (the 10 SPS ones are in test_detector_lowrate.py). Runs on CPython
(pytest) and on the MicroPython unix port (tests/fw/run.py).
"""

import math

from detrun import collapses as _collapses
from detrun import names
from detrun import run as _run
from referee import detector
from tracegen import Gen

NAMES = detector.EVENT_NAMES


def _rhino_on_a_floor(seed):
    """A floor, and Rhino Hero (5.5 g) set on its roof: the generator and the time his move
    becomes owed (1.5 s later)."""
    g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3)
    g.idle(1500)
    g.floors(1)
    g.place(5.5, press=4.0, hold=300)
    g.idle(1500)
    return g, g.t


def _rhino_lifted_and_ringing(g):
    """Rhino Hero (5.5 g) gripped lightly and lifted; the tower rings 0.35 g at 7 Hz for a
    second after it (too much to settle for 300 ms). Returns when he was off."""
    t0 = g.t
    g.parts.append((t0, t0 + 200, "press", 0.3, 40, 100, 0.0))
    g.parts.append((t0 + 160, t0 + 220, "dip", 5.5, 60, 0))
    g.steps.append((t0 + 220, -5.5))
    g.parts.append((t0 + 220, t0 + 1200, "ring", 0.35, 7.0, 400))
    g.t = t0 + 1400
    return t0 + 220


def _rhino_lifted_owed(seed, then=None, jolt_ms=None):
    """Rhino Hero on a floor (``_rhino_on_a_floor``), lifted while his move is owed
    (``_rhino_lifted_and_ringing``); ``then(g, lifted)`` adds what follows his lift and
    returns a time to hand back; ``jolt_ms``: one reading of 30 mg that long after he was
    off. Returns the events and what ``then`` returned."""
    g, owe = _rhino_on_a_floor(seed)
    lifted = _rhino_lifted_and_ringing(g)
    mark = then(g, lifted) if then else None
    g.idle(1000)
    d = detector.Detector(g.cal, sps=80, accel=True)
    ev = []
    for t, raw, ax, ay, az in g.samples():
        if owe <= t < owe + 13:
            d.expect_rhino(True)
        if jolt_ms is not None and lifted + jolt_ms <= t < lifted + jolt_ms + 12:
            az += 30
        e = d.feed(t, raw, ax, ay, az)
        if e:
            ev.append((t, NAMES[e], d.event_t_ms))
    return ev, mark


def test_rhino_hero_lifted_after_a_hard_touch_let_go_to_the_old_level_is_no_collapse():
    # (scripted 70811; the 10 SPS case is in test_detector_lowrate.py) A hand touches the
    # tower hard (more than a wall and 2 g, the table still: the press of a hand that brings
    # a piece) and lets go; the load comes back to the old level and rests there, the tower
    # swaying too much to settle (0.15 g at 4 Hz); 500-700 ms later Rhino Hero, his move
    # owed, is lifted in the same episode. That hand left nothing, so his mass lost is his
    # lift, not a roof that fell under it (before: a collapse in 16 of these 18). Noise,
    # spikes and drift.
    for seed in (81, 82, 83, 84, 85, 86):
        for press, rest in ((5.0, 500), (12.0, 700), (19.0, 600)):
            g, _ = _rhino_on_a_floor(seed)
            t = g.t
            g.parts.append((t, t + 620, "press", press, 60, 500, 0.0))
            g.parts.append((t + 620, t + 1220 + rest, "ring", 0.15, 4.0, 800))
            g.t = t + 620 + rest
            g.lift(5.5, carry=800, back=False)
            g.idle(1500)
            ev = names(_run(g, sps=80, rhino_owed=True)[0])
            assert "collapse" not in ev and ev[-1] == "rhino_lift", (seed, press, rest, ev)


def test_a_jolt_after_rhino_hero_was_lifted_and_the_level_stopped_is_no_landing():
    # (held-out games 6410, 6732): Rhino Hero lifted while his move is owed; the level
    # stops at his mass below but rings too much to settle, and 250-320 ms later one
    # reading of the accelerometer's own noise passes the activity threshold (30 mg). A
    # card that falls lands while the load is still going; with the last 100 ms at an
    # allowed drop the jolt is no landing. Noise, spikes, drift.
    for seed in (81, 82, 83):
        for jolt_ms in (250, 320):
            ev, _ = _rhino_lifted_owed(seed, jolt_ms=jolt_ms)
            assert names(ev) == ["wall", "roof", "rhino", "rhino_lift"], (seed, jolt_ms, ev)


def _rhino_lifted_then_bumped(seed, bump_ms, mg, fall_ms=None):
    """His owed lift, the table bumped ``bump_ms`` after he was off (a 15 Hz shake of ``mg``
    milli-g swinging an 80 g platform: grams of load); with ``fall_ms``, 12 g of the tower
    falls that long after the bump began. Returns the events and the fall's onset."""

    def bump(g, lifted):
        g.parts.append((lifted + bump_ms, lifted + bump_ms + 700, "bump", mg, 15.0, 100, 80.0))
        if fall_ms is None:
            return None
        g.t = lifted + bump_ms + fall_ms
        fall = g.t
        g.collapse(12.0)
        return fall

    return _rhino_lifted_owed(seed, then=bump)


def test_a_bump_after_rhino_hero_was_lifted_and_the_level_stopped_is_no_landing():
    # (bench_overlap.py, his owed lift with a bump 100-300 ms after it) The level stopped at
    # his mass below, so the bump's first reading is no landing (as for the jolt above), and
    # nor is any later one of the same shake, though by then its swing has carried the level
    # off his mass (round 78). Before, the next reading over the threshold made the drop a
    # landing's: a collapse in 21 of these 27. Noise, spikes, drift.
    for seed in (81, 82, 83):
        for bump_ms in (120, 150, 200):
            for mg in (80, 120, 200):
                ev, _ = _rhino_lifted_then_bumped(seed, bump_ms, mg)
                assert names(ev) == ["wall", "roof", "rhino", "rhino_lift"], (seed, bump_ms, mg, ev)


def test_the_tower_falling_during_that_bump_is_still_a_collapse():
    # The shake excused, a fall that follows within the same drop is found by the load
    # alone: 12 g gone 250 ms into the bump, 82-120 ms after its onset.
    for seed in (81, 82, 83):
        for bump_ms in (120, 200):
            for mg in (80, 200):
                ev, fall = _rhino_lifted_then_bumped(seed, bump_ms, mg, fall_ms=250)
                assert names(ev) == ["wall", "roof", "rhino", "collapse"], (seed, bump_ms, mg, ev)
                assert 0 < ev[-1][0] - fall <= 150, (seed, bump_ms, mg, ev, fall)


def _second_wall_while_the_first_push_is_let_go(g, gap_ms, push):
    """Two walls (2.2 g each) one after the other: the second's contact (a jolt of 60 mg)
    comes ``gap_ms`` after the first's push (``push`` grams) was let go, when the level of
    the last 100 ms is still on its way down from the push."""
    t0 = g.t
    g.steps.append((t0 + 30, 2.2))
    g.parts.append((t0, t0 + 520, "press", push, 60, 400, 0.0))
    t1 = t0 + 520 + gap_ms
    g.steps.append((t1 + 30, 2.2))
    g.parts.append((t1, t1 + 520, "press", push, 60, 400, 0.0))
    g.parts.append((t1 + 520, t1 + 1100, "ring", 0.3, 9.0, 80))
    g.t = t1 + 1100
    return t1


def test_the_next_piece_brought_after_a_jolt_is_no_landing():
    # (held-out game 2392): the second wall's contact jolts the table while the level
    # of the last 100 ms still holds the first wall's push being let go (a piece's mass
    # above the old level: "a piece let go that falls again" armed); the hand then pushes
    # the second wall down and lets go at two walls, a roof's mass (and more) under that
    # level. The level rising more than a wall and a push above where the piece would
    # have fallen from is a hand with a piece: no landing. Noise, spikes, drift.
    for seed in (91, 92, 93):
        for gap_ms in (50, 60):
            for push in (7.0, 8.0):
                g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3, rhino_g=7.0)
                g.idle(1500)
                g.floors(1)
                t1 = _second_wall_while_the_first_push_is_let_go(g, gap_ms, push)
                g.idle(1500)
                ev, _ = _run(g, jolts=[(t1, t1 + 25, 60)])
                assert names(ev) == ["wall", "roof", "walls2"], (seed, gap_ms, push, ev)


def _roof_under_a_finger_then_lifted(g, finger, hold_ms, grip_at=480):
    """A roof (4.8 g) set with a push let go 520 ms after it came; a finger presses it
    ``finger`` grams from ``grip_at`` ms on (480: as the push is let go, a grip that began
    before the release, no rise of its own; later: a grip again on the roof let go),
    rising in 40 ms and held ``hold_ms``, then the roof is lifted away within 80 ms."""
    t0 = g.t
    g.steps.append((t0 + 30, 4.8))
    g.parts.append((t0, t0 + 520, "press", 8.0, 60, 400, 0.0))
    if finger:
        g.parts.append((t0 + grip_at, t0 + grip_at + 100 + hold_ms, "press", finger, 40, hold_ms,
                        0.0))
    g.parts.append((t0 + 520, t0 + 1000, "ring", 0.2, 9.0, 60))
    lift = t0 + grip_at + 40 + hold_ms
    g.parts.append((lift, lift + 80, "dip", 4.8, 80, 0))
    g.steps.append((lift + 80, -4.8))
    g.t = lift + 80
    return lift


def test_a_roof_weighed_with_a_finger_still_on_it_then_lifted_is_no_collapse():
    # (held-out games 1355, 7437, 7900): the finger that takes a roof back was already
    # on it when the push was let go, so the roof settles 0.4-0.7 g heavy and no grip rises
    # before the lift, 0.1-0.3 s after the roof was reported. A step heavier than the piece
    # by more than its tolerance keeps the hand on the piece. The same roof weighed at its
    # own mass (no finger) and gone as fast is still a collapse. Noise, spikes, drift.
    for seed in (71, 72, 73):
        for finger in (0.0, 0.55, 0.7):
            for hold_ms in (450, 550):
                g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3, rhino_g=8.0)
                g.idle(1500)
                g.floors(1)
                g.place(2.2)
                g.idle(1200)
                lift = _roof_under_a_finger_then_lifted(g, finger, hold_ms)
                g.idle(1500)
                g.place(4.8)
                g.idle(1500)
                ev, col = _collapses(g)
                if finger:
                    assert col == [], (seed, finger, hold_ms, ev)
                    assert names(ev, skip=("bump", "removed")) == [
                        "wall", "roof", "wall", "roof", "roof"], (seed, finger, hold_ms, ev)
                else:
                    assert len(col) == 1 and 0 <= col[0][0] - lift <= 200, (seed, hold_ms, ev)


def _roof_taken_back_knocked(seed, grip, knock_ms, mg):
    """A roof (4.8 g) set with an 8 g push and let go; 120 ms later fingers grip it again
    (``grip`` grams, held still 300 ms) and lift it away; the table knocked (``mg`` for 25
    ms) ``knock_ms`` after the grip began, the roof still on the tower."""
    g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3, rhino_g=8.0)
    g.idle(1500)
    g.floors(1)
    grip_t = g.t + 640
    _roof_under_a_finger_then_lifted(g, grip, 300, grip_at=640)
    g.idle(1500)
    ev, _ = _run(g, jolts=[(grip_t + knock_ms, grip_t + knock_ms + 25, mg)])
    return ev


def test_a_roof_taken_back_with_a_knock_while_held_still_is_no_roof_falling_off():
    # (bench_overlap.py, a take-back or a touch with a knock or a bump) A jolt after the
    # push's peak, then the old level, was read as the roof let go falling off (`_settled`);
    # at 80 SPS that now needs a hand seen pressing a piece onto the roof let go (round
    # 79): the roof that slides off alone is decided by `_check_collapse` first. A grip of
    # 1.5-2.5 g held still, knocked 100-300 ms into it: the roof taken back (a collapse in
    # all 36 before). Noise, spikes, drift.
    for seed in (61, 62, 63):
        for grip in (1.5, 2.5):
            for knock_ms in (100, 200, 300):
                for mg in (60, 150):
                    ev = _roof_taken_back_knocked(seed, grip, knock_ms, mg)
                    assert names(ev) == ["wall", "roof", "removed"], (seed, grip, knock_ms, mg, ev)


def _three_floors_then_a_roof_sliding_under_a_hand(seed, wall_ms, roof_loss):
    """Three floors (wall 2.2 g, roof 4.8 g); a hand sets a wall on the top roof with a 6 g
    push; as the roof gives way the push goes (60 ms), the hand takes the wall away over
    ``wall_ms`` and the roof tips off, losing ``roof_loss`` grams over 150 ms, then the rest.
    Returns the trace and the onset."""
    g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3)
    onset = g.hand_on_top_roof()
    g.parts.append((onset, onset + wall_ms, "dip", 2.2, wall_ms, 0))
    g.steps.append((onset + wall_ms, -2.2))
    g.parts.append((onset, onset + 150, "dip", roof_loss, 150, 0))
    g.steps.append((onset + 150, -4.8))
    g.t = onset + 2000
    return g, onset


def test_a_roof_sliding_under_a_hand_is_decided_on_the_first_median_below_the_old_level():
    # A hand slide whose level comes back to the old level fast (the wall goes with the
    # hand while the roof is already tipping): the first median below the rest band, the
    # newest raw sample past the margin after a hand (0.8 g: more than a touch let go or a
    # piece taken back rings), after a run of new lows from the hand's peak: decided one
    # sample before a second median below the band (107 and 145 ms before). Noise, spikes,
    # drift.
    for seed in (31, 32, 33):
        for wall_ms, roof_loss, limit in ((100, 3.0, 100), (140, 1.5, 138)):
            g, onset = _three_floors_then_a_roof_sliding_under_a_hand(seed, wall_ms, roof_loss)
            ev, col = _collapses(g)
            assert names(ev) == ["wall", "roof"] * 3 + ["collapse"], (seed, wall_ms, ev)
            assert 0 <= col[0][0] - onset <= limit, (seed, wall_ms, col[0][0] - onset)


def _roof_let_go_ringing(g):
    """A roof (4.8 g) set with a push and let go, the tower ringing (not yet weighed 350 ms
    later): returns that moment."""
    t0 = g.t
    g.steps.append((t0 + 30, 4.8))
    g.parts.append((t0, t0 + 520, "press", 8.0, 60, 400, 0.0))
    g.parts.append((t0 + 520, t0 + 1500, "ring", 0.25, 9.0, 400))
    return t0 + 870


def _roof_let_go_then_falling_onto_the_platform(g, land, back=3.5, jolt=120):
    """Two floors; a roof let go, ringing (``_roof_let_go_ringing``); 350 ms later it tips
    and loses 3.5 g over 120 ms (the cards in the air). When ``land``: 180 ms later they land
    on the platform (on the cell): an impact, ``back`` grams back and a jolt of ``jolt`` mg.
    Otherwise the roof is taken back whole (80 ms) and a wall brought 200 ms later, its
    contact felt (``jolt`` mg). Returns (onset, jolt window)."""
    onset = _roof_let_go_ringing(g)
    if land:
        g.parts.append((onset, onset + 120, "dip", 3.5, 120, 0))
        g.steps.append((onset + 120, -3.5))
        ti = onset + 300
        g.parts.append((ti, ti + 13, "impulse", 4.0, 0, 0))
        g.steps.append((ti, back))
        g.parts.append((ti, ti + 500, "ring", 0.5, 12.0, 80))
        g.t = ti + 1500
        return onset, (ti, ti + 25, jolt)
    g.parts.append((onset, onset + 80, "dip", 4.8, 80, 0))
    g.steps.append((onset + 80, -4.8))
    g.t = onset + 280
    tw = g.t
    g.place(2.2, press=3.0)
    g.idle(1500)
    return onset, (tw, tw + 25, jolt)


def test_a_roof_let_go_that_falls_onto_the_platform_before_it_was_weighed():
    # Held-out 2773, 13348, 15734 (80 SPS): a roof let go, ringing, loses 3-4 g before it
    # was weighed, and the cards land on the platform 100-300 ms later (a jolt harder than a
    # hand's contact, the load back up 3-4 g): a collapse, dated where the roof left its
    # rest. A roof taken back and a wall brought soon after, its contact felt (a hand: up to
    # 60 mg over three axes), is none. Noise, spikes, drift.
    for seed in (41, 42, 43):
        for land, back, jolt in ((True, 3.5, 120), (True, 2.5, 300), (False, 0, 15),
                                 (False, 0, 50)):
            g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3, rhino_g=8.0)
            g.idle(1500)
            g.floors(1)
            g.place(2.2)
            g.idle(1200)
            onset, jw = _roof_let_go_then_falling_onto_the_platform(g, land, back, jolt)
            ev, _ = _run(g, jolts=[jw])
            col = [e for e in ev if e[1] == "collapse"]
            if land:
                assert len(col) == 1 and 0 <= col[0][2] - onset <= 100, (seed, back, ev)
                assert col[0][0] - onset <= 500, (seed, back, ev)
            else:
                assert col == [], (seed, ev)
                assert names(ev, skip=("bump", "removed")) == [
                    "wall", "roof", "wall", "wall"], (seed, ev)



def _jolt_then_the_next_wall_after_a_slow_release(g, jolt_after_ms):
    """A wall (2.2 g) set with a 10 g push let go in two stages (to 5 g, held 140 ms, then
    off: a slow release); ``jolt_after_ms`` after the release ends, the next hand touches the
    table (a jolt of 60 mg) and sets the second wall down 100 ms later. The last 100 ms before
    the jolt hold the push's last stage: a wall and a roof's mass above the old level."""
    t0 = g.t
    g.steps.append((t0 + 30, 2.2))
    g.parts.append((t0, t0 + 520, "press", 5.0, 60, 400, 0.0))
    g.parts.append((t0, t0 + 720, "press", 5.0, 60, 600, 0.0))
    t1 = t0 + 720 + jolt_after_ms
    g.steps.append((t1 + 100, 2.2))
    g.parts.append((t1 + 70, t1 + 590, "press", 6.0, 120, 340, 0.0))
    g.parts.append((t1 + 590, t1 + 1200, "ring", 0.3, 9.0, 80))
    g.t = t1 + 1200
    return t1


def test_a_jolt_with_the_level_at_rest_after_a_slow_release_is_no_landing():
    # (held-out 18702): the first of two walls set with a 10 g push let go slowly; the
    # next hand jolts the table as it arrives, 40-60 ms after the level came down to the
    # wall, while the last 100 ms still held the push (a wall and a roof's mass up: "a
    # piece let go that falls again" armed); the level then stays where it is. A piece
    # that falls strikes while it is still leaving the tower: the load goes on falling
    # after the jolt. Noise, spikes, drift.
    for seed in (91, 92, 93):
        for jolt_after_ms in (40, 60):
            g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3)
            g.idle(1500)
            g.place(2.2)
            g.idle(1200)
            g.place(4.8)
            g.idle(1500)
            t1 = _jolt_then_the_next_wall_after_a_slow_release(g, jolt_after_ms)
            g.idle(1500)
            ev, _ = _run(g, jolts=[(t1, t1 + 25, 60)])
            assert names(ev) == ["wall", "roof", "walls2"], (seed, jolt_after_ms, ev)


def _roof_gripped_again(g, grip, slide):
    """One floor (wall 2.2 g, roof 4.8 g, weighed); 1.2 s later a hand grips the roof again
    with ``grip`` grams (rise 50 ms, held 200 ms, let go over 60 ms as it lifts). Unless
    ``slide``, the hand lifts the roof (4.8 g over 80 ms); when ``slide``, the roof tips off
    under the grip instead (4.8 g over 150 ms, tipping slowly first) and the cards strike
    the table 100 ms after it began (returned: the onset and the jolt's window)."""
    t0 = g.t
    g.parts.append((t0, t0 + 310, "press", grip, 50, 200, 0.0))
    onset = t0 + 280
    ms = 150 if slide else 80
    g.parts.append((onset, onset + ms, "dip", 4.8, ms, 0))
    g.steps.append((onset + ms, -4.8))
    g.parts.append((onset + ms, onset + 700, "ring", 0.3, 9.0, 100))
    g.t = onset + 700
    return onset, (onset + 100, onset + 125)


def test_a_weighed_roof_gripped_again_with_a_light_wall_and_a_push_lifted_is_no_collapse():
    # (held-out games 2823, 6488, 7358, 12699, 16977, 21434): a hand grips a weighed roof
    # again with 3.7-3.9 g, over a wall and a push (1.5 g) but under a wall and 2 g, and
    # lifts it: a grip (0.3-4 g), not a wall brought, so the roof may be taken back; with
    # a push of 1.5 g it was taken for a wall sliding off (a collapse). The same grip with
    # the roof tipping off and its cards striking the table (a 100 mg jolt) is still a
    # collapse. Noise, spikes, drift.
    for seed in (101, 102, 103):
        for grip in (3.7, 3.9):
            for slide in (False, True):
                g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3)
                g.idle(1500)
                g.floors(1)
                onset, (j0, j1) = _roof_gripped_again(g, grip, slide)
                g.idle(1500)
                ev, _ = _run(g, jolts=[(j0, j1, 100)] if slide else ())
                col = [e for e in ev if e[1] == "collapse"]
                if slide:
                    assert len(col) == 1 and 0 <= col[0][0] - onset <= 300, (seed, grip, ev)
                else:
                    assert col == [], (seed, grip, ev)
                    assert names(ev) == ["wall", "roof", "removed"], (seed, grip, ev)


def _two_walls_and_a_steady_press(g, press, let_go):
    """After one floor: two walls (2.2 g each) set 200 ms apart with an 8 g push, the hand
    then resting on them with a steady ``press`` grams (weighed with them as a wall and a
    roof), pressing 1.2 g more as it shifts its grip, and lifting off (over 60 ms)
    ``let_go`` ms after the push ended."""
    t0 = g.t
    g.steps.append((t0 + 30, 2.2))
    g.steps.append((t0 + 200, 2.2))
    g.parts.append((t0, t0 + 420, "press", 8.0, 60, 300, 0.0))
    g.steps.append((t0 + 380, press))
    off = t0 + 420 + let_go
    g.parts.append((off - 250, off + 60, "press", 1.2, 100, 150, 0.0))
    g.parts.append((off, off + 60, "dip", press, 60, 0))
    g.steps.append((off + 60, -press))
    g.parts.append((off + 60, off + 600, "ring", 0.2, 9.0, 100))
    g.t = off + 1500
    return off


def test_a_press_weighed_with_two_walls_as_a_wall_and_a_roof_then_let_go_is_no_collapse():
    # (held-out games 17087, 21552, 23586): two walls set with a push and a hand left
    # resting on them (2.6 g, a roof's excess over a wall) are weighed as a wall and a
    # roof; the hand lifts off and the load rests a roof's excess over a wall lower. One
    # piece fewer than weighed, not a collapse (every collapse loses a roof or more; a
    # wall alone falling is none either). Noise, spikes, drift.
    for seed in (111, 112, 113):
        for let_go in (1000, 1400):
            g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3)
            g.idle(1500)
            g.floors(1)
            _two_walls_and_a_steady_press(g, 2.6, let_go)
            ev, col = _collapses(g)
            assert names(ev)[:4] == ["wall", "roof", "wall", "roof"], (seed, let_go, ev)
            assert col == [], (seed, let_go, ev)


def _wall_and_resting_finger(seed, finger, lift_at=None):
    """Two floors' start (a wall, a roof, a wall: 2.2 / 4.8 g), then a hand sets a wall
    with a 6 g push and lets the push go, a finger resting on it with ``finger`` grams
    (still: no tremor above the settle band), and lifts wall and finger together at
    ``lift_at`` (ms) within 80 ms."""
    g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3)
    g.idle(1500)
    g.floors(1)
    g.place(2.2)
    g.idle(1200)
    t0 = g.t
    g.steps.append((t0 + 30, 2.2))
    g.parts.append((t0, t0 + 420, "press", 6.0, 60, 300, 0.0))
    g.steps.append((t0 + 360, finger))
    g.parts.append((t0 + 420, t0 + 900, "ring", 0.2, 9.0, 60))
    if lift_at is None:
        g.t = t0 + 3000
    else:
        m = 2.2 + finger
        g.parts.append((lift_at, lift_at + 80, "dip", m, 80, 0))
        g.steps.append((lift_at + 80, -m))
        g.t = lift_at + 1500
    return g


def test_a_wall_and_a_resting_finger_weighed_as_a_roof_lifted_at_once_is_no_collapse():
    # (held-out games 25479, 25713, 17705, 23850): the hand that set a piece rests on it (or
    # comes back to it) without pressing; the step is weighed as a piece it does not match
    # well (a wall and a finger, 4.5 g, weighed as a 4.8 g roof: 0.75 tolerances off), and
    # the hand lifts it 60-130 ms after the report with no rise first. A step off its piece
    # by more than 5/8 of a tolerance lets a fall within 150 ms of the report count as
    # after a grip: the piece taken back. The same lift of a step weighed right (a roof,
    # 4.8 g) is still a collapse. Noise, spikes, drift.
    for seed in (91, 92, 93):
        for finger in (2.3, 2.6):
            ev, _ = _run(_wall_and_resting_finger(seed, finger))
            rep = [e[0] for e in ev if e[1] == "roof"][-1]
            for after in (60, 130):
                ev, col = _collapses(_wall_and_resting_finger(seed, finger, rep + after))
                if finger == 2.3:
                    assert col == [], (seed, after, ev)
                    assert names(ev)[-2:] == ["roof", "removed"], (seed, after, ev)
                else:
                    assert len(col) == 1, (seed, after, ev)



def _wall_and_finger_weighed_as_rhino(seed, lift_after=None, owed=False):
    """A set whose Rhino Hero (3.2 g) weighs a wall (2.2 g) and a light finger: a floor's
    wall and roof, then a hand sets a wall with a 6 g push and lets the push go, a 1.0 g
    finger resting on it (still), weighed as Rhino Hero exactly; lifted together
    ``lift_after`` ms after that report within 80 ms (the report's time found by a first
    run). ``owed``: Rhino Hero's move owed before the wall (then he is in the game's
    order). Returns the events, or (without a lift) the report's time."""
    def gen(lift_at):
        g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3, rhino_g=3.2)
        g.idle(1500)
        g.floors(1)
        t0 = g.t
        g.steps.append((t0 + 30, 2.2))
        g.parts.append((t0, t0 + 420, "press", 6.0, 60, 300, 0.0))
        g.steps.append((t0 + 360, 1.0))
        g.parts.append((t0 + 420, t0 + 900, "ring", 0.2, 9.0, 60))
        if lift_at is None:
            g.t = t0 + 3000
        else:
            g.parts.append((lift_at, lift_at + 80, "dip", 3.2, 80, 0))
            g.steps.append((lift_at + 80, -3.2))
            g.t = lift_at + 1500
        return g, t0 - 100
    g, owe_t = gen(None)
    owe_t = [x[0] for x in gen(None)[0].samples() if x[0] >= owe_t][0]    # (a sample's time)
    ev, _ = _run(g, expect_rhino_at=owe_t if owed else None)
    rep = [e[0] for e in ev if e[1] == "rhino"][-1]
    if lift_after is None:
        return rep
    g = gen(rep + lift_after)[0]
    ev, _ = _run(g, expect_rhino_at=owe_t if owed else None)
    return ev


def test_a_wall_and_a_finger_weighed_as_rhino_hero_out_of_order_lifted_at_once():
    # (held-out games 30040, 35653: a wall and a 0.6-1.1 g finger left on it weighed as
    # Rhino Hero, 3.1-3.25 g for 3.22-3.24, while his move was not owed, and lifted 13-100 ms
    # after the report with no rise first.) A Rhino Hero out of the game's order is more
    # likely another piece and a hand than Rhino Hero: a fall within 150 ms of the report
    # counts as after a grip (the piece taken back). Weighed the same with his move owed,
    # the same lift is still a collapse. Noise, spikes, drift.
    for seed in (95, 96, 97):
        for after in (30, 110):
            ev = _wall_and_finger_weighed_as_rhino(seed, after)
            assert [e for e in ev if e[1] == "collapse"] == [], (seed, after, ev)
            assert names(ev)[-2:] == ["rhino", "removed"], (seed, after, ev)
            ev = _wall_and_finger_weighed_as_rhino(seed, after, owed=True)
            assert len([e for e in ev if e[1] == "collapse"]) == 1, (seed, after, ev)




def _touch_let_go(seed, under, fall_after=None, hz=6.0, ph=45, push=8.0, fall_ms=120):
    """Two floors' start and a wall, then a hand touches the tower (no piece) with an 8 g
    push held 600 ms and lets go over 120 ms; the tower rings at 6 Hz from there, starting
    on its way down (phase 45 degrees), ``under`` grams past the old level at the bottom
    of that swing (the table's touches ring up to 0.6 g), the steps into the trough
    shrinking. With ``fall_after`` (ms after the release) the roof slides off; ``hz``,
    ``ph`` (degrees), ``push`` (g) and ``fall_ms`` change the ring and the push. Returns the
    generator and its samples with the touch added."""
    g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3)
    g.idle(1500)
    g.floors(1)
    g.place(2.2)
    g.idle(1500)
    t0 = g.t
    rel = t0 + 660
    end = rel + fall_ms
    g.t = end + 1500
    if fall_after is not None:
        g.t = end + fall_after
        g.collapse(4.8)
        g.idle(800)
    w = 2 * math.pi * hz / 1000.0
    phr = ph * math.pi / 180.0
    amp = under / math.exp(-(math.pi / 2 - phr) / w / 150.0)    # the trough

    def samples():
        for t, raw, ax, ay, az in g.samples():
            f = 0.0
            if t0 <= t < rel:
                f = push * min(1.0, (t - t0) / 60.0) * (1.0 + 0.05 * math.sin((t - t0) / 15.0))
            elif rel <= t < end:
                f = push * (1.0 - (t - rel) / fall_ms)
            elif end <= t < end + 1000:
                f = -amp * math.exp(-(t - end) / 150.0) * math.sin(w * (t - end) + phr)
            yield t, raw + int(f * g.cpg), ax, ay, az
    return g, samples


def _events(seed, under, fall_after=None, **shape):
    g, samples = _touch_let_go(seed, under, fall_after, **shape)
    return _run(g, samples=samples)[0]


def test_a_touch_let_go_that_rings_just_past_the_old_level_is_no_collapse():
    # (held-out games 16110, 18618, 20030, 20422, 20571): a hand pushes the tower with no
    # piece and lets go; the tower rings 0.55-0.6 g past the old level at the bottom of its
    # first swing, the steps into the trough shrinking. "A piece just brought that keeps
    # falling" took the first raw sample 0.5 g past the old level; a step less than a third
    # of the one before (and under two rest bands) is a load settling, not a tower falling.
    # The same touch with the roof sliding off 400 ms after the release is still a
    # collapse. Noise, spikes, drift.
    # (seeds whose noise puts a raw sample of the trough 0.5 g past: a collapse without the
    # rule; a touch heavier than a wall that leaves the level where it was is "removed")
    for seed in (122, 126, 129):
        for under in (0.55, 0.6):
            ev = _events(seed, under)
            assert "collapse" not in names(ev), (seed, under, ev)
            assert names(ev)[-1] == "removed", (seed, under, ev)
            ev = _events(seed, under, fall_after=400)
            assert names(ev)[-1] == "collapse", (seed, under, ev)


def test_a_touch_let_go_that_slows_into_its_trough_as_it_passes_the_old_level():
    # (held-out games 18618, 20422, 20928, 50986): the tower's ring starts straight down
    # from the release (phase 0), so the load comes through the old level at the pace of
    # the hand letting go and slows into the trough 0.55 g under it; at the second median
    # below the rest band the raw step was 0.35-0.75 of the one before: more than a third,
    # so "a piece just brought that keeps falling" took the first raw sample 0.5 g past.
    # Any smaller step there is a swing slowing, not a tower going. The same touch with the
    # roof sliding off 400 ms after the release is still a collapse. Noise, spikes, drift.
    # (Without the rule 7 of these 12 traces are a collapse on CPython's noise draws; with
    # it 1, a draw whose trough sample lands deeper; asked as a count: MicroPython's draws
    # are not CPython's.)
    falls = 0
    for seed in range(120, 132):
        ev = _events(seed, 0.55, ph=0)
        if "collapse" in names(ev):
            falls += 1
        else:
            assert names(ev)[-1] == "removed", (seed, ev)
        ev = _events(seed, 0.55, fall_after=400, ph=0)
        assert names(ev)[-1] == "collapse", (seed, ev)
    assert falls <= 3, falls


def _slow_bump(seed, mg, floors, fall_ms=None):
    """A bump whose 8 Hz table ring decays slowly (350 ms) under a heavy platform (150 g):
    the accelerometer falls quiet (activity under 25 mg) while the inertia still swings the
    load by grams. With ``fall_ms``, a tower of 20 g falls that long into the bump."""
    g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3)
    g.idle(1500)
    g.floors(floors)
    g.idle(1500)
    t = g.t
    g.parts.append((t, t + 3000, "bump", mg, 8.0, 350, 150.0))
    if fall_ms is not None:
        g.t = t + fall_ms
        g.collapse(20.0)
        return g
    g.t = t + 3000
    g.idle(1500)
    return g


def test_a_bump_that_swings_on_after_the_accelerometer_fell_quiet_is_no_collapse():
    # (held-out games 4162, 36002): a bump's table ring decays on below the accelerometer's
    # activity threshold, and a heavy platform and tower still press the cell by grams at
    # 8 Hz. A drop that began while the table shook was a collapse two samples past the
    # threshold after 150 ms of quiet readings; it must now also pass the inertial bound
    # of what the accelerometer shows, or stay past the threshold for half a period of the
    # slowest shake, as a drop that began quietly does. A tower that falls during such a
    # bump is still a collapse. Noise, spikes, drift.
    # (seeds and sizes whose swing lines up with the quiet readings: collapses without the
    # rule on CPython)
    for seed in (1, 2, 4):
        for mg in (250, 350):
            for floors in (5, 8):
                ev, cols = _collapses(_slow_bump(seed, mg, floors))
                assert cols == [], (seed, mg, floors, ev)
    for seed in (1, 2):
        for fall_ms in (300, 600):
            g = _slow_bump(seed, 250, 5, fall_ms)
            ev, cols = _collapses(g)
            fell = [t for t, m in g.marks if m == "collapse"][0]
            assert len(cols) == 1 and 0 <= cols[0][0] - fell <= 250, (seed, fall_ms, ev)


def _rhino_lift(seed, lift_ms=80):
    """Rhino Hero (5.5 g) on a floor, gripped 0.2 g and lifted in ``lift_ms``: the
    generator (its end not yet set), when his move became owed and when the lift began."""
    g, owe = _rhino_on_a_floor(seed)
    t0 = g.t + 200
    g.parts.append((t0 - 150, t0 + 20, "press", 0.2, 40, 60, 0.0))
    g.parts.append((t0, t0 + lift_ms, "dip", 5.5, lift_ms, 0))
    g.steps.append((t0 + lift_ms, -5.5))
    return g, owe, t0


def _rhino_lifted_owed_with_a_reading(seed, mg, at_ms, lift_ms=80):
    """Rhino Hero lifted (``_rhino_lift``), his move owed; one reading of the accelerometer
    ``mg`` above its rest ``at_ms`` after the lift began."""
    g, owe, t0 = _rhino_lift(seed, lift_ms)
    g.t = t0 + 1500
    d = detector.Detector(g.cal, sps=80, accel=True)
    ev = []
    done = False
    for t, raw, ax, ay, az in g.samples():
        if owe <= t < owe + 13:
            d.expect_rhino(True)
        if not done and t >= t0 + at_ms:
            az += mg
            done = True
        e = d.feed(t, raw, ax, ay, az)
        if e:
            ev.append((t, NAMES[e], d.event_t_ms))
    return ev


def test_rhino_heros_owed_lift_with_the_accelerometer_at_its_noise_is_no_fall():
    # (held-out games 47497, 49191: Rhino Hero's owed lift, the level falling his mass in
    # 80 ms, and one reading of the accelerometer's own noise at 25-26 mg as the load
    # reached the bottom: over the activity threshold, not over its floor above it, so no
    # cards felt landing; the 10 SPS test of scripted 42577 is the same.) A reading of
    # 45 mg while his mass is still going (a 140 ms lift) is cards landing: a fall; once the
    # drop lies at his mass it is a knock as he leaves (round 71): no fall. Noise, spikes,
    # drift.
    lifted = ["wall", "roof", "rhino", "rhino_lift"]
    for seed in (98, 99, 100):
        for lift_ms, at_ms in ((80, 90), (80, 110), (140, 60), (140, 90)):
            ev = _rhino_lifted_owed_with_a_reading(seed, 27, at_ms, lift_ms)
            assert names(ev) == lifted, (seed, lift_ms, at_ms, ev)
        for at_ms in (90, 110):
            ev = _rhino_lifted_owed_with_a_reading(seed, 45, at_ms)
            assert names(ev) == lifted, (seed, at_ms, ev)
        for at_ms in (60, 90):
            ev = _rhino_lifted_owed_with_a_reading(seed, 45, at_ms, 140)
            assert "collapse" in names(ev), (seed, at_ms, ev)


def _wall_and_a_steady_press_then_the_next_wall(g, press, let_go):
    """After one floor: a wall (2.2 g) set with an 8 g push, the hand then resting on it with
    a steady ``press`` grams (weighed with it as two walls), lifting off (over 60 ms)
    ``let_go`` ms after the push ended; the next wall set with an 8 g push 1.3 s later."""
    t0 = g.t
    g.steps.append((t0 + 30, 2.2))
    g.parts.append((t0, t0 + 420, "press", 8.0, 60, 300, 0.0))
    g.steps.append((t0 + 380, press))
    off = t0 + 420 + let_go
    g.parts.append((off, off + 60, "dip", press, 60, 0))
    g.steps.append((off + 60, -press))
    g.parts.append((off + 60, off + 600, "ring", 0.2, 9.0, 100))
    g.t = off + 1300
    g.place(2.2)
    g.idle(1500)


def test_a_press_weighed_with_a_wall_as_two_walls_then_let_go_is_no_collapse():
    # (held-out games 47122, 36196): a wall set with a push and a hand left resting on it
    # (2.8 g, a wall's mass and a little more; a set whose roof weighs 4 g) are weighed as
    # two walls; the hand lifts off
    # and the load rests the pair's excess over a wall lower: one piece fewer than weighed,
    # no collapse, and the new level, so that the next wall's let-go does not fall past a
    # level that no longer stands. Noise, spikes, drift.
    for seed in (114, 115, 116):
        for let_go in (700, 1000):
            g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3, roof_g=4.0)
            g.idle(1500)
            g.floors(1)
            _wall_and_a_steady_press_then_the_next_wall(g, 2.8, let_go)
            ev, col = _collapses(g)
            assert names(ev) == ["wall", "roof", "walls2", "wall"], (seed, let_go, ev)


def _roof_creeping_off_under_a_hand(seed, ring=0.0):
    """Three floors (wall 2.2 g, roof 4.8 g); a hand sets a wall on the top roof with a 6 g
    push; as the roof gives way the push goes and the hand takes the wall away (80 ms), while
    the roof tips off slowly, losing 1.2 g as the square of the time over 300 ms (the level
    creeps below the old level a few hundredths of a gram a sample), the rest at 260 ms.
    ``ring``: instead of the roof, the tower rings that much (6 Hz, going down first) after
    the wall is taken back. Returns the trace and the onset."""
    g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3)
    onset = g.hand_on_top_roof()
    g.parts.append((onset, onset + 80, "dip", 2.2, 80, 0))
    g.steps.append((onset + 80, -2.2))
    if ring:
        g.parts.append((onset + 80, onset + 600, "ring", -ring, 6, 150))
    else:
        g.parts.append((onset, onset + 260, "dip", 1.2, 300, 0))
        g.steps.append((onset + 260, -4.8))
    g.t = onset + 2500
    return g, onset


def test_a_roof_creeping_off_under_a_hand_is_decided_on_its_run_of_new_lows():
    # The medians below the rest band for 55 ms (five samples), more than half of them new
    # lows, the newest too, and the newest raw sample past the calm margin (0.25 g): a
    # take-back's ring goes down past the old level for a quarter period at most (6 Hz: 42
    # ms, and the median's sample), a roof tipping off keeps going. Decided 170 ms after
    # the onset or sooner in most noise draws (195-232 ms without the rule, where the raw
    # sample must be 0.5 g down; a noise draw that breaks the run of new lows waits for that
    # too: the median of seven draws is asked for). A wall taken back that rings 0.4 or 0.6 g
    # at 6 Hz, down first, stays `removed`. Noise, spikes, drift.
    lat = []
    for seed in range(41, 48):
        g, onset = _roof_creeping_off_under_a_hand(seed)
        ev, col = _collapses(g)
        assert names(ev) == ["wall", "roof"] * 3 + ["collapse"], (seed, ev)
        lat.append(col[0][0] - onset)
    assert sorted(lat)[3] <= 182, lat
    for seed in (41, 42, 43):
        for ring in (0.4, 0.6):
            g, onset = _roof_creeping_off_under_a_hand(seed, ring)
            ev, col = _collapses(g)
            assert names(ev) == ["wall", "roof"] * 3 + ["removed"], (seed, ring, ev)


def _roof_tipping_off_with_the_wall_let_go(seed, jolt, ring=0.0):
    """Three floors (wall 2.2 g, roof 4.8 g); a hand sets a wall on the top roof with a 6 g
    push; as the roof gives way the push goes and the startled hand lets the wall go with it:
    wall and roof tip, losing 1.0 g as the square of the time over 150 ms, where the tipping
    ends with a jolt of ``jolt`` mg (40 ms), then fall off at a steady pace (the rest over
    150 ms). ``ring``: instead, the hand takes the wall back (100 ms) and the tower rings
    that much (6 Hz, down first), the table knocked (``jolt`` mg) 30 ms after the level is
    back. Returns the trace, the onset and the jolt's window."""
    g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3)
    onset = g.hand_on_top_roof()
    if ring:
        g.parts.append((onset, onset + 100, "dip", 2.2, 100, 0))
        g.steps.append((onset + 100, -2.2))
        g.parts.append((onset + 100, onset + 700, "ring", -ring, 6, 150))
        jw = (onset + 130, onset + 170, jolt)
    else:
        tj = onset + 150
        g.parts.append((onset, tj, "dip", 1.0, 150, 0))
        g.steps.append((tj, -1.0))
        for i in range(15):
            g.steps.append((tj + 10 * i, -0.4))
        jw = (tj, tj + 40, jolt)
    g.t = onset + 2500
    return g, onset, jw


def test_a_roof_that_jolts_as_it_tips_off_under_a_hand_is_decided_past_the_calm_margin():
    # A roof's tipping ends in a jolt as it starts to fall; a hand lifting a piece strikes
    # nothing. A jolt felt (33 mg and more) while the level of a piece just brought is still
    # falling towards the old level lets the newest raw sample decide at the calm margin
    # (0.3 g), before the median is past it: 182 ms after the onset in most noise draws
    # (195-207 ms without the jolt, or without the rule; a draw that breaks the run of new
    # lows as the jolt comes waits either way: the median of seven draws is asked for). A
    # wall taken back that rings 0.4 or 0.6 g, the table knocked once the level is back,
    # stays `removed`. Noise, spikes, drift.
    for jolt in (0, 60, 150):
        lat = []
        for seed in range(41, 48):
            g, onset, jw = _roof_tipping_off_with_the_wall_let_go(seed, jolt)
            ev, _ = _run(g, jolts=[jw])
            col = [e for e in ev if e[1] == "collapse"]
            assert names(ev) == ["wall", "roof"] * 3 + ["collapse"], (seed, jolt, ev)
            lat.append(col[0][0] - onset)
        if jolt:
            assert sorted(lat)[3] <= 185, (jolt, lat)
        else:
            assert sorted(lat)[3] > 185, lat
    for seed in (41, 42, 43):
        for ring in (0.4, 0.6):
            g, onset, jw = _roof_tipping_off_with_the_wall_let_go(seed, 150, ring)
            ev, _ = _run(g, jolts=[jw])
            assert names(ev) == ["wall", "roof"] * 3 + ["removed"], (seed, ring, ev)


def _rhino_lifted_owed_then(seed, after_ms, bump_mg=0, land_jolt=0):
    """Rhino Hero lifted in 80 ms (``_rhino_lift``), his move owed; ``after_ms`` later a
    bump (``bump_mg``, 15 Hz, on an 80 g platform: its inertia swings the load 20-30 g
    both ways) or cards landing on the platform (a 25 g impact for 25 ms, felt at
    ``land_jolt`` mg, then the tower ringing). Returns the events' names."""
    g, _, t0 = _rhino_lift(seed)
    at = t0 + 80 + after_ms
    jolts = ()
    if bump_mg:
        g.parts.append((at, at + 700, "bump", bump_mg, 15.0, 100, 80.0))
    else:
        g.parts.append((at, at + 25, "impulse", 25.0, 0, 0))
        g.parts.append((at, at + 500, "ring", 2.0, 12.0, 100))
        jolts = ((at, at + 25, land_jolt),)
    g.t = t0 + 2000
    return names(_run(g, sps=80, jolts=jolts, rhino_owed=True)[0])


def test_a_bumps_swing_above_the_old_level_after_rhino_heros_lift_is_no_landing():
    # (bench_overlap.py, round 75) His owed lift, then a firm bump (300 mg): the platform's
    # inertia swings the load above the old level by more than an impact, as cards that
    # land on the platform do, but by no more than the platform and tower's mass times the
    # shaking felt: no landing. Cards landing strike harder than their jolt can swing the
    # load: a fall. Noise, spikes, drift.
    for seed in range(1, 5):
        for after_ms in (60, 120, 180):
            ev = _rhino_lifted_owed_then(seed, after_ms, bump_mg=300)
            assert "collapse" not in ev and "rhino_lift" in ev, (seed, after_ms, ev)
            for jolt in (60, 120):
                ev = _rhino_lifted_owed_then(seed, after_ms, land_jolt=jolt)
                assert ev.count("collapse") == 1, (seed, after_ms, jolt, ev)


def test_a_knock_as_a_touch_begins_to_let_go_is_no_roof_ending_its_tipping():
    # (bench_overlap.py, a touch or a take-back with a knock) A hand pushes the tower 14 g
    # with no piece and lets go over 150 ms; the table is knocked (60 mg, 40 ms) 30 ms into
    # the release, the level still 11 g above the old one: more than a roof, a wall and a
    # press, and most of the push, so a hand pressed, not a roof whose tipping ended (that
    # leaves less, or under a hard press half the push at most). `removed`, as with no knock
    # (round 77; a collapse before, once the newest raw sample reached the old level). A
    # roof that jolts as it tips off under a hand is still a fall: the test above. Noise,
    # spikes, drift.
    for seed in range(141, 147):
        g, samples = _touch_let_go(seed, 0.0, push=14.0, fall_ms=150)
        rel = g.t - 1500 - 150
        ev, _ = _run(g, samples=samples, jolts=[(rel + 30, rel + 70, 60)])
        assert names(ev)[-1] == "removed" and "collapse" not in names(ev), (seed, ev)


def _roof_let_go_then_tipping_off(seed, jolt_at, tip_ms=200, accel=True):
    """Two floors; a roof let go, ringing (``_roof_let_go_ringing``); 350 ms later it tips
    off, its mass gone over ``tip_ms`` (slowly at first), and the table is struck ``jolt_at``
    ms into that (90 mg for 25 ms; None: not at all). ``accel``: False runs the detector
    without an accelerometer. Returns the events and the onset."""
    g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3, rhino_g=8.0)
    g.idle(1500)
    g.floors(1)
    g.place(2.2)
    g.idle(1200)
    onset = _roof_let_go_ringing(g)
    g.parts.append((onset, onset + tip_ms, "dip", 4.8, tip_ms, 0))
    g.steps.append((onset + tip_ms, -4.8))
    g.t = onset + 2000
    jolts = [] if jolt_at is None else [(onset + jolt_at, onset + jolt_at + 25, 90)]
    ev, _ = _run(g, accel=accel, jolts=jolts)
    return ev, onset


def test_a_roof_let_go_that_jolts_as_it_tips_off_before_it_was_weighed_is_decided_then():
    # Round 83 (scripted 514, 2801): a roof let go still ringing, not yet weighed, tips off
    # and strikes the table 100-130 ms into its 200-250 ms fall. The load left the roof's
    # rest before the table was felt: a collapse there, not once the load has passed the
    # level under the roof (195-232 ms before). A jolt as the loss begins moved the load
    # with the table (a knock or a bump's first swing): the fall is left to the load, as
    # before. Noise, spikes, drift.
    for seed in (51, 52, 53):
        for jolt_at, tip_ms in ((100, 200), (130, 200), (120, 250)):
            ev, onset = _roof_let_go_then_tipping_off(seed, jolt_at, tip_ms)
            col = [e for e in ev if e[1] == "collapse"]
            assert len(col) == 1 and col[0][0] - onset <= jolt_at + 15, (seed, jolt_at, ev)
        ev, onset = _roof_let_go_then_tipping_off(seed, 0)
        col = [e for e in ev if e[1] == "collapse"]
        assert len(col) == 1 and col[0][0] - onset >= 180, (seed, ev)


def test_without_an_accelerometer_a_roof_let_go_that_slides_off_slowly_is_a_fall():
    # (session 45; scripted 237, 471, 961 and bots' 143, 429, 633, 808, 980 with no
    # accelerometer) A roof pushed 8 g, let go and still ringing, not yet weighed, tips off
    # 350 ms later, its mass gone over 200-300 ms (slowly at first), nothing felt: the
    # level ends where it was before the roof, which was reported as the roof taken back.
    # A hand lifts a card within 40-120 ms, half a roof within about 60 ms of leaving its
    # rest: taken within 40-60 ms, it is still the roof taken back. Noise, spikes, drift.
    for seed in (51, 52, 53):
        for tip_ms, fell in ((200, True), (250, True), (300, True), (40, False), (60, False)):
            ev = names(_roof_let_go_then_tipping_off(seed, None, tip_ms, accel=False)[0])
            if fell:
                assert ev.count("collapse") == 1, (seed, tip_ms, ev)
            else:
                assert ev[-1] == "removed" and "collapse" not in ev, (seed, tip_ms, ev)


def _wall_let_go_with_a_bump(seed, mg, before_ms):
    """Three floors, then a wall set with an 8 g push held 400 ms; a bump (15 Hz, ``mg``:
    negative, its first swing downwards) struck ``before_ms`` before the hand is gone."""
    g = Gen(seed=seed, sps=80, spikes=0.002, drift_g=0.3)
    g.idle(1500)
    g.floors(3)
    g.idle(900)
    t0 = g.t
    g.place(g.cal.wall_g, press=8.0, hold=400)
    gone = t0 + 60 + 400 + 60
    g.parts.append((gone - before_ms, gone - before_ms + 700, "bump", mg, 15.0, 100, 80.0))
    g.idle(2000)
    return g


def test_a_bump_that_swings_back_up_with_the_table_as_a_wall_is_let_go_is_no_fall():
    # (session 42) A bump whose first swing carries the load down with the let-go, past the
    # old level: the median's run of new lows read as a tower that keeps falling. The swing
    # back up comes with the table accelerating upwards, by far more than noise: the
    # platform's inertia, and the run ends there. These eight were false falls before.
    for seed in (4, 5, 8, 12):
        for mg in (-250, -400):
            ev, d = _run(_wall_let_go_with_a_bump(seed, mg, 40))
            assert "collapse" not in names(ev), (seed, mg, ev)
            assert names(ev) == ["wall", "roof"] * 3 + ["wall"], (seed, mg, ev)
