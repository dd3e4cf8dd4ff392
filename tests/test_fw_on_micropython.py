"""Every MicroPython-compatible firmware test module (tests/fw/test_*.py) also runs on the real
MicroPython unix port with a 192 KB heap, and must pass there exactly as on CPython.

The firmware under test is compiled to ``.mpy`` first, by ``rhinoref deploy``'s own build: a
board runs bytecode (files or ROMFS), never compiles ``detector.py`` in its own heap, so the
tests should not spend their 192 KB on that either (``tests/test_mpy_cross.py`` compiles
every firmware file with mpy-cross, MicroPython's own compiler). The test modules are
compiled the same way, for the same reason (tests/rel_mpy.py).
"""

from pathlib import Path

import pytest

from rel_mpy import compiled_firmware, compiled_fw_tests

FW_TESTS = sorted(p.stem for p in (Path(__file__).parent / "fw").glob("test_*.py"))


@pytest.fixture(scope="module")
def mpy_path(tmp_path_factory):
    """The compiled firmware's folder and the compiled test modules', as run.py takes them."""
    work = tmp_path_factory.mktemp("fw")
    return "%s:%s" % (compiled_firmware(work), compiled_fw_tests(work))


@pytest.mark.parametrize("module", FW_TESTS)
def test_module_passes_on_micropython(micropython, mpy_path, module):
    runner = Path(__file__).parent / "fw" / "run.py"
    result = micropython(runner, mpy_path, module)
    assert "0 failed" in result.stdout, result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout

