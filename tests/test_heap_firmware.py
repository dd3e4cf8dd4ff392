"""The firmware's heap on MicroPython (SPEC 6: <= 64 KB after boot and a full game).

Measured as ``bench/bench_heap.py`` does it (the unix port, 192 KB heap, ``.mpy`` files from
mpy-cross): what a boot holds (main.py's own imports and ``board._load()``) and a Referee.

The target is NOT met, on the 64-bit port (its objects are twice the Pico's) nor on a 32-bit build
(the Pico's sizes; ``RHINOREF_MICROPYTHON=/path/to/32-bit/micropython`` runs this file on one,
docs/heap.md says how it was built): these are ratchets at today's figures plus a little slack,
one per word size, so a change that makes the heap grow fails here and has to move the figure
on purpose. The full game on the virtual board is measured by
the bench (a game adds about nothing after the boot; tests/test_vboard_game.py plays one).
"""

import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import bench_heap  # noqa: E402
from rhinoref.mpy import MICROPYTHON_MISSING, micropython_binary  # noqa: E402

KB = 1024
# Modules a boot holds (with the two driver modules Hardware() picks), as the bench prints it.
# 64-bit: 127.7 KB before issue K, 111.4 KB after, 113.1 KB at e462f5c, 106.3 KB after the
# driver split and the tables (issue 6, K2); 32-bit: 82.7 KB at e462f5c, 79.4 KB after K2.
# Here the figure is about 1.4 KB (64-bit) higher than the bench's: the modules' file names
# are kept on the heap, and pytest's temporary folder is a longer path (107.5 / 79.7 KB; 108.6
# KB 64-bit after the detector's last rules and the full-flash folder message). Moved on purpose
# after the held-out detector rules of the third session (about twenty rules, all bytecode:
# the Detector object did not grow): 64-bit 108.6 -> 111.5 KB, 32-bit 79.7 -> 83.3 KB here;
# and after the fourth session's (B17-B22: about 1.2 KB of bytecode, one attribute):
# 64-bit 112.6 KB, 32-bit 84.3 KB here; and after the sixth session's (B28-B33: about 1.2 KB of
# bytecode, three attributes): 64-bit 113.8 KB, 32-bit 85.5 KB here; the seventh to ninth
# sessions' rules used that slack (114.7 / 86.4 KB), and the tenth's (B50-B52: three rules, two
# attributes, 0.2 KB) passed it: 64-bit 114.9 KB, 32-bit 86.6 KB here. Moved on purpose in
# session 31 (the HX711's filter recorded in the calibration, ``cal.adc``, and what the
# detector does with it, a flag and the accelerometer read a conversion late: 0.5 KB, 116.4 KB
# here): 64-bit 116.5 KB; the 32-bit one is not measured here. Moved on purpose in session 32
# (``Detector._smeared``, cards landing read through a sinc^4 filter at 10 SPS, no attribute:
# 0.3 KB, 116.7 KB here): 64-bit 116.8 KB. Moved on purpose in session 34 (the detector's
# rounds 74 and 75, a jolt at an allowance at 10 SPS and the shaking's bound on an impact at 80
# SPS, no attribute: 0.1 KB, 13 bytes over 116.8 KB here): 64-bit 117.0 KB. Moved on purpose in
# session 37 (rounds 80-82, three 10 SPS tests, one attribute swapped for another: 64 bytes
# over 117.0 KB here): 64-bit 117.1 KB. Moved on purpose in session 38 (round 83, one 80 SPS
# test, no attribute: 154 bytes over 117.1 KB here): 64-bit 117.3 KB. Moved on purpose in
# session 40 (the detector's mode for a ball tilt switch, ``detector.TILT``, and the board and
# referee passing it on; one attribute swapped for another: 333 bytes over 117.3 KB here):
# 64-bit 117.7 KB. Moved on purpose in session 41 (the tilt switch's mode at 80 SPS: a peak
# while the ball rolls is no hand's push, a bump at an allowance holds its fall; no attribute:
# 84 bytes over 117.7 KB here): 64-bit 117.8 KB; then a bump at the allowance read from the
# newest level, not only after 100 ms of rest (13 bytes over 117.8 KB): 64-bit 117.9 KB. Moved
# on purpose in session 42 (a bump's swing back ends the run of new lows at 80 SPS, no attribute:
# 71 bytes over 117.9 KB here): 64-bit 118.0 KB; then a bump's swing with the table's
# acceleration during a drop that may be lifted is no landing (64 bytes over 118.0 KB): 118.1 KB;
# then the test made a method (``Detector._inertial``) and read for round 70's jolt too (58
# bytes over 118.1 KB): 118.2 KB. Session 43: CI measured 121,792 bytes where this machine
# measured less than 121,036: the figure depended on where the temporary folder was. The unix
# port interns the script's folder (sys.path[0]) and the home folder's library path as qstrs
# before the boot starts, so a longer path moved the qstr pool's chunks and blocks and the boot
# paid for a block, or did not (120,128-121,952 bytes for paths of 18-177 characters). The
# bench now runs its scripts with ``-c`` from a relative folder and a fixed MICROPYPATH, so the
# figure is the same wherever it runs: 121,056 bytes (118.22 KB), 20 bytes over the old
# ratchet without any firmware change. The bench and this test now agree (the 1.4 KB above no
# longer applies): 64-bit 118.3 KB. Then a falling reading through a converter told sinc^4 read
# half its step on at 80 SPS (one attribute swapped for another: 64 bytes, 121,120).
# Moved on purpose in session 44: the menu's way into the self-test collects the heap first, as
# the host's does (docs/heap.md, "The self-test's start"): 32 bytes, 121,152. 64-bit 118.4 KB.
# Then at 80 SPS the release of a wall and a roof weighed in one go counts from a later rise's
# peak (held-out 10541; no attribute more): 96 bytes, 121,248. 64-bit 118.5 KB. Then the same
# rule at 10 SPS (held-out 9464; no attribute more): 64 bytes, 121,312. On the 32-bit build
# the session's three changes took the boot from 92,048 to 92,224 bytes: 32-bit 90.1 KB.
# The 32-bit ratchet (87.6 KB) was not measured from session 31 on; session 43 built the 32-bit
# port again (docs/heap.md) and measured 92,048 bytes (89.9 KB): the detector's bytecode of
# sessions 31-43, which the 64-bit ratchet above followed. 32-bit: 90.0 KB.
# Moved on purpose in session 46: two 10 SPS rules of the detector (a bump that shakes harder
# after its swing back; a dip that swings back without an accelerometer; no attribute more):
# 121,440 bytes on 64-bit, 92,336 on 32-bit; then a third (cards that land and lie still,
# without an accelerometer): 121,472 and 92,368. 64-bit 118.7 KB, 32-bit 90.3 KB.
BOOT_MAX = {64: int(118.7 * KB), 32: int(90.3 * KB)}
# The same modules in place (ROMFS: only their objects on the heap), the reference configuration.
# 64-bit: 59.9 KB at e462f5c, 54.7 KB after K2; 32-bit: 34.3 KB, 31.8 KB after K2. Moved on
# purpose in session 20 (the detector's round 64: a 189th attribute and a branch, 52 bytes
# over 55.7 KB): 64-bit 55.8 KB; the 32-bit one is not measured here and stays. Moved on purpose
# in session 31 (``cal.adc``, as above: 141 bytes over 55.8 KB): 64-bit 56.0 KB. Moved on
# purpose in session 40 (the tilt switch's mode, as above, and its bound on a ball that rolls
# on: 32 bytes over 56.0 KB): 64-bit 56.1 KB.
BOOT_ROMFS_MAX = {64: int(56.1 * KB), 32: int(32.8 * KB)}
# A Referee with its detector, game and buffers. 64-bit: 6.1 KB, 32-bit: 3.2 KB (e462f5c);
# 64-bit 7.1 KB once the Detector's attribute table was kept at most 80 % full (223 slots, not
# a full 167: 0.9 KB on 64-bit, 0.45 on 32-bit, for 4x the speed; tests/test_detector_attrs.py).
REFEREE_MAX = {64: int(7.5 * KB), 32: 4 * KB}
# Loaded only when asked for (and the deploy journal dropped once the boot used it)
ON_DEMAND = ("calibrator", "commands", "deployjournal", "selftest", "selftestapp", "trace",
             # the drivers board.Hardware() does not pick on the reference board
             "adxl345", "hx711gpio", "lis3dh", "noaccel", "tiltswitch")


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    if micropython_binary() is None:
        pytest.skip(MICROPYTHON_MISSING)
    return bench_heap.measure(tmp_path_factory.mktemp("heap"))


