"""Read one simulated game the benchmarks scored: what happened, what the detector said, which
of its rules decided each collapse, and the samples around it.

Usage::

    .venv/bin/python bench/read_game.py 29115 --sps 10              # scripted game 29115
    .venv/bin/python bench/read_game.py 36033 --sps 10 --bots       # a bots' game
    .venv/bin/python bench/read_game.py 65176 --sps 10 --from 36500 --to 37600
    .venv/bin/python bench/read_game.py 29115 --sps 10 --trace game.csv && rhinoref plot game.csv
    .venv/bin/python bench/read_game.py 3 --overlap wall,bump,0   # one of bench_overlap's games
    .venv/bin/python bench/read_game.py 19 --sps 10 --adc sinc4    # under the sinc^4 converter
    .venv/bin/python bench/read_game.py 237 --no-accel            # degraded mode (no accelerometer)
    .venv/bin/python bench/read_game.py 38 --bots --tilt-switch 100   # a ball tilt switch instead

Prints the table's piece masses, the truth and the detector's events (within 6 s of the
window), for each collapse the detector reported the rule that decided it (the Detector method
that returned true, and the line that called ``_collapsed``), then one line per sample in the
window: time (ms), load (g above the tare), its step from the sample before, and the
accelerometer's x, y, z (mg). The window is, by default, 1.5 s either side of the first
collapse (the table's, else the detector's). The game is the benchmark's own (same seed, same
rate): a miss or false collapse that ``bench_detector.py -v``, ``bench_bots_detection.py -v``
or ``bench_overlap.py -v`` (``--overlap ACTION,DISTURBANCE,OFFSET_MS``) lists can be read
here. Not for the held-out ranges (docs/detector.md): their games are
measured, never read.

``--trace FILE`` also writes the game's samples as a sensor trace (SPEC 3.2) for ``rhinoref
plot``. (A scripted game's symbol presses reach the detector directly in the benchmark, not
through the trace's input column: ``rhinoref detect`` on that trace may differ where Rhino
Hero's move was owed.)
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "host"))

from rhinoref.firmware import fw  # noqa: E402
from rhinoref.table import ADC_MODELS, motion_note, tilt_switch_problem  # noqa: E402

# The Detector methods whose true result makes a collapse (see Detector._episode)
RULES = ("_check_collapse", "_landed", "_smash", "_slide", "_onto_platform", "_slid_off")


class RuleWatch:
    """Wraps the detector class's collapse rules for one game: ``decisions`` gets
    (t_ms, rule, caller) each time a collapse is made. ``close()`` puts the class back."""

    def __init__(self, detector_class):
        self.cls = detector_class
        self.saved = {}
        self.last = None
        self.decisions = []
        for name in RULES:
            self._wrap(name)
        self._wrap_collapsed()

    def _wrap(self, name):
        original = getattr(self.cls, name)
        self.saved[name] = original
        watch = self

        def rule(det, *args):
            result = original(det, *args)
            if result:
                watch.last = name
            return result

        setattr(self.cls, name, rule)

    def _wrap_collapsed(self):
        original = self.cls._collapsed
        self.saved["_collapsed"] = original
        watch = self

        def collapsed(det):
            caller = sys._getframe(1)
            where = "%s:%d" % (caller.f_code.co_name, caller.f_lineno)
            rule = watch.last if caller.f_code.co_name == "_episode" else caller.f_code.co_name
            watch.decisions.append((det._t1, rule, where))
            watch.last = None
            return original(det)

        self.cls._collapsed = collapsed

    def close(self):
        for name, original in self.saved.items():
            setattr(self.cls, name, original)


def play(seed, sps, bots, overlap=None, adc="sinc1", accel=True, tilt_mg=None):
    """(truth [(t, name)], events [(t, name)], meta, rows, decisions) of one game;
    ``overlap``: (action, disturbance, offset_ms) for a game of bench_overlap.py; ``adc``: the
    table's converter filter; ``accel=False``: degraded mode (no accelerometer); ``tilt_mg``:
    a ball tilt switch instead of the accelerometer (the detector in its mode for one)."""
    watch = RuleWatch(fw("detector").Detector)
    try:
        if bots:
            from rhinoref import sim

            r = sim.play_game(players=4, seed=seed, sps=sps, mode="firmware", trace=True, adc=adc,
                              accel=accel, tilt_mg=tilt_mg)
            truth = [(x[0], x[1]) for x in r.trace_truth]
            events = [(x[0], x[1]) for x in r.trace_detected]
            return truth, events, r.trace_meta, r.trace_rows, watch.decisions

        from rhinoref.scenarios import play_game, play_overlap

        if overlap:
            r = play_overlap(seed, *overlap, sps=sps, accel=accel, keep_samples=True, adc=adc,
                             tilt_mg=tilt_mg)
        else:
            r = play_game(seed, sps=sps, accel=accel, keep_samples=True, adc=adc, tilt_mg=tilt_mg)
        truth = [(a["t"], a["name"]) for a in r.actions]
        events = [(e[1], e[2]) for e in r.events]
        return truth, events, r.meta, r.samples_list, watch.decisions
    finally:
        watch.close()


def report(seed, sps, bots=False, t_from=None, t_to=None, out=sys.stdout, trace=None, overlap=None,
           adc="sinc1", accel=True, tilt_mg=None):
    truth, events, meta, rows, decisions = play(seed, sps, bots, overlap, adc, accel, tilt_mg)
    if trace:
        from rhinoref.trace import write_trace

        write_trace(trace, meta, rows)
    if t_from is None or t_to is None:
        falls = [t for t, name in truth if name == "collapse"] or [
            t for t, name in events if name == "collapse"] or [rows[0][0] + 1500]
        t_from, t_to = falls[0] - 1500, falls[0] + 1500
    w = out.write
    if overlap:
        kind = "overlap %s, %s at %+d ms," % (overlap[0], overlap[1] or "no disturbance", overlap[2])
    else:
        kind = "bots'" if bots else "scripted"
    w("%s game %d at %d SPS%s%s: wall %.3f g, roof %.3f g, Rhino Hero %.3f g\n" % (
        kind, seed, sps, "" if adc == "sinc1" else " (%s converter)" % adc,
        motion_note(accel, tilt_mg),
        meta["wall_g"], meta["roof_g"], meta["rhino_g"]))
    for label, items in (("truth", truth), ("event", events)):
        for t, name in items:
            if t_from - 6000 <= t <= t_to + 6000:
                w("%s %7d %s\n" % (label, t, name))
    for t, rule, where in decisions:
        w("collapse decided at %d by %s (%s)\n" % (t, rule, where))
    cpg = meta["counts_per_gram"]
    prev = None
    for s in rows:
        if t_from <= s[0] <= t_to:
            g = (s[1] - meta["offset"]) / cpg
            step = "" if prev is None else "%+.2f" % (g - prev)
            acc = "" if s[2] is None else "%d %d %d" % (s[2], s[3], s[4])
            w("%7d %8.2f %7s  %s\n" % (s[0], g, step, acc))
            prev = g
    return decisions


def _overlap(text):
    from rhinoref.scenarios import DISTURBANCES, OVERLAP_ACTIONS

    parts = text.split(",")
    try:
        action, disturbance, offset = parts
        offset = int(offset)
    except ValueError:
        raise argparse.ArgumentTypeError("want ACTION,DISTURBANCE,OFFSET_MS, e.g. removed,knock,-100")
    if action not in OVERLAP_ACTIONS or disturbance not in DISTURBANCES + ("none",):
        raise argparse.ArgumentTypeError("ACTION is one of %s, DISTURBANCE one of %s, none" % (
            ", ".join(OVERLAP_ACTIONS), ", ".join(DISTURBANCES)))
    # (bench_overlap's "no disturbance" cells are played with offset 0)
    return action, None if disturbance == "none" else disturbance, offset


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--sps", type=int, default=80, choices=(80, 10))
    ap.add_argument("--bots", action="store_true", help="a bots' game (rhinoref sim), not a scripted one")
    ap.add_argument("--from", dest="t_from", type=int, help="window start, ms")
    ap.add_argument("--to", dest="t_to", type=int, help="window end, ms")
    ap.add_argument("--overlap", metavar="ACTION,DISTURBANCE,OFFSET_MS", type=_overlap,
                    help="a game of bench_overlap.py, e.g. removed,knock,-100")
    ap.add_argument("--trace", metavar="FILE", help="also write the game's sensor trace (SPEC 3.2)")
    ap.add_argument("--adc", default="sinc1", choices=ADC_MODELS,
                    help="the simulated converter's filter (default sinc1)")
    ap.add_argument("--no-accel", dest="accel", action="store_false",
                    help="degraded mode: no accelerometer (bench_detector.py --no-accel's games)")
    ap.add_argument("--tilt-switch", type=int, metavar="MG",
                    help="a ball tilt switch that rolls at MG milli-g instead of the accelerometer "
                         "(bench_detector.py --tilt-switch MG's games)")
    args = ap.parse_args(argv)
    if args.bots and args.overlap:
        ap.error("--bots and --overlap name different games; give one")
    if problem := tilt_switch_problem(args.tilt_switch, not args.accel):
        ap.error(problem)
    try:
        report(args.seed, args.sps, args.bots, args.t_from, args.t_to, trace=args.trace,
               overlap=args.overlap, adc=args.adc, accel=args.accel, tilt_mg=args.tilt_switch)
        sys.stdout.flush()
    except BrokenPipeError:
        # (read through `| head`: the reader left; no traceback, and none at exit either)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
