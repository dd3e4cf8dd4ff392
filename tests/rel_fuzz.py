"""Protocol fuzzing (issue 8, part 1): generated serial lines against the referee.

Usage::

    from rel_fuzz import LineGen, fuzz_referee
    gen = LineGen(seed=1)
    line, kind = gen.line()                  # bytes without the newline, and its category
    report = fuzz_referee(tmp_dir, lines=2000, seed=1)
    report["replies"] == report["lines"]; report["changed_by_rejected"] == []

The generator mixes, per line: random bytes (never the interrupt character 0x03, which stops
the app on a real board by design, nor a newline), truncated JSON, oversized JSON (beyond the
512-byte limit), every command with fields of the wrong type or out of range, unknown commands
and fields, commands that cannot be obeyed now (an input with no game, a symbol with no roof,
a tare during play, ...) and valid commands that move the game on, so the bad lines meet the
referee in every phase (lobby, play, tie-break, over, calibration, streaming, tracing).

``fuzz_referee`` drives ``Referee.command`` directly; ``rel_boardloop`` drives the same lines
through the board loop's line reader and ``rel_vboard`` through the virtual board's pty. What
"unchanged" means is ``snapshot``: every attribute of the Referee, of its game and of its
calibration, and every file under its root, except what a refused line is allowed to touch
(the error cue that flashes, the event queue, the clock, the rules' note of the refusal).
"""

import json
import os
import random

MAX_LINE = 512

# Valid commands (and the phase moves they make), drawn from when a valid line is due.
_VALID = [
    {"cmd": "status"},
    {"cmd": "help"},
    {"cmd": "cues"},
    {"cmd": "status", "id": 7},
    {"cmd": "new_game", "players": 3},
    {"cmd": "new_game", "players": 2, "first": 1, "side": "expert"},
    {"cmd": "new_game", "seats": [0, 2, 4], "first": 2},
    {"cmd": "new_game"},
    {"cmd": "inject", "in": "wall"},
    {"cmd": "inject", "in": "wall"},
    {"cmd": "inject", "in": "roof"},
    {"cmd": "inject", "in": "roof"},
    {"cmd": "inject", "in": "symbol", "symbol": "none"},
    {"cmd": "inject", "in": "symbol", "symbol": "skip"},
    {"cmd": "inject", "in": "symbol", "symbol": "double"},
    {"cmd": "inject", "in": "symbol", "symbol": "rhino"},
    {"cmd": "inject", "in": "symbol", "symbol": "reverse"},
    {"cmd": "inject", "in": "symbol", "symbol": "draw"},
    {"cmd": "inject", "in": "rhino"},
    {"cmd": "inject", "in": "neighbor"},
    {"cmd": "inject", "in": "collapse"},
    {"cmd": "inject", "in": "undo_collapse"},
    {"cmd": "inject", "in": "tiebreak", "seat": 1, "symbols": 2},
    {"cmd": "inject", "in": "tiebreak", "seat": 0, "symbols": 0},
    {"cmd": "options", "brightness": 40},
    {"cmd": "options", "symbol_ms": 4000, "grace_ms": 1500},
    {"cmd": "options", "mirror": False},
    {"cmd": "press", "name": "seat1"},
    {"cmd": "press", "name": "menu"},
    {"cmd": "press", "name": "menu_long"},
    {"cmd": "press", "name": "skip"},
    {"cmd": "press", "name": "reverse"},
    {"cmd": "log"},
    {"cmd": "log", "file": "last", "offset": 10, "max": 100},
    {"cmd": "stream", "on": True},
    {"cmd": "stream", "on": False},
    {"cmd": "trace", "to": "flash", "max_bytes": 2048},
    {"cmd": "trace", "to": "off"},
    {"cmd": "tare"},
    {"cmd": "learn", "piece": "wall", "count": 2},
    {"cmd": "calibrate", "grams": 100},
    {"cmd": "calibrate", "cancel": True},
]

_COMMANDS = ["status", "help", "cues", "new_game", "inject", "options", "press", "log",
             "stream", "trace", "tare", "learn", "calibrate"]
