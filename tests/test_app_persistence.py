"""Power cuts and damaged files: the game resumes exactly from the log on flash, calibration and
options survive, and a damaged file is reported (status + fault cue) and ignored, never a crash."""

import json
import os

from app_rig import NoDetector, Rig, play_turn, same_state, start

from referee import rules, storage
from referee.app import Referee


def _boot(root, t_ms=0):
    return Referee(root=str(root), t_ms=t_ms, make_detector=NoDetector)


def _events(ref, name):
    return [json.loads(e) for e in ref.pop_events() if json.loads(e)["ev"] == name]


def _play_recorded_game(tmp_path):
    """A lively game on the simulated table; returns (rig, [(log line count, state)])."""
    rig = Rig(tmp_path / "live", seed=21)
    start(rig, (4, 1, 2))
    ideal = rules.Game(3, first=2)
    snaps = []
    path = str(tmp_path / "live" / "game.jsonl")

    def snap():
        n = len(list(storage.read_lines(path)))
        snaps.append((n, rig.ref.game.state(), rig.ref.seat_cues()))

    snap()
    for symbol in ("skip", "rhino", "double", "none", "draw", "reverse", "none"):
        play_turn(rig, ideal, symbol)
        snap()
        if ideal.owes_rhino:
            pass
    rig.table.place_wall()
    rig.run(600)
    snap()
    rig.run(2500)
    rig.table.collapse("total")
    rig.run(1500)
    snap()
    return rig, snaps


def test_power_cut_after_every_logged_input_resumes_exactly(tmp_path):
    (tmp_path / "live").mkdir()
    rig, snaps = _play_recorded_game(tmp_path)
    lines = list(storage.read_lines(str(tmp_path / "live" / "game.jsonl")))
    assert len(lines) > 20
    by_count = {}
    for n, state, seat_cues in snaps:
        by_count[n] = (state, seat_cues)
    # Cut the power after each line: the flash holds exactly the first k lines.
    replayed = rules.Game(3, first=2)
    for k in range(1, len(lines) + 1):
        root = tmp_path / ("cut%d" % k)
        root.mkdir()
        with open(root / "game.jsonl", "w") as f:
            f.write("\n".join(lines[:k]) + "\n")
        ref = _boot(root, t_ms=500000)
        if k > 1:
            inp = json.loads(lines[k - 1])
            replayed.apply(inp["t_ms"], inp["in"], inp.get("symbol"), inp.get("seat"),
                           inp.get("symbols"))
        assert ref.game is not None
        assert ref.seats == [1, 2, 4]
        got = ref.game.state()
        want = replayed.state()
        for d in (got, want):
            d.pop("warning", None)
            d.pop("error", None)
        assert got == want, k
        assert ref.problems == []
        if k in by_count:
            state, seat_cues = by_count[k]
            state = dict(state)
            state.pop("warning", None)
            state.pop("error", None)
            assert got == state, k
            if not ref.game.awaiting_symbol:
                assert ref.seat_cues() == seat_cues, k
    # the last cut is after the collapse: the result is shown again
    assert ref.phase() in ("over", "play") and ref.game.result == "collapse"


def test_resume_on_the_table_and_play_on(tmp_path):
    rig = Rig(tmp_path, seed=22)
    seats = start(rig, (0, 3))
    ideal = rules.Game(2, first=0)
    for symbol in ("none", "rhino"):
        play_turn(rig, ideal, symbol)
    before = rig.ref.game.state()
    last_t = json.loads(list(storage.read_lines(str(tmp_path / "game.jsonl")))[-1])["t_ms"]
    # power cut: the board boots again some seconds later; the tower still stands
    rig.run(4000)
    rig.events.clear()
    ref = rig.boot()
    assert ref.phase() == "play" and ref.seats == seats
    resumed = rig.named("resumed")[0]
    assert resumed["inputs"] == 6 and resumed["state"]["turn"] == ideal.turn
    state = ref.game.state()
    assert state == before
    assert rig.cues(seats[ideal.turn]) == ["rhino_owed", "turn_cw"]
    rig.run(10000)  # the detector learns the standing tower as its resting level
    assert not any(e["event"] == "collapse" for e in rig.named("detect"))
    for symbol in ("none", "skip"):
        play_turn(rig, ideal, symbol)
        ok, a, b = same_state(ref.game, ideal)
        assert ok, (symbol, a, b)
    # game time goes on after the cut: later inputs have later t_ms
    lines = list(storage.read_lines(str(tmp_path / "game.jsonl")))
    assert json.loads(lines[8])["t_ms"] > last_t


def test_power_cut_while_waiting_for_a_symbol_restarts_the_window(tmp_path):
    root = tmp_path
    with open(root / "game.jsonl", "w") as f:
        f.write('{"rhinoref": "game", "version": 1, "players": 2, "first": 0, "side": "easy",'
                ' "seats": [1, 3]}\n{"t_ms": 900, "in": "wall"}\n{"t_ms": 2000, "in": "roof"}\n')
    ref = _boot(root, t_ms=10000)
    assert ref.game.awaiting_symbol
    ref.tick(10000 + ref.symbol_ms - 100)
    assert ref.game.awaiting_symbol
    ref.tick(10000 + ref.symbol_ms + 1)
    assert not ref.game.awaiting_symbol and ref.game.turn == 1
    last = json.loads(list(storage.read_lines(str(root / "game.jsonl")))[-1])
    assert last["in"] == "symbol" and last["symbol"] == "none"
    assert last["t_ms"] == 2000 + ref.symbol_ms + 1  # game time continues from the log


def test_torn_last_line_is_dropped_and_cut_off(tmp_path):
    root = tmp_path
    good = ('{"rhinoref": "game", "version": 1, "players": 3, "first": 1, "side": "expert"}\n'
            '{"t_ms": 900, "in": "wall"}\n{"t_ms": 2000, "in": "roof"}\n')
    with open(root / "game.jsonl", "w") as f:
        f.write(good + '{"t_ms": 3100, "in": "sym')  # the power went mid-write
    ref = _boot(root, t_ms=100)
    assert ref.game.state()["roofs_placed"] == 1 and ref.game.awaiting_symbol
    assert ref.seats == [0, 1, 2]  # no seats field: seats 0..players-1
    ref.command(200, '{"cmd": "inject", "in": "symbol", "symbol": "skip"}')
    text = open(root / "game.jsonl").read()
    assert text.startswith(good) and text.count("\n") == 4
    assert '"sym\n' not in text and text.endswith('"src": "host"}\n')
    ref2 = _boot(root)
    assert ref2.game.state() == ref.game.state()


def test_power_cut_during_a_tiebreak_keeps_the_counts_entered(tmp_path):
    root = tmp_path
    with open(root / "game.jsonl", "w") as f:
        f.write('{"rhinoref": "game", "version": 1, "players": 3, "first": 0, "side": "easy",'
                ' "seats": [0, 2, 4]}\n{"t_ms": 900, "in": "wall"}\n'
                '{"t_ms": 1900, "in": "collapse"}\n'
                '{"t_ms": 5000, "in": "tiebreak", "seat": 1, "symbols": 2}\n')
    ref = _boot(root)
    g = ref.game
    assert g.loser == 0 and g.tiebreak_seats == [2] and not g.over
    assert ref.seat_cues()[4] == ["tiebreak"] and ref.seat_cues()[0] == ["loser"]
    assert ref.seat_counts()[2] == 2  # seat 2's entered count is shown again
    ref.press(10, "seat4")
    ref.press(20, "seat4_long")
    assert g.over and g.winners == [1]


def test_finished_game_shows_its_result_after_a_cut_and_menu_starts_a_new_one(tmp_path):
    root = tmp_path
    with open(root / "game.jsonl", "w") as f:
        f.write('{"rhinoref": "game", "version": 1, "players": 2, "first": 1, "side": "easy",'
                ' "seats": [2, 3]}\n{"t_ms": 900, "in": "wall"}\n'
                '{"t_ms": 1900, "in": "collapse"}\n')
    ref = _boot(root)
    assert ref.phase() == "over"
    assert ref.seat_cues()[3] == ["loser"] and ref.seat_cues()[2] == ["winner"]
    ref.press(100, "menu")
    assert ref.phase() == "lobby" and ref.joined == [3, 2]
    ref.press(200, "menu")
    assert ref.phase() == "play" and ref.game.turn == 1  # seat 3 started last time: again
    last = open(root / "last.jsonl").read()
    assert '"collapse"' in last
    assert open(root / "game.jsonl").read().count("\n") == 1  # the new header only
    # the last finished game stays downloadable
    reply = json.loads(ref.command(300, '{"cmd": "log", "file": "last"}'))
    assert reply["ok"] and reply["data"] == last


def test_corrupted_calibration_is_reported_and_defaults_used(tmp_path):
    from referee.calibration import Calibration

    cal = Calibration()
    cal.wall_g = 2.5
    cal.save(str(tmp_path / "calib.json"))
    blob = bytearray(open(tmp_path / "calib.json", "rb").read())
    blob[-5] ^= 0x20  # one flipped bit on flash
    open(tmp_path / "calib.json", "wb").write(bytes(blob))
    ref = _boot(tmp_path, t_ms=0)
    assert ref.cal.wall_g == Calibration().wall_g  # defaults
    assert any("calib.json" in p and "checksum" in p for p in ref.problems)
    boot = [json.loads(e) for e in ref.pop_events() if '"boot"' in e][0]
    assert boot["problems"] == ref.problems
    assert all(c == ["fault"] for c in ref.seat_cues())  # the fault cue, at every seat
    status = json.loads(ref.command(10, '{"cmd": "status"}'))
    assert any("calib.json" in p for p in status["problems"])
    assert status["calibration"]["learned"] is False
    ref.tick(11000)  # shown for 10 s, then the normal cues; the problem stays in status
    assert ref.seat_cues() == [["waiting"]] * 5
    assert json.loads(ref.command(11001, '{"cmd": "status"}'))["problems"] == ref.problems


