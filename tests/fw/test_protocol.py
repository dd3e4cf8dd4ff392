"""Serial protocol framing and checking (CPython + MicroPython)."""

import json

from mptest import raises
from referee import protocol


def _feed(reader, data):
    out = []
    for byte in data:
        st = reader.feed(byte)
        if st == protocol.LINE:
            out.append(reader.take())
        elif st == protocol.OVERSIZE:
            out.append(None)
    return out


def test_lines_split_in_any_chunks():
    r = protocol.LineReader()
    assert _feed(r, b'{"cmd": "st') == []
    assert _feed(r, b'atus"}\r\n{"cmd": "cues"}\n') == [b'{"cmd": "status"}', b'{"cmd": "cues"}']


def test_oversized_line_dropped_whole_and_reported_once():
    r = protocol.LineReader()
    out = _feed(r, b"x" * 2000 + b"\n" + b'{"cmd": "status"}\n')
    assert out == [None, b'{"cmd": "status"}']
    assert len(r.buf) == protocol.MAX_LINE  # the buffer never grew


def test_line_of_exactly_the_limit_is_accepted():
    r = protocol.LineReader()
    line = b'{"cmd": "status", "pad": "' + b"a" * (protocol.MAX_LINE - 28) + b'"}'
    assert len(line) == protocol.MAX_LINE
    assert _feed(r, line + b"\n") == [line]
    assert _feed(r, b"a" + line + b"\n") == [None]


def test_parse_good():
    msg = protocol.parse(b'{"cmd": "new_game", "players": 3}')
    assert msg["cmd"] == "new_game" and msg["players"] == 3


def test_parse_bad_lines():
    bad = [b"", b"   ", b"hello", b"{", b"[1, 2]", b"42", b'"cmd"', b"null",
           b'{"players": 3}', b'{"cmd": 7}', b'{"cmd": null}', b"\xff\xfe{}",
           b"{" * 600]
    for line in bad:
        with raises(protocol.ProtocolError) as e:
            protocol.parse(line)
        assert str(e.value), line


def test_arg_types_and_ranges():
    msg = {"cmd": "x", "n": 3, "b": True, "s": "easy", "f": 2.5, "l": [1, 2], "z": False}
    assert protocol.arg(msg, "n", protocol.INT, lo=0, hi=5) == 3
    assert protocol.arg(msg, "b", protocol.BOOL) is True
    assert protocol.arg(msg, "s", protocol.STR, choices=("easy", "expert")) == "easy"
    assert protocol.arg(msg, "f", protocol.NUMBER) == 2.5
    assert protocol.arg(msg, "l", protocol.INT_LIST) == [1, 2]
    assert protocol.arg(msg, "missing", protocol.INT, 9) == 9
    for key, kind in (("b", protocol.INT), ("z", protocol.INT), ("n", protocol.BOOL),
                      ("n", protocol.STR), ("s", protocol.NUMBER), ("f", protocol.INT),
                      ("l", protocol.INT)):
        with raises(protocol.ProtocolError):
            protocol.arg(msg, key, kind)
    with raises(protocol.ProtocolError):
        protocol.arg(msg, "n", protocol.INT, lo=4)
    with raises(protocol.ProtocolError):
        protocol.arg(msg, "n", protocol.INT, hi=2)
    with raises(protocol.ProtocolError):
        protocol.arg(msg, "s", protocol.STR, choices=("expert",))
    with raises(protocol.ProtocolError) as e:
        protocol.arg(msg, "missing", protocol.INT, required=True)
    assert "missing" in str(e.value)


def test_only_known_fields():
    protocol.only({"cmd": "x", "a": 1, "id": 5}, ("a",))
    with raises(protocol.ProtocolError) as e:
        protocol.only({"cmd": "x", "b": 1}, ("a",))
    assert "'b'" in str(e.value)


def test_reply_and_event_lines():
    line = protocol.ok({"phase": "play"})
    assert line.startswith('{"ok": true')
    assert json.loads(line) == {"ok": True, "phase": "play"}
    assert json.loads(protocol.ok()) == {"ok": True}
    err = protocol.error('bad "thing"')
    assert err.startswith('{"ok": false')
    assert json.loads(err) == {"ok": False, "error": 'bad "thing"'}
    ev = protocol.event("turn", {"seat": 2})
    assert ev.startswith('{"ev": "turn"')
    assert json.loads(ev) == {"ev": "turn", "seat": 2}
    assert "\n" not in line + err + ev
