"""Atomic checksummed files and line logs: corruption, power cuts at every byte, leftover tmp
files, FAT-style renames, a full flash (simulated everywhere; a real LittleFS on a RAM block
device under MicroPython). Runs on CPython and MicroPython."""

import binascii
import os
import random

from mptest import raises

from referee import storage
from referee.storage import CorruptFile, FlashFull

_ENOSPC = 28
_EEXIST = 17


class _Dir:
    """A fresh folder under /tmp, removed afterwards (MicroPython has no tempfile)."""

    def __enter__(self):
        self.path = "/tmp/rr-storage-%08x" % random.getrandbits(32)
        os.mkdir(self.path)
        return self

    def __exit__(self, *exc):
        _rmtree(self.path)
        return False

    def __call__(self, name):
        return self.path + "/" + name


def _rmtree(path):
    for name in os.listdir(path):
        p = path + "/" + name
        if os.stat(p)[0] & 0x4000:
            _rmtree(p)
        else:
            os.remove(p)
    os.rmdir(path)


def _raw(path):
    with open(path, "rb") as f:
        return f.read()


def _put(path, data):
    with open(path, "wb") as f:
        f.write(data)


class PowerCut(Exception):
    """Not an OSError: nothing in storage may catch it, as nothing runs after a power cut."""


class _Budget:
    def __init__(self, nbytes, exc):
        self.left = nbytes
        self.exc = exc


