"""Files on the board's flash that survive a power cut: atomic checksummed files and line logs.

Usage::

    from referee import storage

    storage.write_atomic("/data/calib.json", b'{"rhinoref": "calib", ...}')
    try:
        data = storage.read_checked("/data/calib.json")      # the bytes written, verified
    except storage.CorruptFile as err:                       # "calib.json: checksum mismatch"
        ...
    except OSError as err:                                   # storage.is_missing(err): no file
        ...

    storage.append_line("/data/game.jsonl", '{"t_ms": 1200, "in": "wall"}')
    for line in storage.read_lines("/data/game.jsonl"):     # complete lines only, as str
        ...

Checked file format, version 1: one ASCII header line, then the payload bytes unchanged::

    rhinoref-file 1 len=142 crc32=1c291ca3\\n
    {"rhinoref": "calib", "version": 1, ...}

``write_atomic`` writes ``path + ".tmp"`` and renames it over ``path``. LittleFS (the Pico's
filesystem) renames atomically, so after a power cut the file is either the old or the new one,
never a mixture. A leftover ``.tmp`` is removed by the next write; if the target itself is missing
(a FAT volume, where rename cannot replace), a complete ``.tmp`` is promoted by ``read_checked``.
A full flash raises ``FlashFull`` (an ``OSError`` with errno ENOSPC) and leaves the old file as it
was.

Logs are plain text lines (the game log of SPEC 3.1 stays a plain JSON-lines file the host can
download). A power cut during an append can leave a torn last line: readers skip it, and the next
``append_line`` cuts it off before writing, so a torn fragment never glues onto a good line.
"""

import os

try:
    from binascii import crc32 as _crc32
except ImportError:  # a MicroPython build without binascii.crc32: the pure version below
    _crc32 = None

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


_ENOENT = const(2)
_ENOSPC = const(28)
_EEXIST = const(17)
_CHUNK = const(256)  # copy buffer when cutting a torn line off a log
_MAX_CHECKED = const(32768)  # read_checked holds the whole file in RAM: refuse larger ones
FORMAT_VERSION = const(1)
_MAGIC = b"rhinoref-file "


class CorruptFile(ValueError):
    """A checked file is damaged or unreadable; the message names the file and the fault."""


class FlashFull(OSError):
    """The flash has no room for a write (errno ENOSPC); the previous file is untouched."""

    def __str__(self):
        return self.args[1] if len(self.args) > 1 else "flash full"


def _name(path):
    return path.rpartition("/")[2]


def is_missing(err):
    """True when an ``OSError`` means the file does not exist."""
    return isinstance(err, OSError) and err.errno == _ENOENT


def _missing(path):
    # CPython turns OSError(ENOENT, ...) into FileNotFoundError; MicroPython keeps OSError.
    return OSError(_ENOENT, _name(path) + ": no such file")


def crc32_py(data, crc=0):
    """CRC-32 (the zlib/PNG polynomial) in pure Python: equals ``binascii.crc32``.

    Nibble-at-a-time with a 16-entry table: small enough for flash, fast enough for files of a
    few KB (calibration is ~200 bytes).
    """
    crc = ~crc & 0xFFFFFFFF
    table = _NIBBLE_TABLE
    for byte in data:
        crc ^= byte
        crc = (crc >> 4) ^ table[crc & 15]
        crc = (crc >> 4) ^ table[crc & 15]
    return ~crc & 0xFFFFFFFF


_NIBBLE_TABLE = (
    0x00000000, 0x1DB71064, 0x3B6E20C8, 0x26D930AC, 0x76DC4190, 0x6B6B51F4, 0x4DB26158, 0x5005713C,
    0xEDB88320, 0xF00F9344, 0xD6D6A3E8, 0xCB61B38C, 0x9B64C2B0, 0x86D3D2D4, 0xA00AE278, 0xBDBDF21C,
)


def crc32(data):
    """CRC-32 of ``data`` as an unsigned int (binascii's where the build has it)."""
    if _crc32 is not None:
        return _crc32(data) & 0xFFFFFFFF
    return crc32_py(data)


