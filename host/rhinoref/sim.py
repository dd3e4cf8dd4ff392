"""The simulation loop: bots play on the simulated table, the unchanged firmware referees.

Usage::

    from rhinoref.sim import play_game, play_batch, statistics
    result = play_game(players=4, seed=7)              # as fast as possible, no output
    result.result, result.winners, result.sim_ms       # "collapse", [2], 412345
    results = play_batch(1000, players=4, seed=1, processes=2)
    stats = statistics(results)

One game: :class:`rhinoref.table.Table` makes HX711 and accelerometer samples in simulated time;
every sample goes to the firmware's ``Referee.sample`` (imported unchanged through
``rhinoref.firmware.fw("app")``), button presses that the bots make on the table (the trace's
input column) go to ``Referee.press`` at the same instant, and the bots
(:mod:`rhinoref.bots`) look at the referee's rules state to decide what to do next. Time is the
table's: a game of ten minutes runs in about a second at full speed (``speed=None``), or paced
against the wall clock at ``speed`` times real time for watching. The board's event lines and LED
frame feed a :class:`rhinoref.render.View` when one is given.

``mode="ideal"`` (``rhinoref sim --ideal``) runs the same bots with the rules engine fed the
truth, without sensors or detector: a baseline to see what detection changes. docs/simulator.md
describes the loop, the result record and the statistics.
"""

import os
import time
from collections import Counter

from .bots import Bots
from .firmware import fw

SPS_CHOICES = (80, 10)
MAX_SIM_MS = 60 * 60 * 1000      # a game that has not ended after an hour is cut off
SYMBOL_WINDOW_MS = 4000          # ideal mode: a roof with no symbol press is "none" after this
MATCH_MS = 2500                  # detector vs truth: same kind within this much time
JUDGE_MS = 1000                  # a piece set down this soon before a collapse is not judged
REMOVE_MS = 3500                 # a piece let go and taken back: its report this long before


class GameResult:
    """What one simulated game came to (``as_dict()`` for JSON)."""

    FIELDS = ("seed", "players", "first", "side", "sps", "accel", "tilt_mg", "mode", "result",
              "winners", "loser", "sim_ms", "turns", "floors", "walls", "collapsed",
              "collapse_height", "detected", "truth", "missed", "extra", "warnings", "errors",
              "samples", "wall_s")

    def __init__(self, **kw):
        for name in self.FIELDS:
            setattr(self, name, kw.get(name))
        self.log_lines = kw.get("log_lines", [])
        self.trace_rows = kw.get("trace_rows")
        self.trace_meta = kw.get("trace_meta")
        self.trace_truth = kw.get("trace_truth")          # (t, name, ...) with the trace
        self.trace_detected = kw.get("trace_detected")    # (t, name) the board's events

    def as_dict(self):
        return {name: getattr(self, name) for name in self.FIELDS}

    @property
    def agrees(self):
        """True when every true event was detected and nothing extra was."""
        return not self.missed and not self.extra

    def __repr__(self):
        return "GameResult(%s)" % ", ".join("%s=%r" % (k, getattr(self, k)) for k in
                                            ("seed", "players", "result", "winners", "loser", "sim_ms"))


# -- detector vs truth ---------------------------------------------------------------------------

_KINDS = ("wall", "roof", "rhino", "collapse")


def _expand(events):
    """(t_ms, name) -> list of (t_ms, kind) with two walls at once as two walls."""
    out = []
    for t, name in events:
        if name == "walls2":
            out.append((t, "wall"))
            out.append((t, "wall"))
        elif name in _KINDS:
            out.append((t, name))
    return out


