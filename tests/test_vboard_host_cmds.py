"""``rhinoref record``, ``calibrate`` and ``monitor`` against the virtual board: the unchanged
firmware deployed with ``rhinoref deploy`` to MicroPython (unix port, Pico-sized heap) behind a
pty, the simulated table under it."""

import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

import pytest

from rhinoref import cli
from rhinoref.mpy import MICROPYTHON_MISSING, micropython_binary

pytestmark = pytest.mark.skipif(micropython_binary() is None, reason=MICROPYTHON_MISSING)

BIN = Path(sys.executable).parent
SPEED = 3.0   # simulated seconds per real second on the virtual board


class Driver:
    """Runs on the virtual board's own thread once per sample: queued table actions (the
    table is not thread-safe) and, when set, the bot players."""

    def __init__(self):
        self.actions = deque()
        self.bots = None

    def __call__(self, t_ms):
        while self.actions:
            self.actions.popleft()()
        if self.bots is not None:
            self.bots(t_ms)


@pytest.fixture(scope="module")
def vboard(tmp_path_factory):
    from rhinoref.table import Table
    from rhinoref.vboard import VirtualBoard

    table = Table(seed=5, sps=80, accel=True)   # a cell mounted the right way up (see calibrate)
    driver = Driver()
    vb = VirtualBoard(flash_dir=tmp_path_factory.mktemp("vflash"), speed=SPEED, table=table,
                      driver=driver)
    vb.driver = driver
    vb.start()
    try:
        vb.wait_output(b">>> ", timeout=30)
        r = subprocess.run([str(BIN / "rhinoref"), "deploy", "--port", vb.port],
                           capture_output=True, timeout=240)
        assert r.returncode == 0, (r.stdout, r.stderr)
        vb.wait_output(b'{"ev": "boot"', timeout=30)
        yield vb
    finally:
        vb.stop()


def test_record_from_the_virtual_board(vboard, tmp_path, capsys):
    from rhinoref.trace import read_trace

    out = tmp_path / "v.csv"
    code = cli.main(["record", "-o", str(out), "--seconds", "2", "--port", vboard.port])
    said = capsys.readouterr()
    assert code == 0, said.err
    tr = read_trace(str(out))
    assert tr.meta["sps"] == 80 and tr.meta["accel"] != "none" and tr.accel
    assert 100 * SPEED < len(tr.rows) < 260 * SPEED   # 2 s at 80 SPS
    assert all(r[2] is not None for r in tr.rows)
    assert "recorded %d samples" % len(tr.rows) in said.out


def test_calibrate_the_virtual_board(vboard, capsys):
    table = vboard.table
    seen = set()
    stop = threading.Event()
    lines = vboard.lines

    def person():
        # Reads the board's calib events and places walls on the simulated table when asked.
        import json

        while not stop.is_set():
            for raw in list(lines)[-40:]:
                if not raw.startswith(b'{"ev": "calib"'):
                    continue
                try:
                    ev = json.loads(raw)
                except ValueError:
                    continue
                prompt = ev.get("prompt", "")
                if ev.get("state") == "busy" and prompt.startswith("place a wall") and prompt not in seen:
                    seen.add(prompt)
                    time.sleep(0.5)
                    vboard.driver.actions.append(table.place_wall)
            time.sleep(0.05)

    th = threading.Thread(target=person, daemon=True)
    th.start()
    try:
        code = cli.main(["calibrate", "--port", vboard.port, "--yes", "--steps", "tare,wall",
                         "--count", "2"])
    finally:
        stop.set()
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "done: tared" in out
    assert "never calibrated with a known mass" in out   # no scale step: the board says so
    assert "-> place a wall (2 of 2)" in out
    assert "done: wall learned:" in out
    learned = float(out.split("done: wall learned:")[1].split("g")[0])
    assert learned == pytest.approx(table.masses["wall"], abs=0.25)


def test_monitor_the_virtual_board_with_bots(vboard, capsys):
    from rhinoref.vboard.players import BoardBots

    bots = BoardBots(vboard.table, 2, seed=5)
    bots.attach(vboard)
    vboard.driver.bots = bots
    try:
        code = cli.main(["monitor", "--port", vboard.port, "--plain", "--seconds", "12"])
    finally:
        vboard.driver.bots = None
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith("# rhinoref monitor: board %s" % vboard.port)
    assert "joined: " in out
    assert "new game: 2 players" in out
    assert "'s turn (" in out
    assert ": wall placed" in out
