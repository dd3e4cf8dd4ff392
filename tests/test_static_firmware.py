"""Static check: the firmware type-checks against the MicroPython RP2 stubs, so it uses only APIs
a Pico's MicroPython has (``time.ticks_ms`` yes, ``time.monotonic`` no; ``machine.Pin`` yes,
a made-up ``machine`` function no). pyright from package-lock.json, the stubs in
``.venv/mpy-stubs``; both installed by ``make test``. Configuration and the reasons for each
switched-off rule: tests/static/pyrightconfig.json.

Failing findings: an import that does not resolve, a name that is not defined, an attribute a
stub MODULE does not have. Other findings (attributes of the project's own classes, stub
gaps) are printed for the record but do not fail: the firmware is untyped code.
"""

import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYRIGHT = ROOT / "node_modules" / ".bin" / "pyright"
STUBS = ROOT / ".venv" / "mpy-stubs"
CONFIG = ROOT / "tests" / "static" / "pyrightconfig.json"

pytestmark = pytest.mark.skipif(
    not PYRIGHT.exists() or not (STUBS / "machine.pyi").exists(),
    reason="pyright or the MicroPython stubs are not installed: run 'make test' "
           "(npm ci; pip install --target .venv/mpy-stubs)",
)


def pyright(config):
    r = subprocess.run([str(PYRIGHT), "-p", str(config), "--outputjson"], capture_output=True,
                       text=True, timeout=300)
    try:
        report = json.loads(r.stdout)
    except ValueError:
        raise AssertionError("pyright gave no report: %s %s" % (r.stdout[-500:], r.stderr[-500:]))
    return report["generalDiagnostics"], report["summary"]


def is_real(d):
    if d.get("severity") != "error":
        return False
    rule = d.get("rule")
    msg = d["message"]
    if rule in ("reportMissingImports", "reportUndefinedVariable"):
        return True
    return rule == "reportAttributeAccessIssue" and "of module" in msg


def show(d):
    return "%s:%d: %s" % (d["file"].split("/firmware/")[-1], d["range"]["start"]["line"] + 1,
                          d["message"].splitlines()[0])


def check_dir(tmp_path, source):
    (tmp_path / "fw").mkdir()
    (tmp_path / "fw" / "snippet.py").write_text(source)
    cfg = json.loads(CONFIG.read_text())
    cfg.pop("//", None)
    cfg["include"] = [str(tmp_path / "fw")]
    cfg["extraPaths"] = [str(tmp_path / "fw")]
    cfg["typeshedPath"] = cfg["stubPath"] = str(STUBS)
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(cfg))
    diags, _ = pyright(tmp_path / "pyrightconfig.json")
    return [d for d in diags if is_real(d)]


def test_firmware_uses_only_what_a_pico_has():
    diags, summary = pyright(CONFIG)
    assert summary["filesAnalyzed"] >= 10
    real = [show(d) for d in diags if is_real(d)]
    other = [show(d) for d in diags if d.get("severity") == "error" and not is_real(d)]
    if other:
        print("pyright findings that do not fail the check:\n  " + "\n  ".join(other))
    assert not real, "\n".join(real)


def test_pico_apis_resolve_from_the_stubs(tmp_path):
    ok = (
        "import time, machine, rp2, neopixel, micropython, gc\n"
        "from micropython import const\n"
        "_N = const(3)\n"
        "t = time.ticks_diff(time.ticks_ms(), time.ticks_add(time.ticks_us(), 5))\n"
        "time.sleep_ms(1)\n"
        "p = machine.Pin(2, machine.Pin.IN, machine.Pin.PULL_UP)\n"
        "i2c = machine.I2C(0, sda=machine.Pin(4), scl=machine.Pin(5))\n"
        "sm = rp2.StateMachine(0)\n"
        "n = sm.rx_fifo()\n"
        "np = neopixel.NeoPixel(machine.Pin(22), 30)\n"
        "gc.mem_alloc()\n"
    )
    assert check_dir(tmp_path, ok) == []


def test_cpython_only_apis_are_caught(tmp_path):
    bad = (
        "import time, machine\n"
        "time.monotonic()\n"
        "machine.not_a_pico_function()\n"
    )
    found = check_dir(tmp_path, bad)
    text = " ".join(d["message"] for d in found)
    assert "monotonic" in text and "not_a_pico_function" in text, found
