"""Reliability on the virtual board (issue 8, parts 1, 2 and 6), small size: the firmware
deployed as .mpy and booted by main.py on MicroPython with a Pico-sized heap, behind a pty.
Fuzz lines through the serial port, damaged files at boot, a full flash, and power cuts in the
middle of ``rhinoref deploy``. bench/bench_reliability.py runs them at full size; the harness
is tests/rel_vboard.py."""

import pytest

from rhinoref.mpy import MICROPYTHON_MISSING, micropython_binary

pytestmark = pytest.mark.skipif(micropython_binary() is None, reason=MICROPYTHON_MISSING)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("relvb")


@pytest.fixture(scope="module")
def image(work):
    from rel_vboard import deployed_image

    return deployed_image(work)


def test_fuzz_lines_through_the_serial_port(image, work):
    from rel_vboard import fuzz_vboard

    tally = fuzz_vboard(image, work, lines=400, seed=41)
    assert tally.lines == 400 and tally.replies == 400 and tally.missing == 0, (
        tally.missing_lines, tally.bad_replies, tally.board_errors[-3:])
    assert tally.bad_replies == [] and tally.internal_errors == []
    assert tally.changed_by_rejected == [], tally.changed_by_rejected[:3]
    assert tally.rejected > 200
    assert tally.output_problems == [] and tally.boots == 1  # no traceback, no reboot


def test_damaged_files_at_boot_of_main_py(image, work):
    from rel_vboard import damaged_boots

    results = damaged_boots(image, work, seed=42)
    assert len(results) >= 12
    assert [(name, probs) for name, probs in results if probs] == []


def test_a_full_flash_on_the_board(image, work):
    from rel_vboard import flash_full_on_board

    assert flash_full_on_board(image, work) == []


def test_power_cuts_during_deploy_leave_old_or_new_firmware(work):
    from rel_vboard import deploy_cuts

    r = deploy_cuts(work, cuts=3, seed=43)
    assert r["cuts"] == 3 and r["old"] + r["new"] == 3, r
    assert r["bad"] == [] and r["failed_boot"] == [], r


def test_the_deploy_check_sees_a_mix_and_a_left_journal():
    from rel_vboard import _which

    sets = {"A": {"/main.py": b"a", "/referee/app.mpy": b"a1"},
            "B": {"/main.py": b"b", "/referee/app.mpy": b"b1"}}
    assert _which({"/main.py": b"a", "/referee/app.mpy": b"a1"}, sets) == "A"
    assert _which({"/main.py": b"b", "/referee/app.mpy": b"b1",
                   "/referee/app.mpy.new": b"a1"}, sets) == "B"  # staged leftovers: harmless
    assert _which({"/main.py": b"a", "/referee/app.mpy": b"b1"}, sets).startswith("mixed")
    assert _which({"/main.py": b"a", "/referee/app.mpy": b"a1", "/.deploy": b"{}"},
                  sets).startswith("journal")



def test_a_power_cut_while_the_host_answers_does_not_kill_the_virtual_board():
    # Found by the deploy cuts: MicroPython killed while the host was answering its request
    # for samples broke the pipe in the host's thread, which died: the virtual board never
    # came back (no boot after the cut).
    import socket

    from rhinoref.vboard import VirtualBoard

    vb = VirtualBoard(speed=0)
    a, b = socket.socketpair()
    b.close()  # the MicroPython end is gone
    vb._ctl = a
    try:
        vb._reply(b"x" * 200000)  # must not raise: the loop notices the death and restarts
    finally:
        a.close()
