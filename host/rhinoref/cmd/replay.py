"""``rhinoref replay GAME.jsonl``: a game log (SPEC 3.1) through the firmware's own rules engine.

Usage::

    rhinoref replay examples/demo_game.jsonl          # one JSON state per input line
    rhinoref replay --text examples/demo_game.jsonl   # one readable line per input
    rhinoref replay --final game.jsonl                # only the state after the last line
    cat game.jsonl | rhinoref replay -                # the log from stdin

Each input line gives one JSON object: ``line`` (number in the file), the input echoed (``t_ms``,
``in``, and ``symbol`` / ``seat`` + ``symbols`` where the input has them), the state after it
(``turn``, ``direction``, ``hands``, ``pile``, ``walls_left``, ``owes_rhino``, ``over``,
``winners``, ``loser``, ``result`` and more, see ``rules.Game.state``), ``effects`` (the light
cues the board shows, ``[name, seat]``), and ``warning`` or ``error`` when the referee counted
the input with a warning or refused it. Blank lines are skipped.

Bad input, decided and documented in docs/rules.md:

- A bad or missing header (not JSON, not a game log, unsupported version, bad players / first /
  side), an empty log or an unreadable file stops the replay: ``rhinoref: game.jsonl line 1:
  ...`` on stderr, exit 2.
- A malformed input line (not JSON, unknown ``in``, bad symbol, bad seat, bad ``t_ms``...)
  prints an object with ``"bad": true`` and ``"error": "line N: ..."`` and the unchanged state;
  the replay goes on. At the end the command says how many lines were skipped and exits 1, so a
  script notices a damaged log. ``--strict`` stops at the first one instead (exit 2).
- An input the referee refuses (a symbol with no roof, anything after the end...) is a normal
  part of a game: it shows as ``error`` in its object and does not change the exit code (0).
"""

import json
import sys

from ..errors import InputError, RhinorefError
from ..firmware import fw

HELP = "replay a game log through the rules engine, one JSON state per input"
EXAMPLE = """\
rhinoref replay examples/demo_game.jsonl
rhinoref replay --text examples/collapse_tiebreak.jsonl
cat game.jsonl | rhinoref replay - --final"""


def add_arguments(parser):
    parser.add_argument("log", metavar="GAME.jsonl", help="a game log (SPEC 3.1), or - for stdin")
    parser.add_argument("--text", action="store_true",
                        help="one readable line per input instead of JSON")
    parser.add_argument("--final", action="store_true",
                        help="print only the state after the last line")
    parser.add_argument("--strict", action="store_true",
                        help="stop at the first malformed line (exit 2) instead of skipping it")


def _open(path):
    if path == "-":
        return "<stdin>", sys.stdin.buffer, False
    try:
        return path, open(path, "rb"), True
    except BrokenPipeError:
        raise
    except OSError as err:  # reading the log (a directory, an I/O error)
        raise InputError("%s: %s" % (path, err.strerror or err)) from None


def _record(r, status, gamelog):
    """The JSON object for one input line (after ``r.feed``)."""
    game = r.game
    rec = {"line": r.line}
    if r.input is not None:
        t_ms, kind, symbol, seat, symbols = r.input
        rec["t_ms"] = t_ms
        rec["in"] = kind
        if kind == "symbol":
            rec["symbol"] = symbol
        elif kind == "tiebreak":
            rec["seat"] = seat
            rec["symbols"] = symbols
    state = game.state()
    state.pop("error", None)
    state.pop("warning", None)
    rec.update(state)
    if status == gamelog.BAD:
        rec["effects"] = []
        rec["bad"] = True
        rec["error"] = "line %d: %s" % (r.line, r.message)
    else:
        rec["effects"] = [[name, seat] for name, seat in game.effects]
        if status == fw("rules").ERROR:
            rec["error"] = r.message
        elif status == fw("rules").WARNING:
            rec["warning"] = r.message
    return rec


