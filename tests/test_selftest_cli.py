"""``rhinoref selftest`` against a fake board over a pty: the firmware's own Referee running the
board loop on a thread (samples, or only ticks for a dead HX711), a scripted maker at the table
answering the prompts (presses the asked button, pushes the platform) unless told to leave
parts broken."""

import json
import os
import random
import select
import threading
import time
import tty

import pytest

from rhinoref import cli
from rhinoref.cmd import selftest as selftest_cmd
from rhinoref.firmware import fw


class Maker:
    """Answers the board's self-test prompts, in board time."""

    def __init__(self, broken=(), finger_g=150, delay_ms=300):
        self.broken = set(broken)
        self.finger_g = finger_g
        self.delay_ms = delay_ms
        self.load_g = 0.0
        self.due = []  # (t_ms, button)
        self.asked = []

    def event(self, board, ev):
        if ev.get("ev") != "selftest" or "ask" not in ev:
            return
        self.asked.append(ev["ask"])
        b = ev.get("button")
        if b is not None and b not in self.broken:
            self.due.append((board.t_ms + self.delay_ms, b))
        if ev.get("step") == "finger":
            self.load_g = self.finger_g if ev["ask"].startswith("press") else 0.0

    def step(self, board):
        while self.due and self.due[0][0] <= board.t_ms:
            board.ref.press(board.t_ms, self.due.pop(0)[1])


class FakeBoard:
    """The board loop of referee.board, without hardware, behind a pty at ``path``."""

    def __init__(self, path, maker=None, accel=True, hx711=True, speed=25.0, phase=None,
                 on_event=None, firmware_selftest=True, drop=None):
        app = fw("app")
        self.ref = app.Referee(root=None, sps=80, accel=accel)
        if not accel:
            self.ref.problems.append("accelerometer: no device answers on I2C (check SDA/SCL "
                                     "wiring and power)")
            self.ref.parts = {"accel": "none", "accel_why": "no device answers on I2C"}
        if phase == "play":
            self.ref.command(0, '{"cmd": "new_game", "players": 2}')
        self.maker = maker or Maker()
        self.hx711 = hx711
        self.speed = speed
        self.on_event = on_event
        self.drop = drop  # events never written (lost on the way)
        self.firmware_selftest = firmware_selftest
        self.rng = random.Random(3)
        self.t_ms = 0
        self.lines_in = []
        self.lines_out = []
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(os.ttyname(self.slave), path)
        self.path = path
        self._stop = False
        self._buf = b""
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        ref = self.ref
        t_sim = 0.0
        last = time.monotonic()
        next_sample = 0
        while not self._stop:
            now = time.monotonic()
            t_sim += (now - last) * 1000.0 * self.speed
            last = now
            while self.t_ms + 4 <= t_sim:
                self.t_ms += 4
                self.maker.step(self)
                if self.hx711 and self.t_ms >= next_sample:
                    next_sample = self.t_ms + 12
                    raw = 150000 + int(self.maker.load_g * 2147.5) + int(self.rng.gauss(0, 45))
                    acc = (8, -15, 1003) if ref.accel else (0, 0, 0)
                    ref.sample(self.t_ms, raw, *acc)
                else:
                    ref.tick(self.t_ms)
                ref.frame  # noqa: B018 (the board loop writes the frame every pass)
                self._flush()
            ready, _, _ = select.select([self.master], [], [], 0.002)
            if ready:
                self._serial(os.read(self.master, 4096))

    def _serial(self, data):
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            text = line.decode().strip()
            self.lines_in.append(text)
            if not self.firmware_selftest and '"selftest"' in text:
                reply = '{"ok": false, "error": "unknown command \'selftest\' (try help)"}'
            else:
                reply = self.ref.command(self.t_ms, text)
            self._flush()
            self._write(reply)

    def _flush(self):
        for line in self.ref.pop_events():
            ev = json.loads(line)
            self.maker.event(self, ev)
            if self.on_event is not None:
                self.on_event(self, ev)
            if self.drop is None or not self.drop(ev):
                self._write(line)

    def _write(self, line):
        self.lines_out.append(line)
        try:
            os.write(self.master, (line + "\n").encode())
        except OSError:
            pass

    def commands(self):
        return [json.loads(x) for x in self.lines_in]

    def close(self):
        self._stop = True
        self.thread.join(2)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


@pytest.fixture
def port(tmp_path):
    return str(tmp_path / "ttySELF")


@pytest.fixture
def board_factory(port):
    boards = []

    def make(**kw):
        b = FakeBoard(port, **kw)
        boards.append(b)
        return b

    yield make
    for b in boards:
        b.close()


