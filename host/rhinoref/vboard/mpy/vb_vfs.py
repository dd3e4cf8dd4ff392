# The virtual board's `vfs` (sys.modules["vfs"]): no VfsPosix, so nothing can mount the host's
# filesystem again; and `rom_ioctl`, the ROMFS partition of a MicroPython build made with one
# (docs/heap.md: the referee's bytecode then runs in place from flash, not from the heap).
#
# The partition is a bytearray allocated once at boot (vboot.py), before the firmware runs, and
# mirrored to an image file on the host so it survives power cycles. Its bytes sit in the
# MicroPython heap, but in a region the firmware never shares: the heap is that much larger
# (VirtualBoard.heap_kb) and the firmware's heap figures are measured above it. Operations as
# the MicroPython docs give them for ports that hand out a memoryview (vfs.rst, rom_ioctl):
#     1 -> number of partitions; 2, id -> the partition; 3, id, [offset,] length -> erase
#     (returns the minimum write size); 4, id, offset, buf -> program; 5, id -> finish;
#     6, id -> the erase block size.
# As on NOR flash, erasing sets bytes to 0xff and programming can only clear bits.

import vfs as _vfs

mount = _vfs.mount
umount = _vfs.umount
VfsLfs2 = _vfs.VfsLfs2
VfsLfs1 = _vfs.VfsLfs1
VfsFat = _vfs.VfsFat
VfsRom = _vfs.VfsRom

_BLOCK = 4096
_PAGE = 256  # the minimum write size of the RP2040's flash
_EINVAL = 22
_rom = None  # memoryview over the partition
_rom_file = None  # its image file on the host, open since before the host's files went away


def attach_rom(f, size):
    """Load the partition from its image file ``f`` (opened by vboot.py); a memoryview."""
    global _rom, _rom_file
    buf = bytearray(size)
    f.seek(0)
    f.readinto(buf)
    _rom = memoryview(buf)
    _rom_file = f
    return _rom


def _check(offset, length, align=1):
    if offset < 0 or length < 0 or offset % align or offset + length > len(_rom):
        raise OSError(_EINVAL)


def _program(offset, data):
    rom = _rom
    for i in range(len(data)):
        rom[offset + i] &= data[i]
    _rom_file.seek(offset)
    _rom_file.write(rom[offset:offset + len(data)])


def rom_ioctl(op, *args):
    if op == 1:
        return 1 if _rom is not None else 0
    if _rom is None or not args or args[0] != 0:
        return -_EINVAL
    if op == 2:
        return _rom
    if op == 3:
        offset, length = (args[1], args[2]) if len(args) == 3 else (0, args[1])
        end = offset + (length + _BLOCK - 1) // _BLOCK * _BLOCK
        _check(offset, end - offset, _BLOCK)
        blank = b"\xff" * _BLOCK
        for at in range(offset, end, _BLOCK):
            _rom[at:at + _BLOCK] = blank
            _rom_file.seek(at)
            _rom_file.write(blank)
        return _PAGE
    if op == 4:
        _check(args[1], len(args[2]))
        _program(args[1], args[2])
        return 0
    if op == 5:
        _rom_file.flush()
        return 0
    if op == 6:
        return _BLOCK
    return -_EINVAL
