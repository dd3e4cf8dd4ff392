"""The serial protocol's framing and checking (SPEC 3.3): JSON lines over USB CDC, version 1.

Usage::

    from referee import protocol
    reader = protocol.LineReader()            # fixed 512-byte buffer, never grows
    for byte in data:                         # bytes from the host, in any chunks
        status = reader.feed(byte)
        if status == protocol.LINE:
            reply = ref.command(t_ms, reader.take())
        elif status == protocol.OVERSIZE:
            reply = protocol.error("line too long: the limit is 512 bytes")

    msg = protocol.parse('{"cmd": "status"}')  # dict, or ProtocolError with a sentence
    players = protocol.arg(msg, "players", protocol.INT, 3)
    protocol.ok({"phase": "play"})            # '{"ok": true, "phase": "play"}'
    protocol.error("unknown command 'x'")     # '{"ok": false, "error": "unknown command ..."}'
    protocol.event("turn", {"seat": 1})       # '{"ev": "turn", "seat": 1}'

Every command line gets exactly one reply line; events are separate lines beginning with
``{"ev": ``; the host tells them apart by the first key. Lines end with "\\n" (a "\\r" before it is
ignored). A command line longer than ``MAX_LINE`` bytes is dropped whole and answered with one
error when its newline arrives (the reader keeps no more than ``MAX_LINE`` bytes).
"""

import json

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


VERSION = const(1)
MAX_LINE = const(512)

# LineReader.feed results.
NONE = const(0)
LINE = const(1)
OVERSIZE = const(2)

# Argument kinds for arg().
INT = const(1)
BOOL = const(2)
STR = const(3)
NUMBER = const(4)  # int or float, not bool
INT_LIST = const(5)

_KIND_WORDS = ("", "a whole number", "true or false", "a string", "a number",
               "a list of whole numbers")


class ProtocolError(ValueError):
    """A command line that cannot be obeyed; str(err) is the reply's error sentence."""


class LineReader:
    """Splits incoming bytes into lines in one preallocated buffer."""

    def __init__(self, size=MAX_LINE):
        self.buf = bytearray(size)
        self.size = size
        self.n = 0
        self.over = False

    def feed(self, byte):
        """Take one byte (int); returns NONE, LINE (take() it) or OVERSIZE (line dropped)."""
        if byte == 10:  # "\n"
            if self.over:
                self.over = False
                self.n = 0
                return OVERSIZE
            return LINE
        if byte == 13:  # "\r"
            return NONE
        if self.n >= self.size:
            self.over = True
            return NONE
        self.buf[self.n] = byte
        self.n += 1
        return NONE

    def take(self):
        """The completed line as bytes; the reader starts a new line."""
        line = bytes(self.buf[: self.n])
        self.n = 0
        return line


def parse(line):
    """One command line (str or bytes) -> dict with a string "cmd"; ProtocolError otherwise."""
    if isinstance(line, (bytes, bytearray)):
        if len(line) > MAX_LINE:
            raise ProtocolError("line too long: the limit is %d bytes" % MAX_LINE)
        try:
            line = line.decode()
        except UnicodeError:
            raise ProtocolError("not UTF-8 text")
    elif len(line) > MAX_LINE:
        raise ProtocolError("line too long: the limit is %d bytes" % MAX_LINE)
    line = line.strip()
    if not line:
        raise ProtocolError("empty line: send one JSON object such as {\"cmd\": \"status\"}")
    try:
        msg = json.loads(line)
    except ValueError:
        raise ProtocolError("not JSON: send one JSON object such as {\"cmd\": \"status\"}")
    if not isinstance(msg, dict):
        raise ProtocolError("not a JSON object: send {\"cmd\": ...}")
    cmd = msg.get("cmd")
    if cmd is None:
        raise ProtocolError("no \"cmd\" field")
    if not isinstance(cmd, str):
        raise ProtocolError("\"cmd\" must be a string")
    return msg


def _is(value, kind):
    t = type(value)
    if kind == INT:
        return t is int
    if kind == BOOL:
        return t is bool
    if kind == STR:
        return t is str
    if kind == NUMBER:
        return t is int or t is float
    if kind == INT_LIST:
        if t is not list:
            return False
        for v in value:
            if type(v) is not int:
                return False
        return True
    return False


def arg(msg, key, kind, default=None, lo=None, hi=None, choices=None, required=False):
    """Field ``key`` of a command, checked; ProtocolError naming the field when wrong."""
    if key not in msg or msg[key] is None:
        if required:
            raise ProtocolError("missing field %r" % key)
        return default
    value = msg[key]
    if not _is(value, kind):
        raise ProtocolError("%r must be %s" % (key, _KIND_WORDS[kind]))
    if lo is not None and value < lo:
        raise ProtocolError("%r must be at least %s" % (key, lo))
    if hi is not None and value > hi:
        raise ProtocolError("%r must be at most %s" % (key, hi))
    if choices is not None and value not in choices:
        raise ProtocolError("%r must be one of %s" % (key, ", ".join([str(c) for c in choices])))
    return value


def only(msg, allowed):
    """ProtocolError when ``msg`` holds a field other than "cmd"/"id" and ``allowed``."""
    for key in msg:
        if key != "cmd" and key != "id" and key not in allowed:
            raise ProtocolError("unknown field %r for %r" % (key, msg["cmd"]))


def _join(head, fields):
    if not fields:
        return head + "}"
    body = json.dumps(fields)
    return head + ", " + body[1:]


def ok(fields=None):
    """A success reply line (no newline)."""
    return _join('{"ok": true', fields)


def error(message):
    """An error reply line (no newline)."""
    return '{"ok": false, "error": ' + json.dumps(message) + "}"


def event(name, fields=None):
    """An event line (no newline)."""
    return _join('{"ev": ' + json.dumps(name), fields)
