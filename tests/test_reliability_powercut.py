"""Power cuts at random instants, in the middle of every write the firmware makes (issue 8,
part 3; the full-size run is bench/bench_reliability.py). See tests/rel_powercut.py."""

import json

import pytest
from app_rig import NoDetector
from rel_flash import Flash, PowerCut
from rel_powercut import session

from referee import storage
from referee.app import Referee


@pytest.mark.parametrize("mode", ["bytes", "littlefs"])
def test_random_power_cuts_resume_exactly_or_reset_with_a_cue(mode):
    rep = session(cuts=150, seed=11 if mode == "bytes" else 12, mode=mode)
    assert rep.cuts >= 150
    assert rep.failures == [], rep.failures[:5]
    # the cuts really landed inside the log appends, the temporary files and the renames
    sites = rep.sites
    assert sites.get("write game.jsonl", 0) > 10
    assert any(s.startswith("rename ") for s in sites), sites
    assert sites.get("after the last write", 0) > 5
    assert rep.outcomes.get("resumed after the input", 0) > 5
    assert rep.outcomes.get("resumed before the input", 0) > 5


def test_the_harness_catches_a_resume_that_loses_an_input(monkeypatch):
    # The checks must be able to fail: a referee that forgets the last logged line on resume.
    from referee import appstore

    real = storage.read_lines

    def drop_last(path, *args):
        lines = list(real(path, *args))
        return iter(lines[:-1] if path.endswith("game.jsonl") and len(lines) > 2 else lines)

    monkeypatch.setattr(appstore.storage, "read_lines", drop_last)
    rep = session(cuts=40, seed=3)
    assert rep.failures


def test_flash_model_tears_a_write_and_keeps_committed_content():
    flash = Flash("bytes")
    flash.write("/data/x", b"old\n")
    with flash.installed():
        flash.arm(3)
        with pytest.raises(PowerCut):
            storage.append_line("/data/x", "abcdef")
    assert flash.read("/data/x") == b"old\nabc"
    lfs = Flash("littlefs")
    lfs.write("/data/x", b"old\n")
    with lfs.installed():
        lfs.arm(3)
        with pytest.raises(PowerCut):
            storage.append_line("/data/x", "abcdef")
    assert lfs.read("/data/x") == b"old\n"  # nothing committed: the old content


def _boot(root):
    return Referee(root=str(root), make_detector=NoDetector)


def test_an_abandoned_game_does_not_come_back_after_a_power_cut(tmp_path):
    # Found by the power-cut runs: "new game" from the menu went to the lobby but left the
    # log in place, so a power cut in the lobby resumed the game the family had left.
    ref = _boot(tmp_path)
    ref.command(0, '{"cmd": "new_game", "players": 3}')
    ref.command(10, '{"cmd": "inject", "in": "wall"}')
    ref.press(20, "menu_long")
    ref.press(30, "rhino")  # menu: new game
    assert ref.phase() == "lobby"
    again = _boot(tmp_path)
    assert again.phase() == "lobby" and again.game is None and again.problems == []
    # the game left behind is still there to download
    last = json.loads(again.command(40, '{"cmd": "log", "file": "last"}'))
    assert last["ok"] and '"wall"' in last["data"]


def test_the_lobby_after_a_finished_game_stays_the_lobby(tmp_path):
    ref = _boot(tmp_path)
    ref.command(0, '{"cmd": "new_game", "players": 2}')
    ref.command(10, '{"cmd": "inject", "in": "collapse"}')
    assert ref.phase() == "over"
    assert _boot(tmp_path).phase() == "over"  # a cut before the menu: the result again
    ref.press(20, "menu")
    assert ref.phase() == "lobby"
    assert _boot(tmp_path).phase() == "lobby"
    ref.press(30, "menu")  # and the next game starts; the finished one stays "last"
    assert ref.phase() == "play"
    last = json.loads(ref.command(40, '{"cmd": "log", "file": "last"}'))
    assert '"collapse"' in last["data"]


def test_without_files_the_last_game_survives_lobby_then_new_game():
    ref = Referee(root=None, make_detector=NoDetector)
    ref.command(0, '{"cmd": "new_game", "players": 2}')
    ref.command(10, '{"cmd": "inject", "in": "wall"}')
    ref.command(20, '{"cmd": "new_game"}')  # to the lobby
    ref.command(30, '{"cmd": "new_game", "players": 2}')
    last = json.loads(ref.command(40, '{"cmd": "log", "file": "last"}'))
    assert last["ok"] and '"wall"' in last["data"]
