"""The serial protocol through Referee.command: every command, and every kind of bad line gets
exactly one error reply and changes nothing (SPEC 3.3, docs/board.md)."""

import json
import os

import pytest
from app_rig import NoDetector

from referee import protocol, storage
from referee.app import Referee


def _ref(tmp_path, **kw):
    ref = Referee(root=str(tmp_path), make_detector=NoDetector, **kw)
    ref.pop_events()
    return ref


def _cmd(ref, obj, t=0):
    line = obj if isinstance(obj, (str, bytes)) else json.dumps(obj)
    reply = ref.command(t, line)
    assert isinstance(reply, str) and "\n" not in reply
    return json.loads(reply)


def _files(root):
    out = {}
    for name in sorted(os.listdir(root)):
        with open(os.path.join(root, name), "rb") as f:
            out[name] = f.read()
    return out


def _snapshot(ref, root):
    status = _cmd(ref, {"cmd": "status"})
    status.pop("t_ms")
    status.pop("game_t_ms", None)
    return json.dumps(status, sort_keys=True), _files(root), ref.seat_cues(), ref.seat_counts()


def _state(ref, root):
    """Everything but the cues (a refused input flashes the error cue) and the rules' note of
    the last refusal."""
    status = _cmd(ref, {"cmd": "status"})
    for key in ("t_ms", "game_t_ms", "cues"):
        status.pop(key, None)
    if status["game"]:
        status["game"].pop("error", None)
    return json.dumps(status, sort_keys=True), _files(root)


