"""``rhinoref sim``: bot players play whole games on a simulated table; the unchanged firmware
referees them. With no arguments: one game, live in the terminal at 20x real time (as fast as
possible with plain lines when stdout is not a terminal)."""

import json
import random

from ..errors import InputError

HELP = "play whole games with bot players on a simulated table (the main job)"
EXAMPLE = """\
rhinoref sim                                # one game, live, 20x real time
rhinoref sim --players 5 --seed 7 --speed 1 # watch seed 7 in real time
rhinoref sim --seed 7 --plain --log game.jsonl --trace trace.csv
rhinoref sim --games 1000                   # batch: statistics of 1,000 games
rhinoref sim --sps 10 --adc sinc4 --games 200   # an HX711 that spreads a change over four readings
rhinoref sim --tilt-switch 100 --games 200  # the low-cost build: a ball tilt switch, no accelerometer
"""

DEFAULT_TERMINAL_SPEED = 20.0


def _speed(text):
    if text in ("max", "fast", "0"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError("--speed takes 'max' or a factor of real time such as 1, 10 or 20, not %r" % text)
    if not value > 0:
        raise InputError("--speed must be above 0 (or 'max'), not %r" % text)
    return value


def add_arguments(parser):
    parser.add_argument("--players", type=int, default=None, metavar="N",
                        help="players 2-5 (default 4; in a batch, 4)")
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help="random seed; the same seed plays the same game (default: random, "
                             "printed so it can be replayed)")
    parser.add_argument("--speed", default=None, metavar="max|1|10|...",
                        help="simulated seconds per real second; 'max' = as fast as possible "
                             "(default %g on a terminal, max otherwise)" % DEFAULT_TERMINAL_SPEED)
    parser.add_argument("--games", type=int, default=1, metavar="N",
                        help="play N games and print statistics instead of showing one")
    parser.add_argument("--log", metavar="GAME.jsonl",
                        help="write the game log the board wrote (SPEC 3.1)")
    parser.add_argument("--trace", metavar="TRACE.csv",
                        help="write the sensor trace (SPEC 3.2)")
    parser.add_argument("--sps", type=int, default=80, choices=(80, 10),
                        help="HX711 samples per second (RATE pin; default 80)")
    from ..firmware import fw
    from ..table import ADC_MODELS

    parser.add_argument("--adc", choices=ADC_MODELS, default="sinc1",
                        help="the simulated HX711's filter: each reading its own conversion's mean "
                             "(sinc1, default) or a change spread over four (sinc4; "
                             "docs/detector.md, \"The converter's filter\")")
    parser.add_argument("--told", choices=fw("calibration").ADC_FILTERS, default=None,
                        help="what the board's calibration says the filter is (default: the "
                             "table's own, as a maker who checked it would have told it)")
    parser.add_argument("--no-accel", action="store_true",
                        help="no accelerometer: the detector's degraded mode")
    parser.add_argument("--tilt-switch", type=int, default=None, metavar="MG",
                        help="a ball tilt switch that rolls at MG milli-g instead of the "
                             "accelerometer (the low-cost build; docs/detector.md)")
    parser.add_argument("--side", choices=("easy", "expert"), default="easy",
                        help="foundation side (default easy)")
    parser.add_argument("--plain", action="store_true",
                        help="plain lines, one per event, even on a terminal")
    parser.add_argument("--json", action="store_true",
                        help="print the result (or the batch statistics) as JSON")
    parser.add_argument("--processes", type=int, default=None, metavar="N",
                        help="worker processes for a batch (default: up to 2)")
    parser.add_argument("--ideal", action="store_true",
                        help="no sensors: the rules engine is fed the truth (compare with the "
                             "detector)")


def _check(args):
    if args.players is not None and not 2 <= args.players <= 5:
        raise InputError("--players must be 2 to 5, not %d" % args.players)
    if args.games < 1:
        raise InputError("--games must be at least 1, not %d" % args.games)
    if args.games > 1 and (args.log or args.trace):
        raise InputError("--log and --trace record one game; pick it from the batch with "
                         "--seed N (game k of a batch has seed SEED + k)")
    if args.processes is not None and args.processes < 1:
        raise InputError("--processes must be at least 1")
    from ..table import tilt_switch_problem

    if problem := tilt_switch_problem(args.tilt_switch, args.no_accel):
        raise InputError(problem)


def _converter(adc, told):
    """Words for a converter other than the default, told as it is: ", sinc4 HX711 (board told
    unknown)"; "" for sinc1 told sinc1."""
    if adc == "sinc1" and told in (None, "sinc1"):
        return ""
    return ", %s HX711%s" % (adc, "" if told in (None, adc) else " (board told %s)" % told)


def run(args):
    _check(args)
    seed = args.seed if args.seed is not None else random.randrange(1, 100000)
    players = args.players or 4
    if args.games > 1:
        return _batch(args, seed, players)
    return _one(args, seed, players)


def _one(args, seed, players):
    from .. import sim
    from ..render import View, make_renderer
    from ..table import motion_note

    renderer = make_renderer(plain=True if (args.plain or args.json) else None)
    if args.speed is None:
        speed = DEFAULT_TERMINAL_SPEED if renderer.live else None
    else:
        speed = _speed(args.speed)
    mode = "ideal" if args.ideal else "auto"
    view = View(title="rhinoref sim", players=players, side=args.side)
    view.subtitle = "seed %d, %d players, %d SPS%s%s, %s" % (
        seed, players, args.sps, motion_note(not args.no_accel, args.tilt_switch),
        _converter(args.adc, args.told),
        "max speed" if speed is None else "%gx real time" % speed)
    if not args.json and not renderer.live:
        renderer.line("# rhinoref sim: " + view.subtitle)
    with renderer:
        result = sim.play_game(players=players, seed=seed, sps=args.sps, accel=not args.no_accel,
                               side=args.side, speed=speed, view=None if args.json else view,
                               renderer=None if args.json else renderer,
                               trace=bool(args.trace), mode=mode, adc=args.adc, told=args.told,
                               tilt_mg=args.tilt_switch)
    if args.log:
        _write(args.log, "\n".join(result.log_lines) + "\n")
    if args.trace:
        _write_trace(args.trace, result)
    if args.json:
        print(json.dumps(result.as_dict(), sort_keys=True))
    else:
        renderer.line(summary(result))
    return 0