def header(data):
    """The header line (bytes, with its newline) that ``write_atomic`` puts before ``data``."""
    return b"%s%d len=%d crc32=%08x\n" % (_MAGIC, FORMAT_VERSION, len(data), crc32(data))


def exists(path):
    try:
        os.stat(path)
        return True
    except OSError:
        return False


def remove(path):
    """Delete ``path``; a missing file is not an error."""
    try:
        os.remove(path)
    except OSError as err:
        if not is_missing(err):
            raise


def ensure_dir(path):
    """Create the folder ``path`` and its parents (``/data/games``) if they do not exist; a full
    flash raises ``FlashFull``."""
    parts = path.strip("/").split("/")
    here = ""
    for part in parts:
        if not part:
            continue
        here += "/" + part
        if not exists(here):
            try:
                os.mkdir(here)
            except OSError as err:
                if err.errno == _ENOSPC:
                    raise FlashFull(_ENOSPC, "flash full: could not make the folder %s" % here)
                raise


def cleanup(folder):
    """Remove leftover ``*.tmp`` files in ``folder`` (call at boot); returns how many.

    A checked ``.tmp`` that verifies and whose target is missing is the only complete copy
    (FAT: a cut between removing the target and the rename): it is promoted, not removed."""
    removed = 0
    base = folder.rstrip("/") + "/"
    for name in os.listdir(folder):
        if not name.endswith(".tmp"):
            continue
        path = base + name
        if not exists(path[:-4]):
            try:
                parse_checked(name, _read_whole(path))
                _replace(path, path[:-4])
                continue
            except (OSError, CorruptFile):
                pass
        remove(path)
        removed += 1
    return removed


def _replace(src, dst):
    try:
        os.rename(src, dst)
    except OSError as err:
        # FAT (and Windows) refuse to rename over an existing file. Removing first is not atomic,
        # but the complete .tmp stays behind and read_checked promotes it if we die in between.
        if err.errno != _EEXIST or not exists(dst):
            raise
        os.remove(dst)
        os.rename(src, dst)


def _flash_full(path, err):
    return FlashFull(_ENOSPC, "flash full: could not write %s (the previous version is kept)"
                     % _name(path))


def write_atomic(path, data):
    """Write ``data`` (bytes, or str as UTF-8) to ``path`` with a checksum header, atomically.

    Raises ``FlashFull`` when the flash is full (the old file stays as it was) and other
    ``OSError`` as they come (a missing folder, a read-only filesystem).
    """
    if isinstance(data, str):
        data = data.encode()
    tmp = path + ".tmp"
    remove(tmp)  # a stale half-written file from an earlier power cut
    try:
        f = open(tmp, "wb")
        try:
            f.write(header(data))
            f.write(data)
            f.flush()
            fsync = getattr(os, "fsync", None)  # CPython on a host; LittleFS commits on close
            if fsync is not None and hasattr(f, "fileno"):
                fsync(f.fileno())
        finally:
            f.close()
        _replace(tmp, path)
    except OSError as err:
        remove(tmp)  # give the space back; the target was never touched
        if err.errno == _ENOSPC:
            raise _flash_full(path, err)
        raise


def parse_checked(name, blob):
    """Verify ``blob`` (a whole checked file) and return its payload; ``CorruptFile`` if bad."""
    if not blob:
        raise CorruptFile(name + ": empty file")
    end = blob.find(b"\n")
    if not blob.startswith(_MAGIC) or end < 0 or end > 80:
        raise CorruptFile(name + ": not a rhinoref file (bad header)")
    fields = blob[len(_MAGIC):end].split()
    try:
        version = int(fields[0])
    except (IndexError, ValueError):
        version = -1
    if version < 0:
        raise CorruptFile(name + ": not a rhinoref file (bad header)")
    if version != FORMAT_VERSION:  # written by a newer firmware: do not guess its layout
        raise CorruptFile("%s: unsupported file format version %d" % (name, version))
    try:
        if not (fields[1].startswith(b"len=") and fields[2].startswith(b"crc32=")):
            raise ValueError
        length = int(fields[1][4:])
        crc = int(fields[2][6:], 16)
    except (IndexError, ValueError):
        raise CorruptFile(name + ": not a rhinoref file (bad header)")
    payload = blob[end + 1:]
    if len(payload) < length:
        raise CorruptFile("%s: truncated (%d of %d bytes)" % (name, len(payload), length))
    if len(payload) > length:
        raise CorruptFile("%s: %d bytes too long" % (name, len(payload) - length))
    if crc32(payload) != crc:
        raise CorruptFile(name + ": checksum mismatch")
    return payload