def _text(rec, actor):
    """One readable line for ``--text``."""
    if rec.get("bad"):
        head = "line %3d  %-24s" % (rec["line"], "(malformed line)")
    else:
        what = rec["in"]
        if what == "symbol":
            what += " " + rec["symbol"]
        elif what == "tiebreak":
            what = "tiebreak %d" % rec["symbols"]
            actor = rec["seat"]
        who = "" if actor is None else "seat %d " % actor
        head = "line %3d  %6.1fs  %-24s" % (rec["line"], rec["t_ms"] / 1000, who + what)
    if rec["over"]:
        if rec["result"] == "walls_used":
            tail = "GAME OVER: all 28 walls built, everyone wins"
        else:
            tail = "GAME OVER: %s, winner%s %s" % (
                rec["result"].replace("_", " "), "s" if len(rec["winners"]) > 1 else "",
                " ".join(map(str, rec["winners"])))
            if rec["loser"] is not None:
                tail += ", loser %d" % rec["loser"]
    else:
        tail = "turn %d %-3s hands %s  pile %2d  walls %2d" % (
            rec["turn"], rec["direction"], " ".join(map(str, rec["hands"])), rec["pile"],
            rec["walls_left"])
        flags = []
        if rec["owes_rhino"]:
            flags.append("rhino owed")
        if rec["double_pending"]:
            flags.append("double: build again")
        if rec["awaiting_symbol"]:
            flags.append("symbol?")
        if rec["tiebreak_seats"]:
            flags.append("collapse, loser %d; tie-break owed by %s" % (
                rec["loser"], " ".join(map(str, rec["tiebreak_seats"]))))
        if flags:
            tail += "  [" + ", ".join(flags) + "]"
    cues = ["%s %s" % (n, "" if seat is None else seat) for n, seat in rec["effects"]
            if n not in ("turn", "warning", "error", "winner", "loser", "tiebreak")]
    note = "  {" + ", ".join(c.strip() for c in cues) + "}" if cues else ""
    if "error" in rec:
        note += "  ERROR: " + rec["error"]
    elif "warning" in rec:
        note += "  warning: " + rec["warning"]
    return head + tail + note


def run(args):
    gamelog = fw("gamelog")
    name, stream, close = _open(args.log)
    r = gamelog.Replay()
    bad = []
    last = None
    try:
        for raw in stream:
            actor = r.game.turn if r.game is not None else None
            try:
                status = r.feed(raw)
            except gamelog.LogError as err:
                raise InputError("%s %s" % (name, err)) from None
            if status is None:
                continue
            if r.input is not None and r.input[1] in ("wall", "roof", "rhino"):
                actor = r.game.turn  # a piece after a forgotten symbol is the new player's
            if status == gamelog.BAD:
                if args.strict:
                    raise InputError("%s line %d: %s" % (name, r.line, r.message))
                bad.append(r.line)
            rec = _record(r, status, gamelog)
            last = (rec, actor)
            if not args.final:
                _emit(rec, actor, args.text)
    except BrokenPipeError:
        raise
    except OSError as err:  # reading the log (a directory, an I/O error)
        raise InputError("%s: %s" % (name, err.strerror or err)) from None
    finally:
        if close:
            stream.close()
    if r.game is None:
        raise InputError("%s line %d: empty game log: no header line" % (name, max(r.line, 1)))
    if args.final:
        if last is None:  # a header only: the state at the start
            rec = {"line": r.line}
            rec.update(r.game.state())
            rec["effects"] = []
            last = (rec, None)
        _emit(last[0], last[1], args.text)
    if bad:
        raise RhinorefError("%s: %d malformed line%s skipped (line%s %s)" % (
            name, len(bad), "" if len(bad) == 1 else "s", "" if len(bad) == 1 else "s",
            ", ".join(map(str, bad))))
    return 0


def _emit(rec, actor, text):
    if text:
        if "in" not in rec and not rec.get("bad"):
            print("line %3d  start: turn %d, hands %s" % (
                rec["line"], rec["turn"], " ".join(map(str, rec["hands"]))))
        else:
            print(_text(rec, actor))
    else:
        print(json.dumps(rec))
