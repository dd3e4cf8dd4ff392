"""The game log (SPEC 3.1): format round trip, bad lines named, resume after a power cut.

Runs under pytest (CPython) and on the MicroPython unix port (tests/fw/run.py).
"""

import json

from mptest import raises

from referee import gamelog, rules
from referee.gamelog import BAD, LogError, Replay

HEADER = '{"rhinoref": "game", "version": 1, "players": 3, "first": 0, "side": "easy"}'

# A short game: seat 0 plays a skip, seat 2 a rhino, seat 0 moves Rhino Hero late, a collapse.
GAME = [
    HEADER,
    '{"t_ms": 1000, "in": "wall"}',
    '{"t_ms": 2000, "in": "roof"}',
    '{"t_ms": 2600, "in": "symbol", "symbol": "skip"}',
    '{"t_ms": 5000, "in": "wall"}',
    '{"t_ms": 6000, "in": "roof"}',
    '{"t_ms": 6500, "in": "symbol", "symbol": "rhino"}',
    '{"t_ms": 9000, "in": "wall"}',
    '{"t_ms": 9500, "in": "rhino"}',
    '{"t_ms": 11000, "in": "roof"}',
    '{"t_ms": 11500, "in": "symbol", "symbol": "none"}',
    '{"t_ms": 16000, "in": "collapse"}',
]


def direct(lines):
    """The same inputs applied straight to the engine."""
    h = json.loads(lines[0])
    g = rules.Game(h["players"], h["first"], h["side"])
    for line in lines[1:]:
        d = json.loads(line)
        g.apply(d["t_ms"], d["in"], d.get("symbol"), d.get("seat"), d.get("symbols"))
    return g


def test_header_matches_the_spec_line():
    assert gamelog.header(3, 0, "easy") == HEADER
    assert gamelog.parse_header(HEADER) == {"players": 3, "first": 0, "side": "easy",
                                            "grace_ms": 2000}


def test_header_carries_a_non_default_grace_window():
    line = gamelog.header(4, 2, "expert", grace_ms=1500)
    assert json.loads(line)["grace_ms"] == 1500
    h = gamelog.parse_header(line)
    assert h == {"players": 4, "first": 2, "side": "expert", "grace_ms": 1500}
    assert gamelog.new_game(h).grace_ms == 1500


def test_game_header_of_a_game():
    g = rules.Game(5, first=4, side="expert")
    assert gamelog.parse_header(gamelog.game_header(g))["first"] == 4


def test_header_refuses_bad_setup():
    for args in ((1, 0, "easy"), (3, 3, "easy"), (3, 0, "hard")):
        with raises(ValueError):
            gamelog.header(*args)


def test_every_input_round_trips():
    cases = [
        (0, "wall", None, None, None),
        (12, "roof", None, None, None),
        (99, "rhino", None, None, None),
        (100, "neighbor", None, None, None),
        (2000, "collapse", None, None, None),
        (2500, "undo_collapse", None, None, None),
        (3000, "tiebreak", None, 2, 4),
    ]
    for sym in rules.SYMBOLS:
        cases.append((7, "symbol", sym, None, None))
    for case in cases:
        line = gamelog.encode(*case)
        assert "\n" not in line
        assert json.loads(line)["in"] == case[1]
        assert gamelog.parse_input(line, 3) == case, line


def test_encoded_line_field_order_is_fixed():
    assert gamelog.encode(5100, "symbol", symbol="skip") == \
        '{"t_ms": 5100, "in": "symbol", "symbol": "skip"}'
    assert gamelog.encode(9000, "tiebreak", seat=1, symbols=0) == \
        '{"t_ms": 9000, "in": "tiebreak", "seat": 1, "symbols": 0}'


def test_encode_refuses_what_a_log_cannot_hold():
    for args in ((-1, "wall"), (1.5, "wall"), (0, "jump"), (0, "symbol", "banana"),
                 (0, "tiebreak", None, None, 1), (0, "tiebreak", None, 1, -2)):
        with raises(ValueError):
            gamelog.encode(*args)


