"""Whole games on the virtual board: the firmware deployed with ``rhinoref deploy`` as .mpy
files, booted by MicroPython (unix port, Pico-sized heap), bots playing on the simulated table
and pressing the board's buttons, the board's own event lines telling who won."""

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rhinoref.mpy import MICROPYTHON_MISSING, micropython_binary

pytestmark = pytest.mark.skipif(micropython_binary() is None, reason=MICROPYTHON_MISSING)

BIN = Path(sys.executable).parent
NEEDS_DEPLOY = pytest.mark.skipif(
    importlib.util.find_spec("rhinoref.cmd.deploy") is None,
    reason="rhinoref deploy is not in this checkout yet",
)


def mp(port, *args, timeout=60):
    r = subprocess.run([str(BIN / "mpremote"), "connect", port, *args], capture_output=True,
                       timeout=timeout)
    assert r.returncode == 0, (r.stdout, r.stderr)
    return r.stdout.decode()


def save_calibration(port, cal):
    """What `rhinoref calibrate` would have stored: the table's calibration as learned."""
    code = (
        "import os\n"
        "from referee.calibration import Calibration\n"
        "c = Calibration()\n"
        "c.offset = %d\nc.counts_per_gram = %r\nc.wall_g = %r\nc.roof_g = %r\nc.rhino_g = %r\n"
        "c.sps = %d\nc.accel = %r\nc.learned = True\n"
        "try:\n    os.mkdir('/data')\nexcept OSError:\n    pass\n"
        "c.save('/data/calib.json')\nprint('saved')\n"
    ) % (int(cal.offset), float(cal.counts_per_gram), float(cal.wall_g), float(cal.roof_g),
         float(cal.rhino_g), int(cal.sps), "mpu6050")
    assert "saved" in mp(port, "exec", code)


def events(vb, start=0):
    out = []
    for line in list(vb.lines)[start:]:
        if line.startswith(b'{"ev"'):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def play(tmp_path, players, seed, timeout=240):
    from rhinoref.table import Table
    from rhinoref.vboard import VirtualBoard
    from rhinoref.vboard.players import BoardBots

    table = Table(seed=seed, sps=80, accel=True)
    bots = BoardBots(table, players, seed)
    vb = VirtualBoard(flash_dir=tmp_path / "flash", speed=0, romfs_kb=0, table=table)
    bots.attach(vb)
    vb.start()
    try:
        vb.wait_output(b">>> ", timeout=20)
        r = subprocess.run([str(BIN / "rhinoref"), "deploy", "--port", vb.port, "--no-reset"],
                           capture_output=True, timeout=180)
        assert r.returncode == 0, (r.stdout, r.stderr)
        save_calibration(vb.port, table.calibration())
        listing = mp(vb.port, "fs", "ls", ":referee")
        assert "app.mpy" in listing and "app.py" not in listing  # deployed compiled
        start = len(vb.lines)
        vb.feed.driver = bots  # the players sit down only now
        mp(vb.port, "reset")  # power cycle: main.py starts the referee from the .mpy files
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(e.get("ev") == "result" and e.get("winners") for e in events(vb, start)):
                break
            if bots.done:
                break
            time.sleep(0.5)
        # The heap after the game, with the referee still alive: interrupt main.py without a
        # soft reset (mpremote resume), as one would on a real board.
        n = len(vb.output)
        game_output = bytes(vb.output)
        try:
            heap = mp(vb.port, "resume", "exec",
                      "import gc; gc.collect(); print('heap', gc.mem_alloc(), gc.mem_free())",
                      timeout=30)
        except subprocess.TimeoutExpired:
            raise AssertionError("no raw REPL after Ctrl-C (intr %r): %r"
                                 % (vb._intr, bytes(vb.output[n:n + 1500])))
        return vb, bots, events(vb, start), game_output, heap
    finally:
        vb.stop()


@NEEDS_DEPLOY
def test_whole_game_on_micropython(tmp_path):
    vb, bots, evs, output, heap = play(tmp_path, players=3, seed=3)
    kinds = [e["ev"] for e in evs]
    assert "boot" in kinds and "game" in kinds, kinds[:20]
    assert b"Traceback" not in output  # no MemoryError or anything else during the game
    results = [e for e in evs if e["ev"] == "result"]
    assert results, "no result: %s" % kinds[-30:]
    res = results[-1]
    g = bots.shadow.game
    # The host's shadow of the rules state, rebuilt from the board's own event lines, agrees
    # with what the board announced.
    assert g is not None and g.over
    assert sorted(res["winners"]) == sorted(g.winners)
    assert res["result"] == g.result
    inputs = [e for e in evs if e["ev"] == "input"]
    assert sum(1 for e in inputs if e["in"] == "roof") >= 2
    assert vb.frames > 50  # the seat lights were driven all along
    used = int(heap.split()[1])
    assert used < 256 * 1024