def _write(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as err:
        raise InputError("cannot write %s: %s" % (path, err.strerror or err))


def _write_trace(path, result):
    if result.trace_rows is None:
        raise InputError("no sensor trace in this mode (--ideal has no sensors)")
    from ..trace import write_trace

    try:
        write_trace(path, result.trace_meta, result.trace_rows)
    except OSError as err:
        raise InputError("cannot write %s: %s" % (path, err.strerror or err))


def _minutes(ms):
    s = int(round(ms / 1000.0))
    return "%d min %02d s" % (s // 60, s % 60)


def summary(result):
    """One sentence on how the game ended."""
    how = {
        "emptied_hand": "by emptying their hand",
        "collapse": "after a collapse",
        "walls_used": "when all walls were built",
    }
    if result.result == "timeout":
        text = "no result after %s of play (stopped)" % _minutes(result.sim_ms)
    else:
        who = ", ".join("seat %d" % s for s in result.winners)
        verb = "win" if len(result.winners) > 1 else "wins"
        if result.result == "walls_used":
            text = "everyone wins when all walls were built"
        else:
            text = "%s %s %s" % (who, verb, how.get(result.result, result.result))
        if result.loser is not None:
            text += " (seat %d loses)" % result.loser
        text += " after %s, %d turns, %d floors" % (_minutes(result.sim_ms), result.turns, result.floors)
    if result.mode == "firmware":
        if result.agrees:
            text += "; detector agreed with the truth"
        else:
            bits = ["missed %s" % _counts(result.missed)] if result.missed else []
            if result.extra:
                bits.append("extra %s" % _counts(result.extra))
            text += "; detector " + ", ".join(bits)
    if result.wall_s:
        text += " [%.0fx real time]" % (result.sim_ms / 1000.0 / result.wall_s)
    return "result (seed %d): %s" % (result.seed, text)


def _counts(d):
    return ", ".join("%d %s" % (v, k) for k, v in sorted(d.items()))


def _batch(args, seed, players):
    from rich.console import Console

    from .. import sim

    console = Console(stderr=False)
    mode = "ideal" if args.ideal else "auto"
    progress_console = Console(stderr=True)
    show = progress_console.is_terminal and not args.json

    def progress(done, total):
        if show and (done % 10 == 0 or done == total):
            progress_console.print("  %d / %d games" % (done, total), end="\r")

    results = sim.play_batch(args.games, players=players, seed=seed, sps=args.sps,
                             accel=not args.no_accel, side=args.side, processes=args.processes,
                             mode=mode, progress=progress, adc=args.adc, told=args.told,
                             tilt_mg=args.tilt_switch)
    if show:
        progress_console.print(" " * 30, end="\r")
    stats = sim.statistics(results)
    stats["seed"] = seed
    stats["players"] = players
    stats["sps"] = args.sps
    stats["adc"] = args.adc
    stats["told"] = args.told or args.adc
    stats["accel"] = not args.no_accel
    stats["tilt_mg"] = args.tilt_switch
    stats["mode"] = results[0].mode if results else mode
    if args.json:
        print(json.dumps(stats, sort_keys=True, default=str))
        return 0
    print_statistics(console, stats)
    return 0


def print_statistics(console, stats):
    from rich.table import Table

    from ..table import motion_note

    n = stats["games"]
    console.print("[bold]%d games[/bold], %d players, seeds %d..%d, %d SPS%s%s, %s" % (
        n, stats["players"], stats["seed"], stats["seed"] + n - 1, stats["sps"],
        motion_note(stats.get("accel", True), stats.get("tilt_mg")),
        _converter(stats.get("adc", "sinc1"), stats.get("told")),
        "firmware on the simulated table" if stats["mode"] == "firmware"
        else "rules engine fed the truth (no sensors)"))

    t = Table(title="how games ended")
    t.add_column("ending")
    t.add_column("games", justify="right")
    t.add_column("share", justify="right")
    for key in ("emptied_hand", "collapse", "walls_used", "timeout"):
        count = stats["endings"].get(key, 0)
        if count or key != "timeout":
            t.add_row(key.replace("_", " "), str(count), "%.1f%%" % (100.0 * count / n))
    console.print(t)

    t = Table(title="per seat")
    t.add_column("seat")
    t.add_column("win share", justify="right")
    t.add_column("lost by collapse", justify="right")
    for s, share in stats["win_share"].items():
        t.add_row(str(s), "%.1f%%" % (100 * share), "%.1f%%" % (100 * stats["loss_share"].get(s, 0)))
    console.print(t)

    q = stats["length_s"]
    t = Table(title="game length (simulated)")
    for col in ("min", "median", "p90", "max", "mean", "turns (mean)"):
        t.add_column(col, justify="right")
    t.add_row(*["%.1f min" % (q[k] / 60.0) for k in ("min", "p50", "p90", "max", "mean")],
              "%.1f" % stats["turns_mean"])
    console.print(t)

    t = Table(title="collapse rate by tower height (floors = roofs on the tower)")
    t.add_column("floors", justify="right")
    t.add_column("towers that reached it", justify="right")
    t.add_column("fell there", justify="right")
    t.add_column("rate", justify="right")
    for h, (fell, reached) in stats["collapse_by_height"].items():
        t.add_row(str(h), str(reached), str(fell), "%.1f%%" % (100.0 * fell / reached))
    console.print(t)

    if stats["mode"] == "firmware":
        t = Table(title="detector vs truth (all games)")
        t.add_column("event")
        t.add_column("true", justify="right")
        t.add_column("missed", justify="right")
        t.add_column("extra", justify="right")
        for kind in ("wall", "roof", "rhino", "collapse"):
            t.add_row(kind, str(stats["truth"].get(kind, 0)), str(stats["missed"].get(kind, 0)),
                      str(stats["extra"].get(kind, 0)))
        console.print(t)
        console.print("games where the detector agreed with the truth on every event: %d / %d"
                      % (stats["games_agreeing"], n))
    speed = stats["sim_s"] / stats["wall_s"] if stats["wall_s"] else 0
    console.print("simulated %.1f hours of play in %.1f s of worker time (%.0fx real time per "
                  "worker process)" % (stats["sim_s"] / 3600.0, stats["wall_s"], speed))
