"""``rhinoref flash FIRMWARE.uf2``: put MicroPython on a Pico in BOOTSEL mode.

Usage::

    rhinoref flash RPI_PICO-20241129-v1.24.1.uf2          # finds the RPI-RP2 / RP2350 drive
    rhinoref flash firmware.uf2 --drive /media/me/RPI-RP2  # a drive named by hand
    rhinoref flash firmware.uf2 --bootloader               # a board running MicroPython is
                                                           # first sent to BOOTSEL by USB

A Pico in BOOTSEL mode (hold the BOOTSEL button while plugging it in) shows up as a USB drive
named RPI-RP2 (Pico, RP2040) or RP2350 (Pico 2) holding ``INFO_UF2.TXT``; copying a UF2 file
onto it flashes it, and the Pico reboots into the new firmware (the drive disappears). The file
is checked first: UF2 magic numbers in every 512-byte block, block numbers and counts
consistent per family, a Raspberry Pi family (RP2040 0xE48BFF56; RP2350 Arm-S 0xE48BFF59,
RISC-V 0xE48BFF5A, Arm-NS 0xE48BFF5B; "absolute" 0xE48BFF57 and "data" 0xE48BFF58 as
companions), and the family must match the chip the drive belongs to (the boot ROM silently
ignores a UF2 for the other chip).

Drives are looked for in ``/media/*/*``, ``/media/*``, ``/run/media/*/*``, ``/Volumes/*`` and on
Windows every drive letter. Exit codes: 0 flashed, 1 the Pico did not take the file (the drive
stayed), 2 bad file or wrong chip, 3 no BOOTSEL drive found.
"""

import glob
import os
import string
import struct
import sys
import time
from pathlib import Path

from ..errors import BoardError, InputError, RhinorefError

HELP = "copy a MicroPython UF2 onto a Pico in BOOTSEL mode"
EXAMPLE = """\
rhinoref flash RPI_PICO-20241129-v1.24.1.uf2
rhinoref flash RPI_PICO2-20241129-v1.24.1.uf2 --drive /media/$USER/RP2350
rhinoref flash firmware.uf2 --bootloader     # the board is running MicroPython now"""

BLOCK = 512
MAGIC_START0 = 0x0A324655  # "UF2\n"
MAGIC_START1 = 0x9E5D5157
MAGIC_END = 0x0AB16F30
FLAG_NOT_MAIN_FLASH = 0x00000001
FLAG_FAMILY_ID = 0x00002000
MAX_PAYLOAD = 476

FAMILIES = {
    0xE48BFF56: ("rp2040", "RP2040"),
    0xE48BFF57: ("absolute", None),
    0xE48BFF58: ("data", None),
    0xE48BFF59: ("rp2350-arm-s", "RP2350"),
    0xE48BFF5A: ("rp2350-riscv", "RP2350"),
    0xE48BFF5B: ("rp2350-arm-ns", "RP2350"),
}
CHIP_BOARD = {"RP2040": "Pico / Pico W", "RP2350": "Pico 2 / Pico 2 W"}
# INFO_UF2.TXT "Board-ID:" -> chip
BOARD_IDS = {"RPI-RP2": "RP2040", "RP2350": "RP2350"}

SEARCH_GLOBS = ["/media/*/*", "/media/*", "/run/media/*/*", "/Volumes/*"]


class NotTaken(RhinorefError):
    """The file was copied but the Pico did not reboot (exit code 1)."""


def add_arguments(parser):
    parser.add_argument("uf2", metavar="FIRMWARE.uf2",
                        help="a MicroPython UF2 for the Pico (RP2040) or Pico 2 (RP2350)")
    parser.add_argument("--drive", metavar="PATH",
                        help="the mounted BOOTSEL drive (default: look for it)")
    parser.add_argument("--bootloader", action="store_true",
                        help="first send a board running MicroPython to BOOTSEL mode over USB "
                        "(machine.bootloader()), then flash it")
    parser.add_argument("--port", help="with --bootloader: the board's serial port")
    parser.add_argument("--wait", type=float, default=15.0, metavar="SECONDS",
                        help="how long to wait for the drive to appear (--bootloader) and to go "
                        "away after the copy (default %(default)s; 0: do not wait)")


# --- UF2 files --------------------------------------------------------------------------------


class Uf2:
    """What a UF2 file holds: ``families`` {family id: number of blocks}, ``chip``, sizes."""

    def __init__(self, path, size, families, payload, chip):
        self.path, self.size, self.families = path, size, families
        self.payload, self.chip = payload, chip

    def family_names(self):
        return ", ".join(FAMILIES.get(f, ("0x%08X" % f, None))[0] for f in sorted(self.families))