_FIELDS = {
    "new_game": ["players", "seats", "first", "side"],
    "inject": ["in", "symbol", "seat", "symbols"],
    "options": ["brightness", "grace_ms", "symbol_ms", "sps", "mirror", "hw_watchdog"],
    "press": ["name"],
    "log": ["file", "offset", "max"],
    "stream": ["on"],
    "trace": ["to", "max_bytes"],
    "learn": ["piece", "count"],
    "calibrate": ["grams", "cancel"],
}
# Values of every JSON type, edge values and near misses of the right ones.
_ODD_VALUES = [
    None, True, False, 0, -1, 1, 2, 3, 5, 6, 9, 255, 256, 999, 1000, 60001, 600001, 2 ** 31,
    -2 ** 31, 2 ** 63, 10 ** 30, -10 ** 30, 0.5, 3.0, -0.0, 1e308, "", "3", "wall", "roof",
    "symbol", "tiebreak", "skip", "double", "joker", "flash", "off", "stream", "game", "last",
    "trace", "/etc/passwd", "../calib.json", "seat0", "seat5", "menu_long", "x" * 40, "\u00e9",
    "\ud800", "\x00", [], [0], [0, 0], [0, 1, 2, 3, 4, 5], [1, "x"], [[1]], {}, {"a": 1},
]
# Raw JSON tokens the encoder would never write.
_ODD_TOKENS = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1" * 60, "-0", "0.0e0",
               "\"\\ud800\"", "\"\\u0000\"", "[" * 40 + "]" * 40, "{\"a\": " * 30 + "1" + "}" * 30]


def _dump(obj):
    return json.dumps(obj).encode()


class LineGen:
    """Seeded source of fuzz lines: ``line()`` -> (bytes without newline, category)."""

    KINDS = ("random", "truncated", "oversized", "wrong_type", "unknown", "odd_token",
             "wrong_moment", "valid")

    def __init__(self, seed=1, valid_share=0.3, allow_intr=False):
        self.rng = random.Random(seed)
        self.valid_share = valid_share
        self.allow_intr = allow_intr

    def line(self):
        r = self.rng
        if r.random() < self.valid_share:
            return _dump(r.choice(_VALID)), "valid"
        kind = r.choice(self.KINDS[:-1])
        return getattr(self, "_" + kind)(), kind

    # -- categories ---------------------------------------------------------------------------
    def _random(self):
        r = self.rng
        n = r.choice((0, 1, 2, 5, 20, 100, 300, 511, 512, 513, 700))
        bad = {10} if self.allow_intr else {3, 10}
        out = bytearray()
        while len(out) < n:
            b = r.randrange(256) if r.random() < 0.7 else r.choice(b'{}[]":,\\ \r\t0aZ')
            if b not in bad:
                out.append(b)
        return bytes(out)

    def _truncated(self):
        r = self.rng
        full = _dump(r.choice(_VALID))
        return full[: r.randrange(len(full))]

    def _oversized(self):
        r = self.rng
        obj = dict(r.choice(_VALID))
        obj["pad"] = "p" * r.randrange(MAX_LINE - 10, 3 * MAX_LINE)
        line = _dump(obj)
        if r.random() < 0.3:
            line = b" " * MAX_LINE + _dump(r.choice(_VALID))  # a good command, too far in
        return line

    def _wrong_type(self):
        r = self.rng
        cmd = r.choice(list(_FIELDS))
        obj = {"cmd": cmd}
        for key in r.sample(_FIELDS[cmd], r.randint(1, len(_FIELDS[cmd]))):
            obj[key] = r.choice(_ODD_VALUES)
        if r.random() < 0.2:
            obj["id"] = r.choice(_ODD_VALUES)
        return _dump(obj)

    def _unknown(self):
        r = self.rng
        c = r.random()
        if c < 0.3:
            obj = {"cmd": r.choice(["reboot", "STATUS", "status ", "", "exec", "import os",
                                    "new-game", "inject\x00", "\u00e9"])}
        elif c < 0.6:
            obj = dict(r.choice(_VALID))
            obj[r.choice(["verbose", "pad", "cmd2", "x", "", "Cmd", "seat"])] = 1
        elif c < 0.8:
            obj = r.choice([{"command": "status"}, {"cmd": 1}, {"cmd": None}, {"cmd": ["status"]},
                            {"cmd": {"name": "status"}}, {"cmd": True}, {}])
        else:
            return r.choice([b"status", b"[]", b'["status"]', b"42", b'"status"', b"null",
                             b"true", b"{cmd: status}", b"{'cmd': 'status'}",
                             b'{"cmd": "status"} {"cmd": "help"}', b'{"cmd": "status"},',
                             b"\xef\xbb\xbf{\"cmd\": \"status\"}", b"\t \r"])
        return _dump(obj)

    def _odd_token(self):
        r = self.rng
        cmd = r.choice(list(_FIELDS))
        key = r.choice(_FIELDS[cmd])
        return ('{"cmd": "%s", "%s": %s}' % (cmd, key, r.choice(_ODD_TOKENS))).encode()

    def _wrong_moment(self):
        # Valid in form, often impossible now (the referee decides which).
        r = self.rng
        return _dump(r.choice([
            {"cmd": "inject", "in": "symbol", "symbol": "skip"},
            {"cmd": "inject", "in": "symbol", "symbol": "double"},
            {"cmd": "inject", "in": "tiebreak", "seat": 2, "symbols": 1},
            {"cmd": "inject", "in": "neighbor"},
            {"cmd": "inject", "in": "undo_collapse"},
            {"cmd": "inject", "in": "wall"},
            {"cmd": "tare"},
            {"cmd": "learn", "piece": "roof"},
            {"cmd": "calibrate", "grams": 50},
            {"cmd": "calibrate", "cancel": True},
            {"cmd": "new_game", "players": 4, "first": 3},
            {"cmd": "log", "file": "last"},
            {"cmd": "log", "file": "trace"},
            {"cmd": "log", "offset": 100000},
        ]))