def compare(truth, detected, window_ms=MATCH_MS):
    """Match detected events to true ones of the same kind within ``window_ms``.

    Returns (missed, extra): Counters of kind -> count of true events never detected and of
    detections with no true event. A piece set down less than ``JUDGE_MS`` before a collapse
    began is not judged: the tower did not stand still long enough to weigh it (by rule 10
    the collapse happened while placing it), as in the detection benchmark. When the
    detector reported it anyway, the report is matched, not extra. A piece a bot let go and
    then took back did rest on the tower: its report, followed by the detector's ``removed``
    (within ``REMOVE_MS``), is right too, as the detection benchmark scores it.
    """
    backs = [t for t, name in truth if name == "removed"]
    removals = [t for t, name in detected if name == "removed"]
    truth = sorted(_expand(truth))
    detected = sorted(_expand(detected))
    falls = [t for t, kind in truth if kind == "collapse"]
    missed = Counter()
    used = [False] * len(detected)
    for t, kind in truth:
        best = None
        for i, (td, kd) in enumerate(detected):
            if used[i] or kd != kind:
                continue
            if abs(td - t) <= window_ms and (best is None or abs(td - t) < abs(detected[best][0] - t)):
                best = i
        if best is None:
            if kind == "collapse" or not any(0 <= f - t < JUDGE_MS for f in falls):
                missed[kind] += 1
        else:
            used[best] = True
    for tr in removals:
        if not any(abs(tr - tb) <= window_ms for tb in backs):
            continue
        last = None         # the newest report before the removal (both walls of a pair)
        for i in range(len(detected) - 1, -1, -1):
            td, kind = detected[i]
            if used[i] or kind == "collapse" or not 0 <= tr - td <= REMOVE_MS:
                continue
            if last is not None and td != last:
                break
            used[i] = True
            last = td
    extra = Counter(kind for (t, kind), u in zip(detected, used) if not u)
    return missed, extra


# -- the ideal world: rules engine fed with the truth ----------------------------------------------

class _IdealTable:
    """A table without sensors: actions take a human-like time, the truth is exact."""

    DURATIONS = {"wall": 1500, "walls2": 1800, "roof": 1600, "rhino": 2200, "remove": 1200,
                 "bump": 300, "knock": 300, "collapse": 800}

    def __init__(self, seed=0, sps=80):
        self.now_ms = 0
        self.step_ms = 1000 // sps
        self.queue = []
        self.truth = []
        self.log = []             # (t_ms, action) as the bots asked for them
        self.rhino_on_tower = False
        self._press = None
        self.tower_walls = 0
        self.tower_roofs = 0

    def busy(self):
        return bool(self.queue)

    def _act(self, name, ms=None):
        end = max([self.now_ms] + [q[0] for q in self.queue]) + (ms or self.DURATIONS[name])
        self.queue.append((end, name))
        self.log.append((self.now_ms, name))

    def place_wall(self):
        self._act("wall")

    def place_walls2(self):
        self._act("walls2")

    def place_roof(self):
        self._act("roof")

    def move_rhino(self):
        self._act("rhino")

    def remove_piece(self):
        self._act("remove")

    def bump(self):
        self._act("bump")

    def knock(self):
        self._act("knock")

    def lean(self, ms):
        self._act("lean", ms)

    def collapse(self, kind):
        self.truth.append((self.now_ms, "collapse"))
        self._act("collapse")
        self.log.append((self.now_ms, "collapse:" + kind))

    def press(self, name):
        self._press = name

    def next_sample(self):
        self.now_ms += self.step_ms
        done = None
        if self.queue and self.queue[0][0] <= self.now_ms:
            done = self.queue.pop(0)[1]
            if done in ("wall", "walls2", "roof", "rhino"):
                self.truth.append((self.now_ms, done))
                if done == "wall":
                    self.tower_walls += 1
                elif done == "walls2":
                    self.tower_walls += 2
                elif done == "roof":
                    self.tower_roofs += 1
                else:
                    self.rhino_on_tower = True
            elif done == "collapse":
                self.tower_walls = self.tower_roofs = 0
                self.rhino_on_tower = False
        pressed, self._press = self._press, None
        return self.now_ms, done, pressed


