"""The self-test on the virtual board: the unchanged firmware deployed as .mpy to MicroPython
(unix port, Pico heap) with simulated hardware, a simulated maker answering the prompts
(``rhinoref.vboard.maker``), started by ``rhinoref selftest`` and from the board's menu, with
every part present, and with parts missing (no accelerometer, a dead HX711, a broken button)."""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rhinoref import cli
from rhinoref.mpy import MICROPYTHON_MISSING, micropython_binary

pytestmark = pytest.mark.skipif(micropython_binary() is None, reason=MICROPYTHON_MISSING)

BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def flash_image(tmp_path_factory):
    """A flash image with the firmware deployed by ``rhinoref deploy`` (made once)."""
    from rhinoref.vboard import VirtualBoard

    d = tmp_path_factory.mktemp("deployed")
    vb = VirtualBoard(flash_dir=d, speed=0)
    vb.start()
    try:
        vb.wait_output(b">>> ", timeout=30)
        r = subprocess.run([str(BIN / "rhinoref"), "deploy", "--port", vb.port, "--no-reset"],
                           capture_output=True, timeout=240)
        assert r.returncode == 0, (r.stdout, r.stderr)
    finally:
        vb.stop()
    return d / "flash.img"


def board(flash_image, tmp_path, broken=(), finger_g=None, accel=True, hx711=True,
          frames=None):
    """A virtual board booting the deployed firmware, a maker at its table."""
    from rhinoref.table import Table
    from rhinoref.vboard import VirtualBoard
    from rhinoref.vboard.maker import Maker, PlatformHand

    d = tmp_path / "flash"
    d.mkdir()
    shutil.copy(flash_image, d / "flash.img")
    table = PlatformHand(Table(seed=5, sps=80, accel=accel))
    maker = Maker(table, broken=broken, finger_g=finger_g, seed=2)
    on_frame = None
    if frames is not None:
        def on_frame(t_us, pin, frame):
            frames.append((t_us, bytes(frame)))
    vb = VirtualBoard(flash_dir=d, speed=0, table=table, driver=maker, accel=accel,
                      hx711=hx711, on_frame=on_frame)
    maker.attach(vb)
    vb.maker = maker
    vb.start()
    vb.wait_output(b'{"ev": "boot"', timeout=30)
    return vb


def survived(vb):
    """The board printed no error event (an exception the loop survived, out of memory)."""
    bad = [x for x in list(vb.lines) if x.startswith(b'{"ev": "error"')]
    assert not bad, bad


def report(out):
    """The report lines of rhinoref selftest's output: {part: (ok, message)}."""
    rows = {}
    for line in out.split("\nReport:\n")[1].splitlines():
        line = line.strip()
        if line.startswith("[ok]") or line.startswith("[FAIL]"):
            ok = line.startswith("[ok]")
            part, msg = line.split("] ", 1)[1].strip().split(": ", 1)
            rows[part] = (ok, msg)
    return rows


