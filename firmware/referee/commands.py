"""The serial commands of the referee (SPEC 3.3): one JSON line in, exactly one reply out.

Usage (``Referee.command`` imports this module the first time a command arrives, so a board
that never talks to a host never spends RAM on it)::

    from referee import commands
    reply = commands.command(ref, t_ms, '{"cmd": "status"}')   # '{"ok": true, ...}'

Every handler checks all its fields before it changes anything: a rejected line (malformed,
oversized, not an object, unknown command, unknown field, wrong type, out of range, not
possible now) gets ``{"ok": false, "error": "..."}`` and leaves the referee as it was. A
command may carry ``"id"`` (a number or string); the reply echoes it. docs/board.md lists
every command with examples.

This module is the referee's other half: it reads and drives ``Referee`` internals directly.
Trace recording to flash lives here too (``trace_row`` is called from the sample path only
while a trace is being recorded).
"""

import gc

from referee import appstore, calibration, protocol, rules
from referee.app import LOBBY, PLAY, SEATS, SYMBOL_BUTTONS, VERSION
from referee.appstore import _join

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


TRACE_MAX_BYTES = const(262144)
_MAX_OFFSET = const(16777216)  # beyond any file here; a bigger int cannot seek on MicroPython
_TRACE_FLUSH = const(16)  # rows buffered before a flash write
_PIECES = ("wall", "roof", "rhino")


def trace_row(ref, row):
    ref._trace_rows.append(row)
    if len(ref._trace_rows) >= _TRACE_FLUSH:
        trace_flush(ref)


def trace_flush(ref):
    if not ref._trace_rows or ref._trace_path is None:
        return
    text = "\n".join(ref._trace_rows) + "\n"
    ref._trace_rows = []
    if ref._trace_bytes + len(text) > ref._trace_max:
        trace_stop(ref, "size cap reached")
        return
    try:
        with open(ref._trace_path, "a") as f:
            f.write(text)
        ref._trace_bytes += len(text)
    except OSError as err:
        trace_stop(ref, "flash: %s" % err)


def trace_stop(ref, why):
    path = ref._trace_path
    ref._trace_path = None
    ref._update_special()
    ref._emit("trace", {"recording": False, "why": why, "bytes": ref._trace_bytes,
                        "file": path})


def command(ref, t_ms, line):
    """One serial command line in, exactly one reply line out (no newline)."""
    ref._now = t_ms
    try:
        msg = protocol.parse(line)
    except protocol.ProtocolError as err:
        return protocol.error(str(err))
    handler = _COMMANDS.get(msg["cmd"])
    if handler is None:
        return protocol.error("unknown command %r (try {\"cmd\": \"help\"})" % msg["cmd"])
    if ref.test is not None and msg["cmd"] in ("new_game", "tare", "calibrate", "learn"):
        return protocol.error("a self-test is running: wait for its report or stop it with "
                              "{\"cmd\": \"selftest\", \"cancel\": true}")
    try:
        fields = handler(ref, t_ms, msg)
    except protocol.ProtocolError as err:
        return protocol.error(str(err))
    except ValueError as err:
        return protocol.error(str(err))
    except OSError as err:
        return protocol.error("flash: %s" % err)
    except MemoryError:
        raise  # the board loop answers it with a reply made in advance (referee.board)
    except Exception as err:  # never let a command kill the loop; KeyboardInterrupt passes
        return protocol.error("internal error: %s: %s" % (type(err).__name__, err))
    if fields is None:
        fields = {}
    rid = msg.get("id")
    if type(rid) is int or type(rid) is str:
        fields["id"] = rid
    ref._arm()
    return protocol.ok(fields)


def _help(ref, t, msg):
    protocol.only(msg, ())
    return {"commands": sorted(_COMMANDS), "version": VERSION,
            "protocol": protocol.VERSION, "max_line": protocol.MAX_LINE}


