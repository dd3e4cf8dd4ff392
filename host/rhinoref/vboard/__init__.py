"""The virtual board: the unchanged firmware on real MicroPython behind a serial port.

Usage::

    from rhinoref.vboard import VirtualBoard
    with VirtualBoard() as vb:          # an idle table, real-time clock, a temporary flash
        print(vb.port)                  # mpremote connect <port> exec "print(1)"

See ``rhinoref.vboard.core`` and docs/virtual-board.md.
"""

from .core import VirtualBoard

__all__ = ["VirtualBoard"]
