"""Protocol fuzzing (issue 8, part 1), small size: generated lines against Referee.command and
through the board loop's line reader. The full run (10,000+ lines each, and the virtual board)
is bench/bench_reliability.py. See tests/rel_fuzz.py for what the lines are."""

import json
import os

import pytest
from rel_fuzz import LineGen, fuzz_boardloop, fuzz_referee


@pytest.fixture(autouse=True)
def _no_fsync(monkeypatch):
    # Durability on the host's disk is not what is tested here; fsync only costs time.
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def _clean(tally):
    assert tally.crashes == [], tally.crashes[:3]
    assert tally.bad_replies == [], tally.bad_replies[:3]
    assert tally.replies == tally.lines
    assert tally.changed_by_rejected == [], tally.changed_by_rejected[:3]
    assert tally.internal_errors == [], tally.internal_errors[:3]


def test_generator_covers_every_kind_and_never_sends_a_newline_or_ctrl_c():
    gen = LineGen(seed=5)
    kinds = set()
    for _ in range(3000):
        line, kind = gen.line()
        kinds.add(kind)
        assert b"\n" not in line and b"\x03" not in line
    assert kinds == set(LineGen.KINDS)


def test_fuzz_lines_against_referee_command(tmp_path):
    tally = fuzz_referee(tmp_path, lines=2500, seed=21)
    _clean(tally)
    assert tally.rejected > 1000 and tally.ok > 300
    # the bad lines met the referee in every phase
    for phase in ("lobby", "play", "over", "tiebreak", "calibrating"):
        assert tally.phases.get(phase, 0) > 10, tally.phases


def test_fuzz_lines_through_the_board_loop(tmp_path):
    tally = fuzz_boardloop(tmp_path, lines=500, seed=22)
    _clean(tally)
    assert tally.missing == 0 and tally.extra == 0
    assert tally.unchecked < 10
    assert tally.by_kind["oversized"] > 20  # dropped by the 512-byte reader: one error each
    loop = tally.loop
    assert loop.exited == "stop"
    assert sum(1 for x in loop.lines if x.startswith('{"ok"')) == 500


def test_the_fuzz_check_catches_a_refused_line_that_changes_state(tmp_path, monkeypatch):
    # The checks must be able to fail: a status handler that moves the brightness and then
    # refuses.
    from referee import commands, protocol

    def bad_status(ref, t, msg):
        ref.brightness = 7
        raise protocol.ProtocolError("refused after a change")

    monkeypatch.setitem(commands._COMMANDS, "status", bad_status)
    tally = fuzz_referee(tmp_path, lines=300, seed=23)
    assert tally.changed_by_rejected
    assert "brightness" in tally.changed_by_rejected[0][2]


def test_a_crash_in_a_handler_is_one_error_reply(tmp_path, monkeypatch):
    from referee import commands

    def broken(ref, t, msg):
        raise KeyError("x")

    monkeypatch.setitem(commands._COMMANDS, "cues", broken)
    from app_rig import NoDetector

    from referee.app import Referee

    ref = Referee(root=str(tmp_path), make_detector=NoDetector)
    msg = json.loads(ref.command(0, '{"cmd": "cues"}'))
    assert msg["ok"] is False and "internal error" in msg["error"]


def test_every_line_gets_its_reply_even_when_the_heap_runs_short():
    # Found by fuzzing the virtual board (a Pico-sized heap): when building a reply ran out
    # of memory, the board loop survived but the line got no reply at all, and a host waiting
    # for one timed out. Now it gets a short reply made in advance.
    from app_rig import NoDetector
    from rel_boardloop import Loop

    from rhinoref.vboard.feed import IdleTable

    loop = Loop(None, IdleTable(seed=2), make_detector=NoDetector)
    real = loop.ref.command
    calls = []

    def command(t, line):
        calls.append(line)
        if len(calls) == 2:
            raise MemoryError("memory allocation failed")
        if len(calls) == 3:
            raise RuntimeError("a bug")
        return real(t, line)

    loop.ref.command = command
    loop.at(1000, lambda: loop.send(b'{"cmd": "help"}\n' * 4))
    loop.run_until(3000)
    replies = [json.loads(x) for x in loop.lines if x.startswith('{"ok"')]
    assert [r["ok"] for r in replies] == [True, False, False, True]
    assert "out of memory" in replies[1]["error"] and "internal error" in replies[2]["error"]


def test_a_refused_calibration_leaves_the_running_one_alone(tmp_path):
    # Found by fuzzing (10,000 lines): {"cmd": "calibrate", "grams": NaN} (CPython's json reads
    # NaN) was refused, but only after the running calibration had been cancelled.
    from app_rig import NoDetector

    from referee.app import Referee

    ref = Referee(root=str(tmp_path), make_detector=NoDetector)
    assert json.loads(ref.command(0, '{"cmd": "learn", "piece": "wall"}'))["ok"]
    cb = ref.calib
    r = json.loads(ref.command(10, '{"cmd": "calibrate", "grams": NaN}'))
    assert r["ok"] is False and ref.calib is cb and cb.state == "busy"
    assert json.loads(ref.command(20, '{"cmd": "calibrate", "grams": 100}'))["ok"]
    assert ref.calib is not cb and cb.state == "failed"  # a good one replaces it


def test_out_of_memory_in_a_handler_is_not_called_a_refusal(monkeypatch):
    # Found by fuzzing the virtual board: an input applied, then its reply ran out of heap and
    # came back as "internal error: MemoryError" - as if refused, though the game had moved.
    # The board now says it could not answer and that status tells what happened.
    from app_rig import NoDetector
    from rel_boardloop import Loop

    from referee import commands
    from rhinoref.vboard.feed import IdleTable

    def starved(ref, t, msg):
        raise MemoryError("memory allocation failed, allocating 1200 bytes")

    monkeypatch.setitem(commands._COMMANDS, "cues", starved)
    loop = Loop(None, IdleTable(seed=3), make_detector=NoDetector)
    loop.at(1000, lambda: loop.send(b'{"cmd": "cues"}\n{"cmd": "help"}\n'))
    loop.run_until(2000)
    replies = [json.loads(x) for x in loop.lines if x.startswith('{"ok"')]
    assert [r["ok"] for r in replies] == [False, True]
    assert "out of memory" in replies[0]["error"] and "status" in replies[0]["error"]
