# Entry point of the virtual board under the MicroPython unix port:
#     micropython -X heapsize=... vboot.py FD
# FD is the inherited socket to the host (rhinoref.vboard). One process is one boot of the
# board: a soft or hard reset ends it and the host starts the next.
#
# Order matters: the simulated modules are imported while the host's filesystem is still
# visible, then they replace the built-ins in sys.modules (the unix port looks there first),
# then the host's filesystem is unmounted and the board's flash (LittleFS on a 1.4 MB image
# file, as a Pico's) is mounted at "/" instead. From then on the firmware sees only its flash:
# relative paths, "..", open() and import all resolve inside it.

import sys
import gc
import vfs

import vb_hw

cfg = vb_hw.connect(int(sys.argv[1]))

import vb_time
import vb_machine
import vb_rp2
import vb_neopixel
import vb_os
import vb_vfs
import vb_micropython
import vb_sys
import vb_select
import vb_repl


class _FlashBdev:
    # The flash filesystem's block device: 4 KB erase blocks of a file on the host, opened
    # before the host's filesystem disappears.
    def __init__(self, f, nblocks):
        self.f = f
        self.n = nblocks

    def readblocks(self, block, buf, off=0):
        self.f.seek(block * 4096 + off)
        self.f.readinto(buf)

    def writeblocks(self, block, buf, off=None):
        if off is None:
            self.ioctl(6, block)
            off = 0
        self.f.seek(block * 4096 + off)
        self.f.write(buf)

    def ioctl(self, op, arg):
        if op == 4:
            return self.n
        if op == 5:
            return 4096
        if op == 6:
            self.f.seek(arg * 4096)
            self.f.write(b"\xff" * 4096)
            return 0
        if op == 3:
            self.f.flush()
        return 0


def _mount():
    bdev = _FlashBdev(open(cfg["flash"], "r+b"), cfg["flash_blocks"])
    vb_rp2._flash = bdev
    try:
        fs = vfs.VfsLfs2(bdev, progsize=256)
    except OSError:
        # A blank flash: format it, as the Pico's _boot.py does.
        vfs.VfsLfs2.mkfs(bdev, progsize=256)
        fs = vfs.VfsLfs2(bdev, progsize=256)
    vfs.umount("/")
    vfs.mount(fs, "/")


_mount()
vb_machine._boot(cfg["boot"])
_v = sys.version.split("MicroPython ")[-1]
vb_os._set_uname(_v.split(" ")[0], _v + " (rhinoref virtual board)", vb_sys.implementation._machine)
for _name, _mod in (
    ("time", vb_time), ("utime", vb_time), ("machine", vb_machine), ("rp2", vb_rp2),
    ("neopixel", vb_neopixel), ("os", vb_os), ("uos", vb_os), ("vfs", vb_vfs),
    ("micropython", vb_micropython), ("sys", vb_sys), ("select", vb_select),
    ("uselect", vb_select),
):
    sys.modules[_name] = _mod
# What a Pico does not have, or what would reach outside the board.
for _name in ("socket", "ssl", "tls", "termios", "_thread", "requests", "mip", "websocket",
              "ffi", "cryptolib", "platform", "vb_hw"):
    sys.modules[_name] = None
sys.path[:] = ["", ".frozen", "/lib"]
import os as _os_real

_os_real.chdir("/")
_mode = cfg["mode"]
del _name, _mod, _v, _os_real, _mount, _FlashBdev, cfg
gc.collect()
vb_repl.boot(_mode)
