"""The firmware as the board runs it: compiled to .mpy for the local MicroPython unix port.

Usage::

    from rel_mpy import compiled_firmware, compiled_fw_tests
    fw_dir = compiled_firmware(tmp_dir)     # tmp_dir/fw_mpy/main.py, referee/*.mpy
    tests_dir = compiled_fw_tests(tmp_dir)  # tmp_dir/fw_tests_mpy/test_rules.mpy, ...

Built by ``rhinoref deploy``'s own build (mpy-cross for the port's bytecode version), so
MicroPython loads bytecode instead of compiling sources in its heap: less garbage and less
fragmentation in a Pico-sized heap, as on a deployed board. The tests/fw modules too: the
compiler's garbage, interleaved with a large test module's bytecode, once left no block for
a Detector's attribute table in a later test (3.5 KB, test_detector_lowrate at 960 lines).
"""

import subprocess
from pathlib import Path


def compiled_firmware(work):
    from rhinoref.firmware import FIRMWARE_DIR

    return _compiled(FIRMWARE_DIR, Path(work) / "fw_mpy")


def compiled_fw_tests(work):
    return _compiled(Path(__file__).parent / "fw", Path(work) / "fw_tests_mpy")


def _compiled(source, out):
    from rhinoref.cmd.deploy import build_firmware
    from rhinoref.mpy import micropython_binary

    if (out / ".built").exists():
        return out
    exe = micropython_binary()
    mpy = subprocess.run([exe, "-c", "import sys; print(sys.implementation._mpy)"],
                         capture_output=True, text=True, check=True).stdout.strip()
    info = {"mpy": int(mpy), "version": (1, 28, 0), "machine": "unix", "platform": "linux",
            "free": 10 ** 7, "total": 10 ** 7, "hashlib": True}
    for path, data in build_firmware(source, info).items():
        p = out / path.lstrip("/")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    (out / ".built").write_bytes(b"")
    return out
