"""The detector in the bots' games: a second, independent set of simulated games.

Usage::

    .venv/bin/python bench/bench_bots_detection.py             # 1000 games at 80 and at 10 SPS
    .venv/bin/python bench/bench_bots_detection.py --quick     # 100 games each
    .venv/bin/python bench/bench_bots_detection.py --first 100001 --games 2000 --sps 10 -v
    .venv/bin/python bench/bench_bots_detection.py --adc sinc4   # the converter's other model
    .venv/bin/python bench/bench_bots_detection.py --first 8001 --games 30000 --sps 10 --told unknown

``bench_detector.py`` scores the detector on scripted games (``rhinoref.scenarios``), the
games its rules were developed on. Here the games are those of ``rhinoref sim``: bots with
their own timing, mistakes and collapse model play whole games on the same simulated table,
and the board app (detector, rules, cues) referees them, as on the board. Each game's
detector events are matched to the table's truth (same kind within 2.5 s; a piece set down
less than 1 s before a collapse is not judged: docs/simulator.md).

Prints per rate: collapse recall, false collapses (and in how many games), the share of
walls, roofs and Rhino Hero moves seen as what they are, and the placements correct (a piece
reported where none stands, mostly one a bot let go and then took back, counts as wrong);
``-v`` lists the seeds with a collapse error. Latency is not measured here (the board's
events carry the collapse's estimated onset, not when it was decided: see
``bench_detector.py``). Exit status 1 when a SPEC 6 target (recall 100 %, no false collapse,
placements >= 99.5 %) is missed.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "host"))

from rhinoref.sim import play_batch, statistics  # noqa: E402
from rhinoref.firmware import fw  # noqa: E402
from rhinoref.table import ADC_MODELS  # noqa: E402

PLACEMENTS = ("wall", "roof", "rhino")


def run(games, first, sps, verbose, workers=None, adc="sinc1", told=None):
    t0 = time.perf_counter()
    results = play_batch(games, players=4, seed=first, sps=sps, mode="firmware", processes=workers,
                         adc=adc, told=told)
    wall = time.perf_counter() - t0
    st = statistics(results)
    truth, missed, extra = st["truth"], st["missed"], st["extra"]
    falls = truth.get("collapse", 0)
    lost = missed.get("collapse", 0)
    false = extra.get("collapse", 0)
    false_games = sum(1 for r in results if (r.extra or {}).get("collapse"))
    print("== %d SPS, bots' games (rhinoref sim), %s converter%s: %d games (seeds %d-%d), %.0f simulated"
          " hours (%.0f s)" % (sps, adc, "" if told is None else " (the board told %s)" % told,
                               games, first, first + games - 1, st["sim_s"] / 3600.0, wall))
    recall = 100.0 * (falls - lost) / falls if falls else 100.0
    print("  collapse recall     %7.2f %%  (%d of %d)" % (recall, falls - lost, falls))
    print("  false collapses     %5d     (in %d games)" % (false, false_games))
    ok_all = wrong_all = 0
    for kind in PLACEMENTS:
        n = truth.get(kind, 0)
        ok = n - missed.get(kind, 0)
        ok_all += ok
        wrong_all += missed.get(kind, 0) + extra.get(kind, 0)
        print("  %-5s seen as such  %7.2f %%  (%d of %d; %d reported where there was none)"
              % (kind, 100.0 * ok / n if n else 100.0, ok, n, extra.get(kind, 0)))
    # Like bench_detector.py's placements: a piece reported where none stands counts as wrong.
    placements = 100.0 * ok_all / (ok_all + wrong_all) if ok_all + wrong_all else 100.0
    print("  placements correct  %7.2f %%  (%d right, %d missed or reported where there was none)"
          % (placements, ok_all, wrong_all))
    if verbose:
        for r in results:
            if (r.missed or {}).get("collapse") or (r.extra or {}).get("collapse"):
                print("    seed %d: missed %s, extra %s" % (r.seed, r.missed, r.extra))
    return lost == 0 and false == 0 and placements >= 99.5


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000, help="games per rate (default 1000)")
    ap.add_argument("--first", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("--quick", action="store_true", help="100 games per rate")
    ap.add_argument("--sps", default="80,10", help="comma-separated sample rates (default 80,10)")
    ap.add_argument("--workers", type=int, default=None,
                    help="worker processes (default: the CPU count, at most 2)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list the games with a collapse error")
    ap.add_argument("--adc", default="sinc1", choices=ADC_MODELS,
                    help="the simulated converter's filter (default sinc1; docs/detector.md)")
    ap.add_argument("--told", choices=fw("calibration").ADC_FILTERS,
                    help="what the board was told its converter's filter is (default: the "
                         "table's own)")
    args = ap.parse_args(argv)
    games = 100 if args.quick else args.games
    met = True
    for sps in (int(s) for s in args.sps.split(",")):
        met = run(games, args.first, sps, args.verbose, args.workers, args.adc, args.told) and met
    print("targets met" if met else "TARGETS MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
