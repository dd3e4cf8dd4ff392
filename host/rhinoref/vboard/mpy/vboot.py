# Entry point of the virtual board under the MicroPython unix port:
#     micropython -X heapsize=... vboot.py FD
# FD is the inherited socket to the host (rhinoref.vboard). One process is one boot of the
# board: a soft or hard reset ends it and the host starts the next.
#
# Order matters: the simulated modules are imported while the host's filesystem is still
# visible, then they replace the built-ins in sys.modules (the unix port looks there first),
# then the host's filesystem is unmounted and the board's flash (LittleFS on a 1.4 MB image
# file, as a Pico's) is mounted at "/" instead. From then on the firmware sees only its flash:
# relative paths, "..", open() and import all resolve inside it. A ROMFS partition, when the
# board has one (VirtualBoard(romfs_kb=)), is mounted at /rom as on a Pico built with one.

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


def _mount():
    rom_file = open(cfg["romfs"], "r+b") if cfg["romfs_bytes"] else None
    bdev = vb_rp2._Flash(open(cfg["flash"], "r+b"), cfg["flash_blocks"])
    vb_rp2._flash = bdev
    try:
        fs = vfs.VfsLfs2(bdev, progsize=256)
    except OSError:
        # A blank flash: format it, as the Pico's _boot.py does.
        vfs.VfsLfs2.mkfs(bdev, progsize=256)
        fs = vfs.VfsLfs2(bdev, progsize=256)
    vfs.umount("/")
    vfs.mount(fs, "/")
    if rom_file is None:
        return False
    # The ROMFS partition, mounted at /rom as MicroPython's boot does when it holds an image
    # (extmod/vfs.c, mp_vfs_mount_romfs_protected); an erased or damaged one is left unmounted.
    rom = vb_vfs.attach_rom(rom_file, cfg["romfs_bytes"])
    try:
        vfs.mount(vfs.VfsRom(rom), "/rom")
    except OSError:
        return False
    return True


_rom_mounted = _mount()
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
if _rom_mounted:
    sys.path.extend(("/rom", "/rom/lib"))
import os as _os_real

_os_real.chdir("/")
_mode = cfg["mode"]
del _name, _mod, _v, _os_real, _mount, _rom_mounted, cfg
gc.collect()
vb_repl.boot(_mode)
