"""Scripted games on the simulated table and the scoring of a detector against ground truth.

Usage::

    from rhinoref.scenarios import play_game, score
    result = play_game(seed=7, sps=80, accel=True, noise="datasheet")
    print(result.collapse_latency_ms, result.placements_ok, result.placements, result.false_collapses)

A game here is a Rhino Hero game as a family plays it, with the idle time between actions
compressed to 0.8-3 s: turns of (Rhino Hero move when owed) -> one wall, two walls one after
the other, or two walls at once -> a roof; a symbol "rhino" on one roof in six makes the next
player owe a Rhino Hero move. Between actions: hand touches, pieces taken back mid-placement,
table bumps, knocks, leaning on the table. Most games end in a collapse of a random kind at a
random moment (while reaching in to place a piece, a moment after a roof settled, while moving
Rhino Hero); the others run until the walls are used up. The table adds HX711 noise, spikes,
creep, temperature drift and timing jitter. Used by bench/bench_detector.py and the tests.
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
        self.samples = 0
        self.sim_ms = 0

    @property
    def collapse_latency_ms(self):
        if self.collapse is None or self.detected_ms is None:
            return None
        return self.detected_ms - self.collapse


def script_game(table, rng, collapse=True, accidents=True, max_turns=28):
    """Queue a whole game on ``table``; returns the list of (t_ms, 'owe_rhino'): when a
    referee would start telling the detector that a Rhino Hero move is owed."""
    context = []
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
        if when == 1 and turn == 0:
            when = 2            # nothing stands yet to fall while the first walls go up
        if when == 0 and not owe:
            when = 1
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
            table.idle(rng.randint(200, 1800))
            table.collapse(kind)
            break
        # The symbol comes 0.5-2.2 s after the roof settles.
        table.idle(rng.randint(500, 2200))
        if rng.random() < 1 / 6.0 or (not rhino_ever and turn == 2):
            owe = True
            rhino_ever = True
            context.append((table._cursor, "owe_rhino"))
        if walls_left <= 0:
            break
    table.idle(3000)
    return context


def play_game(seed, sps=80, accel=True, noise="datasheet", collapse_share=0.85, accidents=True,
              keep_samples=False):
    """Play one scripted game through the firmware's detector and score it."""
    detector = fw("detector")
    rng = random.Random(seed * 7919 + sps)
    table = Table(seed=seed, sps=sps, accel=accel, noise=noise)
    context = script_game(table, rng, collapse=rng.random() < collapse_share, accidents=accidents)
    cal = table.calibration()
    det = detector.Detector(cal, sps=sps, accel=accel)
    events = []
    samples = [] if keep_samples else None
    ci = 0
    n = 0
    feed = det.feed
    names = detector.EVENT_NAMES
    while table.busy():
        s = table.next_sample()
        t = s[0]
        # As the referee: a move is owed from the symbol "rhino" until the detector reports
        # Rhino Hero set down (the detector clears it itself) or a roof.
        while ci < len(context) and context[ci][0] <= t:
            det.expect_rhino(True)
            ci += 1
        ev = feed(t, s[1], s[2], s[3], s[4])
        n += 1
        if samples is not None:
            samples.append(s)
        if ev:
            events.append((t, det.event_t_ms, names[ev]))
            if ev == detector.ROOF:
                det.expect_rhino(False)
    res = score(table.truth, events)
    res.samples = n
    res.collapse_kind = table.collapse_kind
    res.sim_ms = table.now_ms
    res.events = events
    res.truth = list(table.truth)
    if samples is not None:
        res.samples_list = samples
        res.meta = table.meta()
    return res


def score(truth, events):
    """Score detector ``events`` [(emitted_ms, event_t_ms, name)] against ``truth``
    [(t_ms, name)] (see docs/detector.md, "What the benchmark measures")."""
    res = GameResult()
    collapse_t = None
    for t, name in truth:
        if name == "collapse":
            collapse_t = t
            break
    res.collapse = collapse_t
    # Collapses: the first one within 2 s after the onset is the hit; every other is false.
    for emitted, _, name in events:
        if name != "collapse":
            continue
        if collapse_t is not None and res.detected_ms is None and collapse_t - 50 <= emitted <= collapse_t + 2000:
            res.detected_ms = emitted
        elif collapse_t is None or emitted < collapse_t - 50:
            res.false_collapses += 1
    # Placements before the collapse: each truth placement owns the events emitted from its
    # release - 300 ms up to the next truth item (or +2.5 s).
    end_t = collapse_t if collapse_t is not None else 1 << 60
    items = [(t, n) for t, n in truth if t < end_t and n in PLACEMENTS + ("removed", "rhino_lift")]
    placed = [(e, n) for e, _, n in events if e < end_t + 100 and n in PLACEMENTS + ("shift",)]
    used = [False] * len(placed)
    for i, (t, name) in enumerate(items):
        nxt = items[i + 1][0] - 300 if i + 1 < len(items) else t + 2500
        lo = t - 300
        hi = min(nxt, t + 2500)
        got = []
        for j, (e, n) in enumerate(placed):
            if not used[j] and lo <= e < hi:
                used[j] = True
                got.append(n)
        if name in ("removed", "rhino_lift"):
            continue
        res.placements += 1
        if got == [name] or (name == "walls2" and got == ["wall", "wall"]):
            res.placements_ok += 1
        else:
            res.wrong.append((t, name, got))
    # Any placement event that belongs to no truth item is a false placement.
    for j, (e, n) in enumerate(placed):
        if not used[j]:
            res.placements += 1
            res.wrong.append((e, "nothing", [n]))
    return res
