"""The board loop (referee/board.py) on CPython with fake hardware: serial lines in, exactly
one reply each, events out, LED frames written when they change, HX711 faults with back-off and
recovery, exceptions survived, and Ctrl-C (KeyboardInterrupt) always reaching the caller."""

import importlib
import json
import os
import sys
import types

import pytest
from app_rig import NoDetector


class Clock:
    def __init__(self):
        self.ms = 0

    def ticks_ms(self):
        self.ms += 3  # every look at the clock costs a little time
        return self.ms

    @staticmethod
    def ticks_diff(a, b):
        return a - b


class FakePin:
    IN, OUT, PULL_UP = 0, 1, 2
    levels = {}

    def __init__(self, gpio, mode=0, pull=None, value=None):
        self.gpio = gpio

    def value(self, v=None):
        return FakePin.levels.get(self.gpio, 1)

    def init(self, *a, **k):
        pass


class FakeStrip:
    def __init__(self, pin, n):
        self.buf = bytearray(3 * n)
        self.writes = []

    def write(self):
        self.writes.append(bytes(self.buf))


class FakeHX:
    """Samples on demand. ``script(n)`` -> raw or None or an exception, n = call number."""

    def __init__(self, script):
        self.script = script
        self.calls = 0
        self.saturated = False
        self.restarts = 0

    def read_nowait(self):
        self.calls += 1
        v = self.script(self.calls)
        if isinstance(v, BaseException):
            raise v
        self.saturated = v in (8388607, -8388608)
        return v

    def power_down(self):
        self.restarts += 1

    def power_up(self):
        pass


class Out:
    """What the board printed (pytest's capsys holds sys.stdout)."""

    def __init__(self, capsys):
        self.capsys = capsys
        self.text = ""

    def lines(self):
        self.text += self.capsys.readouterr().out
        return [json.loads(x) for x in self.text.splitlines() if x.startswith("{")]


@pytest.fixture
def rig(monkeypatch, tmp_path, capsys):
    machine = types.ModuleType("machine")
    machine.Pin = FakePin
    machine.I2C = lambda *a, **k: types.SimpleNamespace(scan=lambda: [])

    def reset():
        raise SystemExit("machine.reset")

    machine.reset = reset
    neopixel = types.ModuleType("neopixel")
    neopixel.NeoPixel = FakeStrip
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "neopixel", neopixel)
    monkeypatch.delitem(sys.modules, "referee.board", raising=False)
    board = importlib.import_module("referee.board")
    clock = Clock()
    monkeypatch.setattr(board, "time", clock)
    monkeypatch.setattr(board, "_last_error", [-10000, 0])
    r, w = os.pipe()
    stdin = os.fdopen(r, "rb", buffering=0)
    monkeypatch.setattr(sys, "stdin", stdin)
    out = Out(capsys)
    monkeypatch.setattr(board, "_IDLE_WAIT_MS", 0)  # no real waiting in tests
    FakePin.levels = {}

    def make(script, commands=b""):
        from referee import hx711

        monkeypatch.setattr(hx711, "HX711PIO", lambda *a, **k: FakeHX(script))
        if commands:
            os.write(w, commands)
        hw = board.Hardware()
        ref = board.make_referee(hw, root=str(tmp_path))
        ref._make_detector = NoDetector
        ref._new_detector()
        return board, hw, ref

    yield types.SimpleNamespace(make=make, out=out, clock=clock, write=lambda b: os.write(w, b))
    monkeypatch.delitem(sys.modules, "referee.board", raising=False)
    os.close(w)
    stdin.close()


def _until(n, then=None):
    """A script: a steady sample for n calls, then Ctrl-C (or ``then(n)``)."""

    def script(i):
        if i > n:
            return KeyboardInterrupt() if then is None else then(i)
        return 5000 + i % 3  # a real HX711 never repeats a reading (board.py)

    return script


def test_commands_get_one_reply_each_and_ctrl_c_reaches_the_caller(rig):
    cmds = (b'{"cmd": "status", "id": 1}\n' + b"x" * 700 + b'\n' + b'not json\n'
            + b'{"cmd": "press", "name": "seat2"}\r\n' + b'{"cmd": "cues", "id": 2}\n')
    board, hw, ref = rig.make(_until(400), cmds)
    with pytest.raises(KeyboardInterrupt):
        board.run(ref, hw)
    lines = rig.out.lines()
    replies = [x for x in lines if "ok" in x]
    assert [x["ok"] for x in replies] == [True, False, False, True, True]
    assert replies[0]["id"] == 1 and replies[4]["id"] == 2
    assert "too long" in replies[1]["error"] and "JSON" in replies[2]["error"]
    assert replies[4]["seats"][2] == ["joined"]
    evs = [x["ev"] for x in lines if "ev" in x]
    assert evs[0] == "hello" and "boot" in evs and "lobby" in evs
    # the strip was written, and on the way out it was turned off
    assert hw.np.writes and hw.np.writes[-1] == bytes(90)
    assert any(any(f) for f in hw.np.writes)


