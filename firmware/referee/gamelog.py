"""The game log (SPEC 3.1): JSON lines, a header and then one referee input per line.

Usage::

    from referee import gamelog
    log.write(gamelog.header(3, 0, "easy") + "\\n")
    log.write(gamelog.encode(1200, "wall") + "\\n")
    log.write(gamelog.encode(5100, "symbol", symbol="skip") + "\\n")
    log.write(gamelog.encode(9000, "tiebreak", seat=2, symbols=1) + "\\n")

    # Power-cut resume: rebuild the game from the log on flash.
    game, reports = gamelog.resume(open("game.jsonl"))   # reports: lines skipped/dropped

    # Line by line (what ``rhinoref replay`` does):
    r = gamelog.Replay()
    for line in lines:
        status = r.feed(line)     # None: header or blank line; else a rules status or BAD
        ...r.game.state(), r.message, r.input...

The header is ``{"rhinoref": "game", "version": 1, "players": N, "first": SEAT, "side": S}``
plus ``"grace_ms": MS`` when the grace window is not the default 2000 ms (replay must use the
window the board used). Input lines are ``{"t_ms": T, "in": KIND, ...}`` with ``symbol`` for
``symbol`` and ``seat`` + ``symbols`` for ``tiebreak``. Unknown extra fields are ignored, so a
writer may add its own (e.g. ``"src": "button"``). Lines are written by hand, not with
``json.dumps``, so their field order is the same on MicroPython (whose dicts are unordered) and
CPython. A bad header raises ``LogError``; a bad input line is reported and changes nothing.
"""

import json

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from referee import rules

VERSION = const(1)
BAD = const(3)          # feed() status of a malformed line (rules statuses are 0..2)
MAX_LINE = const(256)   # longer lines are refused before parsing (board RAM)


class LogError(ValueError):
    """A game log that cannot be replayed at all (bad or missing header); ``.line`` is 1-based."""

    def __init__(self, line, text):
        super().__init__("line %d: %s" % (line, text))
        self.line = line
        self.text = text


# ---------------------------------------------------------------------- writing

def header(players, first=0, side="easy", grace_ms=rules.GRACE_MS):
    """The first line of a game log (no newline); ValueError for a bad setup."""
    rules.Game(players, first, side, grace_ms)  # validates with the engine's own sentences
    text = '{"rhinoref": "game", "version": %d, "players": %d, "first": %d, "side": "%s"' % (
        VERSION, players, first, side)
    if grace_ms != rules.GRACE_MS:
        text += ', "grace_ms": %d' % grace_ms
    return text + "}"


def game_header(game):
    """The header line for an existing ``rules.Game``."""
    return header(game.players, game.first, game.side, game.grace_ms)


def encode(t_ms, kind, symbol=None, seat=None, symbols=None):
    """One input as a log line (no newline); ValueError for something a log cannot hold."""
    if not _whole(t_ms):
        raise ValueError("t_ms must be a whole number >= 0, not %r" % (t_ms,))
    if kind not in rules.INPUTS:
        raise ValueError("unknown input %r" % (kind,))
    text = '{"t_ms": %d, "in": "%s"' % (t_ms, kind)
    if kind == "symbol":
        if symbol not in rules.SYMBOLS:
            raise ValueError("unknown symbol %r" % (symbol,))
        text += ', "symbol": "%s"' % symbol
    elif kind == "tiebreak":
        if not _whole(seat) or not _whole(symbols):
            raise ValueError("a tiebreak needs whole numbers seat and symbols, not %r, %r"
                             % (seat, symbols))
        text += ', "seat": %d, "symbols": %d' % (seat, symbols)
    return text + "}"


# ---------------------------------------------------------------------- reading

def _whole(x):
    return type(x) is int and x >= 0


def _object(text):
    if len(text) > MAX_LINE:
        raise ValueError("line too long (%d characters, at most %d)" % (len(text), MAX_LINE))
    try:
        obj = json.loads(text)
    except ValueError:
        raise ValueError("not JSON: %r" % (text[:40],))
    if type(obj) is not dict:
        raise ValueError("not a JSON object: %r" % (text[:40],))
    return obj


def parse_header(text):
    """The header line -> dict(players, first, side, grace_ms); ValueError saying what is wrong."""
    obj = _object(text)
    if obj.get("rhinoref") != "game":
        if "in" in obj:
            raise ValueError("missing header: the first line must be "
                             '{"rhinoref": "game", "version": 1, "players": N, ...}')
        raise ValueError('not a rhinoref game log: the header needs "rhinoref": "game"')
    version = obj.get("version")
    if version != VERSION or type(version) is not int:
        raise ValueError("unsupported game log version %r (this rhinoref reads version %d)"
                         % (version, VERSION))
    for key in ("players", "first", "side"):
        if key not in obj:
            raise ValueError("header has no %r" % key)
    h = {
        "players": obj["players"],
        "first": obj["first"],
        "side": obj["side"],
        "grace_ms": obj.get("grace_ms", rules.GRACE_MS),
    }
    try:
        rules.Game(h["players"], h["first"], h["side"], h["grace_ms"])
    except ValueError as err:
        raise ValueError("header: %s" % err)
    return h


def parse_input(text, players=5):
    """One input line -> (t_ms, kind, symbol, seat, symbols); ValueError saying what is wrong."""
    obj = _object(text)
    if "rhinoref" in obj:
        raise ValueError("a second header line")
    if "in" not in obj:
        raise ValueError('no "in" field')
    kind = obj["in"]
    if kind not in rules.INPUTS:
        raise ValueError("unknown input %r (expected one of %s)" % (kind, ", ".join(rules.INPUTS)))
    if "t_ms" not in obj:
        raise ValueError('no "t_ms" field')
    t_ms = obj["t_ms"]
    if not _whole(t_ms):
        raise ValueError("t_ms must be a whole number of milliseconds >= 0, not %r" % (t_ms,))
    symbol = seat = symbols = None
    if kind == "symbol":
        symbol = obj.get("symbol")
        if symbol not in rules.SYMBOLS:
            raise ValueError("bad symbol %r (expected one of %s)"
                             % (symbol, ", ".join(rules.SYMBOLS)))
    elif kind == "tiebreak":
        seat = obj.get("seat")
        if not _whole(seat) or seat >= players:
            raise ValueError("bad seat %r (this game has seats 0-%d)" % (seat, players - 1))
        symbols = obj.get("symbols")
        if not _whole(symbols):
            raise ValueError("bad symbols %r (a count of symbols, a whole number >= 0)"
                             % (symbols,))
    return (t_ms, kind, symbol, seat, symbols)


def new_game(h):
    """A fresh ``rules.Game`` for a parsed header."""
    return rules.Game(h["players"], h["first"], h["side"], h["grace_ms"])


class Replay:
    """Feeds log lines to a ``rules.Game`` one at a time.

    After ``feed(line)``: ``line`` (1-based number), ``game`` (None until the header), ``input``
    (the parsed tuple, or None), ``status`` and ``message`` (of the last input line).
    """

    def __init__(self):
        self.game = None
        self.header = None
        self.line = 0
        self.input = None
        self.status = None
        self.message = ""

    def feed(self, text):
        """One line in. Returns None for the header and blank lines, BAD for a malformed input
        line (the game is unchanged), else the rules status. Raises LogError for a bad header."""
        self.line += 1
        self.input = None
        self.status = None
        self.message = ""
        if type(text) is not str:
            try:
                text = text.decode()
            except UnicodeError:
                if self.game is None:
                    raise LogError(self.line, "not UTF-8 text")
                return self._bad("not UTF-8 text")
        text = text.strip()
        if not text:
            return None
        if self.game is None:
            try:
                self.header = parse_header(text)
            except ValueError as err:
                raise LogError(self.line, str(err))
            self.game = new_game(self.header)
            return None
        try:
            self.input = parse_input(text, self.game.players)
        except ValueError as err:
            return self._bad(str(err))
        t_ms, kind, symbol, seat, symbols = self.input
        self.status = self.game.apply(t_ms, kind, symbol, seat, symbols)
        self.message = self.game.message
        return self.status

    def _bad(self, text):
        self.status = BAD
        self.message = text
        return BAD


def replay(lines):
    """Replay a whole log: (game, bad) where bad lists (line, message) of malformed lines."""
    game, bad, _ = _replay(lines)
    return game, bad


def resume(lines):
    """Rebuild the game of an append-only log after a power cut: (game, reports).

    A malformed LAST line is what a power cut mid-write leaves: it is dropped and reported.
    A malformed line further up is skipped and reported too (the rest still replays). A bad or
    missing header raises LogError: there is no game to resume. ``lines`` may be any iterable
    of str or bytes lines, e.g. ``storage.read_lines(path)`` (which already skips a torn last
    line, and whose ``append_line`` cuts a torn tail off before appending) or an open file.
    """
    game, bad, last = _replay(lines)
    reports = []
    for line, text in bad:
        if line == last:
            reports.append("line %d dropped (torn last line): %s" % (line, text))
        else:
            reports.append("line %d skipped: %s" % (line, text))
    return game, reports


def _replay(lines):
    # -> (game, bad lines, number of the last non-blank line)
    r = Replay()
    bad = []
    last = 0
    for text in lines:
        status = r.feed(text)
        if status is not None:
            last = r.line
        if status == BAD:
            bad.append((r.line, r.message))
    if r.game is None:
        raise LogError(max(r.line, 1), "empty game log: no header line")
    return r.game, bad, last