class _IdealReferee:
    """The rules engine, with the buttons entered as :class:`rhinoref.bots.Flow` presses them."""

    def __init__(self):
        rules = fw("rules")
        self.rules = rules
        self.game = None
        self.joined = []
        self.count = {}
        self.roof_at = None
        self.events = []
        self.detected = []
        self.log = []
        self.t0 = 0
        self.menu_open = False
        self.side = "easy"

    def _apply(self, t, kind, **kw):
        g = self.game
        status = g.apply(t - self.t0, kind, **kw)
        if status != self.rules.ERROR:
            self.log.append(fw("gamelog").encode(t - self.t0, kind, **kw))
        ev = {"ev": kind if kind != "undo_collapse" else "undo", "t_ms": t}
        if kind in ("wall", "roof", "rhino", "collapse"):
            ev["seat"] = g.turn if kind != "collapse" else g.loser
        if kind == "symbol":
            ev["symbol"] = kw.get("symbol")
        if kind == "tiebreak":
            ev.update(seat=kw.get("seat"), symbols=kw.get("symbols"))
        if g.message:
            ev["error" if status == self.rules.ERROR else "warning"] = g.message
        self.events.append(ev)
        for name, seat in g.effects:
            if name == "turn":
                self.events.append({"ev": "turn", "t_ms": t, "seat": seat})
        if g.over and not any(e.get("ev") == "result" for e in self.events[-3:]):
            self.events.append({"ev": "result", "t_ms": t, "result": g.result,
                                "winners": list(g.winners), "loser": g.loser})
        return status

    def piece(self, t, name):
        if self.game is None or name not in ("wall", "walls2", "roof", "rhino", "collapse"):
            return
        self.detected.append((t, name))
        if name == "walls2":
            self._apply(t, "wall")
            self._apply(t, "wall")
        else:
            self._apply(t, name)
        self.roof_at = t if self.game.awaiting_symbol else None

    def press(self, t, name):
        g = self.game
        if name == "menu_long":
            self.menu_open = True
            return
        if self.menu_open:
            self.menu_open = False
            if g is not None and name == "reverse":
                self._apply(t, "undo_collapse")
            elif g is not None and name == "skip" and not g.over:
                self._apply(t, "collapse")
            return
        if g is None:
            if name.startswith("seat") and not name.endswith("_long"):
                seat = int(name[4:])
                if seat not in self.joined:
                    self.joined.append(seat)
                    self.events.append({"ev": "join", "t_ms": t, "seat": seat})
            elif name == "reverse":
                self.side = "expert" if self.side == "easy" else "easy"
            elif name == "menu" and len(self.joined) >= 2:
                seats = sorted(self.joined)
                self.game = self.rules.Game(len(seats), first=seats.index(self.joined[0]),
                                            side=self.side)
                self.t0 = t
                self.log.append(fw("gamelog").game_header(self.game))
                self.events.append({"ev": "game", "t_ms": t, "players": len(seats),
                                    "first": self.game.first, "side": self.side})
                self.events.append({"ev": "turn", "t_ms": t, "seat": self.game.turn})
            return
        if name in self.rules.SYMBOLS:
            self._apply(t, "symbol", symbol=name)
        elif name.startswith("seat"):
            seat = int(name[4:].split("_")[0])
            if g.tiebreak_seats:
                if name.endswith("_long"):
                    self._apply(t, "tiebreak", seat=seat, symbols=self.count.pop(seat, 0))
                else:
                    self.count[seat] = self.count.get(seat, 0) + 1
            elif g.double_pending and seat == (g.turn + 1) % g.players:
                self._apply(t, "neighbor")
        if not g.awaiting_symbol:
            self.roof_at = None

    def tick(self, t):
        g = self.game
        if g is not None and g.awaiting_symbol and self.roof_at is not None:
            if t - self.roof_at >= SYMBOL_WINDOW_MS:
                self._apply(t, "symbol", symbol="none")
                self.roof_at = None

    def pop_events(self):
        out, self.events = self.events, []
        return out

    def seat_cues(self):
        g = self.game
        cues = [[] for _ in range(5)]
        if g is None:
            for s in range(5):
                cues[s] = ["joined"] if s in self.joined else ["waiting"]
            return cues
        if g.over:
            for s in range(g.players):
                if g.result == "walls_used":
                    cues[s] = ["all_win"]
                elif s in g.winners:
                    cues[s] = ["winner"]
                elif s == g.loser:
                    cues[s] = ["loser"]
            return cues
        for s in g.tiebreak_seats:
            cues[s] = ["tiebreak"]
        if g.owes_rhino:
            cues[g.turn].append("rhino_owed")
        if g.double_pending:
            cues[g.turn].append("double")
        if not g.tiebreak_seats and g.loser is None:
            cues[g.turn].append("turn_cw" if g.direction > 0 else "turn_ccw")
        return cues


