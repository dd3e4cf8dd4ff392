"""Every MicroPython-compatible firmware test module (tests/fw/test_*.py) also runs on the real
MicroPython unix port with a 192 KB heap, and must pass there exactly as on CPython."""

from pathlib import Path

import pytest

from conftest import FIRMWARE

FW_TESTS = sorted(p.stem for p in (Path(__file__).parent / "fw").glob("test_*.py"))


@pytest.mark.parametrize("module", FW_TESTS)
def test_module_passes_on_micropython(micropython, module):
    runner = Path(__file__).parent / "fw" / "run.py"
    result = micropython(runner, FIRMWARE, module)
    assert "0 failed" in result.stdout, result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout
