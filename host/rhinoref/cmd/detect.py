"""``rhinoref detect TRACE.csv``: the firmware's own detector (and referee) over a sensor trace.

Usage::

    rhinoref detect game.csv                 # one JSON object per detected event
    rhinoref detect --simulate 7 > sim.csv   # write a simulated game's trace (seed 7), then:
    rhinoref detect sim.csv --truth          # ... (with --simulate: also the table's truth)
    rhinoref detect game.csv --no-rules      # the detector alone, no referee context

Each detected event prints as ``{"t_ms": ..., "event": "wall", "at_ms": ..., "grams": ...}``:
``t_ms`` the event's time (settle time for placements, the ONSET for a collapse), ``at_ms``
the sample at which the detector decided, ``grams`` the settled load after it. Event names:
wall, walls2, roof, rhino, rhino_lift, removed, collapse, bump, shift.

With a game in the trace the board's own referee (``referee.app.Referee``) runs it, exactly
as on the board: detected pieces and the trace's button presses (``symbol:skip`` ...) are its
inputs (a symbol pressed before its roof settled is held for it, a roof left without one takes
"none" when the window closes), it tells the detector when a Rhino Hero move is owed, and each
event carries ``turn`` and ``owes_rhino`` (and ``warning`` when the referee counted it out of
order). The game starts as the trace shows: seat presses then ``menu`` (recorded from the
lobby, as ``rhinoref sim --trace`` writes), else the setup in the metadata (``players``,
``first``, ``side``) from the first row. Without either, or with ``--no-rules``, the detector
runs alone. A bad trace (junk lines, missing columns, no metadata or version) stops with an error
naming the line (exit 2).
"""

import json
import sys

from ..errors import InputError
from ..firmware import fw
from ..trace import parse_trace, read_trace

HELP = "run the firmware's detector over a sensor trace, one JSON event per line"
EXAMPLE = """\
rhinoref detect game.csv
rhinoref detect --simulate 7 --sps 10 > sim.csv && rhinoref detect sim.csv
rhinoref detect --simulate 7 --tilt-switch 100 > tilt.csv   # a ball tilt switch's trace
rhinoref detect game.csv --no-rules --events collapse,bump"""


class _Cal:
    def __init__(self, meta):
        self.offset = meta["offset"]
        self.counts_per_gram = meta["counts_per_gram"]
        self.wall_g = meta["wall_g"]
        self.roof_g = meta["roof_g"]
        self.rhino_g = meta["rhino_g"]
        self.adc = meta.get("adc", "unknown")   # (optional: traces before it did not say)


def add_arguments(parser):
    parser.add_argument("trace", nargs="?", help="the trace CSV (SPEC 3.2); - for stdin")
    parser.add_argument("--no-rules", action="store_true", help="the detector alone, no referee")
    parser.add_argument("--events", help="only these event names (comma-separated)")
    parser.add_argument("--inputs", action="store_true", help="also print the trace's button presses")
    parser.add_argument("--simulate", type=int, metavar="SEED",
                        help="write a simulated game's trace to stdout instead (see docs/detector.md)")
    parser.add_argument("--sps", type=int, default=80, choices=(10, 80), help="with --simulate")
    parser.add_argument("--no-accel", action="store_true", help="with --simulate: no accelerometer")
    parser.add_argument("--tilt-switch", type=int, metavar="MG",
                        help="with --simulate: a ball tilt switch that rolls at MG milli-g "
                             "instead of the accelerometer")
    parser.add_argument("--noise", default="datasheet", choices=("datasheet", "worse"),
                        help="with --simulate")
    parser.add_argument("--truth", action="store_true",
                        help="with --simulate: print the table's ground truth to stderr")


def run(args):
    if args.simulate is not None:
        return _simulate(args)
    if not args.trace:
        raise InputError("detect needs a trace file (or --simulate SEED)")
    if args.trace == "-":
        tr = parse_trace(sys.stdin.read().splitlines(), "stdin")
    else:
        tr = read_trace(args.trace)
    wanted = set(args.events.split(",")) if args.events else None
    for obj in detect(tr, rules_on=not args.no_rules, inputs=args.inputs):
        if wanted is None or obj.get("event") in wanted:
            print(json.dumps(obj), flush=False)
    sys.stdout.flush()
    return 0


def detect(tr, rules_on=True, inputs=False):
    """Yield one dict per detected event (and per button press with ``inputs``)."""
    detector = fw("detector")
    meta = tr.meta
    # (a ball tilt switch's trace: the detector's own mode for one, as on the board)
    motion = detector.TILT if meta.get("accel") == "tilt" else tr.accel
    cal = _Cal(meta)
    start = _game_start(tr) if rules_on else None
    if start is None:
        return _detector_alone(tr, detector.Detector(cal, sps=meta["sps"], accel=motion), inputs)
    return _with_referee(tr, cal, motion, start, inputs)


def _game_start(tr):
    """How the trace's game starts: "lobby" (seat presses, then the menu button: the board's
    own start, recorded), a (players, first, side) setup from the metadata for a game in play
    from the first row, or None (no game: the detector alone)."""
    meta = tr.meta
    seated = False
    for row in tr.rows:
        inp = row[5]
        if not inp:
            continue
        if inp.startswith("seat:") and not inp.endswith(":long"):
            seated = True
        elif inp == "menu" and seated:
            return "lobby"
        elif inp.startswith("symbol:") and inp != "symbol:reverse":
            break       # (reverse in the lobby turns the foundation over)
    if "players" not in meta:
        return None
    return meta["players"], meta.get("first", 0), meta.get("side", "easy")


def _detector_alone(tr, det, inputs):
    names = fw("detector").EVENT_NAMES
    feed = det.feed
    for t, raw, ax, ay, az, inp in tr.rows:
        if ax is None:
            ax = ay = az = 0
        ev = feed(t, raw, ax, ay, az)
        if ev:
            yield {"t_ms": det.event_t_ms, "event": names[ev], "at_ms": t,
                   "grams": round(det.grams, 2)}
        if inp and inputs:
            yield {"t_ms": t, "event": "input", "input": inp}


def _with_referee(tr, cal, motion, start, inputs):
    """The board's own referee (``referee.app.Referee``, its game log kept in memory) fed the
    trace's samples and button presses as the board was: a symbol pressed before its roof
    settled is held for it, a roof with no symbol takes "none" when the window closes, the
    load is tared again as the game starts."""
    app = fw("app")
    detector = fw("detector")
    trace_mod = fw("trace")
    ref = app.Referee(root=None, sps=tr.meta["sps"], accel=motion, t_ms=0,
                      make_detector=lambda _cal, sps, accel: detector.Detector(cal, sps=sps,
                                                                                accel=accel))
    if start != "lobby" and tr.rows:
        players, first, side = start
        try:
            ref.start_game(tr.rows[0][0], list(range(players)), first, side)
        except (ValueError, TypeError) as err:
            raise InputError("%s: game setup in the metadata: %s" % (tr.path, err)) from None
    ref.pop_events()
    sample = ref.sample
    for t, raw, ax, ay, az, inp in tr.rows:
        if inp:
            if inputs:
                yield {"t_ms": t, "event": "input", "input": inp}
            ref.press(t, trace_mod.input_to_button(inp))
        if ax is None:
            ax = ay = az = 0
        sample(t, raw, ax, ay, az)
        events = ref.pop_events()
        if events:
            yield from _detected(ref, events, t)


def _detected(ref, events, t):
    """The detector's events among the referee's (JSON lines), each with the game's turn and
    owed move after it and the referee's word when it counted the piece out of order."""
    out = []
    for line in events:
        ev = json.loads(line)
        kind = ev.get("ev")
        if kind == "detect":
            out.append({"t_ms": ev["t_ms"], "event": ev["event"], "at_ms": t,
                        "grams": round(ref.det.grams, 2)})
        elif out and kind in ("input", "refused") and ev.get("src") == "sensor":
            why = ev.get("warning") or ev.get("error")
            if why:
                last = out[-1]
                last["warning"] = last["warning"] + "; " + why if "warning" in last else why
    g = ref.game
    for obj in out:
        if g is not None:
            obj["turn"] = g.turn
            obj["owes_rhino"] = bool(g.owes_rhino)
        yield obj


def _simulate(args):
    """Play one scripted game on the simulated table and write its trace to stdout."""
    import random

    from ..table import tilt_switch_problem

    if problem := tilt_switch_problem(args.tilt_switch, args.no_accel):
        raise InputError(problem)

    from ..scenarios import script_game
    from ..table import Table
    from .. import trace as host_trace  # noqa: F401  (same format as write_trace)

    trace_mod = fw("trace")
    rng = random.Random(args.simulate)
    table = Table(seed=args.simulate, sps=args.sps, accel=not args.no_accel, noise=args.noise,
                  tilt_mg=args.tilt_switch)
    table.players, table.first, table.side = 3, 0, "easy"
    owe = script_game(table, rng, collapse=rng.random() < 0.85)
    # The symbol presses: "rhino" when the script made a move owed; a plain card has no button
    # (the board enters "none" when its window closes or the next piece lands).
    owe_t = [t for t, _ in owe]
    roof_t = [t for t, n in table.truth if n == "roof"]
    presses = [(rt + 600, "symbol:rhino") for rt in roof_t
               if any(rt < o <= rt + 2500 for o in owe_t)]
    out = sys.stdout
    for line in trace_mod.header_lines(table.meta()):
        out.write(line + "\n")
    pi = 0
    accel = table.accel
    while table.busy():
        t, raw, ax, ay, az, inp = table.next_sample()
        if inp is None and pi < len(presses) and presses[pi][0] <= t:
            inp = presses[pi][1]
            pi += 1
        if accel:
            out.write(trace_mod.row(t, raw, ax, ay, az, inp) + "\n")
        else:
            out.write(trace_mod.row(t, raw, None, None, None, inp) + "\n")
    if args.truth:
        for t, name in table.truth:
            print(json.dumps({"t_ms": t, "truth": name}), file=sys.stderr)
    return 0
