"""Scripted games on the simulated table and the scoring of a detector against ground truth.

Usage::

    from rhinoref.scenarios import play_game, play_overlap, score
    result = play_game(seed=7, sps=80, accel=True, noise="datasheet")
    print(result.collapse_latency_ms, result.placements_ok, result.placements, result.false_collapses)
    knocked = play_overlap(seed=7, action="removed", disturbance="knock", offset_ms=-100)
    print(knocked.false_collapses)

A game here is a Rhino Hero game as a family plays it, with the idle time between actions
compressed to 0.8-3 s: turns of (Rhino Hero move when owed) -> one wall, two walls one after
the other, or two walls at once -> a roof; a symbol "rhino" on one roof in six makes the next
player owe a Rhino Hero move. Between actions: hand touches, pieces taken back mid-placement,
table bumps, knocks, leaning on the table. Most games end in a collapse of a random kind at a
random moment (while reaching in to place a piece, a moment after a roof settled, while moving
Rhino Hero); the others run until the walls are used up. The table adds HX711 noise, spikes,
creep, temperature drift and timing jitter. Used by bench/bench_detector.py and the tests.

The detector is fed the context a board's referee would give it (a symbol counts only once
the detector has reported its roof), and scored by the definitions in docs/detector.md ("What
the benchmark measures"): each action owns the placement events that settled between its
hand's arrival and the next action's; placements released less than 1 s before a collapse
are not judged (``GameResult.unjudged``). ``play_overlap`` plays what the scripted games never
do, a knock or a bump during a move (bench/bench_overlap.py).
"""

import random

from .firmware import fw
from .table import COLLAPSE_KINDS, Table

PLACEMENTS = ("wall", "walls2", "roof", "rhino")


class GameResult:
    def __init__(self):
        self.collapse = None               # truth onset (ms) or None
        self.collapse_kind = None
        self.detected_ms = None            # when feed() returned the collapse
        self.false_collapses = 0
        self.placements = 0
        self.placements_ok = 0
        self.wrong = []                    # (truth, detected) for the report
        self.unjudged = 0                  # placements the collapse came too soon after
        self.settle_ms = []                # placements: reported this long after the release
        self.samples = 0
        self.sim_ms = 0

    @property
    def collapse_latency_ms(self):
        if self.collapse is None or self.detected_ms is None:
            return None
        return self.detected_ms - self.collapse


def script_game(table, rng, collapse=True, accidents=True, max_turns=28, symbols=None):
    """Queue a whole game on ``table``; returns the list of (t_ms, 'owe_rhino'): when a
    referee would start telling the detector that a Rhino Hero move is owed. ``symbols``, a
    list, receives (t_ms, symbol) for every roof: when its symbol is pressed ("none" or
    "rhino")."""
    context = []
    if symbols is None:
        symbols = []
    walls_left = 28
    owe = False
    rhino_ever = False
    turns = rng.randint(6, max_turns)
    collapse_turn = rng.randint(0, turns - 1) if collapse else -1
    kind = rng.choice(COLLAPSE_KINDS)

    def gap(lo=800, hi=3000):
        table.idle(rng.randint(lo, hi))
        if accidents:
            r = rng.random()
            if r < 0.05:
                table.bump()
                table.idle(rng.randint(300, 1200))
            elif r < 0.10:
                table.knock()
                table.idle(rng.randint(300, 1200))
            elif r < 0.13:
                table.lean(rng.randint(800, 3000))
                table.idle(rng.randint(300, 1000))
            elif r < 0.21:
                table.touch()
                table.idle(rng.randint(500, 1500))

    def piece(fn):
        if accidents and rng.random() < 0.04:
            table.remove_piece()
            table.idle(rng.randint(800, 2000))
        fn()

    for turn in range(turns):
        falls = turn == collapse_turn
        # Where in this turn the tower falls: 0 while moving Rhino Hero, 1 reaching in for a
        # wall, 2 a moment after the roof settled.
        when = rng.choice((0, 1, 1, 2, 2)) if falls else -1
        if when == 0 and not owe:
            when = 1
        if when == 1 and turn == 0:
            when = 2            # nothing stands yet to fall while the first walls go up
        gap(1200, 3500)
        if owe:
            if when == 0:
                if table._plan_rhino_on():
                    table.lift_rhino()
                    table.idle(rng.randint(200, 800))
                table.collapse(kind)
                break
            table.move_rhino()
            owe = False
            gap()
        n = 1 if walls_left < 2 else rng.choice((1, 2, 2))
        two_at_once = n == 2 and rng.random() < 0.4
        if when == 1:
            table.collapse(kind)
            break
        if two_at_once:
            piece(table.place_walls2)
        else:
            for i in range(n):
                piece(table.place_wall)
                if i + 1 < n:
                    gap()
        walls_left -= n
        gap()
        piece(table.place_roof)
        if when == 2:
            # The roof slides off on its own a moment after it was let go, or under the next
            # player's hand setting a wall on it (after the symbol: not within 0.5 s).
            hand = kind == "roof_slide" and rng.random() < 0.6
            table.idle(rng.randint(500, 2200) if hand else rng.randint(200, 1800))
            table.collapse(kind, hand=hand)
            break
        # The symbol comes 0.5-2.2 s after the roof settles.
        table.idle(rng.randint(500, 2200))
        if rng.random() < 1 / 6.0 or (not rhino_ever and turn == 2):
            owe = True
            rhino_ever = True
            context.append((table.cursor_ms, "owe_rhino"))
        symbols.append((table.cursor_ms, "rhino" if owe else "none"))
        if walls_left <= 0:
            break
    table.idle(3000)
    return context