def test_everything_present_passes(flash_image, tmp_path, capsys):
    frames = []
    vb = board(flash_image, tmp_path, frames=frames)
    try:
        code = cli.main(["selftest", "--port", vb.port, "--yes"])
        out, err = capsys.readouterr()
    finally:
        vb.stop()
    survived(vb)
    assert code == 0, out + err
    rows = report(out)
    assert len(rows) == 15 and all(ok for ok, _m in rows.values()), rows
    hx = rows["HX711 load-cell amplifier"][1]
    assert hx.startswith("answers: ") and 70 <= int(hx.split()[1]) <= 90, hx  # 80 +- clock
    assert rows["accelerometer"][1].startswith("sees gravity: ")
    assert "(mpu6050)" in rows["accelerometer"][1]
    assert rows["load cell under a finger"][1].startswith("moved by ")
    assert vb.maker.reports[-1]["passed"] is True
    # The strip really got the sweep: each seat alone, red, then green, then blue (GRB bytes).
    sweep = []
    for _t, f in frames:
        lit = [i for i in range(30) if any(f[3 * i:3 * i + 3])]
        if len(lit) == 6 and lit == list(range(lit[0], lit[0] + 6)):
            g, r, b = f[3 * lit[0]:3 * lit[0] + 3]
            if (g > 0) + (r > 0) + (b > 0) == 1:
                step = (lit[0] // 6, "green" if g else ("red" if r else "blue"))
                if not sweep or sweep[-1] != step:
                    sweep.append(step)
    want = [(s, c) for s in range(5) for c in ("red", "green", "blue")]
    assert [x for x in sweep if x in want] == want, sweep
    # and the report lights at the end: one LED per part, all green
    last = frames[-1][1]
    for i in range(15):
        assert last[3 * i] > 0 and last[3 * i + 1] == 0, (i, last[3 * i:3 * i + 3])


def test_missing_accelerometer_and_broken_button(flash_image, tmp_path, capsys):
    vb = board(flash_image, tmp_path, accel=False, broken=("skip",))
    try:
        code = cli.main(["selftest", "--port", vb.port, "--yes", "--wait", "3"])
        out, err = capsys.readouterr()
    finally:
        vb.stop()
    survived(vb)
    assert code == 1, out + err
    rows = report(out)
    ok, msg = rows["accelerometer"]
    # no tilt switch is fitted by default: without an accelerometer the referee runs in the
    # degraded mode (load cell only), and the report says so
    assert not ok and msg.startswith("missing: no device answers on I2C"), msg
    assert "degraded mode (load cell only" in msg
    assert "SDA to GP4, SCL to GP5" in msg
    ok, msg = rows["button SKIP (GP12)"]
    assert not ok and msg.startswith("not pressed within 3 s - check its wiring"), msg
    failed = [p for p, (ok, _m) in rows.items() if not ok]
    assert failed == ["accelerometer", "button SKIP (GP12)"], failed
    assert "13 of 15 checks passed; 2 failed: accelerometer, button SKIP (GP12)" in out


def test_dead_hx711(flash_image, tmp_path, capsys):
    vb = board(flash_image, tmp_path, hx711=False)
    try:
        code = cli.main(["selftest", "--port", vb.port, "--yes", "--json"])
        out, err = capsys.readouterr()
    finally:
        vb.stop()
    survived(vb)
    assert code == 1 and out.startswith("{"), out + err
    rep = json.loads(out)
    rows = {p: (ok, m) for p, ok, m in rep["report"]}
    ok, msg = rows["HX711 load-cell amplifier"]
    assert not ok and msg.startswith("no reading within 2 s - check its power"), msg
    assert "DOUT (DT) to GP2, SCK to GP3" in msg
    assert rows["accelerometer"][1].startswith("not checked")
    assert rows["load cell under a finger"][1].startswith("not checked")
    assert all(rows[p][0] for p in rows if p.startswith("button "))
    assert [p for p in rows if not rows[p][0]] == ["HX711 load-cell amplifier", "accelerometer",
                                                   "load cell under a finger"]


def test_from_the_board_menu(flash_image, tmp_path):
    vb = board(flash_image, tmp_path)
    try:
        vb.maker.from_menu()
        deadline = time.monotonic() + 60
        while not vb.maker.reports and time.monotonic() < deadline:
            time.sleep(0.05)
        assert vb.maker.reports, bytes(vb.output[-500:])
        done = vb.maker.reports[-1]
        assert done["state"] == "done" and done["passed"] is True, done
        assert vb.maker.asked[0].startswith("keep the table still")
        menu = [json.loads(x) for x in list(vb.lines) if x.startswith(b'{"ev": "menu"')]
        assert menu[0]["open"] and menu[0]["choices"]["seat0_long"] == "self-test", menu
        assert menu[1]["chose"] == "selftest", menu
        vb.wait(lambda v: v.frame[:3] != b"\0\0\0" and v.frame[1] == 0 and v.frame[0] > 0,
                timeout=10)
    finally:
        vb.stop()
    survived(vb)


def test_rhinoref_board_with_a_maker_and_a_dead_hx711(flash_image, tmp_path, capsys):
    """The command line: ``rhinoref board --maker --no-hx711`` answers ``rhinoref selftest``."""
    d = tmp_path / "flash"
    d.mkdir()
    shutil.copy(flash_image, d / "flash.img")
    proc = subprocess.Popen([str(BIN / "rhinoref"), "board", "--flash", str(d), "--maker",
                             "--no-hx711", "--speed", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("port "), (line, proc.stderr.read() if proc.poll() else "")
        port = line.split()[1]
        deadline = time.monotonic() + 30
        code = None
        while time.monotonic() < deadline:  # until main.py has started the referee
            code = cli.main(["selftest", "--port", port, "--yes", "--wait", "2"])
            out, err = capsys.readouterr()
            if "did not reply" not in err:
                break
        assert code == 1, out + err
        assert "[FAIL] HX711 load-cell amplifier: no reading within 2 s" in out, out + err
        assert "[ok]   button MENU (GP16): pressed" in out, out + err  # the maker pressed each
    finally:
        proc.terminate()
        proc.wait(10)
