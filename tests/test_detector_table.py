"""The firmware detector against the full simulated table: every scenario of issue 3, and a
small benchmark sample (the full figures come from bench/bench_detector.py)."""

import pytest

from referee import detector
from rhinoref.scenarios import play_game
from rhinoref.sim import play_game as play_bots_game
from rhinoref.table import COLLAPSE_KINDS, Table


def _run(t, accel=True, owe_at=()):
    d = detector.Detector(t.calibration(), sps=t.sps, accel=accel)
    out = []
    while t.busy():
        s = t.next_sample()
        if any(a <= s[0] < a + 1000 // t.sps + 1 for a in owe_at):
            d.expect_rhino(True)
        ev = d.feed(s[0], s[1], s[2], s[3], s[4])
        if ev:
            out.append((s[0], detector.EVENT_NAMES[ev], d.event_t_ms))
    return out


def _base(t):
    t.idle(1500)
    t.place_wall()
    t.idle(1500)
    t.place_wall()
    t.idle(1500)
    t.place_roof()
    t.idle(1500)


def test_table_realism_numbers():
    t = Table(seed=1, sps=80)
    assert 0.9 * 2147.5 <= abs(t._cpg) <= 1.1 * 2147.5
    assert 40 < t._noise_counts < 50          # 90 nV at 80 SPS
    assert 20 < Table(seed=1, sps=10)._noise_counts < 30
    cal = t.calibration()
    for k in ("wall", "roof", "rhino"):
        assert abs(getattr(cal, k + "_g") - t.masses[k]) < 0.2
    m = t.meta()
    assert m["sps"] == 80 and m["accel"] == "mpu6050"


def _bump_load_and_z(seed):
    """Scripted: a wall, then a bump; over the bump's first 0.5 s at 80 SPS, each sample's
    load (g from rest) and the mean of the latest two accelerometer z readings (mg from
    rest): the conversion averages the load over the 12.5 ms before the reading."""
    t = Table(seed=seed, sps=80)
    t.idle(1500)
    t.place_wall()
    t.idle(1500)
    cal = t.calibration()
    rest = [t.next_sample() for _ in range(40)]
    g0 = sum(s[1] - cal.offset for s in rest) / len(rest) / cal.counts_per_gram
    z0 = sum(s[4] for s in rest) / len(rest)
    t.bump()
    t.idle(1000)
    t_bump = [tr[0] for tr in t.truth if tr[1] == "bump"][0]
    got = []
    while t.busy():
        s = t.next_sample()
        if t_bump <= s[0] < t_bump + 500:
            got.append(((s[1] - cal.offset) / cal.counts_per_gram - g0, s[4] - z0))
    return [(got[i][0], (got[i][1] + got[i - 1][1]) / 2) for i in range(1, len(got))]


def test_a_bumps_inertia_loads_the_cell_as_the_accelerometer_reads_it():
    # Newton: the table accelerating up by a makes the cell bear M (g + a), and the
    # accelerometer (z up, +1 g at rest) read g + a: load and z reading rise together,
    # whichever way the cell is mounted (session 28: the table had the load fall as z
    # rose). The tower's own sway and the sideways shake blur it bump by bump, so the
    # test is the mean correlation over eight bumps (0.50 measured; -0.5 with the sign
    # the other way).
    corr = []
    for seed in range(1, 9):
        pairs = _bump_load_and_z(seed)
        sxy = sum(x * y for x, y in pairs)
        sxx = sum(x * x for x, _ in pairs)
        syy = sum(y * y for _, y in pairs)
        corr.append(sxy / (sxx * syy) ** 0.5)
    assert sum(corr) / len(corr) > 0.3, corr


@pytest.mark.parametrize("sps", [80, 10])
def test_placements_touch_bump_knock_lean(sps):
    t = Table(seed=11, sps=sps, masses={"wall": 2.0, "roof": 5.0, "rhino": 7.0})
    _base(t)
    t.touch()
    t.idle(1500)
    t.bump()
    t.idle(1500)
    t.knock()
    t.idle(1500)
    t.lean(2000)
    t.idle(1500)
    t.place_walls2()
    t.idle(2000)
    ev = [e[1] for e in _run(t) if e[1] not in ("bump", "removed")]
    assert ev == ["wall", "wall", "roof", "walls2"], ev


@pytest.mark.parametrize("sps", [80, 10])
def test_rhino_moves(sps):
    t = Table(seed=12, sps=sps, masses={"wall": 2.0, "roof": 5.0, "rhino": 5.3})
    _base(t)
    owe1 = t.cursor_ms
    t.move_rhino()          # first placement
    t.idle(2000)
    t.place_wall()
    t.idle(1500)
    t.place_roof()
    t.idle(1500)
    owe2 = t.cursor_ms
    t.move_rhino()          # lift, carry, set down
    t.idle(2000)
    ev = [e[1] for e in _run(t, owe_at=(owe1, owe2)) if e[1] != "bump"]
    assert ev == ["wall", "wall", "roof", "rhino", "wall", "roof", "rhino_lift", "rhino"], ev


@pytest.mark.parametrize("kind", COLLAPSE_KINDS)
@pytest.mark.parametrize("sps", [80, 10])
def test_every_collapse_kind(kind, sps):
    t = Table(seed=13, sps=sps, masses={"wall": 2.2, "roof": 4.6, "rhino": 6.5})
    for _ in range(3):
        _base(t)
    t.collapse(kind)
    t.idle(2000)
    out = _run(t)
    col = [e for e in out if e[1] == "collapse"]
    onset = [x for x, n in t.truth if n == "collapse"][0]
    assert len(col) == 1, out
    assert 0 <= col[0][0] - onset <= (600 if sps == 80 else 900), (col, onset)


def test_remove_piece_is_not_a_placement_or_collapse():
    t = Table(seed=14, sps=80, masses={"wall": 2.2, "roof": 4.6, "rhino": 6.5})
    _base(t)
    t.remove_piece()
    t.idle(2500)
    ev = [e[1] for e in _run(t)]
    assert "collapse" not in ev
    assert ev[:3] == ["wall", "wall", "roof"]


def _sample(sps, seeds):
    games = [play_game(seed, sps=sps) for seed in seeds]
    collapses = [g for g in games if g.collapse is not None]
    lat = sorted(g.collapse_latency_ms for g in collapses if g.detected_ms is not None)
    return games, collapses, lat


@pytest.mark.parametrize("sps", [80, 10])
def test_benchmark_sample_games_meet_the_targets(sps):
    """60 seeded scripted games per rate (the benchmark runs 1,000, seeds 1-1000, where every
    collapse is found and none is false at both rates): every collapse found, no false one,
    placements >= 99.5 % (SPEC 6). Latency p95: at 10 SPS the SPEC target,
    400 ms (these 60 games: 388 ms; 1,000 games: 386 ms). At 80 SPS a regression guard: the
    target (150 ms) is met over 1,000 games (149 ms) but not on these 60 games, which hold
    more slow roof slides under a hand (187 ms); see docs/detector.md."""
    games, collapses, lat = _sample(sps, range(1, 61))
    assert len(collapses) >= 40
    missed = [g for g in collapses if g.detected_ms is None]
    assert not missed, [(g.collapse, g.collapse_kind) for g in missed]
    assert sum(g.false_collapses for g in games) == 0
    placed = sum(g.placements for g in games)
    ok = sum(g.placements_ok for g in games)
    assert placed > 1000 and ok >= 0.995 * placed, (ok, placed)
    p95 = lat[int(round(0.95 * (len(lat) - 1)))]
    assert p95 <= (200 if sps == 80 else 400), lat


@pytest.mark.parametrize("sps", [80, 10])
def test_a_lift_never_weighs_the_lifted_mass_twice(sps):
    # When a lift ends, its mass moves from the lift's ramp to the static load; a conversion
    # that averages over instants before that end must see it once, not twice (game 2589:
    # -15.4 g for an 8 g Rhino Hero).
    for seed in range(20):
        t = Table(seed=seed, sps=sps, masses={"wall": 2.0, "roof": 5.0, "rhino": 8.0})
        _base(t)
        t.set_rhino()
        t.idle(1500)
        t.lift_rhino()
        t.idle(1500)
        cal = t.calibration()
        grams = []
        while t.busy():
            s = t.next_sample()
            grams.append((s[1] - cal.offset) / cal.counts_per_gram)
        settled = sum(grams[-5:]) / 5  # the tower without Rhino Hero
        # Lower than that by half his mass only if his mass went twice (the noise is 0.1 g).
        assert min(grams[-(3 * sps):]) > settled - 4.0, (seed, min(grams[-(3 * sps):]), settled)


@pytest.mark.parametrize("seed", [1928, 2905])
def test_a_hand_touch_let_go_fast_on_the_simulated_table_is_no_collapse(seed):
    # Held-out games 1928 and 2905 at 80 SPS: a hand presses the tower with 6-18 g for half
    # a second and lets go within 130 ms; the level falls steadily from the press and rings
    # 0.5 g under the old level, where the fall stops: no collapse (the tower falls later
    # in 2905, and that one is found).
    r = play_game(seed, sps=80)
    assert r.false_collapses == 0, (seed, r.events)
    if r.collapse is not None:
        assert r.detected_ms is not None, (seed, r.events)


def _decided_sooner(seed, before_ms, by_ms):
    """Scripted game ``seed`` at 80 SPS: no false collapse, its fall found at least ``by_ms``
    sooner than ``before_ms`` (its latency before the rule under test)."""
    r = play_game(seed, sps=80)
    assert r.false_collapses == 0, (seed, r.events)
    lat = r.collapse_latency_ms
    assert lat is not None and lat <= before_ms - by_ms, (seed, lat)


@pytest.mark.parametrize("seed,before_ms", [(1836, 182), (2737, 190)])
def test_a_calm_slide_is_decided_on_the_median_and_raw_sample_past_the_threshold(seed, before_ms):
    # Development games at 80 SPS: a light roof tips off a calm table (no hand, no
    # shake); the run below the rest band has lasted 87 ms when the median first passes the
    # threshold. The newest raw sample past it too is the second sample (the median lags
    # one): decided one sample (12.5 ms) sooner than before_ms, which waited for a second
    # median past the threshold. (A third game, 2613, left the list with the table's
    # inertia sign fixed in session 28: a knock 0.8 s before its slide now swings the load
    # the other way, the tracked noise band ends 8 % wider, and the slide needs the sample
    # after.)
    _decided_sooner(seed, before_ms, 10)


@pytest.mark.parametrize("seed", [15720, 26133, 31187, 57880])
def test_a_leaning_players_first_swing_is_no_fall_at_80_sps(seed):
    # Development games at 80 SPS: a player leans on the table, and the load's first swing
    # down comes in the very sample the accelerometer first reads the lean (15-21 mg). The
    # reading less half the accelerometer's noise floor bounds what the shake can move;
    # less the whole floor, the bound was half the swing and each of these was taken for a
    # fall (session 28).
    _decided_sooner(seed, 150, 0)


@pytest.mark.parametrize("seed,before_ms", [(62, 40), (157, 149), (610, 69)])
def test_a_quiet_fall_is_not_held_by_the_lean_bound(seed, before_ms):
    # Seeds 1-1000 at 80 SPS: falls that begin on a quiet table, the accelerometer reading
    # its noise (10-11 mg). With the whole reading as the bound (no part of the floor taken
    # off) these were decided 14-61 ms later than before_ms, their latency with the whole
    # floor taken off; half the floor keeps them.
    _decided_sooner(seed, before_ms, 0)


@pytest.mark.parametrize("seed,before_ms", [(1242, 156), (1286, 155), (2203, 155), (2005, 177)])
def test_a_slide_felt_striking_after_the_load_began_falling_on_a_still_table(seed, before_ms):
    # Development games at 80 SPS: a roof tips off a still table, nothing allowed (no piece
    # just placed, Rhino Hero not owed); the median has made three new lows past the
    # threshold when the jolt is first felt (in the newest reading or the one before), the
    # newest raw sample lower still. A shake from rest shows its largest swing with its
    # jolt, not after the load moved: decided at the jolt, not after the 87 ms run
    # (before_ms; 1286: the raw sample with the first jolt reading was not lower, the next
    # one was).
    _decided_sooner(seed, before_ms, 12)


@pytest.mark.parametrize("seed,before_ms", [(2158, 203), (2881, 198), (2129, 196)])
def test_a_slide_under_a_hand_with_its_jolt_felt_is_decided_at_the_old_level(seed, before_ms):
    # Development games at 80 SPS: a roof slides off as a hand sets a wall on it; the load
    # falls from the push, the roof's jolt is felt while it is still above the old level,
    # and it goes on falling. Reaching the old level (within the rest band) is enough: the
    # piece and the push are gone and a take-back strikes nothing; it waited for the calm
    # margin under it (before_ms).
    _decided_sooner(seed, before_ms, 20)


def _fell_as_told(seed, sps, fell=None, **play):
    """Play scripted game ``seed`` at ``sps``: no false collapse; its fall found iff ``fell``
    (by default: iff the game has one). ``play``: more arguments of ``play_game`` (accel,
    tilt_mg)."""
    r = play_game(seed, sps=sps, **play)
    assert r.false_collapses == 0, (seed, r.events)
    if fell is None:
        fell = r.collapse is not None
    assert (r.detected_ms is not None) == fell, (seed, r.events)
    return r


def _no_collapse_error(seed, sps, **play):
    """Play bots' game ``seed`` at ``sps``; no collapse missed and none false. ``play``: more
    arguments of the bots' ``play_game`` (accel, tilt_mg)."""
    r = play_bots_game(players=4, seed=seed, sps=sps, **play)
    assert not (r.missed or {}).get("collapse"), (seed, sps, r.missed)
    assert not (r.extra or {}).get("collapse"), (seed, sps, r.extra)
    return r


@pytest.mark.parametrize("seed,sps", [(701, 80), (1949, 80), (2644, 10)])
def test_one_fall_is_reported_once_in_the_bots_games(seed, sps):
    # Cards land on the platform after the tower fell; the watch for such a landing must not
    # report the same fall again once the rubble has settled (both games reported it twice,
    # and the board refused the second "collapse" with an error cue). 2644 (10 SPS): the
    # watch for a piece landing after a jolt outlived the collapse; the rubble settled in
    # four conversions, 500 ms after the jolt, and the next movement lay a piece below the
    # level before the fall: reported again from the jolt.
    r = play_bots_game(players=4, seed=seed, sps=sps)
    assert r.truth.get("collapse") == 1
    assert r.detected.get("collapse") == 1


@pytest.mark.parametrize("seed", [217, 250, 613])
def test_a_touch_on_the_rubble_right_after_a_fall_is_no_second_fall_at_80_sps(seed):
    # Bots' games at 80 SPS, their sensor rows fed to the detector alone: the rubble settles
    # 220-430 ms after the fall was reported, within 600 ms of a jolt that armed the watch for
    # a piece landing (its reference the level before the fall). A hand touching the rubble
    # then (1 g for 150 ms) was the same fall reported again from that jolt.
    from rhinoref.firmware import fw
    from rhinoref.table import Table
    detector = fw("detector")
    rows = play_bots_game(players=4, seed=seed, sps=80, trace=True).trace_rows
    cal = Table(seed=seed, sps=80).calibration()
    det = detector.Detector(cal, sps=80)
    touch = int(cal.counts_per_gram)
    falls = []
    left = 12
    for t, raw, ax, ay, az, _ in rows:
        if falls and det.stable and left:
            raw += touch
            left -= 1
        if det.feed(t, raw, ax, ay, az) == detector.COLLAPSE:
            falls.append(t)
    assert falls and not left, (seed, falls, left)
    assert [t for t in falls if t - falls[0] < 2000] == falls[:1], (seed, falls)


@pytest.mark.parametrize("seed,sps", [(85, 80), (583, 80), (1940, 80), (583, 10), (1364, 80)])
def test_rhino_hero_lifted_after_a_piece_taken_back_is_no_collapse_in_the_bots_games(seed, sps):
    # Rhino Hero's move is owed; the player sets a roof down (or a roof weighed as Rhino Hero)
    # and takes it back first. The referee counts that piece (removed is only informational)
    # and owes nothing more, but the player still moves Rhino Hero 1-2 s later: his lift was
    # called a collapse (or, in 85, his setting down weighed as two walls, and then his lift).
    # In 1364 the roof's symbol window closed while he was in the hand, and the referee's
    # "nothing owed" made his setting down weigh as a roof (his mass and a roof's differ by
    # 4 % in that set): just lifted, he is what is set down next.
    r = play_bots_game(players=4, seed=seed, sps=sps)
    assert not (r.extra or {}).get("collapse"), (seed, sps, r.extra)


@pytest.mark.parametrize("seed,sps", [(363, 10), (550, 10), (551, 80)])
def test_falls_seen_and_no_false_fall_in_the_bots_games(seed, sps):
    # 10 SPS, 363 and 550: the tower falls onto the platform over two conversions (4-7 g,
    # then 24-48 g down), then the impact and the old level: missed. 80 SPS, 551: the second
    # of two walls brought with a press, its jolt as it arrived, then the press eased: a
    # false collapse.
    _no_collapse_error(seed, sps)


@pytest.mark.parametrize("seed,sps", [(429, 80), (1213, 80), (1049, 10), (1796, 10)])
def test_a_roof_let_go_that_falls_before_it_was_weighed_is_no_take_back(seed, sps):
    # Bots' games: a roof let go rings 100-200 ms (too short to settle), then slides off,
    # alone or under the next hand's wall, with a 37-263 mg jolt; the level ends where it
    # was before the roof, so the one episode was reported as the roof taken back. A
    # take-back strikes nothing: the jolt after a push's peak reached with the table still
    # is the fall.
    assert _no_collapse_error(seed, sps).truth.get("collapse") == 1


def test_a_take_back_lifted_with_the_accelerometer_at_its_noise_is_no_fall():
    # Scripted game 536 (80 SPS): a roof gripped with a 10 g press, the press eased, then
    # lifted; the accelerometer's noise read 26 mg as the lift began, with the roof's mass
    # still on the tower: no jolt of a strike, so no collapse before the real one.
    r = play_game(536, sps=80)
    assert r.false_collapses == 0
    assert r.collapse is not None and r.detected_ms is not None


@pytest.mark.parametrize("seed", [788, 2482, 2496])
def test_a_roof_that_slides_off_unfelt_while_rhino_hero_is_owed_is_a_fall(seed):
    # Bots' games, 10 SPS: nobody touches the tower, Rhino Hero's move is owed (his lift is
    # allowed), and a roof slides off over 300-400 ms with no jolt: 4-5 g lost. The rest
    # matched no allowance but was taken for a hand's steady grip eased off (less than the
    # allowed piece lost, nothing felt); a grip eases by less than its piece, and a roof's
    # mass lost is a roof.
    assert _no_collapse_error(seed, 10).truth.get("collapse") == 1


@pytest.mark.parametrize("seed", [2993, 3701, 3740])
def test_a_roof_that_slides_off_under_the_next_wall_is_no_take_back(seed):
    # Bots' games, 10 SPS: a roof let go rests two or three conversions, a hand sets a wall
    # on it pressing 6-20 g, and the roof slides off; the hand keeps the wall, the level
    # ends where it was before the roof, unfelt (or felt exactly 100 ms after the peak), and
    # the one episode was reported as the roof taken back. A grip to take a card back
    # presses 0.3-3 g; a hand that brought a piece takes back at most that piece.
    assert _no_collapse_error(seed, 10).truth.get("collapse") == 1


def test_a_roof_that_slides_off_under_the_next_wall_is_no_take_back_at_80_sps():
    # Bots' game 2874, 80 SPS: a roof let go rests 200 ms at its mass, a hand sets a wall on
    # it pressing about 20 g, the roof slides off and the hand keeps the wall; the level ends
    # where it was before the roof, and the one episode was reported as the roof taken back.
    assert _no_collapse_error(2874, 80).truth.get("collapse") == 1


def test_rhino_heros_mass_lost_after_a_hand_brought_a_piece_is_a_fall_at_80_sps():
    # Bots' game 2787, 80 SPS: a hand presses a piece 14-18 g onto the tower, the table
    # still, then a roof slides off and the level ends 4.1 g lower, weighed as Rhino Hero's
    # lift (owed, 4.03 g); a hand that brought a piece takes back at most that piece.
    assert _no_collapse_error(2787, 80).truth.get("collapse") == 1


@pytest.mark.parametrize("seed", [3388, 30876])
def test_rhino_heros_mass_lost_slower_than_fingers_lift_him_is_a_fall_at_80_sps(seed):
    # Bots' games, 80 SPS, Rhino Hero's move owed: a roof of his mass tips and slides off,
    # nobody near, and the loss is weighed as his lift. Fingers lift his whole mass within
    # 114 ms of the drop's start (878 lifts in bots' games 1-650); these reached it, less
    # its tolerance, only after more than 160 ms.
    assert _no_collapse_error(seed, 80).truth.get("collapse") == 1


def test_a_hand_still_pushing_a_piece_it_takes_back_brought_nothing_onto_a_roof():
    # Bots' game 3388, 10 SPS: a piece brought with a wandering 18-28 g press and taken back
    # (never let go); the press dipped 5 g and rose 8 g again. A roof let go rests at its own
    # mass; a press at no piece's mass is a hand still pushing: no fall.
    r = play_bots_game(players=4, seed=3388, sps=10)
    assert not (r.extra or {}).get("collapse"), r.extra


def test_rhino_hero_lifted_after_a_hard_touch_let_go_is_no_collapse_at_80_sps():
    # Scripted 70811: a 4-5 g touch held 700 ms, let go; the load back at the old level,
    # swaying 0.1-0.15 g for 700 ms (too much to settle), then Rhino Hero's lift in the same
    # episode: read as a roof that fell under a hand that brought a piece (session 45).
    r = play_game(70811, sps=80)
    assert r.false_collapses == 0, r.events


@pytest.mark.parametrize("seed", [1770, 2787, 3251])
def test_rhino_heros_mass_lost_after_a_hand_brought_a_piece_is_a_fall(seed):
    # Bots' games, 10 SPS, Rhino Hero's move owed: a hand sets a piece down pressing 4-19 g,
    # then a roof slides off and the level ends Rhino Hero's mass below where it began (the
    # roof weighs what he weighs, or he fell with it): reported as his lift. Fingers lifting
    # him grip lightly; a hand that brought a piece takes back at most that piece.
    assert _no_collapse_error(seed, 10).truth.get("collapse") == 1


@pytest.mark.parametrize("seed,sps", [(429, 80), (1660, 10), (1758, 10), (3683, 10)])
def test_a_roof_let_go_that_falls_is_reported_from_its_jolt(seed, sps, monkeypatch):
    # The fall found at the settle (a roof let go that slid off, taken for a take-back):
    # its onset was the later of the drop's start and the push's peak, 0.4 s late (429) or
    # 0.9-1.5 s early (the others). The card strikes 60-200 ms after it begins to slide.
    from rhinoref import sim
    seen = {}
    compare = sim.compare

    def spy(truth, detected, window_ms=sim.MATCH_MS):
        seen["truth"] = [t for t, kind in truth if kind == "collapse"]
        seen["detected"] = [t for t, kind in detected if kind == "collapse"]
        return compare(truth, detected, window_ms)

    monkeypatch.setattr(sim, "compare", spy)
    play_bots_game(players=4, seed=seed, sps=sps)
    assert len(seen["truth"]) == 1 and len(seen["detected"]) == 1, seen
    assert 0 <= seen["detected"][0] - seen["truth"][0] <= 250, seen


def test_a_piece_just_placed_eased_off_with_four_times_the_noise_is_no_fall():
    # Scripted game 237, 10 SPS, four times the datasheet's noise: a drop of a roof's mass
    # within the allowance of the piece just placed, unfelt, rests there: a hand's grip
    # weighed with the piece, eased off (the roof's-mass rule is for Rhino Hero's allowance
    # alone, with no piece a hand may hold).
    assert play_game(237, sps=10, noise="worse").false_collapses == 0


@pytest.mark.parametrize("seed,fell", [(43812, True), (46068, True), (47937, True),
                                       (45291, False)])
def test_a_roof_that_rested_400_ms_and_slid_off_in_two_conversions_is_no_take_back(seed, fell):
    # Scripted games, 10 SPS: a roof let go rests four conversions at its mass (ringing a
    # little more than the settle band), then slides off in two conversions to the old
    # level, unfelt: reported as the roof taken back. A take-back without a let-go lifts
    # within 180 ms of its press's end; one after a let-go grips the piece again for
    # 150-350 ms first, a rise, or a light grip begun as the press let go and lifted within
    # 350 ms (45291: a wall and a grip weighed as a roof, three conversions, then lifted in
    # two: a false fall when three resting conversions were enough).
    _fell_as_told(seed, 10, fell)


@pytest.mark.parametrize("seed", [9596, 12939])
def test_a_roof_that_rested_two_conversions_and_slid_off_in_four_is_no_take_back(seed):
    # Bots' games, 10 SPS: a roof let go rests two conversions at its own mass (the release
    # still ringing in the one before), then tips and slides off over four conversions, each
    # more than a hand's touch lower than the one before, to the old level, unfelt: it was
    # reported as the roof taken back. A hand lifts a piece within 40-120 ms, which the
    # conversions spread over three steps at most.
    assert _no_collapse_error(seed, 10).truth.get("collapse") == 1


@pytest.mark.parametrize("seed", [6087, 9003])
def test_a_roof_that_rested_two_conversions_and_slid_off_in_three_growing_steps_is_a_fall(seed):
    # Bots' games, 10 SPS: a roof let go rests two conversions at its own mass, then is gone
    # in three conversions, each step larger than the one before (0.3, 2.8, 7.2 g and 0.8,
    # 3.6, 4.9 g), unfelt: reported as the roof taken back. A tipping roof loses its weight
    # as the square of the time; a hand's lift, spread over three conversions, puts the
    # most in the middle one.
    assert _no_collapse_error(seed, 10).truth.get("collapse") == 1


def test_a_roof_that_rested_two_conversions_and_slid_off_with_large_outer_steps_is_a_fall():
    # Bots' game 24746, 10 SPS: a roof let go rests two conversions at its own mass (within
    # half its tolerance of it), then is gone in three conversions whose outer steps each
    # carry a fifth of the loss (21 %, 57 %, 22 %), unfelt: reported as the roof taken
    # back. A hand's lift, spread over three conversions, leaves under a tenth in the
    # smaller outer step (scripted 21, 1011: 4.5 and 6.5 %).
    assert _no_collapse_error(24746, 10).truth.get("collapse") == 1


@pytest.mark.parametrize("seed,before_ms", [(72410, None), (1282, 390), (77501, 419)])
def test_a_roof_let_go_whose_rest_still_rang_and_slid_off_is_a_fall_at_10_sps(seed, before_ms):
    # Scripted games, 10 SPS: a roof let go rests three conversions at its mass, the newest
    # a little lower as it begins to tip, the two before it still ringing 0.11 g apart (the
    # settle band is 0.10 g), then it slides off over three or four conversions, unfelt.
    # 72410 was reported as the roof taken back (session 45); 1282 and 77501 were decided
    # a conversion later, by another rule.
    r = _fell_as_told(seed, 10, True)
    if before_ms is not None:
        assert r.collapse_latency_ms <= before_ms - 90, (seed, r.collapse_latency_ms)


@pytest.mark.parametrize("seed,tilt_mg", [(237, None), (471, None), (961, None),
                                           (2198, 100), (2925, 100)])
def test_a_roof_let_go_that_slid_off_its_rest_slowly_is_a_fall_without_accelerometer(seed,
                                                                                    tilt_mg):
    # Scripted games, 80 SPS, no accelerometer (or a ball tilt switch, 100 mg): a roof let go
    # rests, not yet weighed, then slides off quietly to the old level: reported as the
    # roof taken back (session 45). The watch of a piece's rest and of how fast it is lost
    # (`_slid_off`, round 49's rule) ran only with an accelerometer.
    _fell_as_told(seed, 80, True, accel=False, tilt_mg=tilt_mg)


@pytest.mark.parametrize("seed,tilt_mg", [(143, None), (429, None), (808, None),
                                           (429, 100), (980, 100)])
def test_a_roof_let_go_that_slid_off_is_found_in_the_bots_games_without_accelerometer(seed,
                                                                                      tilt_mg):
    # Bots' games, 80 SPS, no accelerometer (or a 100 mg tilt switch): the same kind
    # (session 45), missed before.
    r = _no_collapse_error(seed, 80, accel=tilt_mg is not None, tilt_mg=tilt_mg)
    assert r.truth.get("collapse") == 1, r.truth


def test_a_wall_taken_back_that_weighed_less_than_a_roof_is_no_slide_without_accelerometer():
    # Scripted game 919, 10 SPS, no accelerometer: a wall let go and taken back 280 ms
    # later rested two conversions 3.7 and 6.1 % under a roof's mass (the grip lifting a
    # little), then went in three steps of 20, 60 and 20 %: the roof rule above, asking
    # only that the rest be no heavier than a roof, called it a fall. A roof at rest alone
    # weighs its own mass.
    r = play_game(919, sps=10, accel=False)
    assert r.false_collapses == 0, r.events


@pytest.mark.parametrize("seed", [351, 389, 1944])
def test_a_bumps_dip_that_swings_back_is_no_fall_at_10_sps_without_accelerometer(seed):
    # Scripted games, 10 SPS, no accelerometer: a bump dipped the load 1.2-3.8 g in one
    # conversion and it swung back, within the fall margin of the old level by the third
    # (351: -3.1, -1.5, -0.6 g; 389: -3.8, -1.3, +0.1 g) or the second (1944: -1.2,
    # -0.7 g). Two conversions past the margin made the median of three a fall (session
    # 46). Each game's own fall later is still found.
    _fell_as_told(seed, 10, True, accel=False)


@pytest.mark.parametrize("seed", [1021, 1397, 1868])
def test_a_bumps_dip_that_swings_back_is_no_fall_in_the_bots_games_without_accelerometer(seed):
    # Bots' games, 10 SPS, no accelerometer: the same kind (session 46).
    _no_collapse_error(seed, 10, accel=False)


@pytest.mark.parametrize("seed", [52, 84, 109, 345, 473, 502, 2234])
def test_cards_onto_the_platform_that_lie_still_are_a_fall_at_10_sps_without_accelerometer(seed):
    # Scripted games, 10 SPS, no accelerometer: cards fell within one conversion (3.7-26 g)
    # or two (109: 1.0, then 5.5 g) and landed in the next (4-74 g above the old level),
    # then lay still at the old level or a little under it (502, 2234: 0.5 and 0.9 g, cards
    # that bounced off): missed, no landing was looked for without an accelerometer
    # (session 46: the level back and still after the impact, as with one).
    _fell_as_told(seed, 10, True, accel=False)


@pytest.mark.parametrize("seed", [112, 889, 1309])
def test_cards_onto_the_platform_that_lie_still_in_the_bots_games_without_accelerometer(seed):
    # Bots' games, 10 SPS, no accelerometer: the same kind (session 46), missed before.
    assert _no_collapse_error(seed, 10, accel=False).truth.get("collapse") == 1


def test_a_take_back_whose_press_eased_down_to_the_roofs_mass_and_lifted_in_four_is_no_fall():
    # Scripted game 2418, 10 SPS: a hand's press eased slowly down to the roof's mass (two
    # conversions within the band there, 2.3 g below the press's peak: about a release),
    # then the piece was lifted at once, over four conversions each a hand's touch lower:
    # taken for a roof let go that slid off. A roof let go comes down from the push onto
    # its own mass, its peak two releases or more above the rest (10-35 g in the six slides).
    r = play_game(2418, sps=10)
    assert r.false_collapses == 0, r.events
    assert r.detected_ms is not None, r.events


@pytest.mark.parametrize("seed,sps", [(8259, 10), (11729, 10), (23946, 80)])
def test_a_roof_weighed_on_a_roof_while_rhino_hero_is_owed_leaves_his_lift_owed(seed, sps):
    # Bots' games: Rhino Hero's move owed, two walls set that weigh what a roof weighs in
    # that set, weighed as a roof (no wall since the last roof): the roof ended his move for
    # the detector, and the player's lift of him 3-5 s later, with no allowance, was a false
    # collapse. No roof is set on a roof.
    _no_collapse_error(seed, sps)


def test_a_steady_press_weighed_with_the_piece_then_let_off_is_no_fall_at_80_sps():
    # Bots' game 16730, 80 SPS: two walls set in one episode, the second held 2.7 g over
    # its mass for 550 ms, the level weighed as Rhino Hero; the hand let go 300 ms later and
    # the level fell 2.8 g, unfelt, to two walls above the level before: no allowance
    # matched, a false collapse. Less than a roof lost with the table still, and a wall,
    # two walls or a roof left above the old level, is the press let off.
    _no_collapse_error(16730, 80)


@pytest.mark.parametrize("seed", [10476, 24949, 26523])
def test_a_roof_let_go_that_slid_off_its_rest_slowly_is_no_take_back_at_80_sps(seed):
    # Bots' games, 80 SPS: a roof pushed 20-30 g, let go, rests at its own mass for
    # 250-450 ms, then slides off quietly (the accelerometer at its noise, nothing pressed
    # on it) down to the old level: reported as the roof taken back. A hand lifts a card
    # within 40-120 ms, half a roof within about 60 ms of leaving its rest; these took
    # 76 ms or more.
    assert _no_collapse_error(seed, 80).truth.get("collapse") == 1


@pytest.mark.parametrize("seed,fell", [(2198, True), (40364, False), (38374, True),
                                       (29591, False)])
def test_a_slow_loss_from_a_rest_at_a_roofs_mass_is_a_fall_only_for_a_roof_let_go(seed, fell):
    # Scripted games, 80 SPS: 2198, a roof let go slides off 90 ms after its rest. No false
    # fall: 40364, a touch presses 1.6 g above a level near a roof's mass, holds and eases off as
    # slowly (a hand setting a roof down pushes it more than a wall and 2 g); 38374, a wall
    # let go for 100 ms, gripped again 2.8 g (the two weigh a roof), then taken back, the
    # grip easing as the lift begins (a roof let go rings at most 1 g under its rest); the
    # game's own fall comes later; 29591, a roof let go and gripped again 0.2 g over its
    # mass, taken back as the grip eased (74 ms).
    _fell_as_told(seed, 80, fell)


@pytest.mark.parametrize("seed,fell", [(47971, True), (48862, True), (24203, True),
                                       (16676, False), (23934, False), (38021, False),
                                       (60497, False)])
def test_a_roof_that_rested_300_ms_at_its_own_mass_and_slid_off_is_no_take_back(seed, fell):
    # Scripted games, 10 SPS: a roof let go rests three conversions at its own mass, then
    # slides off in two conversions to the old level, unfelt: it was reported as the roof
    # taken back. A take-back after a let-go grips the card 0.3-3 g first, so its three
    # conversions weigh more than the roof by more than half its tolerance (16676, 23934:
    # 0.38-0.49 g), or rose into the rest (60497: a wall gripped 0.9 g after two
    # conversions let go, weighing a roof); one that never let go lifts within 180 ms of
    # its press's end, so its rest came after no push let go (38021: the peak 0.8 g above
    # the rest, at the roof's mass). Those stay `removed`.
    r = play_game(seed, sps=10)
    assert r.false_collapses == 0, (seed, r.events)
    if fell:
        assert r.detected_ms is not None, (seed, r.events)


def test_rhino_heros_lift_with_the_accelerometer_at_its_noise_is_no_fall():
    # Scripted game 42577, 10 SPS: Rhino Hero's owed lift, the level within his allowance,
    # and one reading of the accelerometer's noise at 26 mg during the drop: over the
    # activity threshold (25 mg) but not over its floor above it, so no cards felt landing.
    assert play_game(42577, sps=10).false_collapses == 0


@pytest.mark.parametrize("seed", [23017, 66795, 74157, 37911, 39423])
def test_a_bumps_swing_above_the_old_level_after_a_jolt_is_no_landing_at_10_sps(seed):
    # Scripted games, 10 SPS: a bump dips the load 1 g or more in one conversion, then
    # swings back above the old level with a jolt that dies away at once: taken for cards
    # that fell and landed (23017, 66795, 74157). The bump's dip is 0.03-0.2 of the load
    # and the reading after the jolt still stands above the old level; cards that fell
    # onto the platform took 0.39-0.68 of it down (37911, 39423: still found).
    _fell_as_told(seed, 10)


@pytest.mark.parametrize("seed", [48376, 66026, 46309, 56782])
def test_a_bumps_dip_with_a_smaller_swing_back_is_no_smash_at_10_sps(seed):
    # Scripted games, 10 SPS: a bump dips the load 4.7-6.2 g in one conversion, the table
    # still at both ends of it, then swings back above the old level with a jolt and dies
    # within the settle band: read as cards that fell for most of a conversion and landed
    # late in the next (48376, 66026). The bump's dip was 0.06-0.1 of the load; cards
    # that fell so took 0.4 of it or more (46309, 56782: still found).
    _fell_as_told(seed, 10)


@pytest.mark.parametrize("seed", [45073, 63595])
def test_cards_that_struck_hard_may_ring_a_little_past_the_band_at_10_sps(seed):
    # Scripted games, 10 SPS: cards fell for most of a conversion (0.57-0.62 of the load)
    # and landed late in the next, 3.3-11.6 g up with a jolt; the conversions after lay
    # 0.13-0.17 g off the old level, band 0.114 g: missed. The bound grows by a 64th of the
    # impact.
    assert _fell_as_told(seed, 10).collapse is not None


def test_cards_that_struck_hard_found_in_the_bots_game_34340_at_10_sps():
    # Bots' game 34340: 58 g fell, 15 g up, then 0.11 g off with a band of 0.102 g.
    assert _no_collapse_error(34340, 10).truth.get("collapse") == 1


def test_cards_that_fell_deeper_than_a_bump_could_press_need_no_quick_calm_at_10_sps():
    # Scripted game 29115, 10 SPS: 38.6 g of a 77 g tower fell within one conversion (the
    # table still), then +10 g with 32 mg: cards that landed late in the next conversion.
    # The reading after stayed 19 mg, more than a quarter of the impact's, which is the
    # sign of a bump's ringing; but to dip the load so far a bump would have shaken the
    # table by 0.7 g, and it dies by a fifth to a half per conversion, not to 35 mg.
    assert _fell_as_told(29115, 10).collapse is not None


@pytest.mark.parametrize("seed", [27865, 49003])
def test_cards_that_landed_with_a_small_unfelt_impact_are_a_fall_at_10_sps(seed):
    # Scripted games, 10 SPS: cards fell within one conversion, the table still, 0.38 and
    # 0.63 of the load (5.6 g of 14.8, 41.5 g of 66), then the load back at the old level:
    # +0.4 g (27865, within an eighth of the fall; a bump's swing back, its ring of 60-200
    # ms, is a fifth of its dip or more) and +9.6 g unfelt (49003: a fall 15 times what a
    # shake at the accelerometer's threshold could press), then still. Both missed: the
    # impact was neither half the fall nor felt.
    assert _fell_as_told(seed, 10).collapse is not None


def test_a_knock_read_once_with_a_glitch_after_it_is_no_fall_at_10_sps():
    # Scripted game 65176, 10 SPS: a knuckle on the table pressed one conversion 0.4 g
    # down, and the next was a wild reading, replaced by the one before: the knock read
    # twice, a calm run below the rest band, a false collapse.
    _fell_as_told(65176, 10)


@pytest.mark.parametrize("seed", [23247, 34232])
def test_a_roof_gripped_again_and_taken_back_is_no_slide_at_10_sps(seed):
    # Scripted games, 10 SPS: a roof let go, gripped again at once (0.3-0.5 g over its
    # mass for three conversions) and lifted in steps of 21, 72 and 12 % of it: taken for
    # a roof that slid off. A hand's lift puts the most in the middle step, and a roof
    # alone rests at its own mass.
    _fell_as_told(seed, 10)


def test_a_grip_that_jolts_the_table_is_no_piece_landing_at_10_sps():
    # Scripted game 63295, 10 SPS: a roof let go, one conversion at its mass, then a grip
    # 2.2 g up that jolted the table 27 mg, then the roof taken back: read as a piece that
    # never came to rest falling after its jolt. A piece that tips loses weight before its
    # jolt; the load had risen 2.5 g over its lowest since the push.
    _fell_as_told(63295, 10)


def test_a_bumps_inertia_is_no_hand_that_brought_a_piece():
    # Scripted game 42528, 10 SPS: a bump's inertia (5.45 g, the table shaking) set the
    # episode's highest raw sample; taken for a hand that brought a piece, Rhino Hero's
    # lift 1.2 s later lost his allowance and was reported as a fall.
    assert play_game(42528, sps=10).false_collapses == 0


@pytest.mark.parametrize("seed", [53201, 14102])
def test_a_lift_through_a_knocks_ringing_is_no_jolt_of_falling_cards(seed):
    # Scripted games, 10 SPS: Rhino Hero's owed lift 600-700 ms after a knock (164 mg in
    # 53201), the table still ringing through the lift (40-53 mg; in 14102 down to 23 mg
    # for one conversion, then 38 mg again). The knock began the episode, not the drop, so
    # the ringing is not cards falling (each a false collapse without that guard).
    assert play_game(seed, sps=10).false_collapses == 0


def test_a_bump_whose_shaking_goes_on_after_its_impact_is_no_smash():
    # Scripted game 43918, 10 SPS: a bump's first conversion more than a wall low, the
    # accelerometer (read at the conversion's end, 50 ms after its middle) quiet, then
    # +1.1 g with 44 mg and back: a deep fall and a smaller felt impact. Cards landing ring
    # 20-60 ms; the bump's next reading was still 21 mg, half the impact's.
    assert play_game(43918, sps=10).false_collapses == 0


def test_a_bump_that_shakes_harder_after_its_swing_back_is_no_deep_landing():
    # Scripted game 70976, 10 SPS: a bump dipped a 30 g tower 2.7 g in one conversion (23
    # mg), swung back 1.5 g over the level (21 mg), then -0.5 g with 32 mg and +0.1 g:
    # read as cards that fell deeper than any shake at the first two readings could press.
    # A shake at the third could, and cards that landed are quiet by then.
    assert play_game(70976, sps=10).false_collapses == 0


def test_a_bumps_swing_in_an_episodes_first_conversion_is_no_fall():
    # Scripted game 44391, 10 SPS: a bump swung the load -0.9, +0.55, -0.34 g in three
    # conversions while the level was at rest; the episode began with the third (past the
    # calm threshold, 23 mg), its raw sample before above the level: a shake's swing.
    assert play_game(44391, sps=10).false_collapses == 0


@pytest.mark.parametrize("seed", [50591, 50268])
def test_cards_that_fall_onto_the_platform_over_four_conversions_are_a_fall(seed):
    # Scripted games, 10 SPS: a roof let go, not yet weighed, and the tower under it fall
    # onto the platform over four conversions (50591: the first two lose 0.2 and 0.1 g as
    # the tower tips; 50268: the cards in the air for a whole conversion, the load flat
    # at its low), land (+9 to +12 g) and lie on the cell at the roof's level: missed
    # (three falling conversions were the most).
    r = play_game(seed, sps=10)
    assert r.false_collapses == 0 and r.detected_ms is not None, (seed, r.events)


def test_cards_that_land_after_a_fall_deeper_than_a_shake_and_lie_a_little_lower_are_a_fall():
    # Scripted game 64458, 10 SPS: the tower (58.7 g) falls onto the platform within one
    # conversion (12.4 g down, the table still) and lands in the next (11.6 g up, 65 mg),
    # then lies 0.33, 0.44, 0.42, 0.35 g under the old level, still (some cards bounced
    # off the platform onto the table): too deep for the calm test's margin (3 bands,
    # 0.4 g) to be sure, too low for the deep landing's fourth conversion (0.25 g): missed.
    r = play_game(64458, sps=10)
    assert r.false_collapses == 0 and r.detected_ms is not None, r.events


@pytest.mark.parametrize("seed", [26232, 27105])
def test_rhino_heros_lift_after_a_hard_touch_let_go_to_the_old_level_is_no_fall(seed):
    # Scripted games, 10 SPS: a hand touched the tower hard (3.9 and 19 g, more than a wall
    # and 2 g, the table still), let go, the load rested at the old level for 300-700 ms,
    # and Rhino Hero was lifted in the same episode: taken for a hand that brought a piece,
    # whose Rhino Hero's mass lost is a roof that fell. The hand left nothing.
    r = play_game(seed, sps=10)
    assert r.false_collapses == 0, (seed, r.events)


def test_a_roof_just_weighed_gripped_firmly_and_taken_back_is_no_fall():
    # Scripted game 2172, 10 SPS: a roof let go, weighed, then gripped 3.5 g (1.7 g over a
    # light wall's 1.78 g: a wall and a push of 1.5 g) and taken back to the old level:
    # taken for a wall brought, no allowance, a fall. A grip that presses less than a wall
    # and 2 g onto a roof just weighed is a grip on that roof, as at 80 SPS.
    assert play_game(2172, sps=10).false_collapses == 0


@pytest.mark.parametrize("seed", [22795, 30234])
def test_rhino_heros_lift_after_his_set_down_was_misweighed_is_no_fall(seed):
    # Scripted games, 10 SPS: Rhino Hero's first, owed set-down weighed as two walls
    # (22795) or as a roof (30234), so not on the tower for the detector; his next owed
    # lift, quiet and of his mass, had no allowance and was a fall. A piece other than him
    # weighed during his owed move while he is not on the tower may be him.
    r = play_game(seed, sps=10)
    assert r.false_collapses == 0, (seed, r.events)


@pytest.mark.parametrize("seed", [36248, 41272])
def test_rhino_heros_lift_owed_by_a_roof_the_referee_counted_behind_is_no_fall(seed):
    # Scripted games, 10 SPS: a roof taken back, then the next roof's rhino symbol went to
    # it (36248), or a roof weighed as two walls put the referee's symbols one roof behind
    # (41272: four walls since a roof): the referee owed no move, and Rhino Hero's lift
    # after the roof had no allowance. After such a roof his lift is allowed.
    r = play_game(seed, sps=10)
    assert r.false_collapses == 0, (seed, r.events)


@pytest.mark.parametrize("seed", [22831, 26026, 31910])
def test_rhino_heros_lift_after_a_take_back_weighed_as_his_lift_is_no_fall(seed):
    # Bots' games, 10 SPS: Rhino Hero's move owed, a roof set on the roof and weighed as two
    # walls of his mass (3.58 vs 3.60 g, 4.23 vs 4.29, 4.59 vs 4.34), taken back 0.8-1.4 s
    # later: the take-back (within 0.02-0.04 of a tolerance of the piece) was weighed as his
    # lift, preferred while his move is owed, and his real lift 1.2-2.5 s later, his move
    # still owed, had no allowance: a fall. He may still be on the tower after such a lift.
    _no_collapse_error(seed, 10)


@pytest.mark.parametrize("seed", [7411, 8550, 13144])
def test_rhino_hero_lifted_after_a_grip_weighed_as_a_roof_and_a_wall_reset_is_no_fall(seed):
    # Bots' games, 80 SPS: Rhino Hero's move owed and forgotten, a wall built, then the hand
    # gripped that wall to take it back: the grip weighed as a roof (the referee counts it
    # and owes no move), the wall lifted off (that "roof" taken back), the wall set again
    # (the referee says again nothing is owed), and the player, reminded, lifted Rhino Hero
    # 3-5 s later: his lift was a fall. After a roof taken back while his move was owed, he
    # is still to be moved until the next roof lands, walls or not.
    _no_collapse_error(seed, 80)


def test_rhino_hero_lifted_after_a_roof_taken_back_and_a_wall_is_no_fall_at_10_sps():
    # Bots' game 54585, 10 SPS: Rhino Hero's move owed and forgotten; the player set a roof
    # down (weighed, so the referee counts it and owes no move), gripped it and took it
    # back, built a wall, then, reminded, lifted him (3.4 g in two conversions, his grip
    # unseen): no allowance, a fall. As at 80 SPS (above), after a roof taken back while his
    # move was owed he is still to be moved until the next roof lands, walls or not.
    _no_collapse_error(54585, 10)


@pytest.mark.parametrize("seed, sps", [(6672, 80), (7455, 80), (13348, 80),
                                       (9296, 10), (10217, 10), (12170, 10)])
def test_a_roof_that_slid_off_under_a_long_press_is_no_silence(seed, sps):
    # Bots' games: a roof let go rests at its own mass (at 10 SPS two or three conversions),
    # a hand presses the next piece onto it (8-34 g, wandering) for 400 ms and more, then
    # leaves with its piece, and the roof slides off behind it to the old level. The long
    # episode had its noise floor raised, which restarted its clock, so the level back at
    # the old one was taken for an episode too short for a take-back: nothing was reported
    # (13348, 9296: only a bump). A roof that rested and was pressed on was on the tower far
    # longer than that.
    assert _no_collapse_error(seed, sps).truth.get("collapse") == 1


@pytest.mark.parametrize("seed", [7316, 14540])
def test_a_roof_that_rested_briefly_or_ringing_and_slid_off_under_a_press_is_no_take_back(seed):
    # Bots' games, 80 SPS: a roof let go rests at its own mass, but ending less than 250 ms
    # after the push's peak or ringing 0.5-1 g, before the next hand presses its piece onto
    # it; the roof slides off behind that hand as it leaves with its piece, to the old
    # level: reported as the roof taken back. A rest 150 ms after the peak, ringing up to
    # 1 g, still marks the roof as let go.
    assert _no_collapse_error(seed, 80).truth.get("collapse") == 1


@pytest.mark.parametrize("seed", [36814, 37672, 39916, 41693])
def test_cards_landing_with_a_light_jolt_start_the_landing_watch_at_80_sps(seed):
    # Scripted development games, 80 SPS: the tower falls onto the platform and the cards
    # jolt it past the activity threshold (25 mg) but not past threshold + floor (33 mg).
    # A rule that armed the watch for a landing only past 33 mg (to spare a wall lifted off
    # with one 26 mg noise reading, bots' game 8729) missed these four falls: a light
    # landing is as real as a heavy one, so the watch keeps the activity threshold.
    r = play_game(seed, sps=80)
    assert r.collapse is not None and r.detected_ms is not None, (seed, r.events)
    assert r.false_collapses == 0, (seed, r.events)


def test_a_roof_lost_after_a_hand_pressed_a_wall_onto_it_is_no_shift_at_10_sps():
    # Bots' game 7144, 10 SPS: a hand presses a wall onto the top roof (8.5 g over the old
    # level, the table still), the roof slides off under it, the hand keeps the wall, and
    # the level ends a roof (5.2 g) below where it began: reported as a shift. A hand that
    # brought a piece takes back at most that piece.
    assert _no_collapse_error(7144, 10).truth.get("collapse") == 1


@pytest.mark.parametrize("seed", [9452, 11792, 15638, 16619, 19553, 22529, 25759, 8291])
def test_a_roof_that_slides_off_with_no_conversion_step_half_its_mass_is_a_fall(seed):
    # Bots' games, 10 SPS, Rhino Hero's move owed: nobody touches the tower and a roof that
    # weighs what he weighs tips and slides off, its mass lost over 300-500 ms, no step
    # between two conversions half of it (32-47 %): reported as his lift (8291: it rested
    # 3 s first, gone in four conversions, 39 % the largest: reported as the roof taken
    # back). Fingers lift him, or a piece, within 40-120 ms, which puts about half its mass
    # into one step.
    assert _no_collapse_error(seed, 10).truth.get("collapse") == 1


@pytest.mark.parametrize("seed", [27023, 10172, 10385])
def test_rhino_heros_mass_lost_with_a_jolt_as_it_went_is_a_fall(seed):
    # Bots' games, 10 SPS, Rhino Hero's move owed: a partial fall of his mass (27023: 7.74
    # g, he weighs 7.34) or a roof of his mass sliding off (10172, 10385), its loss with a
    # lift's step shape (one conversion step half of it or more), taken for his lift; the
    # table jolted 39-57 mg (27023) as the load went. Fingers lifting him strike nothing.
    # (27023: the jolt came with the drop's first conversions, read one conversion ahead
    # of the median's clock, 99 ms after the peak by it: "100 ms after the peak" missed it.)
    assert _no_collapse_error(seed, 10).truth.get("collapse") == 1


@pytest.mark.parametrize("seed", [19299, 24206, 26695, 32237, 35634, 36682])
def test_rhino_heros_mass_lost_over_four_conversion_steps_is_a_fall(seed):
    # Bots' games, 10 SPS, Rhino Hero's move owed: a roof of his mass (or a part of the
    # tower) tips and slides off, nobody near, its loss spread over four conversion steps or
    # more (32237: 3, 18, 58, 20 %), one of them half of it or more (51-58 %: his lift's
    # share), so it was taken for his lift. Fingers lift him within 40-100 ms: averaged over
    # 100 ms conversions, a ramp of L ms leaves at most L/800 of his mass outside its two
    # largest consecutive steps (1/8 at 100 ms); these left 15-21 % outside.
    assert _no_collapse_error(seed, 10).truth.get("collapse") == 1


def test_a_repeated_conversion_after_the_fall_hides_nothing_at_10_sps():
    # Bots' game 47830, 10 SPS, Rhino Hero's move owed: 8 g lost over four conversion steps
    # (20, 56, 17, 6 %), 23 % outside the two largest: the shape test finds such a fall. A
    # true reading equal to the one before (0.6 % of pairs), at the end of the fall with the
    # load still on both sides, was taken for a replaced glitch hiding the load's path, and
    # the test was skipped: his lift. The repeat is judged on the conversion after it now.
    assert _no_collapse_error(47830, 10).truth.get("collapse") == 1


def test_a_roofs_loss_out_of_a_calm_rest_that_matches_no_allowance_is_a_fall_at_10_sps():
    # Bots' game 42582, 10 SPS: a roof (4.99 g) slid off over 400 ms out of a long rest,
    # nobody near, the table still; Rhino Hero's allowance (4.08 g and its tolerance) was
    # passed by 0.3 g only, within what the accelerometer's floor bounds, and the level
    # settled before the drop's raw mean passed the threshold: reported as a shift.
    assert _no_collapse_error(42582, 10).truth.get("collapse") == 1


@pytest.mark.parametrize("seed", [33588, 37775, 37812])
def test_rhino_heros_lift_with_a_conversion_replaced_as_a_glitch_is_no_fall(seed):
    # Bots' games, 10 SPS: Rhino Hero lifted within two conversion steps, but the middle
    # conversion read with its low 12 bits set (one true reading in 4,096) and was replaced
    # by the one before it, so the load seemed to stand still for a conversion and his
    # loss to spread over three steps; where the load was then is unknown, and the test of
    # the two largest consecutive steps is not made (each a false fall with it).
    _no_collapse_error(seed, 10)


def test_cards_onto_the_platform_that_landed_within_the_lowest_conversion_are_a_fall_at_10_sps():
    # Scripted game 89266, 10 SPS: a roof let go rests three conversions, unweighed, and the
    # tower under it falls onto the platform: 3.6 g lost over three conversions, then back
    # 0.2 g under the level in one conversion, no impact above it to see (the cards landed
    # late in the lowest conversion, their impulse read there), and the level held. The
    # rule wanted the rise at least the whole fall. A hand does not lift a card and set it
    # back within 0.3 s.
    assert _fell_as_told(89266, 10).detected_ms is not None


def test_cards_that_landed_hard_and_bounced_off_may_ring_a_little_at_10_sps():
    # Scripted game 81790, 10 SPS: 56 g of a 153 g tower fell within one conversion, the
    # table still, then +24 g felt (58 mg): cards landing; the level then lay 0.27, 0.13,
    # 0.08 g under the old one (some cards off the platform), settling 0.14 g in a
    # conversion, over the band the test for cards lying still allowed (a tower swaying
    # after a bump swings on by more): reported as a bump. The test allows a 64th of the
    # impact, as the level itself does.
    assert _fell_as_told(81790, 10).detected_ms is not None


def test_cards_that_fell_over_two_conversions_beyond_a_shake_and_bounced_off_are_a_fall():
    # Bots' game 50565, 10 SPS: the tower fell onto the platform over two conversions (6.5,
    # then 36 g down, the table still), landed (+85 g above the old level, 116 mg felt) and
    # then lay 0.8 g lower, still (some cards off the platform onto the table): a fall far
    # beyond what a shake could press, but only a fall within one conversion, or the fourth
    # conversion after such a deep one, could lie lower: reported as a bump. The first
    # conversion after the impact may lie lower too; the next two must then lie still.
    assert _no_collapse_error(50565, 10).truth.get("collapse") == 1


def test_a_small_tower_onto_the_platform_that_rests_lower_after_a_felt_impact_is_a_fall():
    # Scripted game 122819, 10 SPS: an 8.1 g tower (two walls and a roof) fell onto the
    # platform: 3.2 g down, then +0.6 and +2.7 g over the old level with 45 mg felt (the
    # impact over two conversions), then 4.3 g down, and rested 1.6 g lower (cards off the
    # platform): too light a fall for the landing tests, and a loss that no piece explains:
    # reported as a shift. A level a placement lower that matches no allowance, after the
    # load rose past an impact's height above the old level with the table shaking, is a
    # fall: a hand's press is reached with the table still, and a bump moves no piece.
    assert _fell_as_told(122819, 10).detected_ms is not None


@pytest.mark.parametrize("seed", [124347, 130694, 133432])
def test_a_roof_that_rested_two_conversions_and_went_in_no_lifts_shape_is_a_fall_at_10_sps(seed):
    # Scripted games, 10 SPS: a roof let go rested two conversions at its own mass, then
    # slid off over three conversions in steps of 14, 59 and 27 % (124347), 18.5, 52 and
    # 29 % (130694), 8, 48 and 44 % (133432): reported as the roof taken back (an outer step
    # under 3/16). A hand lifts a piece linearly within 40-120 ms; the conversions (each the
    # mean of its 100 ms) then put 65 % or more into the middle step whenever both outer
    # steps hold 1/16.
    assert _fell_as_told(seed, 10).detected_ms is not None


@pytest.mark.parametrize("seed", [17268, 22059, 31077, 129102])
def test_a_wall_gripped_again_to_a_roofs_weight_and_lifted_is_no_fall_at_10_sps(seed):
    # Scripted games, 10 SPS: a wall let go and gripped again, the wall and the grip
    # weighing a roof for two conversions, then lifted, the grip let go within 40 ms and
    # then the wall: 17268 and 22059 rose into the rest (by 2.2 and 1.1 g), 31077 and 129102
    # left less in the last step than in the first (45, 46, 7 %; 29, 59, 11 %). A roof
    # that tips loses its weight slowly first and comes down onto its rest from the push.
    _fell_as_told(seed, 10)


@pytest.mark.parametrize("seed", [132415, 43184, 116035])
def test_a_landings_jolt_may_ring_a_sixth_of_itself_one_reading_later_at_10_sps(seed):
    # Scripted games, 10 SPS. 132415: a 7.7 g tower fell onto the platform, 1.4 g down in one
    # conversion with the table still (under the 1.5 g the first landing test wants), then
    # +5.6 g with 314 mg felt, the load back at the old level, the next readings 14 % of the
    # jolt (the landing test wanted under 1/8) and 2 %: reported as a bump; 43184 the same,
    # 14 % and 3.5 %. Cards that land ring 20-60 ms: under 19 % of their jolt 100 ms later,
    # under 4 % 200 ms later; a bump's table rings 60-200 ms. The reading after may be under
    # a sixth, the one after that under an eighth: 116035, a bump with a wall on the cell,
    # 1.1 g down, +1.7 g with 128 mg, then 15 % and 14 %, is no fall.
    _fell_as_told(seed, 10)


def test_a_roof_gone_in_two_conversions_then_a_felt_impact_is_a_fall_at_10_sps():
    # Scripted game 134629, 10 SPS: the tower (two walls and a roof just let go, not yet
    # weighed) fell onto the platform: after four conversions at the roof's mass, the roof's
    # whole mass went in two conversions, then +10.9 g with 148 mg felt, and a quarter of the
    # load bounced off: reported as a wall placed (the slide test wanted the load to stay at
    # the old level after the two steps). A hand that takes a roof back strikes nothing.
    assert _fell_as_told(134629, 10).detected_ms is not None


def test_a_roof_that_rested_after_a_deep_release_ring_and_slid_off_under_a_press_is_a_fall():
    # Bots' game 55945, 10 SPS: a roof let go rang 0.5 g under its mass in its first
    # conversion (past the tolerance), then rested at it for three conversions; the next
    # hand pressed a piece onto it (+22 g), left with its piece, and the roof slid off to
    # the old level: taken for nothing at all (the lowest conversion since the push, not
    # the rest just before the new press, was weighed against the roof). The conversion
    # before the press resting at the roof's mass will do, the press measured from it.
    assert _no_collapse_error(55945, 10).truth.get("collapse") == 1


def test_an_impact_split_over_two_conversions_far_beyond_a_shake_is_a_fall_at_10_sps():
    # Bots' game 38773, 10 SPS, Rhino Hero's move owed: the tower fell, 18 g within two
    # conversions with the table still, and its cards landed over the next two, +50 g (219
    # mg) then +76 g, then the load lay 3.3 g (his mass) under the old level: reported as
    # his lift. A shake at 219 mg moves the load by 12 g at most; a hand's press does not
    # follow a fall of cards. Scripted 69660: 16 g down, +11 g with 60 mg, +44 g, then 5 g
    # lower (cards off the platform), booked as the roof weighed 3.7 s before taken back.
    assert _no_collapse_error(38773, 10).truth.get("collapse") == 1
    assert _fell_as_told(69660, 10).detected_ms is not None


@pytest.mark.parametrize("seed", [66291, 78920])
def test_cards_that_fell_beyond_a_shake_and_landed_with_a_light_felt_impact_at_10_sps(seed):
    # Scripted games, 10 SPS: cards fell onto the platform over two conversions with the
    # table still (66291: 0.4 then 4.3 g of a 10 g tower; 78920: 1.4 then 38.8 g of 85 g),
    # came back 0.5-0.6 g above the level with 44 and 188 mg felt, then lay at it (78920:
    # ringing -0.27, +0.10 g). A shake at those readings can press the platform and tower
    # by 1.8 and 11 g at most, and its dip is under a fifth of the load; a hand lifting
    # something keeps it off the cell. The tests wanted an impact of half the fall, or a
    # fall within one conversion.
    assert _fell_as_told(seed, 10).detected_ms is not None


@pytest.mark.parametrize("seed", [17885, 21526, 23952, 66026])
def test_a_bumps_dip_under_a_quarter_of_the_load_with_a_light_swing_back_is_no_fall_at_10_sps(seed):
    # Scripted games, 10 SPS: a bump the accelerometer, read once per conversion, half
    # missed: the load 4-6 g down in one conversion (21 mg or less read), then back 1.2-2.2
    # g above the level with 26-40 mg, then the level. Twice what a shake at those readings
    # can press is less than the dip, but the readings miss a bump's peak; its dip is a
    # small share of the load (0.03-0.2), a fall's a quarter or more.
    _fell_as_told(seed, 10)


def test_a_piece_weighed_under_a_steady_press_then_eased_is_taken_back_as_it_rests_at_10_sps():
    # Scripted game 81380, 10 SPS: a roof (3.6 g) set down under a 1 g press held for 900
    # ms, weighed as two walls (4.65 g: 0.7 g light of them, off by more than their
    # tolerance); the press let off (1.0 g lower: no event); then the hand gripped the roof
    # again and lifted its 3.7 g, which matched no allowance (the piece taken back was
    # two walls): a false fall. The piece is what rests once the press is let off. Bots'
    # 35836: a wall (2.7 g) under a 1.2 g press weighed as Rhino Hero (3.5 g), the same.
    _fell_as_told(81380, 10)
    _no_collapse_error(35836, 10)


def test_a_roof_gripped_again_and_lifted_after_it_was_weighed_is_no_fall_at_10_sps():
    # Scripted game 111591, 10 SPS: a roof (4.56 g) let go and weighed, then gripped again
    # 3.3 g (under a wall and 2 g: a grip, not a hand bringing a piece) and taken back over
    # two conversions; the raw run of new lows counted a third, 0.03 g lower at rest, and
    # read the grip as a hand that brought a piece. With the fall stopped (the newest
    # reading within the band of the one before), a grip's lift is no fall, as for the
    # median's rule.
    _fell_as_told(111591, 10)


@pytest.mark.parametrize("seed", [18840, 36945, 39920, 58640])
def test_a_roof_that_slides_off_under_a_light_hand_while_still_falling_is_a_fall_at_10_sps(seed):
    # Scripted games, 10 SPS: roofs sliding off under a hand setting a wall on them with a
    # light push (weighed like a grip), still falling when the raw run of new lows decides.
    # A grip on the roof without the fall stopped would have missed all four.
    _fell_as_told(seed, 10)


def test_a_roof_after_one_the_detector_missed_gets_its_own_symbol(monkeypatch):
    # Scripted game 116726: a roof 6 % heavy weighed as two walls was never reported, so its
    # symbol was never entered; the harness then gave each later roof the symbol of the
    # one before (a symbol is only dropped once a newer one was pressed), so the roof
    # that owed Rhino Hero's move got "none" and his lift was a false fall. A symbol
    # still waiting when walls are reported, no roof awaiting it, was refused: dropped.
    calls = []
    real = detector.Detector.expect_rhino

    def spy(self, owed):
        calls.append((self._t1, owed))
        real(self, owed)

    monkeypatch.setattr(detector.Detector, "expect_rhino", spy)
    r = play_game(116726, sps=10)
    # his lift at 86.1 s is owed by the roof reported at 84.1 s: owed before the lift
    assert any(84000 < t < 86133 and owed for t, owed in calls), calls
    assert r.false_collapses == 0
    # Scripted game 382 under four times the datasheet's noise: a roof reported 1.7 s after
    # it was let go, its level settled after its symbol ("rhino", refused then) was
    # pressed; the player presses again when the cue shows, and his lift is owed.
    calls.clear()
    r = play_game(382, sps=10, noise="worse")
    assert any(122285 <= t < 124975 and owed for t, owed in calls), calls
    assert r.false_collapses == 0


@pytest.mark.parametrize("seed", [21, 26, 30])
def test_rhino_heros_lift_through_a_sinc4_converter_is_no_fall_at_10_sps(seed):
    # A sinc^4 filter hands his lift to the readings in steps of 4-60 %, the way a roof of his
    # mass sliding off splits over conversions of their own mean: the step-shape tests are
    # off unless the converter is known to be sinc1 (told by the table's calibration here).
    assert play_game(seed, sps=10, adc="sinc4").false_collapses == 0
    assert play_game(seed, sps=10, adc="sinc4", told="unknown").false_collapses == 0
    assert play_game(seed, sps=10, adc="sinc4", told="sinc1").false_collapses >= 1


def test_falls_through_a_sinc4_converter_are_found_at_10_sps():
    found = 0
    for seed in range(1, 41):
        r = play_game(seed, sps=10, adc="sinc4")
        assert r.false_collapses == 0, seed
        if r.collapse is not None:
            assert r.collapse_latency_ms is not None, seed
            found += 1
    assert found >= 25


def test_a_sinc4_converter_known_has_the_accelerometer_read_a_conversion_late_at_10_sps():
    # Scripted 261: a roof slides off under a hand setting a wall. Through a sinc^4 filter the
    # press's peak reaches the readings with the jolt of the fall; read a conversion late, the
    # accelerometer is still at the peak and jolts with the fall again, as through sinc1.
    r = play_game(261, sps=10, adc="sinc4")
    assert r.collapse_latency_ms is not None and r.false_collapses == 0
    assert play_game(261, sps=10, adc="sinc4", told="unknown").collapse_latency_ms is None


@pytest.mark.parametrize("seed", [3, 27])
def test_a_converter_not_known_keeps_the_accelerometer_on_time_at_10_sps(seed):
    # Read a conversion late on a sinc1 converter, every jolt after a drop looks like cards
    # that fell and landed: not known, the accelerometer stays on time.
    assert play_game(seed, sps=10, told="unknown").false_collapses == 0
    assert play_game(seed, sps=10, told="sinc4").false_collapses >= 1


@pytest.mark.parametrize("seed", [64, 432, 799, 958])
def test_cards_onto_the_platform_through_a_sinc4_converter_known_are_found_at_10_sps(seed, monkeypatch):
    # Cards that fall onto the platform: through a sinc^4 filter the fall and the impact
    # each spread over two conversions or more (scripted 432: 1.2 then 3.9 g down, 1.6 g
    # down with the jolt read late, 2.0 g above the level, then back at it). Found by
    # Detector._smeared; missed before it (and without it).
    r = play_game(seed, sps=10, adc="sinc4")
    assert r.collapse_latency_ms is not None and r.false_collapses == 0
    monkeypatch.setattr(detector.Detector, "_smeared", lambda self, dn: False)
    assert play_game(seed, sps=10, adc="sinc4").collapse_latency_ms is None


def test_a_tilt_switch_plays_the_same_game_and_rolls_on_a_knock_not_at_rest_or_a_lean():
    plain = Table(seed=11, sps=80, masses={"wall": 2.0, "roof": 5.0, "rhino": 7.0})
    tilt = Table(seed=11, sps=80, masses={"wall": 2.0, "roof": 5.0, "rhino": 7.0}, tilt_mg=100)
    rows = []
    for t in (plain, tilt):
        _base(t)
        t.lean(2000)
        t.idle(1500)
        t.knock()
        t.idle(1500)
        got = []
        while t.busy():
            got.append(t.next_sample())
        rows.append(got)
    assert [s[:2] for s in rows[0]] == [s[:2] for s in rows[1]]     # the same game
    knock = [t for t, name in tilt.truth if name == "knock"][0]
    rolled = [s[0] for s in rows[1] if s[2:5] != (0, 0, 1000)]
    assert rolled and all(knock <= t <= knock + 200 for t in rolled), (knock, rolled)
    assert all(s[2:5] in ((0, 0, 1000), (2000, 2000, 1000)) for s in rows[1])
    assert tilt.calibration().accel == "tilt" and tilt.meta()["accel"] == "tilt"
    with pytest.raises(ValueError, match="tilt_mg"):
        Table(seed=1, tilt_mg=0)


@pytest.mark.parametrize("seed", [13, 15, 29])
def test_a_tilt_switch_read_as_an_accelerometer_makes_bumps_falls_and_its_own_mode_does_not(seed):
    # Scripted games at 80 SPS with a 100 mg switch: a bump that did not roll the ball (or
    # rolled it once) reads as a still table to a detector that takes the switch for an
    # accelerometer, and its swing as a fall (185 false falls in games 1-1000, session 40);
    # in the switch's own mode (detector.TILT) no fall is false.
    import random

    from rhinoref.scenarios import run_detector, script_game

    rng = random.Random(seed * 7919 + 80)
    table = Table(seed=seed, sps=80, tilt_mg=100)
    symbols = []
    script_game(table, rng, collapse=rng.random() < 0.85, symbols=symbols)
    assert run_detector(table, symbols, 80, accel=True).false_collapses >= 1
    r = play_game(seed, sps=80, tilt_mg=100)
    assert r.false_collapses == 0 and (r.collapse is None or r.detected_ms is not None), seed


@pytest.mark.parametrize("seed", [2, 3, 5, 8])
def test_a_bump_that_rolls_the_tilt_switch_is_no_hand_bringing_a_piece(seed):
    # bench_overlap's "rhino_lift, bump at -400 ms" at 80 SPS: a bump 400 ms before Rhino
    # Hero has left the roof. Its swing lifts the raw load more than a wall and a push above
    # the old level, which degraded mode takes for a hand that brought a piece (the table
    # thought still) and his lift after it for a roof sliding off: a false fall. The ball
    # rolled as the swing peaked, so the tilt switch's mode knows the table was not still
    # (session 41; before it these four games were false falls in TILT mode too).
    from rhinoref.scenarios import play_overlap

    assert play_overlap(seed, "rhino_lift", "bump", -400, accel=False).false_collapses == 1
    r = play_overlap(seed, "rhino_lift", "bump", -400, tilt_mg=100)
    assert r.false_collapses == 0 and r.placements_ok == r.placements, seed


@pytest.mark.parametrize("seed", [10, 14, 15, 16])
def test_a_take_back_during_a_bump_that_rolls_the_tilt_switch_is_no_fall(seed):
    # bench_overlap's "removed, bump at -300 ms" at 80 SPS: a piece set down, then a bump
    # while the hand takes it back. The bump's swing pushed the raw load past a wall and a
    # push, which read as a hand that brought a piece (one that brings a piece does not take
    # one back): no allowance for the take-back, so its loss kept the fall the tilt switch's
    # mode had held through the shaking. The ball rolled as the swing peaked: no hand's push
    # (session 41; before it these four games were false falls, degraded mode has none).
    from rhinoref.scenarios import play_overlap

    r = play_overlap(seed, "removed", "bump", -300, tilt_mg=100)
    assert r.false_collapses == 0 and r.placements_ok == r.placements, seed


@pytest.mark.parametrize("seed", [3, 4, 5, 8])
def test_a_bump_after_rhino_heros_lift_that_rolls_the_tilt_switch_is_no_fall(seed):
    # bench_overlap's "rhino_lift, bump at +200 ms" at 80 SPS: his owed lift is over, the
    # level rests at his mass below, and a bump swings it further down. The ball's first roll
    # came while the level rested at what may be lifted, so the shaking is his lift's, not a
    # landing: the fall it seems is held until the ball is still, then kept only past the
    # allowance (session 41; before it these four games were false falls).
    from rhinoref.scenarios import play_overlap

    r = play_overlap(seed, "rhino_lift", "bump", 200, tilt_mg=100)
    assert r.false_collapses == 0 and r.placements_ok == r.placements, seed


@pytest.mark.parametrize("seed", [14, 15, 16, 20])
def test_a_take_back_during_a_bump_felt_by_the_accelerometer_is_no_fall(seed):
    # The same overlap games as above with the accelerometer: the bump's swing that pushed the
    # raw load past a wall and a push came with the table shaking, so it is no hand that
    # brought a piece, and the take-back keeps its allowance (session 41: `brought` asks
    # `_rpk_q` at 80 SPS too; before it these four games were false falls).
    from rhinoref.scenarios import play_overlap

    r = play_overlap(seed, "removed", "bump", -300)
    assert r.false_collapses == 0 and r.placements_ok == r.placements, seed


@pytest.mark.parametrize("seed", [2, 4, 5, 14])
def test_a_bump_as_rhino_heros_lift_ends_that_rolls_the_tilt_switch_is_no_fall(seed):
    # The same at +100 ms: the level has reached his mass below but not yet rested there
    # 100 ms when the ball rolls; the newest level at the allowance is enough (session 41;
    # before it these four games were false falls).
    from rhinoref.scenarios import play_overlap

    r = play_overlap(seed, "rhino_lift", "bump", 100, tilt_mg=100)
    assert r.false_collapses == 0, seed


@pytest.mark.parametrize("seed", [1, 6, 12, 17, 22])
def test_a_bump_as_the_hand_leaves_a_wall_swings_back_and_is_no_fall(seed):
    # Overlap games at 80 SPS: a bump struck as the hand lets go of a wall set on a roof. Its
    # first swing carries the load of the let-go on down past the old level, and the run of
    # new lows read as a tower that keeps falling; the swing back up comes with the table
    # accelerating upwards, the platform's inertia, and ends the run (session 42; before it
    # these five games were false falls).
    from rhinoref.scenarios import play_overlap

    r = play_overlap(seed, "wall", "bump", 0)
    assert r.false_collapses == 0 and r.placements_ok == r.placements, seed


@pytest.mark.parametrize("seed,by_ms", [(1286, 150), (1746, 150), (2266, 150)])
def test_cards_that_strike_the_platform_do_not_end_a_falls_run(seed, by_ms):
    # Scripted games at 80 SPS whose falling load rises as cards strike the platform, with a
    # jolt: one with no upward acceleration, or one far too strong for the little the load
    # rose. Ending the run of new lows on any rise with a jolt decided these 25-90 ms later
    # (162-207 ms); the upward-swing test leaves them as they were (104-141 ms).
    r = play_game(seed, sps=80)
    assert r.false_collapses == 0, (seed, r.events)
    lat = r.collapse_latency_ms
    assert lat is not None and lat <= by_ms, (seed, lat)


@pytest.mark.parametrize("action,seed", [("rhino_lift", 5), ("rhino_lift", 6), ("rhino_lift", 10),
                                         ("rhino_lift", 15), ("removed", 7), ("removed", 14)])
def test_a_bump_as_the_hand_leaves_with_an_allowed_mass_moves_the_load_with_the_table(action, seed):
    # Overlap games at 80 SPS: a bump struck as the hand leaves with Rhino Hero or the piece
    # just placed, before the level rests at what may be lifted. The raw load swings the way
    # the table accelerates, the platform's inertia: no cards landing, so the drop keeps its
    # allowance (session 42; before it these six games were false falls).
    from rhinoref.scenarios import play_overlap

    r = play_overlap(seed, action, "bump", 0)
    assert r.false_collapses == 0 and r.placements_ok == r.placements, (action, seed)


def test_cards_that_land_during_rhino_heros_lift_are_still_a_fall_felt_at_once():
    # Scripted 181 at 80 SPS: the tower falls as he is lifted and its cards' landing decides
    # it (133 ms). Their impact moves the load far less than a bump's inertia would: without
    # the eighth in the test above, the landing was taken for a bump and the fall decided
    # 655 ms after its onset.
    r = play_game(181, sps=80)
    assert r.false_collapses == 0, r.events
    assert r.collapse_latency_ms is not None and r.collapse_latency_ms <= 150, r.collapse_latency_ms


@pytest.mark.parametrize("action,disturbance,seed", [
    ("wall", "bump", 11), ("roof", "bump", 10), ("removed", "knock", 18), ("removed", "bump", 23),
    ("touch", "knock", 10), ("rhino", "bump", 21)])
def test_a_jolt_whose_load_moved_with_the_table_is_no_roof_ending_its_tipping(
        action, disturbance, seed):
    # Overlap games at 80 SPS: a knock or a bump as the hand leaves. Its first reading in the
    # hand's run of new lows had marked the end of a roof's tipping (round 70), and the raw
    # load at the old level then made it a fall; the load's step there, less the step
    # before it (the run's own fall), moved with the table's acceleration, a shake's
    # inertia, so the run is a shake's (session 42; before it these six were false falls).
    from rhinoref.scenarios import play_overlap

    r = play_overlap(seed, action, disturbance, 0)
    assert r.false_collapses == 0 and r.placements_ok == r.placements, (action, disturbance, seed)


@pytest.mark.parametrize("seed,by_ms", [(290, 142), (708, 164), (912, 153)])
def test_a_falling_reading_through_a_sinc4_converter_known_is_read_half_a_step_on(seed, by_ms):
    # 80 SPS through a sinc^4 filter: a reading tells of the load a conversion and a half
    # later than one conversion's mean would. Told so, the collapse test reads a reading that
    # falls from the old level half its step further on (session 43); at 80 SPS a converter
    # not known is the detector before that, a sample later in these three.
    told = play_game(seed, adc="sinc4")
    unknown = play_game(seed, adc="sinc4", told="unknown")
    assert told.false_collapses == unknown.false_collapses == 0
    assert told.collapse_latency_ms <= by_ms < unknown.collapse_latency_ms, (
        told.collapse_latency_ms, unknown.collapse_latency_ms)


def test_a_touch_let_go_through_a_sinc4_converter_known_is_no_fall():
    # Held-out 10447: a touch's 100 g press let go overshoots the old level and rings; read
    # half a step on from above the old level too, its first reading under it was a fall.
    assert play_game(10447, adc="sinc4").false_collapses == 0



def test_a_second_wall_under_a_steady_press_is_no_wall_and_roof_at_80_sps():
    # Held-out 10541: a wall's 41 g press let go and 150 ms at its mass (116.8-117.4 s), then
    # the second wall under a steady 2.1 g press held 450 ms. Counted from the first press,
    # that level lay a release under the episode's peak and weighed a wall and a roof; the
    # press let go read as that roof's fall. Counted from the second rise's peak, the hand
    # still pressed: the two walls are weighed once it let go, and the roof after them too.
    r = play_game(10541, sps=80)
    assert r.false_collapses == 0
    assert [e[2] for e in r.events if 116000 < e[1] < 120000] == ["walls2", "roof"], r.events


def test_a_wall_and_a_roof_weighed_in_one_go_once_their_press_let_go_at_80_sps():
    # Scripted 9741: Rhino Hero set down, then two walls with a 47 g press let go; the load
    # came down from that press to its level and no rise followed: the release counts from
    # the episode's peak as before, and the level is weighed in one go (his mass as a roof's).
    r = play_game(9741, sps=80)
    assert [e[2] for e in r.events if 46900 < e[1] < 47000] == ["walls2", "roof"], r.events


def test_a_second_wall_under_a_steady_press_is_no_wall_and_roof_at_10_sps():
    # Held-out 9464 (10 SPS): 10541's kind. A wall's 30 g press let go, three conversions at
    # its mass, then the second wall under a 2.4 g press: weighed as a wall and a roof, the
    # press let go read as that roof's fall. Now both walls are weighed once it let go.
    r = play_game(9464, sps=10)
    assert r.false_collapses == 0
    assert [e[2] for e in r.events if 82000 < e[1] < 84500] == ["walls2"], r.events
