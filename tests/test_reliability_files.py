"""Damaged files and a full flash (issue 8, part 2): every damage of every file the board keeps,
booted on the host app (tests/rel_files.py); the virtual board's boot of main.py is in
test_reliability_vboard.py; bench/bench_reliability.py runs more rounds."""

import json

from app_rig import NoDetector
from rel_files import boot_case, damage_cases, full_flash_session

from referee import storage
from referee.app import Referee


def test_every_damaged_file_boots_reports_and_keeps_what_is_good():
    cases = damage_cases(seed=31, rounds=3)
    kinds = {(c.name, c.kind) for c in cases}
    assert len(kinds) >= 40  # five files, every kind of damage
    failures = []
    for case in cases:
        _ref, problems = boot_case(case)
        failures += ["%s / %s: %s" % (case.name, case.kind, p) for p in problems]
    assert failures == []


def test_the_check_fails_when_damage_goes_unreported(monkeypatch):
    from referee import appstore

    monkeypatch.setattr(appstore, "load_calibration", lambda ref: appstore.Calibration())
    cases = [c for c in damage_cases(seed=32, rounds=1) if c.name == "calib.json"
             and c.kind == "bit flip"]
    _ref, problems = boot_case(cases[0])
    assert any("not reported" in p for p in problems)


def test_a_full_flash_in_play_shows_the_fault_and_loses_nothing():
    for seed in (1, 2, 3):
        assert full_flash_session(seed) == []


def test_full_flash_fault_cue_and_status(tmp_path, monkeypatch):
    # Found by the full-flash runs: a write that failed only sent a fault event; the family
    # saw nothing and status said nothing.
    ref = Referee(root=str(tmp_path), make_detector=NoDetector)
    ref.command(0, '{"cmd": "new_game", "players": 2}')

    def full(path, line):
        raise storage.FlashFull(28, "flash full: could not append to game.jsonl")

    monkeypatch.setattr(storage, "append_line", full)
    assert json.loads(ref.command(10, '{"cmd": "inject", "in": "wall"}'))["ok"]
    assert all(c[0] == "fault" for c in ref.seat_cues())
    st = json.loads(ref.command(20, '{"cmd": "status"}'))
    assert st["problems"] == ["flash full: could not append to game.jsonl"]
    ref.command(30, '{"cmd": "inject", "in": "wall"}')
    assert len(ref.problems) == 1  # said once
    ref.tick(10031)
    assert ref.seat_cues()[0] == ["turn_cw"]  # the cue is shown for 10 s after the last failure


def test_a_log_line_with_damaged_bytes_is_reported_not_silently_dropped(tmp_path):
    # Found by the damaged-file runs: a line that was not UTF-8 any more was skipped without a
    # word, so an input vanished from the resumed game unnoticed.
    with open(tmp_path / "game.jsonl", "wb") as f:
        f.write(b'{"rhinoref": "game", "version": 1, "players": 2, "first": 0, "side": "easy"}\n'
                b'{"t_ms": 900, "in": "wall", "src": \xeehost"}\n{"t_ms": 2000, "in": "roof"}\n')
    ref = Referee(root=str(tmp_path), make_detector=NoDetector)
    assert ref.game.state()["roofs_placed"] == 1
    assert ref.problems == ["game.jsonl line 2 skipped: not UTF-8 text"]
    assert all(c[0] == "fault" for c in ref.seat_cues())