def test_everything_passes(board_factory, port, capsys):
    board = board_factory()
    code = cli.main(["selftest", "--port", port, "--yes"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "15 checks, at most about" in out
    assert "  -> keep the table still" in out
    assert "  -> watch seat 4: its 6 LEDs light red, then green, then blue" in out
    assert "  -> press the SKIP button (every seat blinks 2 yellow LEDs)" in out
    assert "  -> press the platform with a finger (at least 20 g), then let go" in out
    assert "  ok   [1/15] HX711 load-cell amplifier: answers: 8" in out
    moved = out.split("  ok   [15/15] load cell under a finger: moved by ")[1].split()[0]
    assert 145 <= int(moved) <= 155, moved  # the maker pushes with 150 g
    assert "  [ok]   button MENU (GP16): pressed" in out
    assert out.rstrip().endswith("all 15 checks passed")
    cmds = [c["cmd"] for c in board.commands()]
    assert cmds == ["status", "selftest"]
    assert board.commands()[1]["wait_ms"] == 10000


def test_broken_button_and_missing_accelerometer(board_factory, port, capsys):
    board_factory(maker=Maker(broken=("skip",)), accel=False)
    code = cli.main(["selftest", "--port", port, "--yes", "--wait", "2"])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert "  FAIL [2/15] accelerometer: missing: no device answers on I2C" in out
    assert "degraded mode" in out
    assert ("  [FAIL] button SKIP (GP12): not pressed within 2 s - check its wiring: one leg "
            "to GP12, the other to GND") in out
    assert "13 of 15 checks passed; 2 failed: accelerometer, button SKIP (GP12)" in out


def test_dead_hx711(board_factory, port, capsys):
    board_factory(hx711=False)
    code = cli.main(["selftest", "--port", port, "--yes", "--wait", "1"])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert ("[FAIL] HX711 load-cell amplifier: no reading within 2 s - check its power (VCC to "
            "3.3 V, GND) and the wires DOUT (DT) to GP2, SCK to GP3") in out
    assert "[FAIL] load cell under a finger: not checked: the HX711 gave no usable reading" in out
    assert "[ok]   button RHINO (GP15): pressed" in out


def test_json_report(board_factory, port, capsys):
    board_factory(maker=Maker(finger_g=5))
    code = cli.main(["selftest", "--port", port, "--yes", "--json"])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    rep = json.loads(out)
    assert rep["passed"] is False and rep["state"] == "done" and len(rep["report"]) == 15
    part, ok, msg = rep["report"][-1]
    assert part == "load cell under a finger" and not ok and msg.startswith("moved only ")


def test_a_lost_verdict_is_fetched(board_factory, port, capsys):
    board = board_factory(drop=lambda ev: ev.get("part") == "button DRAW (GP13)")
    code = cli.main(["selftest", "--port", port, "--yes"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "[ok]   button DRAW (GP13): pressed" in out  # from the report command
    assert "  ok   [11/15] button DRAW" not in out  # the verdict itself never came
    assert board.commands()[-1] == {"cmd": "selftest", "report": True}
    assert "all 15 checks passed" in out


def test_the_person_judges_the_leds(board_factory, port, capsys, monkeypatch):
    answers = iter(["", "n"])
    asked = []

    def ask(prompt):
        asked.append(prompt)
        return next(answers)

    monkeypatch.setattr(selftest_cmd, "_ask", ask)
    board_factory()
    code = cli.main(["selftest", "--port", port])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert asked[0].startswith("Press Enter to start")
    assert asked[1].startswith("Did every LED light red, then green, then blue")
    assert "[FAIL] LEDs: you saw a dark LED or a wrong colour - a dark LED" in out
    assert '"order": "RGB"' in out
    # and when they looked right
    answers = iter(["", "y"])
    monkeypatch.setattr(selftest_cmd, "_ask", lambda p: next(answers))
    code = cli.main(["selftest", "--port", port])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "[ok]   LEDs: every LED lit in the right colours (you confirmed)" in out


def test_ctrl_c_stops_the_test_on_the_board(board_factory, port, capsys, monkeypatch):
    board = board_factory(speed=5)

    def say(*args, **kw):
        if args and "press the SEAT 1 button" in str(args[0]):
            raise KeyboardInterrupt
        print(*args, **kw)

    monkeypatch.setattr(selftest_cmd, "print", say, raising=False)
    code = cli.main(["selftest", "--port", port, "--yes"])
    out, err = capsys.readouterr()
    assert code == 130, out + err
    assert "interrupted" in err
    cmds = board.commands()
    assert cmds[-1] == {"cmd": "selftest", "cancel": True}
    assert board.ref.test is None  # the board is back to normal
    assert any('"state": "cancelled"' in x for x in board.lines_out)


def test_game_in_play_is_refused(board_factory, port, capsys):
    board = board_factory(phase="play")
    code = cli.main(["selftest", "--port", port, "--yes"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "a game is in play on the board" in err
    assert [c["cmd"] for c in board.commands()] == ["status"]
    assert board.ref.game is not None and not board.ref.game.over


def test_firmware_without_selftest(board_factory, port, capsys):
    board_factory(firmware_selftest=False)
    code = cli.main(["selftest", "--port", port, "--yes"])
    _out, err = capsys.readouterr()
    assert code == 3
    assert "the board's firmware has no self-test: update it with 'rhinoref deploy'" in err


def test_board_restarting_mid_test(board_factory, port, capsys):
    def brown_out(board, ev):
        if ev.get("button") == "seat2":
            board._write('{"ev": "boot", "version": "1.0", "phase": "lobby", "problems": []}')

    board_factory(on_event=brown_out)
    code = cli.main(["selftest", "--port", port, "--yes"])
    _out, err = capsys.readouterr()
    assert code == 1
    assert "the board restarted during the self-test" in err


def test_no_board(tmp_path, capsys):
    code = cli.main(["selftest", "--port", str(tmp_path / "nothing"), "--yes"])
    _out, err = capsys.readouterr()
    assert code == 3
    assert "does not exist" in err


def test_silent_port(tmp_path, capsys):
    master, slave = os.openpty()
    tty.setraw(slave)
    path = str(tmp_path / "ttyMUTE")
    os.symlink(os.ttyname(slave), path)
    try:
        code = cli.main(["selftest", "--port", path, "--yes"])
    finally:
        os.close(master)
        os.close(slave)
    _out, err = capsys.readouterr()
    assert code == 3
    assert "did not reply to 'status'" in err


def test_bad_wait(capsys):
    assert cli.main(["selftest", "--wait", "0", "--yes"]) == 2
    assert "--wait must be 1 to 120 seconds" in capsys.readouterr().err