def test_corrupted_options_and_garbage_files(tmp_path):
    with open(tmp_path / "options.json", "wb") as f:
        f.write(b"rhinoref-file 1 len=3 crc32=00000000\nabc")
    with open(tmp_path / "calib.json", "wb") as f:
        f.write(b"")
    ref = _boot(tmp_path)
    assert ref.brightness == 80 and ref.symbol_ms == 5000
    assert len(ref.problems) == 2


def test_options_out_of_range_in_a_valid_file_are_refused(tmp_path):
    storage.write_atomic(str(tmp_path / "options.json"),
                         json.dumps({"rhinoref": "options", "version": 1, "brightness": 999}))
    ref = _boot(tmp_path)
    assert ref.brightness == 80
    assert any("brightness" in p for p in ref.problems)


def test_options_survive_a_power_cut(tmp_path):
    ref = _boot(tmp_path)
    r = json.loads(ref.command(0, '{"cmd": "options", "brightness": 33, "symbol_ms": 7000,'
                                  ' "grace_ms": 1500}'))
    assert r["ok"]
    ref2 = _boot(tmp_path)
    assert (ref2.brightness, ref2.symbol_ms, ref2.grace_ms) == (33, 7000, 1500)
    ref2.command(0, '{"cmd": "new_game", "players": 2}')
    head = json.loads(open(tmp_path / "game.jsonl").readline())
    assert head["grace_ms"] == 1500  # replay must use the window the board used


def test_garbage_game_log_is_set_aside(tmp_path):
    for name, blob in (("noheader", b'{"t_ms": 1, "in": "wall"}\n'),
                       ("binary", b"\x00\xff\xfe\x01garbage\n\x02\n"),
                       ("badversion", b'{"rhinoref": "game", "version": 9, "players": 2}\n'),
                       ("empty", b"")):
        root = tmp_path / name
        root.mkdir()
        with open(root / "game.jsonl", "wb") as f:
            f.write(blob)
        ref = _boot(root)
        assert ref.phase() == "lobby", name
        assert ref.game is None
        if blob:
            assert ref.problems and "game.jsonl" in ref.problems[0], name
            assert (root / "game.jsonl.bad").exists(), name
        assert ref.seat_cues()[0] == ["fault"] or not blob
        # and a new game can still be played
        ref.command(0, '{"cmd": "new_game", "players": 2}')
        assert ref.phase() == "play"


def test_garbled_middle_line_is_skipped_with_a_report(tmp_path):
    with open(tmp_path / "game.jsonl", "w") as f:
        f.write('{"rhinoref": "game", "version": 1, "players": 2, "first": 0, "side": "easy"}\n'
                '{"t_ms": 900, "in": "wall"}\n{"t_ms": 9#$%\n{"t_ms": 2000, "in": "roof"}\n')
    ref = _boot(tmp_path)
    assert ref.game.state()["roofs_placed"] == 1
    assert any("line 3 skipped" in p for p in ref.problems)


def test_bad_seats_field_falls_back_to_seats_in_order(tmp_path):
    with open(tmp_path / "game.jsonl", "w") as f:
        f.write('{"rhinoref": "game", "version": 1, "players": 2, "first": 0, "side": "easy",'
                ' "seats": [7, "x"]}\n')
    ref = _boot(tmp_path)
    assert ref.seats == [0, 1]


def test_flash_full_never_stops_the_game(tmp_path, monkeypatch):
    ref = _boot(tmp_path)
    ref.command(0, '{"cmd": "new_game", "players": 2}')

    def full(path, line):
        raise storage.FlashFull(28, "flash full: could not append to game.jsonl")

    monkeypatch.setattr(storage, "append_line", full)
    reply = json.loads(ref.command(10, '{"cmd": "inject", "in": "wall"}'))
    assert reply["ok"]
    faults = [json.loads(e) for e in ref.pop_events() if '"fault"' in e]
    assert faults and "flash full" in faults[-1]["message"]
    assert ref.game.walls_left == 27


def test_no_files_at_all_keeps_the_log_in_memory(tmp_path):
    ref = Referee(root=None, make_detector=NoDetector)
    ref.command(0, '{"cmd": "new_game", "players": 3, "first": 2}')
    ref.command(5, '{"cmd": "inject", "in": "wall"}')
    assert len(ref.log_lines) == 2 and json.loads(ref.log_lines[0])["first"] == 2
    r = json.loads(ref.command(6, '{"cmd": "log"}'))
    assert r["ok"] and r["data"].count("\n") == 2
    assert os.listdir(tmp_path) == []