def _play_ideal(players, seed, side, view, pacer, max_sim_ms, collapses=True, mistakes=True):
    table = _IdealTable(seed)
    ref = _IdealReferee()
    bots = Bots(table, players, seed=seed, game=lambda: ref.game, side=side,
                collapses=collapses, mistakes=mistakes)
    samples = 0
    end_ms = None
    wall0 = time.perf_counter()
    while not bots.done and table.now_ms < max_sim_ms:
        t, done, pressed = table.next_sample()
        samples += 1
        if done:
            ref.piece(t, done)
        if pressed:
            ref.press(t, pressed)
        ref.tick(t)
        bots.step(t)
        if end_ms is None and ref.game is not None and ref.game.over:
            end_ms = t - ref.t0
        if view is not None and samples % 8 == 0:
            _feed_view(view, ref.pop_events(), t)
            view.set_seat_cues(ref.seat_cues())
            if ref.game is not None:
                view.set_state(ref.game.state())
            _notes(view, bots)
            pacer(t, view)
    if view is not None:
        _feed_view(view, ref.pop_events(), table.now_ms)
        _notes(view, bots)
        if ref.game is not None:
            view.set_state(ref.game.state())
        pacer(table.now_ms, view, force=True)
    g = ref.game
    return _result(g, bots, table.truth, ref.detected, ref.log, samples, wall0, end_ms,
                   table.now_ms - ref.t0, dict(seed=seed, players=players, side=side, sps=None,
                                               accel=None, mode="ideal"))


# -- the firmware world: the board's Referee on the simulated table -----------------------------------

def button_name(column):
    """The trace's input column (``seat:2``, ``symbol:skip``, ``menu:long``) as the board app's
    button name (``seat2``, ``skip``, ``menu_long``)."""
    long = column.endswith(":long")
    if long:
        column = column[:-5]
    kind, _, rest = column.partition(":")
    if kind == "seat":
        name = "seat" + rest
    elif kind == "symbol":
        name = rest
    else:
        name = column
    return name + "_long" if long else name


class _Watcher:
    """Reads the board's event lines: what the detector saw, when the game began and ended."""

    def __init__(self):
        import json

        self.loads = json.loads
        self.detected = []        # (t_ms, event) as the detector reported them
        self.t0 = None            # board time of game time 0
        self.end_ms = None        # game time of the input that ended the game
        self.last_input = None
        self.warnings = 0
        self.errors = 0

    def feed(self, lines, view=None):
        for line in lines:
            ev = self.loads(line)
            name = ev.get("ev")
            if name == "detect":
                self.detected.append((ev["t_ms"], ev["event"]))
            elif name == "input":
                if self.t0 is None:
                    self.t0 = ev["t_ms"] - ev["game_t_ms"]
                self.last_input = ev
                if ev.get("status") == "warning":
                    self.warnings += 1
            elif name == "refused":
                self.errors += 1
            elif name == "result" and self.last_input is not None and self.end_ms is None:
                self.end_ms = self.last_input["game_t_ms"]
            elif name == "game":
                self.end_ms = None
            if view is not None:
                view.apply_event(ev)


