"""The firmware as the board runs it: compiled to .mpy for the local MicroPython unix port.

Usage::

    from rel_mpy import compiled_firmware
    fw_dir = compiled_firmware(tmp_dir)     # tmp_dir/fw_mpy/main.py, referee/*.mpy

Built by ``rhinoref deploy``'s own build (mpy-cross for the port's bytecode version), so
MicroPython loads bytecode instead of compiling sources in its heap: less garbage and less
fragmentation in a Pico-sized heap, as on a deployed board.
"""

import subprocess
from pathlib import Path


def compiled_firmware(work):
    from rhinoref.cmd.deploy import build_firmware
    from rhinoref.firmware import FIRMWARE_DIR
    from rhinoref.mpy import micropython_binary

    out = Path(work) / "fw_mpy"
    if (out / "referee").exists():
        return out
    exe = micropython_binary()
    mpy = subprocess.run([exe, "-c", "import sys; print(sys.implementation._mpy)"],
                         capture_output=True, text=True, check=True).stdout.strip()
    info = {"mpy": int(mpy), "version": (1, 28, 0), "machine": "unix", "platform": "linux",
            "free": 10 ** 7, "total": 10 ** 7, "hashlib": True}
    for path, data in build_firmware(FIRMWARE_DIR, info).items():
        p = out / path.lstrip("/")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return out
