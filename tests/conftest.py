"""Shared test set-up: the firmware folder and the MicroPython unix port."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIRMWARE = ROOT / "firmware"
sys.path.insert(0, str(FIRMWARE))
sys.path.insert(0, str(ROOT / "tests" / "fw"))

from rhinoref.mpy import HEAP_ARGS, MICROPYTHON_MISSING, micropython_binary  # noqa: E402


@pytest.fixture
def micropython():
    """Run a script under MicroPython with a Pico-sized heap: ``micropython(path, *args)``.

    Skips with the reason where the unix port is not installed (not x86_64 Linux).
    """
    exe = micropython_binary()
    if exe is None:
        pytest.skip(MICROPYTHON_MISSING)

    def run(script, *args, timeout=120):
        return subprocess.run(
            [exe, *HEAP_ARGS, str(script), *map(str, args)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run