def _play_firmware(players, seed, sps, accel, side, view, pacer, trace, max_sim_ms, collapses,
                   mistakes, adc, told, tilt_mg):
    from .table import Table

    app = fw("app")
    detector = fw("detector")
    table = Table(seed=seed, sps=sps, accel=accel, adc=adc, tilt_mg=tilt_mg)
    learned = table.calibration(told)
    motion = table.board_motion()

    def make_detector(cal, sps, accel):
        # The calibration the board would have learned on this table (with its errors).
        return detector.Detector(learned, sps=sps, accel=accel)

    # root=None: the Referee keeps its game log in memory (ref.log_lines) instead of on flash.
    ref = app.Referee(root=None, sps=sps, accel=motion, t_ms=0, make_detector=make_detector)
    bots = Bots(table, players, seed=seed, game=lambda: ref.game, side=side,
                collapses=collapses, mistakes=mistakes)
    table.players, table.first, table.side = players, bots.first, side
    watch = _Watcher()
    rows = [] if trace else None
    chunk = 50 if (view is not None or pacer.speed) else 2000
    nxt = table.next_sample
    feed = ref.sample
    press = ref.press
    step = bots.step
    samples = 0
    t = 0
    wall0 = time.perf_counter()
    if view is not None:
        view.leds_per_seat = len(ref.frame) // 15
        watch.feed(ref.pop_events(), view)
    while not bots.done and t < max_sim_ms:
        until = t + chunk
        while t < until:
            t, raw, ax, ay, az, inp = nxt()
            samples += 1
            if inp is not None:
                press(t, button_name(inp))
            feed(t, raw, ax, ay, az)
            if rows is not None:
                rows.append((t, raw, ax, ay, az, inp) if motion else (t, raw, None, None, None, inp))
            if t >= bots._wake:
                step(t)
        if view is not None:
            # The board loop reads the frame every pass, which brings the cues up to date (and
            # emits a "cues" event when they changed); do the same for the view.
            ref.seat_cues()
            # Events without their own t_ms take the time of the one before (then the chunk's).
            watch.feed(ref.pop_events(), view)
            view.t_ms = t
            _notes(view, bots)
            pacer(t, view)
        else:
            watch.feed(ref.pop_events())
            if pacer.speed:
                pacer(t)
    if view is not None:
        _notes(view, bots)
        if ref.game is not None:
            view.set_state(ref.game.state())
        pacer(t, view, force=True)
    g = ref.game
    t0 = watch.t0 if watch.t0 is not None else 0
    result = _result(g, bots, table.truth, watch.detected, ref.log_lines or [], samples, wall0,
                     watch.end_ms, t - t0,
                     dict(seed=seed, players=players, side=side, sps=sps, accel=accel,
                          tilt_mg=tilt_mg, mode="firmware"))
    result.warnings = watch.warnings
    result.errors = watch.errors
    if rows is not None:
        result.trace_rows = rows
        result.trace_meta = table.meta(told)
        result.trace_truth = list(table.truth)
        result.trace_detected = list(watch.detected)
    return result


# -- shared bits --------------------------------------------------------------------------------------

def _feed_view(view, events, t_ms):
    for ev in events:
        view.apply_event(ev)
    view.t_ms = t_ms


def _notes(view, bots):
    while bots.notes:
        t, text = bots.notes.pop(0)
        view.add_event(t, "(" + text + ")")