def _status(ref, t, msg):
    protocol.only(msg, ())
    cal = ref.cal
    f = {
        "version": VERSION,
        "protocol": protocol.VERSION,
        "t_ms": t,
        "phase": ref.phase(),
        "joined": ref.joined[:],
        "side": ref.side,
        "seats": ref.seats[:] if ref.game is not None else [],
        "game": ref.game.state() if ref.game is not None else None,
        "calibration": {"learned": cal.learned, "offset": cal.offset,
                        "counts_per_gram": cal.counts_per_gram, "wall_g": cal.wall_g,
                        "roof_g": cal.roof_g, "rhino_g": cal.rhino_g, "adc": cal.adc,
                        "done": list(cal.done)},
        "calibrating": appstore.calib_fields(ref) if ref.calib is not None else None,
        "grams": _grams(ref),
        "stable": bool(getattr(ref.det, "stable", False)),
        "accel": bool(ref.accel),  # (an accelerometer or a tilt switch at work)
        "faults": ref.faults[:],
        "problems": ref.problems[:],
        "options": ref._options(),
        "streaming": ref.streaming,
        "tracing": ref._trace_path is not None,
        "menu_open": bool(ref._menu_until),
        "cues": ref.seat_cues(),
    }
    if ref.game is not None:
        f["game_t_ms"] = t - ref._gt0
    return f


def _grams(ref):
    g = getattr(ref.det, "grams", None)
    if g is None:
        return None
    if type(g) is int:
        return g
    return round(g, 1)


def _new_game(ref, t, msg):
    protocol.only(msg, ("players", "seats", "first", "side"))
    players = protocol.arg(msg, "players", protocol.INT, None, 2, 5)
    seats = protocol.arg(msg, "seats", protocol.INT_LIST, None)
    first = protocol.arg(msg, "first", protocol.INT, 0, 0, 4)
    side = protocol.arg(msg, "side", protocol.STR, "easy", choices=rules.SIDES)
    if ref.calib is not None:
        raise protocol.ProtocolError("calibration is running: cancel it first")
    if players is None and seats is None:
        ref._to_lobby()
        return {"phase": LOBBY}
    if seats is not None:
        if not 2 <= len(seats) <= 5:
            raise protocol.ProtocolError("'seats' must list 2 to 5 seats")
        for s in seats:
            if not 0 <= s < SEATS:
                raise protocol.ProtocolError("seats are numbered 0 to 4, not %d" % s)
        seats = sorted(seats)
        for i in range(1, len(seats)):
            if seats[i] == seats[i - 1]:
                raise protocol.ProtocolError("seat %d is listed twice" % seats[i])
        if players is not None and players != len(seats):
            raise protocol.ProtocolError("'players' and 'seats' disagree")
    else:
        seats = list(range(players))
    if first >= len(seats):
        raise protocol.ProtocolError("'first' must be a game seat from 0 to %d"
                                     % (len(seats) - 1))
    ref._menu_until = 0
    ref.start_game(t, seats, first, side)
    return {"phase": PLAY, "seats": ref.seats[:], "game": ref.game.state()}


def _calib_allowed(ref):
    g = ref.game
    if g is not None and not g.over:
        raise protocol.ProtocolError("a game is in play: finish it or start a new game first")


def _tare(ref, t, msg):
    protocol.only(msg, ())
    _calib_allowed(ref)
    ref._calib_seq = None
    appstore.start_calib(ref, t, "tare", 0)
    return {"calibrating": appstore.calib_fields(ref)}


def _calibrate(ref, t, msg):
    protocol.only(msg, ("grams", "cancel", "adc"))
    if protocol.arg(msg, "cancel", protocol.BOOL, False):
        if ref.calib is None:
            raise protocol.ProtocolError("no calibration is running")
        appstore.calib_cancel(ref)
        return {"cancelled": True}
    if "adc" in msg:
        # (what the maker found the HX711's filter to be: a fact to record, nothing to
        # measure; hardware/README.md tells how to check it)
        if "grams" in msg:
            raise protocol.ProtocolError("give adc or grams, not both")
        adc = protocol.arg(msg, "adc", protocol.STR, required=True,
                           choices=calibration.ADC_FILTERS)
        _calib_allowed(ref)
        ref.cal.adc = adc
        appstore.save_calibration(ref)
        ref._new_detector()
        return {"adc": adc}
    grams = protocol.arg(msg, "grams", protocol.NUMBER, required=True, lo=1, hi=5000)
    _calib_allowed(ref)
    ref._calib_seq = None
    appstore.start_calib(ref, t, "scale", grams)
    return {"calibrating": appstore.calib_fields(ref)}