def _header_error(line):
    with raises(ValueError) as err:
        gamelog.parse_header(line)
    return str(err.value)


def test_bad_headers_say_what_is_wrong():
    assert "not JSON" in _header_error('{"rhinoref": "game", "vers')
    assert "not a JSON object" in _header_error("[1, 2]")
    assert "missing header" in _header_error('{"t_ms": 0, "in": "wall"}')
    assert "not a rhinoref game log" in _header_error('{"hello": 1}')
    assert "version 2" in _header_error(HEADER.replace('"version": 1', '"version": 2'))
    assert "version None" in _header_error(HEADER.replace('"version": 1, ', ""))
    assert "players" in _header_error(HEADER.replace('"players": 3', '"players": 9'))
    assert "first" in _header_error(HEADER.replace('"first": 0', '"first": 3'))
    assert "side" in _header_error(HEADER.replace('"easy"', '"hard"'))
    assert "'side'" in _header_error(HEADER.replace(', "side": "easy"', ""))


def _input_error(line, players=3):
    with raises(ValueError) as err:
        gamelog.parse_input(line, players)
    return str(err.value)


def test_bad_input_lines_say_what_is_wrong():
    assert "not JSON" in _input_error('{"t_ms": 5, "in": "wa')
    assert "not a JSON object" in _input_error('"wall"')
    assert "unknown input 'jump'" in _input_error('{"t_ms": 5, "in": "jump"}')
    assert 'no "in"' in _input_error('{"t_ms": 5}')
    assert 'no "t_ms"' in _input_error('{"in": "wall"}')
    assert "t_ms" in _input_error('{"t_ms": 1.5, "in": "wall"}')
    assert "t_ms" in _input_error('{"t_ms": -3, "in": "wall"}')
    assert "t_ms" in _input_error('{"t_ms": true, "in": "wall"}')
    assert "bad symbol 'banana'" in _input_error('{"t_ms": 5, "in": "symbol", "symbol": "banana"}')
    assert "bad symbol None" in _input_error('{"t_ms": 5, "in": "symbol"}')
    assert "bad seat 3" in _input_error('{"t_ms": 5, "in": "tiebreak", "seat": 3, "symbols": 1}')
    assert "bad seat" in _input_error('{"t_ms": 5, "in": "tiebreak", "symbols": 1}')
    assert "bad symbols" in _input_error('{"t_ms": 5, "in": "tiebreak", "seat": 1, "symbols": -1}')
    assert "second header" in _input_error(HEADER)
    assert "too long" in _input_error('{"t_ms": 5, "in": "wall", "x": "%s"}' % ("a" * 300))


def test_extra_fields_are_ignored():
    assert gamelog.parse_input('{"t_ms": 5, "in": "wall", "src": "button"}') == \
        (5, "wall", None, None, None)


def test_replay_equals_direct_application():
    g, bad = gamelog.replay(GAME)
    assert bad == []
    assert g.state() == direct(GAME).state()
    # skip: 0 -> 2; rhino: 2 -> 0; seat 0 moves Rhino Hero, plays none: seat 1 collapses it.
    assert g.hands == [3, 5, 4] and g.rhino_on_tower
    assert g.loser == 1 and g.result == "collapse" and g.winners == [0]


def test_replay_is_deterministic():
    a, _ = gamelog.replay(GAME)
    b, _ = gamelog.replay(GAME)
    assert a.state() == b.state() and a._snapshot() == b._snapshot()


def test_replay_feeds_line_by_line():
    r = Replay()
    assert r.feed(GAME[0]) is None and r.game.players == 3 and r.line == 1
    assert r.feed(GAME[1] + "\n") == rules.OK and r.input == (1000, "wall", None, None, None)
    assert r.feed("\n") is None and r.line == 3
    assert r.feed(b'{"t_ms": 2000, "in": "roof"}\n') == rules.OK
    assert r.feed('{"t_ms": 2100, "in": "symbol", "symbol": "double"}') == rules.OK
    assert r.game.double_pending
    assert r.feed('{"t_ms": 2200, "in": "tiebreak", "seat": 1, "symbols": 0}') == rules.ERROR
    assert r.message == "no tie-break count is owed"


