"""The host tool's errors and the exit codes that scripts can rely on.

Usage::

    from rhinoref.errors import InputError
    raise InputError("game.jsonl line 3: not JSON")

``rhinoref.cli.main`` prints ``rhinoref: <message>`` (no traceback) and exits with the class's
code:

====  ==========================================================
code  meaning
====  ==========================================================
0     done
1     the job ran and found a failure (self-test fault, verify)
2     bad usage or bad input file
3     no board, port busy, board not answering or not MicroPython
130   interrupted with Ctrl-C
====  ==========================================================
"""

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_BOARD = 3
EXIT_INTERRUPTED = 130


class RhinorefError(Exception):
    """A failure the user should read about, not a bug: printed without a traceback."""

    exit_code = EXIT_FAILED


class InputError(RhinorefError):
    """Bad arguments or a bad input file (malformed log, trace, ...)."""

    exit_code = EXIT_USAGE


class BoardError(RhinorefError):
    """The board cannot be reached or does not behave like a rhinoref board."""

    exit_code = EXIT_BOARD