def _learn(ref, t, msg):
    protocol.only(msg, ("piece", "count"))
    piece = protocol.arg(msg, "piece", protocol.STR, required=True, choices=_PIECES)
    count = protocol.arg(msg, "count", protocol.INT, 3, 1, 9)
    _calib_allowed(ref)
    ref._calib_seq = None
    appstore.start_calib(ref, t, piece, count)
    return {"calibrating": appstore.calib_fields(ref)}


def _stream(ref, t, msg):
    protocol.only(msg, ("on",))
    on = protocol.arg(msg, "on", protocol.BOOL, required=True)
    ref.streaming = on
    ref._update_special()
    return {"streaming": on, "meta": _trace_meta(ref)}


def _trace_meta(ref):
    cal = ref.cal
    m = {"sps": ref.sps, "counts_per_gram": cal.counts_per_gram, "offset": cal.offset,
         "wall_g": cal.wall_g, "roof_g": cal.roof_g, "rhino_g": cal.rhino_g,
         "accel": (getattr(ref, "accel_part", None) or cal.accel) if ref.accel else "none",
         "adc": cal.adc}
    g = ref.game
    if g is not None:
        m["players"] = g.players
        m["first"] = g.first
        m["side"] = g.side
    return m


def _trace(ref, t, msg):
    protocol.only(msg, ("to", "max_bytes"))
    to = protocol.arg(msg, "to", protocol.STR, required=True,
                      choices=("flash", "stream", "off"))
    cap = protocol.arg(msg, "max_bytes", protocol.INT, 65536, 1024, TRACE_MAX_BYTES)
    if to == "stream":
        ref.streaming = True
        ref._update_special()
        return {"streaming": True, "meta": _trace_meta(ref)}
    if to == "off":
        stopped = ref._trace_path is not None
        if stopped:
            trace_flush(ref)
            if ref._trace_path is not None:
                trace_stop(ref, "stopped")
        ref.streaming = False
        ref._update_special()
        return {"recording": False, "bytes": ref._trace_bytes, "was_recording": stopped}
    path = _join(ref.root, "trace.csv")
    if path is None:
        raise protocol.ProtocolError("no flash here: use {\"to\": \"stream\"}")
    from referee import trace  # the SPEC 3.2 header, as the host writes it

    head = "\n".join(trace.header_lines(_trace_meta(ref))) + "\n"
    with open(path, "w") as f:
        f.write(head)
    ref._trace_path = path
    ref._trace_rows = []
    ref._trace_bytes = len(head)
    ref._trace_max = cap
    ref._update_special()
    return {"recording": True, "file": "trace", "max_bytes": cap}