def test_frames_are_written_only_when_they_change(rig):
    board, hw, ref = rig.make(_until(300))
    ref.press(0, "menu_long")  # the open menu is static: one frame
    with pytest.raises(KeyboardInterrupt):
        board.run(ref, hw)
    assert len(hw.np.writes) == 2  # the menu frame, then all dark on the way out


def test_buttons_are_debounced_and_reach_the_referee(rig):
    def script(i):
        FakePin.levels[6 + 3] = 0 if 100 <= i < 160 else 1  # seat 3 (GPIO 9) held a while
        return KeyboardInterrupt() if i > 300 else 5000 + i % 3

    board, hw, ref = rig.make(script)
    with pytest.raises(KeyboardInterrupt):
        board.run(ref, hw)
    assert ref.joined == [3]


def test_hx711_silence_is_a_fault_retried_with_back_off_then_recovered(rig):
    def script(i):
        if i <= 100:
            return 5000 + i % 3
        if i <= 3000:
            return None  # the chip stops answering
        if i <= 3100:
            return 5000 + i % 3  # and comes back
        return KeyboardInterrupt()

    board, hw, ref = rig.make(script)
    seen = []
    orig = ref.fault

    def fault(name, on):
        seen.append((name, on, rig.clock.ms))
        orig(name, on)

    ref.fault = fault
    with pytest.raises(KeyboardInterrupt):
        board.run(ref, hw)
    assert [(n, on) for n, on, _ in seen] == [("hx711", True), ("hx711", False)]
    assert hw.hx.restarts >= 3  # retried, with growing pauses
    faults = [x for x in rig.out.lines() if x.get("ev") == "fault"]
    assert faults[0]["on"] is True and faults[-1]["on"] is False


def test_a_saturated_load_cell_is_a_fault_too(rig):
    board, hw, ref = rig.make(lambda i: 8388607 if i < 2000 else KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        board.run(ref, hw)
    assert "hx711" in ref.faults
    assert all(c[0] == "fault" for c in ref.seat_cues())


def test_exceptions_in_a_pass_are_reported_and_survived(rig):
    board, hw, ref = rig.make(_until(500))
    calls = []

    def broken(t, raw, ax, ay, az):
        calls.append(t)
        raise ValueError("bug in sample")

    ref.sample = broken
    with pytest.raises(KeyboardInterrupt):
        board.run(ref, hw)
    errors = [x for x in rig.out.lines() if x.get("ev") == "error"]
    assert len(calls) == 500  # the loop went on every time
    assert errors and errors[0]["message"] == "ValueError: bug in sample"
    assert len(errors) < 10  # at most one a second, with a count of the others
    assert sum(e["more"] for e in errors) + len(errors) <= 500


def test_out_of_memory_is_survived(rig):
    board, hw, ref = rig.make(lambda i: MemoryError() if i == 5 else
                              (KeyboardInterrupt() if i > 50 else 5000 + i % 3))
    with pytest.raises(KeyboardInterrupt):
        board.run(ref, hw)
    errors = [x for x in rig.out.lines() if x.get("ev") == "error"]
    assert errors[0]["message"] == "out of memory"


def test_a_tilt_switch_gives_the_detector_its_own_mode(rig, monkeypatch):
    # No accelerometer answers on I2C and a ball tilt switch is fitted: the switch stands in,
    # and the detector is told it is one (detector.TILT), not an accelerometer; an accel
    # fault and its end come back to that mode.
    from referee import detector, pins

    monkeypatch.setattr(pins, "TILT_SWITCH", 18)
    board, hw, ref = rig.make(_until(10))
    assert hw.acc.name == "tilt"
    assert ref.accel == detector.TILT
    det = detector.Detector(ref.cal, sps=ref.sps, accel=ref.accel)
    assert det.accel is False and det._held is not None
    ref.fault("accel", True)
    assert ref.accel is False
    ref.fault("accel", False)
    assert ref.accel == detector.TILT
    assert json.loads(ref.command(0, '{"cmd": "status"}'))["accel"] is True   # (the protocol's)


def test_no_motion_part_is_degraded_mode(rig, monkeypatch):
    from referee import pins

    board, hw, ref = rig.make(_until(10))
    assert pins.TILT_SWITCH is None and hw.acc.name == "none" and ref.accel is False