def play_game(seed, sps=80, accel=True, noise="datasheet", collapse_share=0.85, accidents=True,
              keep_samples=False, adc="sinc1", told=None, tilt_mg=None):
    """Play one scripted game through the firmware's detector and score it.

    The detector gets the context the board's referee would give it: a symbol is pressed a
    moment after each roof, and only counts once the detector has reported that roof (the
    board refuses a symbol with no roof awaiting one, and the player presses again when the
    cue shows; one still waiting when walls are reported was for a roof never reported, and
    nobody presses it again); "rhino" makes a Rhino Hero move owed until the detector
    reports Rhino Hero or a roof (rules: the move stays owed until the roof lands).
    ``adc``: the converter's filter (``rhinoref.table.ADC_MODELS``); the same game either way.
    ``told``: what the board was told its filter is (``cal.adc``: "unknown", "sinc1", "sinc4"),
    by default the table's own, as its calibration is what the board would have learned.
    ``tilt_mg``: a ball tilt switch that rolls at this acceleration instead of the
    accelerometer (the same game as with it), and the detector told so (``detector.TILT``)."""
    rng = random.Random(seed * 7919 + sps)
    table = Table(seed=seed, sps=sps, accel=accel, noise=noise, adc=adc, tilt_mg=tilt_mg)
    symbols = []
    script_game(table, rng, collapse=rng.random() < collapse_share, accidents=accidents,
                symbols=symbols)
    return run_detector(table, symbols, sps, table.board_motion(), keep_samples, told)


def run_detector(table, symbols, sps=80, accel=True, keep_samples=False, told=None):
    """Feed everything queued on ``table`` to a fresh detector, with the context a board's
    referee would give it from ``symbols`` [(t_ms, "none" or "rhino")], and score it."""
    detector = fw("detector")
    cal = table.calibration(told)
    det = detector.Detector(cal, sps=sps, accel=accel)
    events = []
    samples = [] if keep_samples else None
    si = 0
    n = 0
    feed = det.feed
    names = detector.EVENT_NAMES
    awaiting = False       # a roof was reported and its symbol not yet entered
    owes = False
    while table.busy():
        s = table.next_sample()
        t = s[0]
        while si + 1 < len(symbols) and symbols[si + 1][0] <= t:
            si += 1            # an older symbol never found its roof: dropped
        if awaiting and si < len(symbols) and symbols[si][0] <= t:
            awaiting = False
            owes = symbols[si][1] == "rhino"
            det.expect_rhino(owes)
            si += 1
        ev = feed(t, s[1], s[2], s[3], s[4])
        n += 1
        if samples is not None:
            samples.append(s)
        if ev:
            events.append((t, det.event_t_ms, names[ev]))
            if ev == detector.ROOF:
                awaiting = True
                owes = False
            elif ev == detector.RHINO:
                owes = False
            elif ev in (detector.WALL, detector.WALLS2):
                if awaiting:
                    awaiting = False   # a piece while a symbol is awaited: the symbol was none
                else:
                    # A symbol pressed before this piece with no roof awaiting it was
                    # refused, its roof never reported; the players have moved on.
                    while si < len(symbols) and symbols[si][0] <= t:
                        si += 1
            if ev in (detector.ROOF, detector.RHINO, detector.WALL, detector.WALLS2):
                det.expect_rhino(owes)
    res = score(table.truth, events, table.actions)
    res.samples = n
    res.collapse_kind = table.collapse_kind
    res.sim_ms = table.now_ms
    res.events = events
    res.truth = list(table.truth)
    res.actions = list(table.actions)
    if samples is not None:
        res.samples_list = samples
        res.meta = table.meta(told)
    return res


OVERLAP_ACTIONS = ("wall", "roof", "removed", "touch", "rhino", "rhino_lift")
DISTURBANCES = ("knock", "bump")


def play_overlap(seed, action, disturbance, offset_ms, sps=80, accel=True, noise="datasheet",
                 keep_samples=False, adc="sinc1", tilt_mg=None):
    """A short game with no collapse in which a ``disturbance`` ("knock", "bump" or None)
    strikes the table ``offset_ms`` after ``action`` (one of OVERLAP_ACTIONS) ended, or while
    it was under way (negative): a knock while a piece is taken back, a bump as Rhino Hero
    is lifted. The scripted games never overlap two actions; this measures what such a
    moment costs (bench/bench_overlap.py).

    The game: two walls and a roof, then the action: a wall on that roof; the roof itself,
    set on the two walls ("roof"); a piece set down and taken back ("removed"); a hand
    straightening the tower ("touch": timed from when it leaves); Rhino Hero's first set-down,
    owed ("rhino"); or, with him on the first roof and a second floor built, his lift for a
    move that is owed ("rhino_lift", timed from when he left the roof), then his set-down.
    ``tilt_mg``: a ball tilt switch instead of the accelerometer, as for ``play_game``.
    Returns the scored GameResult (``false_collapses``, ``placements_ok``, ``wrong``; with
    ``keep_samples``, as ``run_detector``'s)."""
    if action not in OVERLAP_ACTIONS:
        raise ValueError("action must be one of " + ", ".join(OVERLAP_ACTIONS))
    if disturbance not in DISTURBANCES + (None,):
        raise ValueError("disturbance must be one of %s or None" % ", ".join(DISTURBANCES))
    table = Table(seed=seed, sps=sps, accel=accel, noise=noise, adc=adc, tilt_mg=tilt_mg)
    symbols = []

    def walls():
        for _ in range(2):
            table.idle(1200)
            table.place_wall()
        table.idle(1200)

    def floor(symbol):
        walls()
        table.place_roof()
        symbols.append((table.cursor_ms + 1000, symbol))
        table.idle(1500)

    table.idle(300)
    if action == "roof":
        walls()
    else:
        floor("rhino" if action in ("rhino", "rhino_lift") else "none")
    if action == "rhino_lift":
        table.set_rhino()
        floor("rhino")
    act = {"wall": table.place_wall, "roof": table.place_roof, "removed": table.remove_piece,
           "touch": table.touch, "rhino": table.set_rhino, "rhino_lift": table.lift_rhino}[action]
    act()
    t_act = table.actions[-1].get("end", table.actions[-1]["t"])
    if action == "roof":
        symbols.append((table.cursor_ms + 1000, "none"))
    if action == "rhino_lift":
        table.idle(800)
        table.set_rhino()
    if disturbance is not None:
        getattr(table, disturbance)(at_ms=max(0, t_act + offset_ms))
    table.idle(2500)
    return run_detector(table, symbols, sps, table.board_motion(), keep_samples)


JUDGE_MS = 1000       # a placement is judged when the tower then stood this long before a collapse
LATE_MS = 2000        # a collapse decided later than this after the onset is a miss
JUDGED = PLACEMENTS + ("removed", "rhino_lift")


def score(truth, events, actions=None):
    """Score detector ``events`` [(emitted_ms, event_t_ms, name)] against the table's
    ``truth`` [(t_ms, name)] and ``actions`` (see docs/detector.md, "What the benchmark
    measures")."""
    res = GameResult()
    if actions is None:
        actions = [{"name": n, "start": t - 1000, "t": t} for t, n in truth]
    collapse_t = None
    for t, name in truth:
        if name == "collapse":
            collapse_t = t
            break
    res.collapse = collapse_t
    # Collapses: the first one within 2 s after the onset is the hit; one before the onset (or
    # in a game without a collapse) is false.
    for emitted, _, name in events:
        if name != "collapse":
            continue
        if collapse_t is not None and res.detected_ms is None and collapse_t - 50 <= emitted <= collapse_t + LATE_MS:
            res.detected_ms = emitted
        elif collapse_t is None or emitted < collapse_t - 50:
            res.false_collapses += 1
    # Placements: each action owns the placement events whose level settled (event_t_ms)
    # from the moment its hand arrived until the next action's hand arrived.
    end_t = collapse_t if collapse_t is not None else 1 << 60
    items = [a for a in actions if a["name"] in JUDGED and a["start"] < end_t]
    placed = [(et, n) for e, et, n in events if et < end_t and n in PLACEMENTS + ("shift",)]
    emitted_at = [e for e, et, n in events if et < end_t and n in PLACEMENTS + ("shift",)]
    used = [False] * len(placed)
    for i, a in enumerate(items):
        lo = a["start"] if i else -(1 << 60)
        hi = items[i + 1]["start"] if i + 1 < len(items) else a["t"] + 2500
        got = []
        last_emit = None
        for j, (e, n) in enumerate(placed):
            if not used[j] and lo <= e < hi:
                used[j] = True
                got.append(n)
                last_emit = emitted_at[j]
        name = a["name"]
        if a["t"] > end_t - JUDGE_MS:
            res.unjudged += 1       # the tower fell before this piece could rest
            continue
        if name == "rhino_lift":
            ok = got == []
        elif name == "removed":
            ok = got == [] or (a.get("letgo") is not None and got == [a["kind"]])
        else:
            res.placements += 1
            ok = got == [name] or (name == "walls2" and got == ["wall", "wall"])
            if ok:
                res.placements_ok += 1
                res.settle_ms.append(last_emit - a["t"])   # reported this long after release
        if not ok:
            if name in ("rhino_lift", "removed"):
                res.placements += 1        # a placement event where none was made
            res.wrong.append((a["t"], name, got))
    # Any placement event that belongs to no action is a false placement.
    for j, (e, n) in enumerate(placed):
        if not used[j]:
            res.placements += 1
            res.wrong.append((e, "nothing", [n]))
    return res