def _cues(ref, t, msg):
    protocol.only(msg, ())
    return {"seats": ref.seat_cues(), "counts": ref.seat_counts(),
            "brightness": ref.brightness, "leds_per_seat": len(ref._frame) // 15}


def _press(ref, t, msg):
    protocol.only(msg, ("name",))
    name = protocol.arg(msg, "name", protocol.STR, required=True)
    base = name[:-5] if name.endswith("_long") else name
    if base not in ("seat0", "seat1", "seat2", "seat3", "seat4", "menu") and \
            base not in SYMBOL_BUTTONS:
        raise protocol.ProtocolError("unknown button %r" % name)
    ref.press(t, name)
    return {"phase": ref.phase()}


def _inject(ref, t, msg):
    protocol.only(msg, ("in", "symbol", "seat", "symbols"))
    kind = protocol.arg(msg, "in", protocol.STR, required=True, choices=rules.INPUTS)
    symbol = seat = symbols = None
    if kind != "symbol" and "symbol" in msg:
        raise protocol.ProtocolError("'symbol' belongs to a symbol input only")
    if kind != "tiebreak" and ("seat" in msg or "symbols" in msg):
        raise protocol.ProtocolError("'seat' and 'symbols' belong to a tiebreak input only")
    if kind == "symbol":
        symbol = protocol.arg(msg, "symbol", protocol.STR, required=True,
                              choices=rules.SYMBOLS)
    elif kind == "tiebreak":
        seat = protocol.arg(msg, "seat", protocol.INT, required=True, lo=0, hi=4)
        symbols = protocol.arg(msg, "symbols", protocol.INT, required=True, lo=0, hi=999)
    g = ref.game
    if g is None:
        raise protocol.ProtocolError("no game: start one with new_game")
    status = ref._input(t, kind, symbol, seat, symbols, src="host")
    if status == rules.ERROR:
        raise protocol.ProtocolError("refused: " + g.message)
    f = {"status": "warning" if status == rules.WARNING else "ok", "state": g.state()}
    if status == rules.WARNING:
        f["warning"] = g.message
    return f


def _selftest(ref, t, msg):
    if ref.test is None:
        # A self-test starts: its modules and its tables are among the largest allocations
        # after boot. MicroPython collects only when an allocation fails; a heap collected
        # first gives them the best chance of the blocks they need (on the 64-bit virtual
        # board with the firmware as .mpy files, 2 starts in 20 right after an HX711 fault
        # ran out of memory without it: docs/heap.md). Referee.press does the same.
        gc.collect()
    from referee import selftestapp  # loaded only when a self-test is asked for

    return selftestapp.command(ref, t, msg)


def _options_cmd(ref, t, msg):
    protocol.only(msg, ("brightness", "grace_ms", "symbol_ms", "sps", "mirror", "hw_watchdog"))
    changed = False
    for key in msg:
        if key not in ("cmd", "id", "mirror"):
            changed = True
    appstore.apply_options(ref, msg)
    if changed:
        appstore.save_options(ref)
        ref._dirty_cues()
    return {"options": ref._options()}


def _log_cmd(ref, t, msg):
    protocol.only(msg, ("file", "offset", "max"))
    which = protocol.arg(msg, "file", protocol.STR, "game", choices=("game", "last", "trace"))
    offset = protocol.arg(msg, "offset", protocol.INT, 0, 0, _MAX_OFFSET)
    size = protocol.arg(msg, "max", protocol.INT, 512, 1, 1024)
    if which == "trace":
        trace_flush(ref)
    if ref.root is None:
        if which == "trace":
            raise protocol.ProtocolError("no trace here")
        lines = ref.log_lines if which == "game" else getattr(ref, "last_lines", None)
        if lines is None:
            raise protocol.ProtocolError("no %s log" % which)
        blob = ("\n".join(lines) + "\n").encode() if lines else b""
        total = len(blob)
        data = blob[offset:offset + size]
    else:
        name = {"game": "game.jsonl", "last": "last.jsonl", "trace": "trace.csv"}[which]
        path = _join(ref.root, name)
        try:
            import os

            total = os.stat(path)[6]
        except OSError:
            raise protocol.ProtocolError("no %s log on the flash" % which)
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read(size)
    nxt = offset + len(data)
    return {"file": which, "offset": offset, "next": nxt, "size": total,
            "eof": nxt >= total, "data": data.decode()}


# Command name -> handler(ref, t_ms, msg) -> reply fields.
_COMMANDS = {
    "status": _status,
    "new_game": _new_game,
    "tare": _tare,
    "calibrate": _calibrate,
    "learn": _learn,
    "stream": _stream,
    "log": _log_cmd,
    "inject": _inject,
    "options": _options_cmd,
    "trace": _trace,
    "cues": _cues,
    "press": _press,
    "help": _help,
    "selftest": _selftest,
}
