"""The whole firmware's heap on the virtual board, after boot and after a full game (SPEC 6).

Usage (benchmarks and tests)::

    from rhinoref.vboard.measure import firmware_heap
    fig = firmware_heap(romfs=True)     # the package in the ROMFS partition, as deployed
    fig["peak"] - fig["runtime"]        # the most the firmware held during a full game
    fig["game"] - fig["runtime"]        # what it holds after the game, at the REPL

Steps: start a virtual board with an idle table, read ``gc.mem_alloc()`` after ``gc.collect()``
at its bare REPL (the virtual board's own modules and its ROMFS partition: ``runtime``), deploy
the firmware with ``rhinoref deploy`` (``--romfs`` when asked), store a calibration, boot
``main.py`` and read the heap in the lobby (``boot``), let bots play a whole game, read it again
(``game``). Those readings interrupt the app (Ctrl-C) and resume the REPL without a soft reset
(``mpremote resume``): the modules and what they hold are still there, but not the objects
local to the interrupted app loop (the Referee, the drivers). So while the game runs, the
virtual board also collects and reads the heap every 10 sample batches (8 s of play at 80 SPS)
as the firmware waits for a sample, with every object alive (``VirtualBoard(heap_probe=)``):
``peak`` is the largest of those readings.
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ..errors import RhinorefError
from ..mpy import micropython_binary, word_bits

_HEAP = "import gc; gc.collect(); print('heap', gc.mem_alloc())"
_SAVE_CAL = (
    "import os\nfrom referee.calibration import Calibration\nc = Calibration()\n"
    "c.offset=%d\nc.counts_per_gram=%r\nc.wall_g=%r\nc.roof_g=%r\nc.rhino_g=%r\n"
    "c.accel='mpu6050'\nc.learned=True\n"
    "try:\n    os.mkdir('/data')\nexcept OSError:\n    pass\n"
    "c.save('/data/calib.json')\n")


def _tool(name):
    return str(Path(sys.executable).parent / name)


def _mpremote(port, *args):
    r = subprocess.run([_tool("mpremote"), "connect", port, *args], capture_output=True,
                       text=True, timeout=60)
    if r.returncode:
        raise RhinorefError("mpremote %s failed: %s" % (" ".join(args), r.stdout + r.stderr))
    return r.stdout


def _heap(port, *resume):
    try:
        return int(_mpremote(port, *resume, "exec", _HEAP).split()[1])
    except subprocess.TimeoutExpired:
        # Now and then (2 runs in 20 here, with benchmarks loading the machine) the unix port
        # misses the Ctrl-C that interrupts the app; the board is still there: ask once more.
        return int(_mpremote(port, *resume, "exec", _HEAP).split()[1])


def firmware_heap(romfs=False, players=3, seed=3, sps=80, timeout=240):
    """{"bits": the build's word size; "runtime", "boot", "game", "peak": bytes in use; "marks": the readings during the game;
    "result": the game's result event or None; "sim_s", "real_s": the game's simulated and
    real seconds}."""
    from ..table import Table
    from . import VirtualBoard
    from .players import BoardBots

    table = Table(seed=seed, sps=sps, accel=True)
    bots = BoardBots(table, players, seed)
    fig = {"romfs": romfs, "bits": word_bits(micropython_binary())}
    with tempfile.TemporaryDirectory() as tmp:
        vb = VirtualBoard(flash_dir=tmp, speed=0, table=table, heap_probe=10)
        bots.attach(vb)
        vb.start()
        try:
            vb.wait_output(b">>> ", timeout=20)
            fig["runtime"] = _heap(vb.port)
            r = subprocess.run([_tool("rhinoref"), "deploy", "--port", vb.port, "--no-reset"]
                               + (["--romfs"] if romfs else []), capture_output=True,
                               text=True, timeout=300)
            if r.returncode:
                raise RhinorefError("deploy failed: %s" % (r.stdout + r.stderr))
            cal = table.calibration()
            _mpremote(vb.port, "exec", _SAVE_CAL % (
                cal.offset, cal.counts_per_gram, cal.wall_g, cal.roof_g, cal.rhino_g))
            _mpremote(vb.port, "reset")
            vb.wait_output(b'"ev": "boot"', timeout=30)
            time.sleep(0.5)
            fig["boot"] = _heap(vb.port, "resume")
            start = len(vb.lines)
            first_mark = len(vb.heap_marks)
            vb.feed.driver = bots
            _mpremote(vb.port, "reset")
            t0 = time.monotonic()
            result = None
            while time.monotonic() - t0 < timeout and result is None:
                for line in vb.lines[start:]:
                    if line.startswith(b'{"ev": "result"'):
                        result = json.loads(line)
                time.sleep(0.5)
            fig["real_s"] = time.monotonic() - t0
            fig["sim_s"] = vb.frame_t_us / 1e6
            fig["result"] = result
            fig["marks"] = [n for _, n in vb.heap_marks[first_mark:]]
            fig["peak"] = max(fig["marks"], default=0)
            fig["game"] = _heap(vb.port, "resume")
        finally:
            vb.stop()
    return fig
