"""Every firmware file compiles with mpy-cross, so nothing CPython-only slips onto the board."""

import subprocess
from pathlib import Path

import pytest

from conftest import FIRMWARE
from rhinoref.mpy import mpy_cross_binary

FILES = sorted(str(p.relative_to(FIRMWARE)) for p in FIRMWARE.rglob("*.py"))


@pytest.mark.parametrize("name", FILES)
def test_compiles_with_mpy_cross(name, tmp_path):
    exe = mpy_cross_binary()
    assert exe, "mpy-cross is a pinned dependency and must be installed"
    out = tmp_path / "out.mpy"
    result = subprocess.run(
        [exe, "-o", str(out), str(FIRMWARE / name)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0
