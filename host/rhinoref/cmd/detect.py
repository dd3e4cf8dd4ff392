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

With the game setup in the trace's metadata (``players``, ``first``, ``side``) the rules engine
runs alongside, exactly as on the board: detected pieces and the trace's button presses
(``symbol:skip`` ...) become referee inputs, the referee tells the detector when a Rhino Hero
move is owed, and each event carries ``turn`` and ``owes_rhino`` (and ``warning`` when the
referee counted it out of order). Without a setup, or with ``--no-rules``, the detector runs
alone. A bad trace (junk lines, missing columns, no metadata or version) stops with an error
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
    accel = detector.TILT if meta.get("accel") == "tilt" else tr.accel
    det = detector.Detector(_Cal(meta), sps=meta["sps"], accel=accel)
    game = None
    if rules_on and "players" in meta:
        rules = fw("rules")
        try:
            game = rules.Game(meta["players"], first=meta.get("first", 0), side=meta.get("side", "easy"))
        except ValueError as err:
            raise InputError("%s: game setup in the metadata: %s" % (tr.path, err)) from None
    trace_mod = fw("trace")
    names = detector.EVENT_NAMES
    feed = det.feed
    for t, raw, ax, ay, az, inp in tr.rows:
        if ax is None:
            ax = ay = az = 0
        ev = feed(t, raw, ax, ay, az)
        if ev:
            obj = {"t_ms": det.event_t_ms, "event": names[ev], "at_ms": t, "grams": round(det.grams, 2)}
            if game is not None:
                _to_rules(game, det, ev, detector, obj)
            yield obj
        if inp:
            if inputs:
                yield {"t_ms": t, "event": "input", "input": inp}
            if game is not None:
                button = trace_mod.input_to_button(inp)
                if button in ("none", "reverse", "skip", "draw", "double", "rhino"):
                    game.apply(t, "symbol", symbol=button)
                    det.expect_rhino(game.owes_rhino)


_RULES_INPUT = {"wall": ("wall",), "walls2": ("wall", "wall"), "roof": ("roof",),
                "rhino": ("rhino",), "collapse": ("collapse",)}


def _to_rules(game, det, ev, detector, obj):
    kinds = _RULES_INPUT.get(detector.EVENT_NAMES[ev])
    if not kinds:
        return
    warnings = []
    for kind in kinds:
        status = game.apply(obj["t_ms"], kind)
        if status != 0 and game.message:
            warnings.append(game.message)
    det.expect_rhino(game.owes_rhino)
    obj["turn"] = game.turn
    obj["owes_rhino"] = bool(game.owes_rhino)
    if warnings:
        obj["warning"] = "; ".join(warnings)


def _simulate(args):
    """Play one scripted game on the simulated table and write its trace to stdout."""
    import random

    if args.tilt_switch is not None and (args.no_accel or args.tilt_switch <= 0):
        raise InputError("--tilt-switch takes a positive MG and replaces the accelerometer; "
                         "--no-accel has neither")

    from ..scenarios import script_game
    from ..table import Table
    from .. import trace as host_trace  # noqa: F401  (same format as write_trace)

    trace_mod = fw("trace")
    rng = random.Random(args.simulate)
    table = Table(seed=args.simulate, sps=args.sps, accel=not args.no_accel, noise=args.noise,
                  tilt_mg=args.tilt_switch)
    table.players, table.first, table.side = 3, 0, "easy"
    owe = script_game(table, rng, collapse=rng.random() < 0.85)
    # The referee's symbol presses: "rhino" when the script made a move owed, else "none".
    owe_t = [t for t, _ in owe]
    roof_t = [t for t, n in table.truth if n == "roof"]
    presses = []
    for rt in roof_t:
        sym = "rhino" if any(rt < o <= rt + 2500 for o in owe_t) else "none"
        presses.append((rt + 600, "symbol:" + sym))
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