def _result(g, bots, truth, detected, log_lines, samples, wall0, end_ms, last_ms, setup):
    missed, extra = compare(truth, detected)
    result = "timeout"
    winners, loser = [], None
    if g is not None:
        winners, loser = list(g.winners), g.loser
        if g.over:
            result = g.result
    sim_ms = end_ms if end_ms is not None else last_ms
    warnings = sum(1 for line in log_lines if '"warning"' in line)
    return GameResult(
        seed=setup["seed"], players=setup["players"], first=bots.first, side=setup["side"],
        sps=setup["sps"], accel=setup["accel"], tilt_mg=setup.get("tilt_mg"),
        mode=setup["mode"], result=result,
        winners=winners, loser=loser, sim_ms=sim_ms, turns=bots.turns, floors=bots.floors,
        walls=bots.walls, collapsed=bots.collapsed, collapse_height=bots.collapse_floors,
        detected=dict(Counter(k for _, k in _expand(detected))),
        truth=dict(Counter(k for _, k in _expand(truth))),
        missed=dict(missed), extra=dict(extra), warnings=warnings, errors=0, samples=samples,
        wall_s=round(time.perf_counter() - wall0, 4), log_lines=list(log_lines))


class Pacer:
    """Keeps simulated time at ``speed`` x the wall clock (None: as fast as possible) and redraws
    the renderer."""

    def __init__(self, speed=None, renderer=None):
        self.speed = speed
        self.renderer = renderer
        self.wall0 = None
        self.sim0 = 0

    def __call__(self, t_ms, view=None, force=False):
        if self.speed:
            now = time.perf_counter()
            if self.wall0 is None:
                self.wall0, self.sim0 = now, t_ms
            ahead = (t_ms - self.sim0) / 1000.0 / self.speed - (now - self.wall0)
            if ahead > 0:
                time.sleep(ahead)
        if self.renderer is not None and view is not None:
            self.renderer.event(view)
            self.renderer.draw(view, force=force)


# -- public entry points ---------------------------------------------------------------------------------

def firmware_available():
    """True when the board app and the simulated table are in this checkout."""
    try:
        fw("app")
        from . import table  # noqa: F401
    except ImportError:
        return False
    return True


def play_game(players=4, seed=1, sps=80, accel=True, side="easy", speed=None, view=None,
              renderer=None, trace=False, mode="auto", max_sim_ms=MAX_SIM_MS, collapses=True,
              mistakes=True, adc="sinc1", told=None, tilt_mg=None):
    """Play one whole game and return its :class:`GameResult`.

    ``speed``: None = as fast as possible, else simulated seconds per wall second. ``view`` and
    ``renderer`` (from :mod:`rhinoref.render`) show it live. ``trace=True`` keeps the sensor rows
    (``result.trace_rows``/``trace_meta``) for writing a SPEC 3.2 trace, and the table's truth and
    the detected events in order (``trace_truth``/``trace_detected``). ``mode``: "firmware"
    (Referee + Table), "ideal" (rules engine fed the truth) or "auto" (firmware when present).
    ``adc``: the table's converter filter (``rhinoref.table.ADC_MODELS``), firmware mode only;
    ``told``: what the board was told it is (``cal.adc``), by default the table's own.
    ``tilt_mg``: a ball tilt switch that rolls at this acceleration stands in for the
    accelerometer (``accel`` must be True: the switch is fitted in its place), firmware mode
    only; the board's detector is told so (``detector.TILT``), as the board does.
    """
    if tilt_mg is not None and not (accel and tilt_mg > 0):
        raise ValueError("tilt_mg must be positive and stands in for the accelerometer "
                         "(accel=True), not %r with accel=%r" % (tilt_mg, accel))
    if sps not in SPS_CHOICES:
        raise ValueError("sps must be 80 or 10, not %r" % (sps,))
    if not 2 <= players <= 5:
        raise ValueError("players must be 2 to 5, not %r" % (players,))
    if mode == "auto":
        mode = "firmware" if firmware_available() else "ideal"
    pacer = Pacer(speed, renderer)
    if mode == "ideal":
        return _play_ideal(players, seed, side, view, pacer, max_sim_ms, collapses, mistakes)
    return _play_firmware(players, seed, sps, accel, side, view, pacer, trace, max_sim_ms,
                          collapses, mistakes, adc, told, tilt_mg)