def _feed(ref, t0, ms, raw, sps=80):
    t = t0
    for _ in range(ms * sps // 1000):
        ref.sample(t, raw, 0, 0, 1000)
        t += 1000 // sps
    return t


BAD_LINES = [
    b"",
    b"   ",
    b"\xff\xfe\x00",
    b"status",
    b"{cmd: status}",
    b'{"cmd": "status"',
    b"[]",
    b'["status"]',
    b"42",
    b'"status"',
    b"null",
    b"true",
    b"{}",
    b'{"command": "status"}',
    b'{"cmd": 1}',
    b'{"cmd": null}',
    b'{"cmd": ["status"]}',
    b'{"cmd": "reboot"}',
    b'{"cmd": "STATUS"}',
    b'{"cmd": "status", "verbose": true}',
    b'{"cmd": "new_game", "players": "3"}',
    b'{"cmd": "new_game", "players": 3.0}',
    b'{"cmd": "new_game", "players": true}',
    b'{"cmd": "new_game", "players": 1}',
    b'{"cmd": "new_game", "players": 6}',
    b'{"cmd": "new_game", "players": 3, "first": 3}',
    b'{"cmd": "new_game", "players": 3, "first": -1}',
    b'{"cmd": "new_game", "players": 3, "side": "hard"}',
    b'{"cmd": "new_game", "seats": [0, 0]}',
    b'{"cmd": "new_game", "seats": [0, 9]}',
    b'{"cmd": "new_game", "seats": [1]}',
    b'{"cmd": "new_game", "seats": "0,1"}',
    b'{"cmd": "new_game", "seats": [0, 1], "players": 3}',
    b'{"cmd": "calibrate"}',
    b'{"cmd": "calibrate", "grams": "100"}',
    b'{"cmd": "calibrate", "grams": 0}',
    b'{"cmd": "calibrate", "grams": 100000}',
    b'{"cmd": "calibrate", "cancel": true}',
    b'{"cmd": "learn"}',
    b'{"cmd": "learn", "piece": "tower"}',
    b'{"cmd": "learn", "piece": "wall", "count": 0}',
    b'{"cmd": "learn", "piece": "wall", "count": 10}',
    b'{"cmd": "stream"}',
    b'{"cmd": "stream", "on": "yes"}',
    b'{"cmd": "stream", "on": 1}',
    b'{"cmd": "log", "file": "/etc/passwd"}',
    b'{"cmd": "log", "offset": -1}',
    b'{"cmd": "log", "max": 0}',
    b'{"cmd": "log", "max": 5000}',
    b'{"cmd": "log", "file": "last"}',
    b'{"cmd": "inject", "in": "wall"}',
    b'{"cmd": "inject"}',
    b'{"cmd": "inject", "in": "jump"}',
    b'{"cmd": "options", "brightness": 0}',
    b'{"cmd": "options", "brightness": 300}',
    b'{"cmd": "options", "brightness": "max"}',
    b'{"cmd": "options", "brightness": true}',
    b'{"cmd": "options", "grace_ms": -1}',
    b'{"cmd": "options", "sps": 20}',
    b'{"cmd": "options", "mirror": "on"}',
    b'{"cmd": "options", "brightness": 50, "sps": 33}',
    b'{"cmd": "options", "colour": "red"}',
    b'{"cmd": "trace"}',
    b'{"cmd": "trace", "to": "disk"}',
    b'{"cmd": "trace", "to": "flash", "max_bytes": 10}',
    b'{"cmd": "cues", "seat": 1}',
    b'{"cmd": "press"}',
    b'{"cmd": "press", "name": "seat9"}',
    b'{"cmd": "press", "name": 3}',
    b'{"cmd": "help", "x": 1}',
    b'{"cmd": "status"} {"cmd": "status"}',
    b'{"cmd": "status", "pad": "' + b"x" * 600 + b'"}',
]


@pytest.mark.parametrize("line", BAD_LINES, ids=[repr(x[:40]) for x in BAD_LINES])
def test_bad_line_gets_one_error_and_changes_nothing(tmp_path, line):
    ref = _ref(tmp_path)
    before = _snapshot(ref, tmp_path)
    reply = ref.command(1000, line)
    assert reply.startswith('{"ok": false, "error": ')
    msg = json.loads(reply)
    assert set(msg) == {"ok", "error"} and len(msg["error"]) > 5
    assert _snapshot(ref, tmp_path) == before
    assert ref.pop_events() == []


BAD_IN_PLAY = [
    b'{"cmd": "inject", "in": "symbol"}',
    b'{"cmd": "inject", "in": "symbol", "symbol": "joker"}',
    b'{"cmd": "inject", "in": "symbol", "symbol": "skip"}',  # no roof waiting: rules refuse
    b'{"cmd": "inject", "in": "tiebreak", "seat": 1, "symbols": 2}',  # none owed
    b'{"cmd": "inject", "in": "tiebreak", "seat": 1}',
    b'{"cmd": "inject", "in": "neighbor"}',
    b'{"cmd": "inject", "in": "undo_collapse"}',
    b'{"cmd": "inject", "in": "wall", "seat": 1}',
    b'{"cmd": "tare"}',
    b'{"cmd": "learn", "piece": "roof"}',
    b'{"cmd": "calibrate", "grams": 100}',
]


@pytest.mark.parametrize("line", BAD_IN_PLAY, ids=[x.decode()[8:50] for x in BAD_IN_PLAY])
def test_bad_line_during_a_game_changes_nothing(tmp_path, line):
    ref = _ref(tmp_path)
    assert _cmd(ref, {"cmd": "new_game", "players": 3})["ok"]
    assert _cmd(ref, {"cmd": "inject", "in": "wall"})["ok"]
    ref.pop_events()
    before = _state(ref, tmp_path)
    msg = _cmd(ref, line)
    assert msg["ok"] is False and msg["error"]
    assert _state(ref, tmp_path) == before  # game state, options, files
    # a refused input may flash the error cue, nothing else
    assert all(json.loads(e)["ev"] in ("refused", "cues") for e in ref.pop_events())


def test_oversized_line_through_the_line_reader(tmp_path):
    ref = _ref(tmp_path)
    reader = protocol.LineReader()
    replies = []
    data = b'{"cmd": "status", "x": "' + b"y" * 5000 + b'"}\n{"cmd": "help"}\n'
    for byte in data:
        st = reader.feed(byte)
        if st == protocol.LINE:
            replies.append(json.loads(ref.command(0, reader.take())))
        elif st == protocol.OVERSIZE:
            replies.append(json.loads(protocol.error("line too long")))
    assert [r["ok"] for r in replies] == [False, True]


def test_id_is_echoed(tmp_path):
    ref = _ref(tmp_path)
    assert _cmd(ref, {"cmd": "help", "id": 7})["id"] == 7
    assert _cmd(ref, {"cmd": "status", "id": "a1"})["id"] == "a1"


def test_status_and_help(tmp_path):
    ref = _ref(tmp_path)
    st = _cmd(ref, {"cmd": "status"}, t=1234)
    assert st["ok"] and st["phase"] == "lobby" and st["t_ms"] == 1234
    assert st["game"] is None and st["protocol"] == 1
    assert st["options"]["brightness"] == ref.brightness
    assert st["cues"] == [["waiting"]] * 5
    for key in ("calibration", "faults", "problems", "grams", "stable", "accel", "version"):
        assert key in st
    h = _cmd(ref, {"cmd": "help"})
    assert h["max_line"] == protocol.MAX_LINE
    assert {"status", "new_game", "tare", "calibrate", "learn", "stream", "log", "inject",
            "options", "trace", "cues", "press"} <= set(h["commands"])


def test_new_game_forms(tmp_path):
    ref = _ref(tmp_path)
    r = _cmd(ref, {"cmd": "new_game", "players": 4, "first": 2, "side": "expert"})
    assert r["ok"] and r["seats"] == [0, 1, 2, 3] and r["game"]["turn"] == 2
    assert ref.game.side == "expert"
    r = _cmd(ref, {"cmd": "new_game", "seats": [4, 1], "first": 1})
    assert r["seats"] == [1, 4] and ref.game.turn == 1
    assert ref.seat_cues()[4] == ["turn_cw"]
    evs = [json.loads(e)["ev"] for e in ref.pop_events()]
    assert "game" in evs and "turn" in evs
    r = _cmd(ref, {"cmd": "new_game"})
    assert r["ok"] and r["phase"] == "lobby" and ref.joined == [4, 1]
    assert os.path.exists(tmp_path / "last.jsonl")


def test_inject_every_input_kind(tmp_path):
    ref = _ref(tmp_path)
    _cmd(ref, {"cmd": "new_game", "players": 3})
    seq = [{"in": "rhino"}, {"in": "wall"}, {"in": "roof"},
           {"in": "symbol", "symbol": "double"}, {"in": "neighbor"}, {"in": "wall"},
           {"in": "roof"}, {"in": "symbol", "symbol": "none"}, {"in": "collapse"},
           {"in": "undo_collapse"}, {"in": "wall"}, {"in": "collapse"}]
    statuses = []
    losers = []
    for i, obj in enumerate(seq):
        obj["cmd"] = "inject"
        r = _cmd(ref, obj, t=1000 * (i + 1))
        assert r["ok"], (obj, r)
        statuses.append(r["status"])
        losers.append(r["state"]["loser"])
    assert statuses[0] == "warning"  # Rhino Hero set down with no move owed
    assert statuses[1:] == ["ok"] * (len(seq) - 1)
    # the first collapse came 2 s after seat 0's roof: the grace window charges seat 0
    assert losers[8] == 0 and losers[9] is None
    g = ref.game
    assert g.hands == [4, 4, 5]  # the double's second roof was seat 1's card
    assert g.result == "collapse" and g.loser == 1 and g.over and g.winners == [0]
    lines = list(storage.read_lines(str(tmp_path / "game.jsonl")))
    assert len(lines) == 1 + len(seq)
    assert all(json.loads(x)["src"] == "host" for x in lines[1:])
    assert [json.loads(x)["in"] for x in lines[1:]] == [o["in"] for o in seq]


def test_options_get_and_set(tmp_path):
    ref = _ref(tmp_path)
    r = _cmd(ref, {"cmd": "options"})
    assert r["options"] == {"brightness": 80, "grace_ms": 2000, "symbol_ms": 5000, "sps": 80,
                            "mirror": False, "hw_watchdog": False}
    assert not os.path.exists(tmp_path / "options.json")  # reading writes nothing
    r = _cmd(ref, {"cmd": "options", "brightness": 200, "sps": 10, "mirror": True})
    assert r["options"]["brightness"] == 200 and ref.sps == 10 and ref.mirror
    saved = json.loads(storage.read_checked(str(tmp_path / "options.json")))
    assert saved["sps"] == 10 and saved["rhinoref"] == "options"
    ref.pop_events()
    ref.tick(500)
    ref.frame
    frames = [json.loads(e) for e in ref.pop_events() if '"frame"' in e]
    assert frames and len(bytes.fromhex(frames[0]["grb"])) == 90


def test_cues_and_press(tmp_path):
    ref = _ref(tmp_path)
    assert _cmd(ref, {"cmd": "press", "name": "seat3"})["ok"]
    assert _cmd(ref, {"cmd": "press", "name": "seat0"})["ok"]
    r = _cmd(ref, {"cmd": "cues"})
    assert r["seats"][3] == ["joined", "turn_cw"] and r["seats"][1] == ["waiting"]
    assert r["leds_per_seat"] == 6 and len(r["counts"]) == 5
    assert _cmd(ref, {"cmd": "press", "name": "menu"})["phase"] == "play"
    assert _cmd(ref, {"cmd": "press", "name": "menu_long"})["ok"]
    assert _cmd(ref, {"cmd": "cues"})["seats"][0] == ["menu"]


def test_log_download_in_chunks(tmp_path):
    ref = _ref(tmp_path)
    _cmd(ref, {"cmd": "new_game", "players": 2})
    for i in range(40):
        _cmd(ref, {"cmd": "inject", "in": "wall" if i % 2 else "rhino"}, t=100 * i)
    text = open(tmp_path / "game.jsonl").read()
    got = ""
    offset = 0
    n = 0
    while True:
        r = _cmd(ref, {"cmd": "log", "offset": offset, "max": 300})
        assert r["ok"] and r["offset"] == offset and r["size"] == len(text)
        got += r["data"]
        offset = r["next"]
        n += 1
        if r["eof"]:
            break
    assert got == text and n > 3
    assert len(_cmd(ref, {"cmd": "log", "offset": len(text)})["data"]) == 0


def test_tare_and_known_mass_from_raw_samples(tmp_path):
    ref = _ref(tmp_path)
    r = _cmd(ref, {"cmd": "tare"})
    assert r["ok"] and r["calibrating"]["step"] == "tare"
    assert ref.seat_cues() == [["calibrating"]] * 5
    t = _feed(ref, 0, 2500, 120000)  # two still seconds, as a kitchen scale waits
    assert ref.calib is None and ref.cal.offset == 120000
    r = _cmd(ref, {"cmd": "calibrate", "grams": 100}, t=t)
    assert r["ok"]
    t = _feed(ref, t, 2500, 120000)
    t = _feed(ref, t, 2500, 120000 + 100 * 2100)
    assert ref.calib is None
    assert ref.cal.counts_per_gram == pytest.approx(2100)
    calibs = [json.loads(e) for e in ref.pop_events() if '"calib"' in e]
    assert calibs[-1]["state"] == "done" and "scale" in calibs[-1]["prompt"]
    saved = json.loads(storage.read_checked(str(tmp_path / "calib.json")))
    assert saved["counts_per_gram"] == pytest.approx(2100) and saved["offset"] == 120000
    st = _cmd(ref, {"cmd": "status"})
    assert st["calibration"]["learned"] and "scale" in st["calibration"]["done"]


def test_learn_then_cancel(tmp_path):
    ref = _ref(tmp_path)
    r = _cmd(ref, {"cmd": "learn", "piece": "rhino", "count": 2})
    assert r["calibrating"]["step"] == "rhino"
    assert _cmd(ref, {"cmd": "calibrate", "cancel": True})["cancelled"] is True
    assert ref.calib is None and ref.seat_cues()[0] == ["waiting"]


def test_calibration_that_never_settles_fails_with_a_reason(tmp_path):
    ref = _ref(tmp_path)
    _cmd(ref, {"cmd": "tare"})
    t = 0
    for i in range(80 * 12):
        ref.sample(t, 100000 + (i % 7) * 3000, 0, 0, 1000)
        t += 12
    calibs = [json.loads(e) for e in ref.pop_events() if '"calib"' in e]
    assert calibs[-1]["state"] == "failed" and "moving" in calibs[-1]["error"]
    assert ref.calib is None and ref.cal.offset == 0


def test_stream_samples(tmp_path):
    ref = _ref(tmp_path)
    r = _cmd(ref, {"cmd": "stream", "on": True})
    assert r["streaming"] and r["meta"]["sps"] == 80
    ref.pop_events()
    ref.sample(100, 5000, 1, -2, 1003)
    ref.press(110, "seat2")
    ref.sample(112, 5001, 1, -2, 1003)
    rows = [json.loads(e)["row"] for e in ref.pop_events() if '"sample"' in e]
    assert rows == ["100,5000,1,-2,1003,", "112,5001,1,-2,1003,seat:2"]
    _cmd(ref, {"cmd": "stream", "on": False})
    ref.sample(124, 5002, 0, 0, 1000)
    assert not any('"sample"' in e for e in ref.pop_events())


def test_trace_to_flash_with_a_cap_and_download(tmp_path):
    ref = _ref(tmp_path)
    r = _cmd(ref, {"cmd": "trace", "to": "flash", "max_bytes": 2048})
    assert r["ok"] and r["recording"]
    t = 0
    for i in range(400):
        ref.sample(t, 7000 + i, 0, 0, 1000)
        t += 12
    assert ref._trace_path is None  # the cap stopped it
    stop = [json.loads(e) for e in ref.pop_events() if '"trace"' in e][-1]
    assert stop["why"] == "size cap reached" and stop["bytes"] <= 2048
    text = open(tmp_path / "trace.csv").read()
    assert text.startswith("# rhinoref-trace 1\n") and "t_ms,raw,ax,ay,az,input\n" in text
    assert len(text) <= 2048
    r = _cmd(ref, {"cmd": "log", "file": "trace", "max": 1024})
    assert r["data"] == text[:1024]
    # and it can be stopped by hand
    _cmd(ref, {"cmd": "trace", "to": "flash"})
    ref.sample(t, 1, 0, 0, 1000)
    r = _cmd(ref, {"cmd": "trace", "to": "off"})
    assert r["was_recording"] and r["recording"] is False


def test_trace_on_flash_reads_back_with_the_host_reader(tmp_path):
    from rhinoref.trace import read_trace

    from referee import trace

    ref = _ref(tmp_path)
    _cmd(ref, {"cmd": "new_game", "players": 2, "first": 1})
    _cmd(ref, {"cmd": "trace", "to": "flash"})
    t = 0
    presses = {30: "seat1", 60: "skip_long", 90: "menu"}
    for i in range(120):
        if i in presses:
            ref.press(t, presses[i])
        ref.sample(t, 5000 + i, 2, -3, 1000)
        t += 12
    _cmd(ref, {"cmd": "trace", "to": "off"})
    tr = read_trace(str(tmp_path / "trace.csv"))
    assert tr.meta["sps"] == 80 and tr.meta["players"] == 2 and tr.meta["first"] == 1
    assert len(tr.rows) == 120
    assert tr.rows[5][:5] == (60, 5005, 2, -3, 1000)
    inputs = [(r[0], r[5]) for r in tr.rows if r[5]]
    assert inputs == [(360, "seat:1"), (720, "symbol:skip:long"), (1080, "menu")]
    for name in ("seat1", "skip_long", "menu"):  # the board's names, as the host maps them
        assert trace.input_to_button(trace.button_to_input(name)) == name


def test_trace_stream_and_no_flash_without_root():
    ref = Referee(root=None, make_detector=NoDetector)
    assert json.loads(ref.command(0, '{"cmd": "trace", "to": "stream"}'))["streaming"]
    r = json.loads(ref.command(0, '{"cmd": "trace", "to": "flash"}'))
    assert r["ok"] is False


def test_tare_refused_during_a_game_but_allowed_after(tmp_path):
    ref = _ref(tmp_path)
    _cmd(ref, {"cmd": "new_game", "players": 2})
    assert _cmd(ref, {"cmd": "tare"})["ok"] is False
    _cmd(ref, {"cmd": "inject", "in": "wall"})
    _cmd(ref, {"cmd": "inject", "in": "collapse"})
    assert ref.game.over
    assert _cmd(ref, {"cmd": "tare"})["ok"]
    assert _cmd(ref, {"cmd": "new_game", "players": 2})["ok"] is False  # calibrating now


def test_the_converters_filter_is_recorded_kept_and_given_to_the_detector(tmp_path):
    made = []

    def make(cal, sps, accel):
        made.append(cal.adc)
        return NoDetector(cal, sps, accel)

    ref = Referee(root=str(tmp_path), make_detector=make)
    assert made == ["unknown"]
    assert _cmd(ref, {"cmd": "calibrate", "adc": "sinc1"}) == {"ok": True, "adc": "sinc1"}
    assert made[-1] == "sinc1"     # a new detector with it, at once
    assert _cmd(ref, {"cmd": "status"})["calibration"]["adc"] == "sinc1"
    saved = json.loads(storage.read_checked(str(tmp_path / "calib.json")))
    assert saved["adc"] == "sinc1"
    # kept over a power cut
    Referee(root=str(tmp_path), make_detector=make)
    assert made[-1] == "sinc1"
    # bad values, both at once, and during a game: refused, nothing changed
    before = _files(str(tmp_path))
    for bad in ({"adc": "sinc3"}, {"adc": 4}, {"adc": "sinc4", "grams": 100}):
        bad["cmd"] = "calibrate"
        assert _cmd(ref, bad)["ok"] is False
    _cmd(ref, {"cmd": "new_game", "players": 2})
    assert "game is in play" in _cmd(ref, {"cmd": "calibrate", "adc": "sinc4"})["error"]
    assert ref.cal.adc == "sinc1" and _files(str(tmp_path))["calib.json"] == before["calib.json"]


def test_internal_errors_become_error_replies(tmp_path, monkeypatch):
    ref = _ref(tmp_path)

    def boom(*a):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(ref, "seat_cues", boom)
    r = _cmd(ref, {"cmd": "cues"})
    assert r == {"ok": False, "error": "internal error: RuntimeError: disk on fire"}
    monkeypatch.setattr(ref, "seat_cues", lambda: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C is never swallowed
        ref.command(0, '{"cmd": "cues"}')
