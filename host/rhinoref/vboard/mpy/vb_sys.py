# The virtual board's `sys` (sys.modules["sys"]): a Pico's: platform "rp2", the board's machine
# name, stderr on the same serial stream as stdout. Lists and streams are the real ones.

import sys as _s

argv = []
byteorder = _s.byteorder
exit = _s.exit
maxsize = _s.maxsize
modules = _s.modules
path = _s.path
platform = "rp2"
print_exception = _s.print_exception
stdin = _s.stdin
stdout = _s.stdout
stderr = _s.stdout
version = _s.version
version_info = _s.version_info
ps1 = ">>> "
ps2 = "... "


class _Implementation:
    name = "micropython"
    version = _s.implementation.version
    _mpy = _s.implementation._mpy
    _build = "RPI_PICO"
    _machine = "Raspberry Pi Pico (rhinoref virtual board) with RP2040"

    def __repr__(self):
        return "(name='micropython', version=%r, _machine=%r, _mpy=%d, _build=%r)" % (
            self.version, self._machine, self._mpy, self._build)


implementation = _Implementation()
