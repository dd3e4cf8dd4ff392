"""``rhinoref sim``: whole games of the unchanged firmware on the simulated table, from the
command line and from the library."""

import json
import re
from collections import Counter

import pytest

from rhinoref import cli
from rhinoref.sim import GameResult, button_name, compare, play_batch, play_game, statistics

ENDINGS = {"emptied_hand", "collapse", "walls_used"}


def run_cli(capsys, *argv):
    code = cli.main(["sim", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _without_speed(text):
    return re.sub(r" \[\d+x real time\]", "", text)


def test_sim_with_no_arguments_plays_a_whole_game_in_plain_lines(capsys):
    # stdout is not a terminal under pytest: plain lines, as fast as possible.
    code, out, err = run_cli(capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("# rhinoref sim: seed ")
    assert "max speed" in lines[0]
    assert any("new game: 4 players" in line for line in lines)
    assert any("'s turn (" in line for line in lines)
    assert any(": roof placed" in line for line in lines)
    last = lines[-1]
    assert last.startswith("result (seed ")
    assert re.search(r"\bwins?\b|no result", last)
    # Plain lines: "   12.345 s  text", times never far out of order.
    times = [float(m.group(1)) for m in (re.match(r"\s*(\d+\.\d+) s  ", ln) for ln in lines[1:-1]) if m]
    # (the seed is random: the shortest games, a tower that falls at its first floors, print
    # 15-20 lines; "> 20" failed now and then)
    assert len(times) > 8
    assert all(b >= a - 0.1 for a, b in zip(times, times[1:]))


def test_same_seed_same_game_other_seed_other_game(capsys):
    a = _without_speed(run_cli(capsys, "--seed", "5", "--players", "3")[1])
    b = _without_speed(run_cli(capsys, "--seed", "5", "--players", "3")[1])
    c = _without_speed(run_cli(capsys, "--seed", "6", "--players", "3")[1])
    assert a == b
    assert a != c


def test_play_game_result_record():
    r = play_game(players=3, seed=11)
    assert isinstance(r, GameResult)
    assert r.mode == "firmware"
    assert r.result in ENDINGS
    assert r.winners and all(0 <= s < 3 for s in r.winners)
    assert r.sim_ms > 30_000
    assert r.turns >= 1 and r.floors >= 1
    assert r.truth.get("roof", 0) >= r.floors
    if r.result == "collapse":
        assert r.loser in range(3)
    d = r.as_dict()
    json.dumps(d)
    assert set(GameResult.FIELDS) <= set(d)
    # The board's game log starts with its header and holds the inputs it applied.
    assert json.loads(r.log_lines[0])["rhinoref"] == "game"
    assert json.loads(r.log_lines[0])["players"] == 3
    assert sum('"in": "roof"' in line for line in r.log_lines) >= 1


def test_replaying_the_board_log_gives_the_same_ending(tmp_path, capsys):
    from referee import gamelog

    log = tmp_path / "game.jsonl"
    code, out, err = run_cli(capsys, "--seed", "21", "--log", str(log))
    assert code == 0, err
    lines = log.read_text().splitlines()
    game, bad = gamelog.replay(lines)
    assert bad == []
    summary = out.splitlines()[-1]
    assert game.over
    who = ", ".join("seat %d" % s for s in game.winners)
    assert who in summary
    assert {"emptied_hand": "emptying", "collapse": "collapse", "walls_used": "all walls"}[game.result] in summary
    # and through the replay command itself
    assert cli.main(["replay", str(log)]) == 0
    states = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert states[-1]["winners"] == game.winners and states[-1]["result"] == game.result


def test_trace_is_written_and_passes_through_detect(tmp_path, capsys):
    trace_mod = pytest.importorskip("rhinoref.trace")
    path = tmp_path / "trace.csv"
    code, out, err = run_cli(capsys, "--seed", "4", "--players", "2", "--trace", str(path))
    assert code == 0, err
    tr = trace_mod.read_trace(str(path))
    assert tr.meta["sps"] == 80 and tr.meta["players"] == 2
    assert len(tr.rows) > 1000
    inputs = [row[5] for row in tr.rows if row[5]]
    assert "menu" in inputs and any(i.startswith("seat:") for i in inputs)
    code = cli.main(["detect", str(path)])
    events = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert code == 0
    names = {e["event"] for e in events}
    assert {"wall", "roof"} <= names or {"walls2", "roof"} <= names


def test_the_simulated_hx711s_filter_and_what_the_board_was_told(tmp_path, capsys):
    from rhinoref.trace import read_trace

    traces = {}
    for adc, told in (("sinc1", None), ("sinc4", None), ("sinc4", "unknown")):
        path = tmp_path / ("%s-%s.csv" % (adc, told))
        argv = ["--seed", "3", "--players", "2", "--sps", "10", "--plain", "--trace", str(path),
                "--adc", adc] + (["--told", told] if told else [])
        code, out, err = run_cli(capsys, *argv)
        assert code == 0, err
        words = {"sinc1": "10 SPS, max", "sinc4": "10 SPS, sinc4 HX711, max"}[adc] if not told \
            else "10 SPS, sinc4 HX711 (board told unknown)"
        assert words in out.splitlines()[0], out.splitlines()[0]
        traces[adc, told] = read_trace(str(path))
    # the trace carries what the board was told; the same game, read through other filters
    assert [traces[k].meta["adc"] for k in traces] == ["sinc1", "sinc4", "unknown"]
    raw = {k: [row[1] for row in tr.rows[:600]] for k, tr in traces.items()}
    assert raw["sinc1", None] != raw["sinc4", None]
    code, out, err = run_cli(capsys, "--games", "2", "--players", "2", "--seed", "9", "--sps", "10",
                             "--adc", "sinc4", "--told", "unknown", "--json")
    stats = json.loads(out)
    assert code == 0 and (stats["adc"], stats["told"]) == ("sinc4", "unknown")
    code, out, err = run_cli(capsys, "--games", "2", "--players", "2", "--seed", "9", "--sps", "10",
                             "--adc", "sinc4")
    assert "2 games, 2 players, seeds 9..10, 10 SPS, sinc4 HX711, firmware" in out.replace("\n", " ")


def test_ten_sps_and_no_accelerometer_games_finish():
    r10 = play_game(players=2, seed=3, sps=10)
    assert r10.result in ENDINGS and r10.sps == 10
    ra = play_game(players=2, seed=3, accel=False)
    assert ra.result in ENDINGS and ra.accel is False


def test_a_tilt_switch_stands_in_for_the_accelerometer(capsys, tmp_path):
    # The low-cost build: the board reads a ball tilt switch and tells its detector so; the
    # trace says accel=tilt and carries the switch's readings, and `rhinoref detect` (which
    # runs such a trace in the detector's tilt mode, as the board does) finds what the board
    # found.
    from rhinoref.cmd.detect import detect
    from rhinoref.trace import read_trace

    path = tmp_path / "tilt.csv"
    code, out, err = run_cli(capsys, "--seed", "2", "--players", "3", "--plain",
                             "--tilt-switch", "100", "--trace", str(path))
    assert code == 0, err
    assert "100 mg tilt switch" in out.splitlines()[0]
    tr = read_trace(str(path))
    assert tr.meta["accel"] == "tilt"
    readings = Counter((ax, ay, az) for _t, _raw, ax, ay, az, _inp in tr.rows)
    assert readings[0, 0, 1000] > 0.9 * len(tr.rows)            # the ball at rest...
    # ... and (referee.tiltswitch) a roll reads a 2000 mg jolt on X and Y, a tilt 500 mg on X
    assert readings[2000, 2000, 1000] > 0
    assert set(readings) <= {(0, 0, 1000), (2000, 2000, 1000), (500, 0, 1000), (2500, 2000, 1000)}
    r = play_game(players=3, seed=2, tilt_mg=100, trace=True)
    assert r.tilt_mg == 100 and r.accel is True and r.as_dict()["tilt_mg"] == 100
    board = [(t, name) for t, name in r.trace_detected]
    replay = [(e["t_ms"], e["event"]) for e in detect(tr) if e["event"] != "bump"]
    assert [e for e in board if e[1] != "bump"] == replay and len(replay) > 10
    # with --no-accel there is nothing for the switch to stand in for
    code, out, err = run_cli(capsys, "--tilt-switch", "100", "--no-accel")
    assert code != 0 and "--tilt-switch" in err
    with pytest.raises(ValueError):
        play_game(players=2, seed=1, tilt_mg=0)


def test_batch_statistics(capsys):
    results = play_batch(8, players=3, seed=100, processes=2)
    assert [r.seed for r in results] == list(range(100, 108))
    stats = statistics(results)
    assert stats["games"] == 8
    assert sum(stats["endings"].values()) == 8
    assert abs(sum(stats["win_share"].values()) * 8 / 3 - sum(1 for r in results if r.winners)) < 1e-6 \
        or sum(stats["win_share"].values()) > 0
    assert set(stats["win_share"]) == {0, 1, 2}
    assert stats["length_s"]["min"] <= stats["length_s"]["p50"] <= stats["length_s"]["max"]
    for h, (fell, reached) in stats["collapse_by_height"].items():
        assert 0 <= fell <= reached
    assert stats["collapse_by_height"][0][1] == 8   # every tower starts at 0 floors
    # the same batch in one process gives the same games
    again = play_batch(8, players=3, seed=100, processes=1)
    assert [r.as_dict()["winners"] for r in again] == [r.winners for r in results]


def test_batch_from_the_command_line(capsys):
    code, out, err = run_cli(capsys, "--games", "6", "--players", "2", "--seed", "9")
    assert code == 0, err
    for title in ("how games ended", "per seat", "game length", "collapse rate by tower height",
                  "detector vs truth"):
        assert title in out
    assert "6 games, 2 players, seeds 9..14" in out
    code, out, err = run_cli(capsys, "--games", "6", "--players", "2", "--seed", "9", "--json")
    stats = json.loads(out)
    assert stats["games"] == 6 and sum(stats["endings"].values()) == 6


def test_json_result_for_one_game(capsys):
    code, out, err = run_cli(capsys, "--seed", "2", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["seed"] == 2 and d["result"] in ENDINGS | {"timeout"}


@pytest.mark.parametrize("argv, words", [
    (["--players", "7"], "--players must be 2 to 5"),
    (["--games", "0"], "--games must be at least 1"),
    (["--games", "3", "--log", "x.jsonl"], "--log and --trace record one game"),
    (["--speed", "fast-ish"], "--speed takes 'max'"),
    (["--speed", "-2"], "--speed must be above 0"),
])
def test_bad_options_are_user_errors(capsys, argv, words):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert err.startswith("rhinoref: ") and words in err
    assert "Traceback" not in err


def test_unwritable_log_is_a_clear_error(tmp_path, capsys):
    code, out, err = run_cli(capsys, "--seed", "1", "--players", "2", "--log",
                             str(tmp_path / "no" / "such" / "dir" / "g.jsonl"))
    assert code == 2 and "cannot write" in err


def test_ideal_mode_runs_without_sensors():
    r = play_game(players=4, seed=8, mode="ideal")
    assert r.mode == "ideal" and r.result in ENDINGS
    assert r.agrees  # the truth fed straight in: nothing missed, nothing extra


def test_compare_matches_events_by_kind_and_time():
    truth = [(1000, "wall"), (2000, "walls2"), (5000, "roof"), (9000, "collapse")]
    detected = [(1100, "wall"), (2050, "wall"), (2060, "wall"), (5200, "roof"), (7000, "rhino")]
    missed, extra = compare(truth, detected)
    assert dict(missed) == {"collapse": 1}
    assert dict(extra) == {"rhino": 1}
    missed, extra = compare([(1000, "roof")], [(9000, "roof")], window_ms=2500)
    assert dict(missed) == {"roof": 1} and dict(extra) == {"roof": 1}


def test_compare_a_piece_let_go_and_taken_back_is_its_report_and_removed():
    # The bot let two walls go, then took them back: the detector weighed them, then saw them
    # leave. Without "removed" (or with it and no take-back in the truth) they are extra.
    truth = [(1000, "roof"), (5200, "removed"), (8000, "wall")]
    detected = [(1100, "roof"), (3000, "walls2"), (5300, "removed"), (8100, "wall")]
    assert compare(truth, detected) == (Counter(), Counter())
    missed, extra = compare(truth, [d for d in detected if d[1] != "removed"])
    assert not missed and dict(extra) == {"wall": 2}
    missed, extra = compare([t for t in truth if t[1] != "removed"], detected)
    assert not missed and dict(extra) == {"wall": 2}
    # a report older than the take-back's reach stays extra
    missed, extra = compare(truth, [(1100, "roof"), (1500, "wall"), (5300, "removed"), (8100, "wall")])
    assert dict(extra) == {"wall": 1}


def test_compare_does_not_judge_a_piece_set_down_just_before_a_collapse():
    # The wall rests 400 ms before the tower falls: too short to weigh, not missed; the roof
    # rested 3 s before: missed. A report of the unjudged wall still matches it.
    truth = [(1000, "roof"), (3600, "wall"), (4000, "collapse")]
    missed, extra = compare(truth, [(4050, "collapse")])
    assert dict(missed) == {"roof": 1} and not extra
    missed, extra = compare(truth, [(1200, "roof"), (3900, "wall"), (4050, "collapse")])
    assert not missed and not extra


def test_button_names_from_the_trace_column():
    assert button_name("seat:2") == "seat2"
    assert button_name("seat:3:long") == "seat3_long"
    assert button_name("symbol:skip") == "skip"
    assert button_name("menu") == "menu"
    assert button_name("menu:long") == "menu_long"
