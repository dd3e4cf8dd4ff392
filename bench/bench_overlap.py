"""Overlap benchmark: a knock or a bump on the table while a piece is set down, taken back, or
Rhino Hero is moved, and what the detector makes of it (docs/detector.md, "A knock or a bump
during a move").

Usage::

    .venv/bin/python bench/bench_overlap.py              # 30 games per cell at 80 and 10 SPS
    .venv/bin/python bench/bench_overlap.py --quick      # 5 games per cell, a smoke run
    .venv/bin/python bench/bench_overlap.py --sps 80 --games 100 -v
    .venv/bin/python bench/bench_overlap.py --adc sinc4        # the converter's other model
    .venv/bin/python bench/bench_overlap.py --tilt-switch 100  # a ball tilt switch (or --no-accel)

The scripted games of bench_detector.py play one thing at a time; here a disturbance strikes
from 400 ms before an action ended to 800 ms after it (``rhinoref.scenarios.play_overlap``),
in games with no collapse. Prints, per rate, the share of games with a false collapse for each
action, disturbance and moment, their mean over the moments within 400 ms (the disturbance
struck at a random moment around the action), and the placements misjudged in the games
without a false collapse. The same games with no disturbance are the control: exit status
1 when the control has a false collapse or a misjudged placement. The figures themselves have
no SPEC target (SPEC 6 counts the scripted games); they say how often an unlucky moment costs
an undo from the parent menu.
"""

import argparse
import collections
import multiprocessing
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "host"))

from rhinoref.scenarios import DISTURBANCES, OVERLAP_ACTIONS, play_overlap  # noqa: E402
from rhinoref.table import ADC_MODELS, motion_words, tilt_switch_problem  # noqa: E402

OFFSETS_MS = (-400, -300, -200, -100, 0, 100, 200, 300, 400, 800)
NEAR_MS = 400          # the mean is over the offsets within this of the action's end


def _one(job):
    seed, action, disturbance, offset, sps, adc, motion = job
    r = play_overlap(seed, action, disturbance, offset, sps=sps, adc=adc,
                     accel=motion is not False, tilt_mg=motion if motion else None)
    misjudged = 0 if r.false_collapses else r.placements - r.placements_ok
    return job, r.false_collapses > 0, misjudged


def run(sps, games, first, pool, verbose, adc="sinc1", motion=None):
    """One rate's table; returns whether the control (no disturbance) was clean. ``motion``:
    None (the accelerometer), False (none: degraded mode) or a tilt switch's MG."""
    jobs = [(seed, a, d, off, sps, adc, motion) for a in OVERLAP_ACTIONS for d in DISTURBANCES
            for off in OFFSETS_MS for seed in range(first, first + games)]
    jobs += [(seed, a, None, 0, sps, adc, motion) for a in OVERLAP_ACTIONS
             for seed in range(first, first + games)]
    t0 = time.perf_counter()
    out = pool.map(_one, jobs, chunksize=8)
    wall = time.perf_counter() - t0
    false = collections.Counter()
    misjudged = collections.Counter()
    bad = []
    for (seed, a, d, off, _, _, _), fell, mis in out:
        false[(a, d, off)] += fell
        misjudged[(a, d)] += mis
        if fell or mis:
            bad.append((a, d, off, seed, "false collapse" if fell else "misjudged"))
    print("== %d SPS, datasheet noise, %s, %s converter: %d games per cell (seeds %d-%d),"
          " %.0f s on the pool" % (sps, motion_words(motion is not False, motion or None), adc,
                                   games, first, first + games - 1, wall))
    print("  games with a false collapse (%), by when the disturbance struck (ms after the action ended)")
    print("  %-11s %-6s" % ("action", "")
          + "".join("%6d" % off for off in OFFSETS_MS) + "   within %d ms  misjudged" % NEAR_MS)
    near = [abs(off) <= NEAR_MS for off in OFFSETS_MS]
    for a in OVERLAP_ACTIONS:
        for d in DISTURBANCES:
            cells = [100.0 * false[(a, d, off)] / games for off in OFFSETS_MS]
            mean = sum(c for c, n in zip(cells, near) if n) / sum(near)
            print("  %-11s %-6s" % (a, d) + "".join("%6.0f" % c for c in cells)
                  + "   %8.1f %%    %6d" % (mean, misjudged[(a, d)]))
    n_dist = games * len(OVERLAP_ACTIONS) * len(DISTURBANCES) * len(OFFSETS_MS)
    print("  in all: %d false collapses in %d games with a disturbance, %d placements misjudged"
          % (sum(false[(a, d, off)] for a in OVERLAP_ACTIONS for d in DISTURBANCES
                 for off in OFFSETS_MS), n_dist,
             sum(misjudged[(a, d)] for a in OVERLAP_ACTIONS for d in DISTURBANCES)))
    control_false = sum(false[(a, None, 0)] for a in OVERLAP_ACTIONS)
    control_mis = sum(misjudged[(a, None)] for a in OVERLAP_ACTIONS)
    print("  control (no disturbance): %d false collapses, %d placements misjudged in %d games"
          % (control_false, control_mis, games * len(OVERLAP_ACTIONS)))
    if verbose:
        for a, d, off, seed, what in bad[:30]:
            print("  %s: %s, %s at %+d ms, game %d" % (what, a, d or "no disturbance", off, seed))
    return control_false == 0 and control_mis == 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=30, help="games per cell (default 30)")
    ap.add_argument("--first", type=int, default=1, help="first game seed (default 1)")
    ap.add_argument("--quick", action="store_true", help="5 games per cell")
    ap.add_argument("--sps", default="80,10", help="comma-separated sample rates (default 80,10)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("-v", "--verbose", action="store_true", help="list the games that went wrong")
    ap.add_argument("--adc", default="sinc1", choices=ADC_MODELS,
                    help="the simulated converter's filter (default sinc1; docs/detector.md)")
    ap.add_argument("--no-accel", action="store_true", help="degraded mode: no accelerometer")
    ap.add_argument("--tilt-switch", type=int, metavar="MG",
                    help="a ball tilt switch that rolls at MG milli-g instead of the accelerometer")
    args = ap.parse_args(argv)
    if problem := tilt_switch_problem(args.tilt_switch, args.no_accel):
        ap.error(problem)
    motion = args.tilt_switch if args.tilt_switch is not None else False if args.no_accel else None
    games = 5 if args.quick else args.games
    clean = True
    with multiprocessing.Pool(args.workers) as pool:
        for sps in (int(s) for s in args.sps.split(",")):
            clean = run(sps, games, args.first, pool, args.verbose, args.adc, motion) and clean
    print("control clean" if clean else "CONTROL FAILED: a false collapse or a misjudged placement with no disturbance")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