def test_bad_input_line_changes_nothing_and_replay_goes_on():
    r = Replay()
    r.feed(HEADER)
    r.feed('{"t_ms": 100, "in": "wall"}')
    before = r.game.state()
    assert r.feed('{"t_ms": 200, "in": "symbol", "symbol": "banana"}') == BAD
    assert "banana" in r.message and r.input is None and r.line == 3
    assert r.game.state() == before
    assert r.feed(b"\xff\xfe\n") == BAD and "UTF-8" in r.message
    assert r.feed('{"t_ms": 300, "in": "roof"}') == rules.OK
    assert r.game.hands == [4, 5, 5]


def test_bad_header_raises_log_error_with_line_number():
    for lines in (['{"t_ms": 0, "in": "wall"}'], ["", "not json"],
                  [HEADER.replace('"version": 1', '"version": 7')]):
        with raises(LogError) as err:
            gamelog.replay(lines)
        assert str(err.value).startswith("line %d: " % len(lines)), str(err.value)
        assert err.value.line == len(lines)


def test_empty_log_raises():
    with raises(LogError) as err:
        gamelog.replay([])
    assert "empty" in str(err.value)
    with raises(LogError):
        gamelog.resume(["\n", "  \n"])


def test_resume_drops_a_torn_last_line():
    torn = GAME[:6] + ['{"t_ms": 6500, "in": "symbol", "sym']
    g, reports = gamelog.resume(torn)
    assert g.state() == direct(GAME[:6]).state()
    assert len(reports) == 1
    assert reports[0].startswith("line 7 dropped (torn last line): not JSON"), reports


def test_resume_skips_a_garbled_line_in_the_middle():
    lines = GAME[:3] + ["\x00\x00garbage"] + GAME[3:]
    g, reports = gamelog.resume(lines)
    assert g.state() == direct(GAME).state()
    assert reports == ["line 4 skipped: not JSON: '\\x00\\x00garbage'"], reports


def test_resume_with_trailing_blank_lines_reports_torn_line_as_last():
    g, reports = gamelog.resume(GAME[:4] + ["{\"t_ms\": 99", "", ""])
    assert reports[0].startswith("line 5 dropped")
    assert g.turn == 2


def test_resume_at_every_cut_point_matches_the_game_so_far():
    for cut in range(1, len(GAME)):
        for keep in (0, 5, 17):
            lines = GAME[:cut + 1]
            if cut + 1 < len(GAME):
                lines = lines + [GAME[cut + 1][:keep]] if keep else lines
            g, reports = gamelog.resume(lines)
            assert g.state() == direct(GAME[:cut + 1]).state(), (cut, keep)
            assert len(reports) == (1 if keep and cut + 1 < len(GAME) else 0), (cut, keep)


def test_resume_from_a_file_on_flash():
    from referee import storage
    import os
    path = "/tmp/rhinoref-gamelog-test-%d.jsonl" % (id(GAME) & 0xFFFFFF)
    try:
        for line in GAME[:5]:
            storage.append_line(path, line)
        with open(path, "a") as f:
            f.write('{"t_ms": 6000, "in": "ro')   # power cut mid-append
        g, reports = gamelog.resume(storage.read_lines(path))
        assert g.state() == direct(GAME[:5]).state() and reports == []
        with open(path) as f:
            g2, reports2 = gamelog.resume(f)      # raw file: the torn line is reported
        assert g2.state() == g.state() and len(reports2) == 1
        storage.append_line(path, GAME[5])        # the torn tail is cut before appending
        g3, reports3 = gamelog.resume(storage.read_lines(path))
        assert g3.state() == direct(GAME[:6]).state() and reports3 == []
    finally:
        try:
            os.remove(path)
        except OSError:
            pass
