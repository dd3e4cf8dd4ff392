"""Regression tests for bugs the reliability runs (issue 8) found in the app's commands; on
CPython and on MicroPython (a module of its own: the Referee needs its share of the heap)."""

from test_reliability_regress import _tmpdir


def test_a_log_offset_too_big_for_a_seek_is_refused_clearly():
    # Found by fuzzing the virtual board: {"cmd": "log", "offset": 1111...} (a big int) got
    # "internal error: OverflowError" from the seek on MicroPython.
    import json

    from referee.app import Referee

    d = _tmpdir()

    class NoDetector:
        EVENT_NAMES = ("none",)

        def __init__(self, *a):
            pass

        def feed(self, *a):
            return 0

        def expect_rhino(self, owed):
            pass

    ref = Referee(root=d, make_detector=NoDetector)
    ref.command(0, '{"cmd": "new_game", "players": 2}')
    r = json.loads(ref.command(1, '{"cmd": "log", "offset": %d}' % (10 ** 40)))
    assert r["ok"] is False and "offset" in r["error"] and "internal" not in r["error"], r
    r = json.loads(ref.command(2, '{"cmd": "log", "offset": 16777216}'))
    assert r["ok"] is True and r["data"] == "" and r["eof"] is True
    import os

    for name in os.listdir(d):
        os.remove(d + "/" + name)
    os.rmdir(d)
