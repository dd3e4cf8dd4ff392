"""Where the firmware lives, and importing it unchanged on CPython.

Usage::

    from rhinoref.firmware import FIRMWARE_DIR, fw
    rules = fw("rules")          # the module firmware/referee/rules.py

The firmware is a plain folder (``firmware/``) copied to the board as-is: ``main.py`` at the
root and the ``referee`` package beside it. The host puts that folder on ``sys.path`` so the
very same modules run here, which is what makes the simulator and the tests honest.
"""

import importlib
import sys
from pathlib import Path

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"


def _ensure_path() -> None:
    path = str(FIRMWARE_DIR)
    if path not in sys.path:
        sys.path.insert(0, path)


def fw(name: str):
    """Import ``referee.<name>`` from the firmware folder and return the module."""
    _ensure_path()
    return importlib.import_module("referee." + name)


_ensure_path()