def test_boot_holds_no_more_than_the_ratchet(figures):
    held, mods = figures["boot"]
    limit = BOOT_MAX[figures["bits"]]
    assert held <= limit, "a boot holds %d bytes (%d-bit ratchet %d): %s" % (
        held, figures["bits"], limit, mods)
    # the per-module figures add up to what the boot holds (the measurement is consistent)
    parts = sum(figures["file"][m] for m in mods if m in figures["file"])
    assert abs(parts - held) < 8 * KB, (parts, held)


def test_boot_in_place_holds_no_more_than_the_ratchet(figures):
    if not figures["romfs"]:
        pytest.skip("mpremote romfs build is not available")
    _held, mods = figures["boot"]
    held = sum(figures["romfs"][m] for m in mods)
    limit = BOOT_ROMFS_MAX[figures["bits"]]
    assert held <= limit, "in place, a boot's modules hold %d bytes (%d-bit ratchet %d)" % (
        held, figures["bits"], limit)


def test_rarely_used_code_is_not_loaded_at_boot(figures):
    _held, mods = figures["boot"]
    assert mods and "app" in mods and "detector" in mods
    for name in ON_DEMAND:
        assert name not in mods, "%s is loaded at boot" % name


def test_referee_objects_stay_small(figures):
    obj = dict(figures["obj"])
    assert 0 < obj["Referee(root=flash)"] <= REFEREE_MAX[figures["bits"]], obj


def test_romfs_split_is_a_split(figures):
    """The 32-bit estimate rests on file - romfs being the byte part: in place, every module
    must hold less than when loaded from a file, each counted without the qstr pool blocks
    allocated while it loaded (a doubling lump that lands on whichever module crosses it)."""
    if not figures["romfs"]:
        pytest.skip("mpremote romfs build is not available")
    for name, f in figures["file"].items():
        own_file = f - figures["file_pool"][name]
        own_romfs = figures["romfs"][name] - figures["romfs_pool"][name]
        assert 0 < own_romfs < own_file, (name, own_romfs, own_file)


def test_the_figures_do_not_depend_on_the_folder(figures, tmp_path, monkeypatch):
    """CI clones and pytest's temporary folders have paths of any length, and the unix port
    keeps paths it was given as qstrs: measured from a folder 120 characters deeper and
    another home folder, a boot holds exactly what it held in pytest's folder."""
    monkeypatch.setenv("HOME", str(tmp_path / ("h" * 90)))
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    again = bench_heap.measure(deep)
    assert again["boot"] == figures["boot"]
    assert again["obj"] == figures["obj"]


def test_another_build_is_picked_from_the_environment(monkeypatch):
    """RHINOREF_MICROPYTHON points every MicroPython run (benches, virtual board) at another
    build: how the 32-bit figures in docs/heap.md were measured."""
    monkeypatch.setenv("RHINOREF_MICROPYTHON", "/opt/mp32/micropython")
    assert micropython_binary() == "/opt/mp32/micropython"
    monkeypatch.delenv("RHINOREF_MICROPYTHON")
    assert micropython_binary() != "/opt/mp32/micropython"
