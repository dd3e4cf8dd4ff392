"""``rhinoref replay``: the shipped example games reproduce SPEC 2's decisions; bad logs are named."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rhinoref.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SPEC_FIELDS = ("turn", "direction", "hands", "pile", "walls_left", "owes_rhino", "over",
               "winners", "loser", "result")
HEADER = '{"rhinoref": "game", "version": 1, "players": 3, "first": 0, "side": "easy"}'


def replay(capsys, *args):
    code = main(["replay", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def records(capsys, name):
    code, out, err = replay(capsys, EXAMPLES / name)
    assert code == 0, err
    assert err == ""
    return [json.loads(line) for line in out.splitlines()]


def last(recs, **where):
    """The last record whose fields match ``where``."""
    found = [r for r in recs if all(r.get(k) == v for k, v in where.items())]
    assert found, where
    return found[-1]


# ---------------------------------------------------------------------- the examples

@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.jsonl")), ids=lambda p: p.name)
def test_every_example_replays_with_one_state_per_input(capsys, path):
    recs = records(capsys, path.name)
    lines = [n for n, text in enumerate(path.read_text().splitlines(), 1) if text.strip()]
    assert [r["line"] for r in recs] == lines[1:]
    players = json.loads(path.read_text().splitlines()[0])["players"]
    for r in recs:
        for key in SPEC_FIELDS:
            assert key in r, (key, r)
        assert r["direction"] in ("cw", "ccw")
        assert 0 <= r["turn"] < players and len(r["hands"]) == players
        assert sum(r["hands"]) + r["pile"] + r["roofs_placed"] + r["handed_over"] == 31
        assert "bad" not in r
    assert recs[-1]["over"], "every example is a whole game"
    assert recs[-1]["winners"]


def test_demo_game_is_lively_and_won_by_an_emptied_hand(capsys):
    recs = records(capsys, "demo_game.jsonl")
    symbols = {r["symbol"] for r in recs if r["in"] == "symbol"}
    assert symbols == {"none", "reverse", "skip", "draw", "double", "rhino"}
    assert any("Rhino Hero" in r.get("warning", "") for r in recs)
    assert any("taken as none" in r.get("warning", "") for r in recs)
    end = recs[-1]
    assert end["result"] == "emptied_hand" and end["winners"] == [1] and end["loser"] is None
    assert end["hands"][1] == 0


def test_normal_game_ends_with_an_emptied_hand(capsys):
    recs = records(capsys, "normal_game.jsonl")
    won = last(recs, **{"in": "roof"})
    assert won["over"] and won["result"] == "emptied_hand" and won["winners"] == [2]
    assert won["hands"][2] == 0
    assert ["winner", 2] in won["effects"]


def test_collapse_tiebreak_entered_corrected_and_decided(capsys):
    recs = records(capsys, "collapse_tiebreak.jsonl")
    fall = last(recs, **{"in": "collapse"})
    assert fall["loser"] == 1 and fall["result"] == "collapse"
    assert not fall["over"] and fall["winners"] == [] and fall["tiebreak_seats"] == [0, 2]
    refused = last(recs, **{"in": "tiebreak", "seat": 3})
    assert "not in the tie-break" in refused["error"]
    corrected = [r for r in recs if r["in"] == "tiebreak" and r["seat"] == 0]
    assert [r["symbols"] for r in corrected] == [2, 1]
    end = recs[-1]
    assert end["over"] and end["winners"] == [2] and end["loser"] == 1


def test_double_as_last_card_wins_and_shows_courtesy_cue(capsys):
    recs = records(capsys, "double_last_card.jsonl")
    handed = last(recs, **{"in": "neighbor"})
    assert ["handover", 1] in handed["effects"] and handed["handed_over"] == 1
    won = last(recs, **{"in": "roof"})
    assert won["over"] and won["winners"] == [0] and won["result"] == "emptied_hand"
    courtesy = recs[-1]
    assert courtesy["in"] == "symbol" and courtesy["symbol"] == "double"
    assert courtesy["effects"] == [["handover", 1]] and "error" not in courtesy
    assert courtesy["winners"] == [0] and courtesy["hands"] == won["hands"]


def test_neighbour_whose_last_card_is_handed_over_wins(capsys):
    recs = records(capsys, "neighbor_handover_wins.jsonl")
    handed = last(recs, **{"in": "neighbor"})
    assert handed["hands"][1] == 0 and not handed["over"]
    won = last(recs, **{"in": "roof"})
    assert won["turn"] == 0 and won["winners"] == [1] and won["result"] == "emptied_hand"


def test_two_players_reverse_does_nothing_and_skip_plays_again(capsys):
    recs = records(capsys, "two_players.jsonl")
    prev = None
    seen = set()
    for r in recs:
        if r["in"] == "symbol" and prev is not None:
            player = prev["turn"]
            if r["symbol"] == "reverse":
                assert r["direction"] == "cw" and r["turn"] == 1 - player
                seen.add("reverse")
            elif r["symbol"] == "skip":
                assert r["turn"] == player and ["skipped", 1 - player] in r["effects"]
                seen.add("skip")
        prev = r
    assert seen == {"reverse", "skip"}


def test_grace_window_collapse_is_charged_to_the_roof_placer(capsys):
    recs = records(capsys, "grace_collapse.jsonl")
    fall = last(recs, **{"in": "collapse"})
    roof = last(recs, **{"in": "roof"})
    assert fall["t_ms"] - roof["t_ms"] <= 2000
    assert fall["turn"] == 2 and fall["loser"] == 1
    end = recs[-1]
    assert end["winners"] == [0, 2]            # tied and still tied: a shared win


def test_false_collapse_undone_restores_the_state(capsys):
    recs = records(capsys, "undo_false_collapse.jsonl")
    i = next(n for n, r in enumerate(recs) if r["in"] == "collapse")
    before, fall = recs[i - 1], recs[i]
    assert fall["loser"] is not None
    refused = recs[i + 1]
    assert refused["in"] == "wall" and "refused" in refused["error"]
    undo = next(r for r in recs if r["in"] == "undo_collapse")
    skip = {"line", "t_ms", "in", "effects", "error", "warning"}
    assert {k: v for k, v in undo.items() if k not in skip} == \
        {k: v for k, v in before.items() if k not in skip}
    end = recs[-1]
    assert end["over"] and end["result"] == "collapse" and end["winners"] == [1]


def test_all_walls_used_everyone_wins(capsys):
    recs = records(capsys, "all_walls.jsonl")
    end = last(recs, **{"in": "roof"})
    assert end["walls_left"] == 0 and end["result"] == "walls_used"
    assert end["winners"] == [0, 1, 2, 3, 4] and ["all_win", None] in end["effects"]


def test_text_mode_tells_the_story(capsys):
    code, out, err = replay(capsys, "--text", EXAMPLES / "double_last_card.jsonl")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[-1].startswith("line  44") and "GAME OVER: emptied hand, winner 0" in lines[-1]
    assert "{handover 1}" in lines[-1]


def test_final_prints_only_the_last_state(capsys):
    code, out, _ = replay(capsys, "--final", EXAMPLES / "all_walls.jsonl")
    assert code == 0
    (line,) = out.splitlines()
    assert json.loads(line)["result"] == "walls_used"


def test_stdin(capsys, monkeypatch):
    data = (EXAMPLES / "grace_collapse.jsonl").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = replay(capsys, "-")
    assert code == 0 and json.loads(out.splitlines()[-1])["winners"] == [0, 2]


# ---------------------------------------------------------------------- bad logs

def write(tmp_path, text, name="game.jsonl"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, message", [
    ('{"t_ms": 0, "in": "wall"}\n', "line 1: missing header"),
    ("hello\n", "line 1: not JSON"),
    (HEADER.replace('"version": 1', '"version": 2') + "\n", "line 1: unsupported game log version 2"),
    (HEADER.replace('"players": 3', '"players": 7') + "\n", "line 1: header: players must be"),
    (HEADER.replace('"first": 0', '"first": 4') + "\n", "line 1: header: first must be a seat"),
    ("\n" + HEADER.replace('"easy"', '"medium"') + "\n", "line 2: header: side must be"),
    ("", "line 1: empty game log"),
])
def test_bad_header_stops_with_exit_2(capsys, tmp_path, text, message):
    path = write(tmp_path, text)
    code, out, err = replay(capsys, path)
    assert code == 2
    assert out == ""
    assert err.startswith("rhinoref: %s %s" % (path, message)), err
    assert "Traceback" not in err


def test_missing_file_and_directory(capsys, tmp_path):
    code, _, err = replay(capsys, tmp_path / "nope.jsonl")
    assert code == 2 and "nope.jsonl: No such file" in err
    code, _, err = replay(capsys, tmp_path)
    assert code == 2 and err.startswith("rhinoref: %s: " % tmp_path)


def test_bad_input_lines_are_reported_and_replay_goes_on(capsys, tmp_path):
    path = write(tmp_path, "\n".join([
        HEADER,
        '{"t_ms": 100, "in": "wall"}',
        '{"t_ms": 900, "in": "roof"',
        '{"t_ms": 1000, "in": "roof"}',
        '{"t_ms": 1500, "in": "symbol", "symbol": "banana"}',
        '{"t_ms": 1600, "in": "jump"}',
        '{"t_ms": 2000, "in": "tiebreak", "seat": 9, "symbols": 1}',
        '{"t_ms": 2100, "in": "symbol", "symbol": "skip"}',
        '{"t_ms": 2200, "in": "symbol", "symbol": "skip"}',
    ]) + "\n")
    code, out, err = replay(capsys, path)
    recs = [json.loads(line) for line in out.splitlines()]
    assert [r["line"] for r in recs] == [2, 3, 4, 5, 6, 7, 8, 9]
    bad = {r["line"]: r["error"] for r in recs if r.get("bad")}
    assert bad[3].startswith("line 3: not JSON")
    assert bad[5] == "line 5: bad symbol 'banana' (expected one of none, reverse, skip, draw, " \
                     "double, rhino)"
    assert bad[6].startswith("line 6: unknown input 'jump'")
    assert bad[7] == "line 7: bad seat 9 (this game has seats 0-2)"
    assert sorted(bad) == [3, 5, 6, 7]
    for r in recs:
        if r.get("bad"):
            assert r["effects"] == [] and "t_ms" not in r
    assert recs[6]["turn"] == 2 and ["skipped", 1] in recs[6]["effects"]   # replay went on
    assert recs[7]["error"] == "no roof is waiting for a symbol" and "bad" not in recs[7]
    assert code == 1
    assert err == "rhinoref: %s: 4 malformed lines skipped (lines 3, 5, 6, 7)\n" % path


def test_strict_stops_at_the_first_bad_line(capsys, tmp_path):
    path = write(tmp_path, HEADER + '\n{"t_ms": 1, "in": "wall"}\n{"t_ms": 2, "in": "x"}\n'
                 '{"t_ms": 3, "in": "roof"}\n')
    code, out, err = replay(capsys, "--strict", path)
    assert code == 2
    assert len(out.splitlines()) == 1
    assert err.startswith("rhinoref: %s line 3: unknown input 'x'" % path)


def test_header_only_final_is_the_start(capsys, tmp_path):
    path = write(tmp_path, HEADER + "\n")
    code, out, _ = replay(capsys, "--final", path)
    assert code == 0
    assert json.loads(out)["hands"] == [5, 5, 5]
    code, out, _ = replay(capsys, path)
    assert code == 0 and out == ""


def test_real_command_prints_no_traceback(tmp_path):
    path = write(tmp_path, "\x00\xff garbage\n")
    exe = Path(sys.executable).with_name("rhinoref")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "rhinoref.cli"]
    result = subprocess.run(cmd + ["replay", str(path)], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.startswith("rhinoref: %s line 1: " % path)
    assert "Traceback" not in result.stderr
    result = subprocess.run(cmd + ["replay", str(EXAMPLES / "demo_game.jsonl")],
                            capture_output=True, text=True)
    assert result.returncode == 0 and json.loads(result.stdout.splitlines()[-1])["winners"] == [1]