def read_uf2(path):
    """Check a UF2 file block by block; return a ``Uf2`` or raise ``InputError`` saying why not."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("%s does not exist" % path) from None
    except OSError as err:
        raise InputError("cannot read %s: %s" % (path, err.strerror or err)) from None
    name = path.name
    if not data:
        raise InputError("%s is empty: not a UF2 file" % name)
    if data[:4] != b"UF2\n":
        hint = ""
        if data[:4] == b"\x7fELF":
            hint = " (it looks like an ELF file: use the .uf2 next to it)"
        raise InputError("%s is not a UF2 file: it does not start with 'UF2\\n'%s" % (name, hint))
    if len(data) % BLOCK:
        raise InputError("%s is not a whole UF2 file: %d bytes is not a multiple of 512 "
                         "(cut short?)" % (name, len(data)))
    seen = {}  # family -> (num_blocks, set of block numbers)
    payload = 0
    for index in range(len(data) // BLOCK):
        block = data[index * BLOCK:(index + 1) * BLOCK]
        m0, m1, flags, addr, size, number, count, family = struct.unpack_from("<8I", block)
        (end,) = struct.unpack_from("<I", block, BLOCK - 4)
        if m0 != MAGIC_START0 or m1 != MAGIC_START1 or end != MAGIC_END:
            raise InputError("%s block %d: bad UF2 magic numbers (damaged file?)" % (name, index))
        if not flags & FLAG_FAMILY_ID:
            raise InputError("%s block %d: no family id; Pico UF2 files always name their chip"
                             % (name, index))
        if size > MAX_PAYLOAD:
            raise InputError("%s block %d: payload of %d bytes is more than a UF2 block holds"
                             % (name, index, size))
        if count == 0 or number >= count:
            raise InputError("%s block %d: block number %d of %d is out of range"
                             % (name, index, number, count))
        known = seen.setdefault(family, (count, set()))
        if known[0] != count:
            raise InputError("%s block %d: says %d blocks, earlier blocks of this family said %d"
                             % (name, index, count, known[0]))
        if number in known[1]:
            raise InputError("%s block %d: block number %d appears twice" % (name, index, number))
        known[1].add(number)
        if not flags & FLAG_NOT_MAIN_FLASH:
            payload += size
    for family, (count, numbers) in seen.items():
        if len(numbers) != count:
            label = FAMILIES.get(family, ("0x%08X" % family,))[0]
            raise InputError("%s: family %s has %d of its %d blocks (cut short?)"
                             % (name, label, len(numbers), count))
    unknown = [f for f in seen if f not in FAMILIES]
    if unknown:
        raise InputError("%s is a UF2 for another chip (family 0x%08X), not a Raspberry Pi Pico"
                         % (name, unknown[0]))
    chips = {FAMILIES[f][1] for f in seen} - {None}
    if len(chips) > 1:
        raise InputError("%s holds images for both RP2040 and RP2350: not a MicroPython UF2" % name)
    families = {f: c for f, (c, _) in seen.items()}
    return Uf2(path, len(data), families, payload, chips.pop() if chips else None)


# --- BOOTSEL drives ---------------------------------------------------------------------------


class Drive:
    def __init__(self, path, board_id, model):
        self.path, self.board_id, self.model = Path(path), board_id, model
        self.chip = BOARD_IDS.get(board_id)

    def __str__(self):
        return "%s (%s)" % (self.path, self.model or self.board_id or "UF2 drive")


def read_drive(path):
    """The ``Drive`` at ``path`` if it is a Pico in BOOTSEL mode (INFO_UF2.TXT), else None."""
    info = Path(path) / "INFO_UF2.TXT"
    try:
        text = info.read_text(errors="replace")
    except OSError:
        return None
    fields = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip().lower()] = value.strip()
    board_id, model = fields.get("board-id"), fields.get("model")
    if board_id in BOARD_IDS or (model or "").startswith("Raspberry Pi RP2"):
        return Drive(path, board_id, model)
    return None


def _candidates():
    for pattern in SEARCH_GLOBS:
        yield from glob.glob(pattern)
    if os.name == "nt":
        for letter in string.ascii_uppercase:
            root = "%s:\\" % letter
            if os.path.exists(root):
                yield root


def find_bootsel_drives():
    """Mounted Picos in BOOTSEL mode, as ``Drive`` objects."""
    found, seen = [], set()
    for path in _candidates():
        try:
            real = os.path.realpath(path)
        except OSError:
            continue
        if real in seen or not os.path.isdir(path):
            continue
        seen.add(real)
        drive = read_drive(path)
        if drive:
            found.append(drive)
    return found


def _wait_for(predicate, seconds, step=0.25):
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step)


def choose_drive(given, wait=0.0):
    if given:
        drive = read_drive(given)
        if drive is None:
            if not os.path.isdir(given):
                raise BoardError("%s is not a mounted drive" % given)
            raise BoardError("%s holds no INFO_UF2.TXT of a Raspberry Pi boot ROM: it is not "
                             "a Pico in BOOTSEL mode" % given)
        return drive
    drives = _wait_for(find_bootsel_drives, wait)
    if len(drives) == 1:
        return drives[0]
    if drives:
        raise BoardError("%d Picos in BOOTSEL mode: %s; choose one with --drive"
                         % (len(drives), ", ".join(str(d) for d in drives)))
    raise BoardError(
        "no Pico in BOOTSEL mode found (looked in %s%s). Hold the BOOTSEL button while plugging "
        "the Pico in: it appears as a drive named RPI-RP2 (Pico) or RP2350 (Pico 2). If it "
        "shows up but is not mounted, mount it or pass --drive PATH; a board running "
        "MicroPython can be sent there with --bootloader"
        % (", ".join(SEARCH_GLOBS), " and drive letters" if os.name == "nt" else ""))


def enter_bootloader(port=None):
    """Ask a board running MicroPython to reboot into BOOTSEL mode (``machine.bootloader()``)."""
    from mpremote.transport import TransportError

    from ..boardlink import open_board

    transport = open_board(port)
    try:
        transport.exec_raw_no_follow("import machine\nmachine.bootloader()")
    except (TransportError, OSError):
        pass  # the USB serial port vanishes as the board reboots: expected
    finally:
        try:
            transport.close()
        except Exception:
            pass


# --- copying ----------------------------------------------------------------------------------


def copy_uf2(uf2, drive, out=None):
    """Copy the file onto the drive; the Pico may reboot as the last block lands."""
    out = out or sys.stdout
    dest = drive.path / uf2.path.name
    data = uf2.path.read_bytes()
    written = 0
    try:
        with open(dest, "wb") as f:
            for i in range(0, len(data), 64 * 1024):
                f.write(data[i:i + 64 * 1024])
                written = min(len(data), i + 64 * 1024)
            f.flush()
            os.fsync(f.fileno())
    except OSError as err:
        # The boot ROM reboots as soon as it has every block, which can yank the drive away
        # before the OS finishes closing the file: after the last byte that is success.
        if written < len(data):
            raise BoardError("copying to %s failed after %d of %d bytes: %s (the Pico keeps its "
                             "old firmware; retry)"
                             % (drive.path, written, len(data), err.strerror or err)) from None
    return dest


def run(args) -> int:
    uf2 = read_uf2(args.uf2)
    if args.bootloader and not args.drive:
        enter_bootloader(args.port)
        print("flash: asked the board to enter BOOTSEL mode; waiting for its drive")
        drive = choose_drive(None, wait=max(args.wait, 1.0))
    else:
        drive = choose_drive(args.drive)
    if uf2.chip and drive.chip and uf2.chip != drive.chip:
        raise InputError(
            "%s is for the %s (%s) but the drive at %s is an %s (%s): download the UF2 for "
            "the %s" % (uf2.path.name, uf2.chip, CHIP_BOARD[uf2.chip], drive.path, drive.chip,
                        CHIP_BOARD[drive.chip], CHIP_BOARD[drive.chip]))
    print("flash: %s: %d KB for %s (%s) -> %s" % (
        uf2.path.name, uf2.payload // 1024, uf2.chip or "RP2040/RP2350", uf2.family_names(), drive))
    copy_uf2(uf2, drive)
    if args.wait <= 0:
        print("flash: copied; the Pico reboots into the new firmware once it has taken the file")
        return 0
    gone = _wait_for(lambda: read_drive(drive.path) is None, args.wait)
    if not gone:
        raise NotTaken("the drive %s is still there %g s after the copy: the Pico did not take "
                       "the file (is it the UF2 for this board?)" % (drive.path, args.wait))
    print("flash: done; the Pico rebooted into the new firmware (deploy with 'rhinoref deploy')")
    return 0