def _read_whole(path):
    size = os.stat(path)[6]
    if size > _MAX_CHECKED:
        raise CorruptFile("%s: too large (%d bytes)" % (_name(path), size))
    with open(path, "rb") as f:
        return f.read()


def read_checked(path):
    """The payload bytes of a file written by ``write_atomic``.

    Raises ``CorruptFile`` ("calib.json: checksum mismatch", "...: truncated (10 of 142 bytes)",
    "...: empty file", ...) and ``OSError`` with errno ENOENT when there is no such file.
    """
    try:
        blob = _read_whole(path)
    except OSError as err:
        if not is_missing(err):
            raise
        # Died between removing the target and renaming (only where rename cannot replace):
        # a .tmp that verifies is the newest complete version.
        tmp = path + ".tmp"
        try:
            payload = parse_checked(_name(path), _read_whole(tmp))
        except (OSError, CorruptFile):
            raise _missing(path)
        _replace(tmp, path)
        return payload
    return parse_checked(_name(path), blob)


def _size(path):
    try:
        return os.stat(path)[6]
    except OSError as err:
        if is_missing(err):
            return 0
        raise


def _cut_torn_tail(path, size):
    """Rewrite ``path`` without its unterminated last line (only after a power cut)."""
    buf = bytearray(_CHUNK)
    keep = 0  # bytes up to and including the last newline
    with open(path, "rb") as f:
        pos = size
        while pos > 0 and not keep:
            start = pos - _CHUNK if pos > _CHUNK else 0
            f.seek(start)
            n = f.readinto(memoryview(buf)[:pos - start])
            i = bytes(buf[:n]).rfind(b"\n")
            if i >= 0:
                keep = start + i + 1
            pos = start
        tmp = path + ".tmp"
        try:
            with open(tmp, "wb") as out:
                f.seek(0)
                left = keep
                while left:
                    n = f.readinto(memoryview(buf)[:left if left < _CHUNK else _CHUNK])
                    if not n:
                        break
                    out.write(memoryview(buf)[:n])
                    left -= n
        except OSError as err:
            remove(tmp)
            if err.errno == _ENOSPC:
                raise _flash_full(path, err)
            raise
    _replace(tmp, path)
    return size - keep


def append_line(path, line):
    """Append one line (str without newline) to a log file, creating it if needed.

    A torn last line left by a power cut is cut off first. Raises ``FlashFull`` when the flash
    is full (what was logged before stays readable) and ``ValueError`` for a line with a newline.
    """
    if "\n" in line:
        raise ValueError("a log line must not contain a newline")
    size = _size(path)
    if size:
        with open(path, "rb") as f:
            f.seek(size - 1)
            last = f.read(1)
        if last != b"\n":
            _cut_torn_tail(path, size)
    try:
        with open(path, "ab") as f:
            f.write(line.encode())
            f.write(b"\n")
    except OSError as err:
        if err.errno == _ENOSPC:
            raise FlashFull(_ENOSPC, "flash full: could not append to %s" % _name(path))
        raise


def read_lines(path, bad_as_bytes=False):
    """Yield the complete lines of a log as str (no newline); a torn last line is skipped.

    Lines that are not UTF-8 (flash damage) are skipped too, or with ``bad_as_bytes`` yielded
    as bytes so that the reader can report them. A missing file raises ``OSError`` (ENOENT)
    at the first iteration. Reads one line at a time: no whole-file buffer.
    """
    with open(path, "rb") as f:
        while True:
            raw = f.readline()
            if not raw or raw[-1:] != b"\n":
                return
            try:
                yield raw[:-1].decode()
            except UnicodeError:
                if bad_as_bytes:
                    yield raw[:-1]