# -- what must not change ---------------------------------------------------------------------

# Referee attributes a refused line may touch: the event queue, the clock, the error cue it
# flashes and the frame/cue bookkeeping that follows from it, the lazily imported commands.
VOLATILE = {
    "_events", "dropped_events", "_now", "_cmds", "_dirty", "_cue_names", "_flash",
    "_flash_seat", "_flash_until", "_deadline", "_step", "frame_version", "_frame", "_main",
    "_over", "_counts", "_animated", "_mirror_at", "det", "_make_detector", "_ev_names",
}
_GAME_VOLATILE = {"message", "effects", "status"}  # the last input's outcome


def _plain(value, depth=0):
    """A comparable picture of a value: objects become their attribute dicts."""
    if depth > 4:
        return repr(type(value))
    if isinstance(value, (bytes, bytearray)):
        return ("bytes", bytes(value))
    if isinstance(value, (list, tuple)):
        return [_plain(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    if callable(value):
        return repr(type(value))
    attrs = getattr(value, "__dict__", None)
    if attrs is None:
        return repr(value)
    skip = _GAME_VOLATILE if type(value).__name__ == "Game" else ()
    return {k: _plain(v, depth + 1) for k, v in attrs.items() if k not in skip}


def files_of(root):
    out = {}
    if root is None:
        return out
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                out[name] = f.read()
    return out


def snapshot(ref):
    """Everything a refused line must leave as it was (see ``VOLATILE``)."""
    state = {k: _plain(v) for k, v in vars(ref).items() if k not in VOLATILE}
    state["det.kind"] = type(ref.det).__name__
    return state, files_of(ref.root)


def diff_keys(a, b):
    """Names of what differs between two snapshots (for a failure message)."""
    out = [k for k in set(a[0]) | set(b[0]) if a[0].get(k) != b[0].get(k)]
    out += ["file:" + k for k in set(a[1]) | set(b[1]) if a[1].get(k) != b[1].get(k)]
    return sorted(out)


def check_reply(reply):
    """The one reply line -> its dict; AssertionError if it is not one JSON object line."""
    assert isinstance(reply, str) and "\n" not in reply and "\r" not in reply, reply
    msg = json.loads(reply)
    assert type(msg) is dict and type(msg.get("ok")) is bool, reply
    if not msg["ok"]:
        assert type(msg.get("error")) is str and msg["error"], reply
    return msg


class Tally:
    """Counts of one fuzz run (the figures the bench prints)."""

    def __init__(self):
        self.lines = 0
        self.replies = 0
        self.ok = 0
        self.rejected = 0
        self.by_kind = {}
        self.phases = {}
        self.changed_by_rejected = []  # (line, what changed)
        self.internal_errors = []  # replies that say "internal error"
        self.bad_replies = []  # not exactly one JSON object line
        self.crashes = []  # exceptions out of the referee

    def count(self, kind, line, msg, phase):
        self.lines += 1
        self.by_kind[kind] = self.by_kind.get(kind, 0) + 1
        self.phases[phase] = self.phases.get(phase, 0) + 1
        if msg is None:
            return
        self.replies += 1
        if msg["ok"]:
            self.ok += 1
        else:
            self.rejected += 1
            if msg["error"].startswith("internal error"):
                self.internal_errors.append((line[:120], msg["error"]))

    def figures(self):
        return {
            "lines": self.lines, "replies": self.replies, "accepted": self.ok,
            "rejected": self.rejected, "changed_by_rejected": len(self.changed_by_rejected),
            "internal_errors": len(self.internal_errors), "bad_replies": len(self.bad_replies),
            "crashes": len(self.crashes), "by_kind": dict(sorted(self.by_kind.items())),
            "phases": dict(sorted(self.phases.items())),
        }


def phase_of(ref):
    p = ref.phase()
    if ref.calib is not None:
        return "calibrating"
    g = ref.game
    if g is not None and g.tiebreak_seats:
        return "tiebreak"
    if ref.streaming or ref._trace_path:
        return p + "+stream"
    return p


def fuzz_referee(root, lines=2000, seed=1, make_detector=None, sample=None):
    """Send ``lines`` fuzz lines to ``Referee.command`` (files under ``root``); a Tally.

    Between lines the board's time moves on and, when ``sample`` is given (a callable
    ``sample(ref, t)``), the load cell is fed, so timers and calibration run as on a board.
    Every refused line is checked against a snapshot taken just before it.
    """
    from app_rig import NoDetector

    from referee.app import Referee

    ref = Referee(root=str(root), make_detector=make_detector or NoDetector)
    ref.pop_events()
    gen = LineGen(seed)
    tally = Tally()
    t = 1000
    for _ in range(lines):
        line, kind = gen.line()
        phase = phase_of(ref)
        before = snapshot(ref)
        try:
            reply = ref.command(t, line)
        except Exception as err:  # noqa: BLE001 - a crash is what we count
            tally.crashes.append((line[:120], repr(err)))
            tally.count(kind, line, None, phase)
            ref = Referee(root=str(root), make_detector=make_detector or NoDetector)
            continue
        try:
            msg = check_reply(reply)
        except (AssertionError, ValueError) as err:
            tally.bad_replies.append((line[:120], reply[:200], repr(err)))
            tally.count(kind, line, None, phase)
            continue
        tally.count(kind, line, msg, phase)
        if not msg["ok"]:
            after = snapshot(ref)
            if after != before:
                tally.changed_by_rejected.append((line[:120], msg["error"],
                                                  diff_keys(before, after)))
        ref.pop_events()
        # time passes between lines: timers (symbol window, tie-break entry, menu) run
        step = gen.rng.choice((0, 5, 50, 400, 3000))
        if sample is not None:
            t = sample(ref, t, step)
        else:
            t += step
            ref.tick(t)
        ref.pop_events()
    return tally


def fuzz_boardloop(root, lines=2000, seed=1, table_seed=3):
    """The same lines through the board loop (``referee.board.run`` with fake hardware, the
    simulated table under the load cell, the real detector): bytes arrive on the serial port
    and go through the loop's fixed 512-byte line reader. Returns a Tally; ``tally.missing``
    counts lines that got no reply, ``tally.extra`` replies nobody asked for."""
    from rel_boardloop import Loop

    from referee import detector
    from rhinoref.table import Table

    table = Table(seed=table_seed, sps=80)
    cal = table.calibration()

    def make(_cal, sps, accel):
        return detector.Detector(cal, sps=sps, accel=accel)

    loop = Loop(root, table, make_detector=make)
    gen = LineGen(seed)
    tally = Tally()
    tally.missing = 0
    tally.extra = 0
    tally.unchecked = 0  # refused lines during which a sample was taken (calibration moves)
    st = {"left": lines, "pending": None, "next_at": 2000}

    def hook(lp):
        serial = lp.serial
        now = lp.now()
        p = st["pending"]
        if p is not None:
            line, kind, before, delivered, n, phase, sent_at = p
            if serial.replies > n + 1:
                tally.extra += serial.replies - n - 1
            if serial.replies >= n + 1 and not serial.inbox:
                reply = [x for x in serial.out[-40:] if x.startswith('{"ok"')][-1]
                try:
                    msg = check_reply(reply)
                except (AssertionError, ValueError) as err:
                    tally.bad_replies.append((line[:120], reply[:200], repr(err)))
                    msg = None
                tally.count(kind, line, msg, phase)
                if msg is not None and not msg["ok"]:
                    if lp.hx.delivered != delivered:
                        tally.unchecked += 1
                    else:
                        after = snapshot(lp.ref)
                        if after != before:
                            tally.changed_by_rejected.append(
                                (line[:120], msg["error"], diff_keys(before, after)))
                st["pending"] = None
                st["next_at"] = now + gen.rng.choice((0, 5, 50, 400, 3000))
                serial.replies = n + 1  # an extra reply is counted once
            elif now - sent_at > 1000:
                tally.missing += 1
                tally.count(kind, line, None, phase)
                st["pending"] = None
                st["next_at"] = now
            return
        if st["left"] <= 0:
            if not serial.inbox:
                lp.clock.end_ms = now  # done: the run stops at the next clock read
            return
        if now < st["next_at"] or lp.hx.due():
            return  # (a sample about to be read could move a calibration: wait for the next)
        line, kind = gen.line()
        st["left"] -= 1
        st["pending"] = (line, kind, snapshot(lp.ref), lp.hx.delivered, serial.replies,
                         phase_of(lp.ref), now)
        lp.send(line + b"\n")

    loop.run_until(10 ** 9, hook=hook)
    tally.loop = loop
    return tally
