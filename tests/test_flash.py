"""rhinoref flash: UF2 checks, finding the BOOTSEL drive, copying, and the messages on failure."""

import struct
import threading
import time
import types

import pytest

from boardfakes import BoardEnv, FakeFS, PtyRawRepl
from rhinoref.cli import main
from rhinoref.cmd import flash
from rhinoref.cmd.flash import read_uf2
from rhinoref.errors import InputError

RP2040, ABSOLUTE, RP2350_ARM_S, SAMD21 = 0xE48BFF56, 0xE48BFF57, 0xE48BFF59, 0x68ED2B88
INFO_RP2040 = "UF2 Bootloader v3.0\nModel: Raspberry Pi RP2\nBoard-ID: RPI-RP2\n"
INFO_RP2350 = "UF2 Bootloader v1.0\nModel: Raspberry Pi RP2350\nBoard-ID: RP2350\n"


def block(number, count, family, addr=0x10000000, flags=0x2000, end=flash.MAGIC_END, size=256):
    b = bytearray(512)
    struct.pack_into("<8I", b, 0, flash.MAGIC_START0, flash.MAGIC_START1, flags,
                     addr + 256 * number, size, number, count, family)
    fill = min(size, flash.MAX_PAYLOAD)
    b[32:32 + fill] = bytes([number & 0xFF]) * fill
    struct.pack_into("<I", b, 508, end)
    return bytes(b)


def uf2(tmp_path, blocks, name="firmware.uf2"):
    path = tmp_path / name
    path.write_bytes(b"".join(blocks))
    return path


def pico_uf2(tmp_path, n=8, name="RPI_PICO-v1.24.1.uf2"):
    return uf2(tmp_path, [block(i, n, RP2040) for i in range(n)], name)


def pico2_uf2(tmp_path, n=8, name="RPI_PICO2-v1.24.1.uf2"):
    # As picotool writes them: the RP2350-E10 workaround block (family "absolute", flagged
    # not-main-flash here) first, then the image.
    e10 = block(0, 2, ABSOLUTE, addr=0x10FFFF00, flags=0x2000 | 1)
    return uf2(tmp_path, [e10, block(1, 2, ABSOLUTE, addr=0x10FFFF00, flags=0x2000 | 1)]
               + [block(i, n, RP2350_ARM_S) for i in range(n)], name)


def drive(tmp_path, name="RPI-RP2", info=INFO_RP2040):
    path = tmp_path / "media" / "me" / name
    path.mkdir(parents=True)
    (path / "INFO_UF2.TXT").write_text(info)
    (path / "INDEX.HTM").write_text("<html>")
    return path


@pytest.fixture
def media(tmp_path, monkeypatch):
    monkeypatch.setattr(flash, "SEARCH_GLOBS", [str(tmp_path / "media" / "*" / "*")])
    return tmp_path


# --- UF2 checks -----------------------------------------------------------------------------------


def test_reads_a_pico_uf2():
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        info = read_uf2(pico_uf2(Path(d), n=5))
    assert info.chip == "RP2040" and info.families == {RP2040: 5} and info.payload == 5 * 256


def test_reads_a_pico2_uf2_with_its_e10_block(tmp_path):
    info = read_uf2(pico2_uf2(tmp_path, n=4))
    assert info.chip == "RP2350"
    assert info.families == {ABSOLUTE: 2, RP2350_ARM_S: 4}
    assert info.payload == 4 * 256  # the not-main-flash blocks do not count
    assert info.family_names() == "absolute, rp2350-arm-s"


@pytest.mark.parametrize("content, message", [
    (b"print('hello')\n", "is not a UF2 file"),
    (b"\x7fELF" + bytes(600), "looks like an ELF file"),
    (b"", "is empty"),
    (block(0, 2, RP2040) + block(1, 2, RP2040)[:300], "not a multiple of 512"),
    (block(0, 3, RP2040) + block(2, 3, RP2040), "has 2 of its 3 blocks"),
    (block(0, 2, RP2040) + block(1, 2, RP2040, end=0), "block 1: bad UF2 magic"),
    (block(0, 2, RP2040) + block(0, 2, RP2040), "appears twice"),
    (block(0, 2, RP2040) + block(1, 3, RP2040), "says 3 blocks"),
    (block(0, 1, SAMD21), "another chip (family 0x68ED2B88)"),
    (block(0, 1, RP2040, flags=0), "no family id"),
    (block(5, 2, RP2040), "out of range"),
    (block(0, 1, RP2040, size=500), "more than a UF2 block holds"),
    (block(0, 1, RP2040) + block(0, 1, RP2350_ARM_S), "both RP2040 and RP2350"),
])
def test_bad_uf2_files_are_refused_with_the_reason(tmp_path, content, message):
    path = tmp_path / "bad.uf2"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message.replace("(", "\\(").replace(")", "\\)")):
        read_uf2(path)