class _LimitedFile:
    """A real file that accepts ``budget.left`` more bytes, then raises ``budget.exc``."""

    def __init__(self, f, budget):
        self.f = f
        self.budget = budget

    def write(self, data):
        b = self.budget
        if len(data) > b.left:
            self.f.write(bytes(data[:b.left]))
            b.left = 0
            self.f.close()
            raise b.exc
        b.left -= len(data)
        return self.f.write(data)

    def __getattr__(self, name):
        return getattr(self.f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()
        return False


class _LimitedOpen:
    """Stands in for ``open`` inside storage: writes stop after a byte budget."""

    def __init__(self, nbytes, exc):
        self.budget = _Budget(nbytes, exc)

    def __enter__(self):
        storage.open = self
        return self

    def __exit__(self, *exc):
        del storage.open
        return False

    def __call__(self, path, mode="r"):
        f = open(path, mode)
        if "w" in mode or "a" in mode:
            return _LimitedFile(f, self.budget)
        return f


class _FatOS:
    """``os`` as on a FAT volume: rename refuses to replace an existing file (EEXIST).
    ``cut_after_remove`` simulates a power cut between storage's remove and rename."""

    def __init__(self, cut_after_remove=False):
        self.cut_after_remove = cut_after_remove
        self.stat = os.stat
        self.listdir = os.listdir
        self.mkdir = os.mkdir
        self.renames = 0

    def __enter__(self):
        storage.os = self
        return self

    def __exit__(self, *exc):
        storage.os = os
        return False

    def remove(self, path):
        os.remove(path)
        if self.cut_after_remove and not path.endswith(".tmp"):
            raise PowerCut()

    def rename(self, src, dst):
        try:
            os.stat(dst)
        except OSError:
            self.renames += 1
            return os.rename(src, dst)
        raise OSError(_EEXIST, "File exists")


def test_crc32_matches_binascii_and_the_check_value():
    assert storage.crc32_py(b"123456789") == 0xCBF43926  # the CRC-32 check value
    assert storage.crc32(b"123456789") == 0xCBF43926
    for data in (b"", b"\x00", b"\xff" * 7, bytes(range(256)), b'{"offset": -12}'):
        assert storage.crc32_py(data) == binascii.crc32(data) & 0xFFFFFFFF


def test_round_trip_and_header_format():
    with _Dir() as d:
        path = d("calib.json")
        storage.write_atomic(path, b'{"a": 1}')
        assert _raw(path) == b'rhinoref-file 1 len=8 crc32=%08x\n{"a": 1}' % storage.crc32(
            b'{"a": 1}')
        assert storage.read_checked(path) == b'{"a": 1}'
        storage.write_atomic(path, "héllo")  # str is stored as UTF-8
        assert storage.read_checked(path) == "héllo".encode()
        storage.write_atomic(path, b"")
        assert storage.read_checked(path) == b""
        assert os.listdir(d.path) == ["calib.json"]


def test_missing_file_is_an_enoent_oserror():
    with _Dir() as d:
        with raises(OSError) as err:
            storage.read_checked(d("calib.json"))
        assert storage.is_missing(err.value)
        assert "calib.json" in str(err.value)
        assert not storage.is_missing(OSError(_ENOSPC, "No space left on device"))
        assert not storage.is_missing(ValueError("x"))


def test_corruption_is_reported_with_the_file_name():
    with _Dir() as d:
        path = d("calib.json")
        storage.write_atomic(path, b'{"offset": 1234, "counts_per_gram": 2147.5}')
        good = _raw(path)

        flipped = bytearray(good)
        flipped[-5] ^= 0x01
        _put(path, flipped)
        with raises(CorruptFile) as err:
            storage.read_checked(path)
        assert str(err.value) == "calib.json: checksum mismatch"

        _put(path, good[:-10])
        with raises(CorruptFile) as err:
            storage.read_checked(path)
        assert "calib.json: truncated (" in str(err.value)

        _put(path, good + b"xx")
        with raises(CorruptFile) as err:
            storage.read_checked(path)
        assert "2 bytes too long" in str(err.value)

        _put(path, b"")
        with raises(CorruptFile) as err:
            storage.read_checked(path)
        assert str(err.value) == "calib.json: empty file"

        for junk in (b"{}", b"rhinoref-file x len=2 crc32=0\n{}", b"\xff" * 100,
                     b"rhinoref-file 1 len=2\n{}", b"rhinoref-file 1 len=2 crc32=zz\n{}"):
            _put(path, junk)
            with raises(CorruptFile) as err:
                storage.read_checked(path)
            assert "calib.json: not a rhinoref file" in str(err.value)

        _put(path, b"rhinoref-file 2 len=2 crc32=a3a6bf43\n{}")
        with raises(CorruptFile) as err:
            storage.read_checked(path)
        assert "unsupported file format version 2" in str(err.value)

        _put(path, b"x" * 40000)
        with raises(CorruptFile) as err:
            storage.read_checked(path)
        assert "too large" in str(err.value)


def test_every_flipped_byte_is_detected():
    with _Dir() as d:
        path = d("f.bin")
        storage.write_atomic(path, b'{"wall_g": 2.2, "roof_g": 4.8}')
        good = _raw(path)
        for i in range(len(good)):
            bad = bytearray(good)
            bad[i] ^= 0x10
            _put(path, bad)
            with raises(CorruptFile):
                storage.read_checked(path)


def test_power_cut_at_every_byte_keeps_the_old_file():
    with _Dir() as d:
        path = d("calib.json")
        old = b'{"version": 1, "old": true}'
        new = b'{"version": 1, "new": true, "longer": "yes"}'
        storage.write_atomic(path, old)
        total = len(storage.header(new)) + len(new)
        for cut in range(total):
            try:
                with _LimitedOpen(cut, PowerCut()):
                    storage.write_atomic(path, new)
            except PowerCut:
                pass
            else:
                raise AssertionError("no power cut at byte %d" % cut)
            assert storage.read_checked(path) == old
        storage.write_atomic(path, new)  # the next boot writes fine and cleans up
        assert storage.read_checked(path) == new
        assert os.listdir(d.path) == ["calib.json"]


def test_full_flash_raises_and_keeps_the_old_file():
    with _Dir() as d:
        path = d("calib.json")
        storage.write_atomic(path, b"old")
        for budget in (0, 10, 40):
            with _LimitedOpen(budget, OSError(_ENOSPC, "No space left on device")):
                with raises(FlashFull) as err:
                    storage.write_atomic(path, b"new" * 20)
            assert isinstance(err.value, OSError) and err.value.errno == _ENOSPC
            assert str(err.value) == (
                "flash full: could not write calib.json (the previous version is kept)")
            assert storage.read_checked(path) == b"old"
            assert os.listdir(d.path) == ["calib.json"]  # the partial .tmp was removed


def test_other_write_errors_pass_through_and_clean_up():
    with _Dir() as d:
        path = d("calib.json")
        with _LimitedOpen(5, OSError(5, "I/O error")):
            with raises(OSError) as err:
                storage.write_atomic(path, b"data" * 10)
        assert err.value.errno == 5 and not isinstance(err.value, FlashFull)
        assert os.listdir(d.path) == []
        with raises(OSError):
            storage.write_atomic(d("no/such/folder.json"), b"x")


def test_leftover_tmp_is_ignored_then_removed():
    with _Dir() as d:
        path = d("calib.json")
        storage.write_atomic(path, b"good")
        _put(path + ".tmp", b"rhinoref-file 1 len=99 crc32=0\nhalf-writ")
        assert storage.read_checked(path) == b"good"  # the target wins
        storage.write_atomic(path, b"better")
        assert storage.read_checked(path) == b"better"
        assert not storage.exists(path + ".tmp")
        _put(d("a.tmp"), b"x")
        _put(d("b.json.tmp"), b"x")
        assert storage.cleanup(d.path) == 2
        assert os.listdir(d.path) == ["calib.json"]


def test_complete_tmp_is_promoted_when_the_target_is_missing():
    with _Dir() as d:
        path = d("calib.json")
        storage.write_atomic(path, b"payload")
        os.rename(path, path + ".tmp")  # died after removing the target, before the rename
        assert storage.read_checked(path) == b"payload"
        assert storage.exists(path) and not storage.exists(path + ".tmp")
        _put(path + ".tmp", b"rhinoref-file 1 len=99 crc32=0\nhalf")
        os.remove(path)
        with raises(OSError) as err:
            storage.read_checked(path)  # a half tmp is no file
        assert storage.is_missing(err.value)


def test_fat_style_rename_and_a_cut_between_remove_and_rename():
    with _Dir() as d:
        path = d("calib.json")
        with _FatOS() as fat:
            storage.write_atomic(path, b"one")
            storage.write_atomic(path, b"two")  # EEXIST -> remove, rename
            assert fat.renames == 2
        assert storage.read_checked(path) == b"two"
        with _FatOS(cut_after_remove=True):
            try:
                storage.write_atomic(path, b"three")
            except PowerCut:
                pass
        assert not storage.exists(path)
        assert storage.read_checked(path) == b"three"  # recovered from the complete .tmp


def test_ensure_dir_and_remove():
    with _Dir() as d:
        storage.ensure_dir(d.path + "/games/old")
        storage.ensure_dir(d.path + "/games/old")  # twice is fine
        assert storage.exists(d.path + "/games/old")
        storage.remove(d("nothing-here"))  # missing is not an error
        _put(d("x"), b"1")
        storage.remove(d("x"))
        assert not storage.exists(d("x"))


class _FullFlashOs:
    # An os whose flash has no room for a folder (found by the virtual board's full-flash run).
    @staticmethod
    def stat(path):
        raise OSError(2, "ENOENT")

    @staticmethod
    def mkdir(path):
        raise OSError(_ENOSPC, "No space left on device")


def test_a_folder_on_a_full_flash_is_reported_as_a_full_flash():
    real = storage.os
    storage.os = _FullFlashOs()
    try:
        with raises(FlashFull) as err:
            storage.ensure_dir("/data/games")
    finally:
        storage.os = real
    assert err.value.errno == _ENOSPC
    assert str(err.value) == "flash full: could not make the folder /data"


def test_log_append_and_read():
    with _Dir() as d:
        path = d("game.jsonl")
        assert not storage.exists(path)
        with raises(OSError):
            list(storage.read_lines(path))
        lines = ['{"rhinoref": "game", "version": 1}', '{"t_ms": 0, "in": "wall"}', "", "ü"]
        for line in lines:
            storage.append_line(path, line)
        assert list(storage.read_lines(path)) == lines
        with raises(ValueError):
            storage.append_line(path, "two\nlines")
        assert list(storage.read_lines(path)) == lines


def test_torn_last_line_is_skipped_then_cut_off():
    with _Dir() as d:
        path = d("game.jsonl")
        storage.append_line(path, "one")
        storage.append_line(path, "two")
        with open(path, "ab") as f:
            f.write(b'{"t_ms": 12, "in": "ro')  # the power went here
        assert list(storage.read_lines(path)) == ["one", "two"]
        storage.append_line(path, "three")
        assert _raw(path) == b"one\ntwo\nthree\n"


def test_torn_tail_longer_than_the_copy_buffer():
    with _Dir() as d:
        path = d("trace.csv")
        good = ["row %d %s" % (i, "x" * 40) for i in range(30)]
        for line in good:
            storage.append_line(path, line)
        with open(path, "ab") as f:
            f.write(b"y" * 700)  # a torn fragment spanning several 256-byte chunks
        assert list(storage.read_lines(path)) == good
        storage.append_line(path, "end")
        assert list(storage.read_lines(path)) == good + ["end"]
        _put(path, b"z" * 600)  # only a fragment, no newline at all
        assert list(storage.read_lines(path)) == []
        storage.append_line(path, "fresh")
        assert _raw(path) == b"fresh\n"


def test_power_cut_during_append_at_every_byte():
    with _Dir() as d:
        path = d("game.jsonl")
        storage.append_line(path, "first")
        line = '{"t_ms": 1000, "in": "symbol", "symbol": "skip"}'
        for cut in range(len(line) + 1):
            _put(path, b"first\n")
            try:
                with _LimitedOpen(cut, PowerCut()):
                    storage.append_line(path, line)
            except PowerCut:
                pass
            assert list(storage.read_lines(path)) == ["first"]
            storage.append_line(path, "after")
            assert list(storage.read_lines(path)) == ["first", "after"]


def test_full_flash_while_appending():
    with _Dir() as d:
        path = d("game.jsonl")
        storage.append_line(path, "kept")
        with _LimitedOpen(3, OSError(_ENOSPC, "No space left on device")):
            with raises(FlashFull) as err:
                storage.append_line(path, "does not fit")
        assert "flash full: could not append to game.jsonl" == str(err.value)
        assert list(storage.read_lines(path)) == ["kept"]


def test_bad_bytes_in_a_log_line_are_skipped():
    with _Dir() as d:
        path = d("game.jsonl")
        _put(path, b"good\n\xff\xfe\xfd\nalso good\n")
        assert list(storage.read_lines(path)) == ["good", "also good"]


class _RAMBlockDev:
    """A block device in RAM for a real LittleFS (MicroPython's os.VfsLfs2)."""

    def __init__(self, block_size, blocks):
        self.block_size = block_size
        self.data = bytearray(block_size * blocks)

    def readblocks(self, n, buf, offset=0):
        a = n * self.block_size + offset
        buf[:] = self.data[a:a + len(buf)]

    def writeblocks(self, n, buf, offset=None):
        if offset is None:
            offset = 0
        a = n * self.block_size + offset
        self.data[a:a + len(buf)] = buf

    def ioctl(self, op, arg):
        if op == 4:  # block count
            return len(self.data) // self.block_size
        if op == 5:  # block size
            return self.block_size
        if op == 6:  # erase
            return 0
        return None


def test_real_littlefs_full_flash():
    vfs = getattr(os, "VfsLfs2", None)
    if vfs is None:
        return  # CPython: the simulated full flash above covers it
    bdev = _RAMBlockDev(512, 32)
    vfs.mkfs(bdev)
    os.mount(vfs(bdev), "/rr_lfs")
    try:
        path = "/rr_lfs/calib.json"
        storage.write_atomic(path, b'{"offset": 1}' * 10)
        fillers = []
        try:  # fill the flash with small committed files (a failed write gives its space back)
            for i in range(100):
                with open("/rr_lfs/fill%d" % i, "wb") as f:
                    fillers.append("/rr_lfs/fill%d" % i)
                    f.write(b"f" * 300)
        except OSError as err:
            assert err.errno == _ENOSPC
        assert len(fillers) > 10
        with raises(FlashFull):
            storage.write_atomic(path, b"new" * 600)
        assert storage.read_checked(path) == b'{"offset": 1}' * 10
        assert not storage.exists(path + ".tmp")

        log = "/rr_lfs/game.jsonl"
        written = []
        try:
            for i in range(1000):
                line = '{"t_ms": %d, "in": "wall"}' % (i * 1000)
                storage.append_line(log, line)
                written.append(line)
        except FlashFull:
            pass
        assert len(written) < 1000  # the flash did fill up
        assert list(storage.read_lines(log)) == written
        for name in fillers:
            storage.remove(name)
        storage.append_line(log, "room again")
        assert list(storage.read_lines(log))[-1] == "room again"
    finally:
        os.umount("/rr_lfs")