def _batch_one(job):
    kwargs = dict(job)
    return play_game(**kwargs)


def play_batch(games, players=4, seed=1, sps=80, accel=True, side="easy", processes=None,
               mode="auto", progress=None, vary_players=False, adc="sinc1", told=None,
               tilt_mg=None):
    """Play ``games`` games with seeds ``seed``, ``seed + 1``, ... ; a list of GameResult.

    ``processes``: worker processes (default: the CPU count, at most 2 per the target machine;
    1 runs in this process). ``progress(done, total)`` is called as games finish.
    ``vary_players``: players 2..5 in turn instead of a fixed count.
    """
    jobs = []
    for i in range(games):
        n = players if not vary_players else 2 + (seed + i) % 4
        jobs.append(dict(players=n, seed=seed + i, sps=sps, accel=accel, side=side, mode=mode,
                         adc=adc, told=told, tilt_mg=tilt_mg))
    if processes is None:
        processes = min(2, os.cpu_count() or 1)
    results = []
    if processes <= 1 or games < 4:
        for job in jobs:
            results.append(_strip(_batch_one(job)))
            if progress:
                progress(len(results), games)
        return results
    import multiprocessing

    ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    with ctx.Pool(processes) as pool:
        for res in pool.imap(_batch_one_stripped, jobs, chunksize=4):
            results.append(res)
            if progress:
                progress(len(results), games)
    return results


def _batch_one_stripped(job):
    return _strip(_batch_one(job))


def _strip(result):
    result.log_lines = []
    result.trace_rows = None
    return result


# -- statistics -------------------------------------------------------------------------------------------

def statistics(results):
    """Batch figures: endings, win share per seat, length, collapse rate by height, agreement."""
    n = len(results)
    endings = Counter(r.result for r in results)
    wins = Counter()
    seats_played = Counter()
    losses = Counter()
    for r in results:
        for s in range(r.players):
            seats_played[s] += 1
        share = 1.0 / len(r.winners) if r.winners else 0.0
        for s in r.winners:
            wins[s] += share
        if r.loser is not None:
            losses[r.loser] += 1
    lengths = sorted(r.sim_ms / 1000.0 for r in results)
    # Collapse rate by tower height: of the games whose tower reached h floors, the share that
    # fell while at h floors (the hazard per floor).
    reached = Counter()
    fell = Counter()
    for r in results:
        top = r.collapse_height if r.collapsed else r.floors
        for h in range(0, (top or 0) + 1):
            reached[h] += 1
        if r.collapsed and r.collapse_height is not None:
            fell[r.collapse_height] += 1
    missed = Counter()
    extra = Counter()
    truth = Counter()
    for r in results:
        missed.update(r.missed or {})
        extra.update(r.extra or {})
        truth.update(r.truth or {})
    agree = sum(1 for r in results if r.agrees)
    return {
        "games": n,
        "endings": dict(endings),
        "win_share": {s: wins[s] / seats_played[s] for s in sorted(seats_played)},
        "loss_share": {s: losses[s] / seats_played[s] for s in sorted(seats_played)},
        "length_s": _quantiles(lengths),
        "turns_mean": sum(r.turns for r in results) / n if n else 0,
        "collapse_by_height": {h: (fell[h], reached[h]) for h in sorted(reached) if reached[h]},
        "truth": dict(truth),
        "missed": dict(missed),
        "extra": dict(extra),
        "games_agreeing": agree,
        "sim_s": sum(r.sim_ms for r in results) / 1000.0,
        "wall_s": sum(r.wall_s or 0 for r in results),
        "samples": sum(r.samples or 0 for r in results),
    }


def _quantiles(values):
    if not values:
        return {}
    def q(p):
        return values[min(len(values) - 1, int(p * len(values)))]
    return {"min": values[0], "p50": q(0.5), "p90": q(0.9), "max": values[-1],
            "mean": sum(values) / len(values)}