def test_missing_file_is_exit_2(tmp_path, capsys):
    assert main(["flash", str(tmp_path / "nope.uf2"), "--wait", "0"]) == 2
    assert "nope.uf2 does not exist" in capsys.readouterr().err


# --- drives and copying -------------------------------------------------------------------------


def test_flashes_the_drive_it_finds(media, capsys):
    target = drive(media)
    path = pico_uf2(media)
    assert main(["flash", str(path), "--wait", "0"]) == 0
    assert (target / path.name).read_bytes() == path.read_bytes()
    out = capsys.readouterr().out
    assert "for RP2040 (rp2040)" in out and str(target) in out


def test_flashes_a_drive_named_by_hand(tmp_path):
    target = drive(tmp_path, "RP2350", INFO_RP2350)
    path = pico2_uf2(tmp_path)
    assert main(["flash", str(path), "--drive", str(target), "--wait", "0"]) == 0
    assert (target / path.name).read_bytes() == path.read_bytes()


def test_no_drive_is_exit_3_with_what_to_do(media, capsys):
    assert main(["flash", str(pico_uf2(media)), "--wait", "0"]) == 3
    err = capsys.readouterr().err
    assert "rhinoref: no Pico in BOOTSEL mode found" in err and "Hold the BOOTSEL button" in err


def test_an_ordinary_usb_stick_is_not_a_pico(media, capsys):
    stick = media / "media" / "me" / "STICK"
    stick.mkdir(parents=True)
    (stick / "INFO_UF2.TXT").write_text(
        "UF2 Bootloader v3.1\nModel: Adafruit Feather M0\nBoard-ID: SAMD21G18A\n")
    assert main(["flash", str(pico_uf2(media)), "--wait", "0"]) == 3
    assert main(["flash", str(pico_uf2(media)), "--drive", str(stick), "--wait", "0"]) == 3
    assert "not a Pico in BOOTSEL mode" in capsys.readouterr().err


def test_two_drives_need_a_choice(media, capsys):
    drive(media, "RPI-RP2")
    drive(media, "RP2350", INFO_RP2350)
    assert main(["flash", str(pico_uf2(media)), "--wait", "0"]) == 3
    assert "2 Picos in BOOTSEL mode" in capsys.readouterr().err


def test_wrong_chip_is_refused_before_copying(media, capsys):
    target = drive(media, "RPI-RP2")
    path = pico2_uf2(media)
    assert main(["flash", str(path), "--wait", "0"]) == 2
    assert "is for the RP2350 (Pico 2 / Pico 2 W) but the drive" in capsys.readouterr().err
    assert not (target / path.name).exists()


def test_waits_for_the_pico_to_reboot(media, capsys):
    target = drive(media)
    path = pico_uf2(media)

    def boot_rom():  # takes the file, then the drive goes away
        deadline = time.monotonic() + 5
        while not (target / path.name).exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.1)
        (target / "INFO_UF2.TXT").unlink()

    rom = threading.Thread(target=boot_rom)
    rom.start()
    assert main(["flash", str(path), "--wait", "5"]) == 0
    rom.join()
    assert "rebooted into the new firmware" in capsys.readouterr().out


def test_a_drive_that_stays_means_the_file_was_not_taken(media, capsys):
    drive(media)
    assert main(["flash", str(pico_uf2(media)), "--wait", "0.3"]) == 1
    assert "did not take the file" in capsys.readouterr().err


def test_bootloader_option_sends_a_running_board_to_bootsel(media, capsys):
    calls = []
    machine = types.SimpleNamespace(bootloader=lambda: (calls.append(1), drive(media)))
    board = PtyRawRepl(BoardEnv(FakeFS(), modules={"machine": machine}))
    try:
        path = pico_uf2(media)
        assert main(["flash", str(path), "--bootloader", "--port", board.path, "--wait", "0"]) == 0
        assert calls == [1]
        assert (media / "media" / "me" / "RPI-RP2" / path.name).exists()
    finally:
        board.close()


def test_help_has_an_example(capsys):
    with pytest.raises(SystemExit):
        main(["flash", "--help"])
    assert "rhinoref flash RPI_PICO" in capsys.readouterr().out
