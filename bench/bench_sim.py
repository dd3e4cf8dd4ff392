"""How many times faster than real time the simulator plays a whole game, on one core.

Usage::

    .venv/bin/python bench/bench_sim.py            # 20 games, 4 players, 80 SPS
    .venv/bin/python bench/bench_sim.py --quick    # 4 games
    .venv/bin/python bench/bench_sim.py --games 50 --sps 10 --players 5 --top 25

Prints the speed (simulated seconds per wall-clock second; target >= 600x), per-sample cost,
and where the time goes: a cProfile run of the same games grouped by module (the simulated
table, the detector, the board app, the rules engine, the bots, the loop) and the top
functions, so the team sees which module to optimise.
"""

import argparse
import cProfile
import os
import pstats
import sys
import time
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "host"))

from rhinoref.sim import play_game  # noqa: E402

TARGET = 600.0

MODULES = (
    ("host/rhinoref/table.py", "simulated table (rhinoref.table)"),
    ("firmware/referee/detector.py", "detector (referee.detector)"),
    ("firmware/referee/app.py", "board app (referee.app)"),
    ("firmware/referee/commands.py", "board app (referee.app)"),
    ("firmware/referee/cues.py", "light cues (referee.cues)"),
    ("firmware/referee/rules.py", "rules engine (referee.rules)"),
    ("firmware/referee/gamelog.py", "game log (referee.gamelog)"),
    ("firmware/referee/protocol.py", "protocol events (referee.protocol)"),
    ("host/rhinoref/bots.py", "bots (rhinoref.bots)"),
    ("host/rhinoref/sim.py", "simulation loop (rhinoref.sim)"),
)


def _module(filename):
    path = filename.replace("\\", "/")
    for suffix, name in MODULES:
        if path.endswith(suffix):
            return name
    if filename.startswith("~") or filename.startswith("<"):
        return "Python built-ins (random, math, json, list ops)"
    return "other Python library code"


def run_games(games, players, sps, seed):
    sim_s = wall_s = 0.0
    samples = 0
    for i in range(games):
        t0 = time.perf_counter()
        r = play_game(players=players, seed=seed + i, sps=sps, mode="firmware")
        wall_s += time.perf_counter() - t0
        sim_s += r.sim_ms / 1000.0
        samples += r.samples
    return sim_s, wall_s, samples


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--quick", action="store_true", help="4 games, for a fast look")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--sps", type=int, default=80, choices=(80, 10))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--top", type=int, default=15, help="functions to list in the profile")
    p.add_argument("--no-profile", action="store_true")
    args = p.parse_args(argv)
    games = 4 if args.quick else args.games

    # Warm up imports (not part of a game's cost).
    play_game(players=2, seed=999, sps=args.sps, mode="firmware", max_sim_ms=5000)

    sim_s, wall_s, samples = run_games(games, args.players, args.sps, args.seed)
    speed = sim_s / wall_s
    print("bench_sim: %d games, %d players, %d SPS, one core" % (games, args.players, args.sps))
    print("  simulated play      %.1f min (%.1f min per game)" % (sim_s / 60, sim_s / 60 / games))
    print("  wall clock          %.2f s (%.3f s per game)" % (wall_s, wall_s / games))
    print("  speed               %.0fx real time (target >= %.0fx: %s)"
          % (speed, TARGET, "met" if speed >= TARGET else "NOT met"))
    print("  per sample          %.1f us (%d samples; %d SPS at the target speed allows %.0f us)"
          % (wall_s / samples * 1e6, samples, args.sps, 1e6 / args.sps / TARGET))
    if args.no_profile:
        return 0

    prof = cProfile.Profile()
    prof.enable()
    run_games(games, args.players, args.sps, args.seed)
    prof.disable()
    stats = pstats.Stats(prof)
    per_module = defaultdict(float)
    total = 0.0
    rows = []
    for (filename, line, func), (cc, nc, tt, ct, callers) in stats.stats.items():
        per_module[_module(filename)] += tt
        total += tt
        rows.append((tt, ct, nc, "%s:%d %s" % (os.path.relpath(filename, ROOT)
                                              if filename.startswith(ROOT) else filename, line, func)))
    print("\nwhere the time goes (cProfile, own time per module; profiling slows everything):")
    for name, tt in sorted(per_module.items(), key=lambda kv: -kv[1]):
        print("  %5.1f%%  %-45s %.2f s" % (100 * tt / total, name, tt))
    print("\ntop %d functions by own time:" % args.top)
    print("  %7s %8s %9s  %s" % ("own s", "cum s", "calls", "function"))
    for tt, ct, nc, name in sorted(rows, reverse=True)[: args.top]:
        print("  %7.2f %8.2f %9d  %s" % (tt, ct, nc, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
