"""The firmware's heap on MicroPython (SPEC 6: <= 64 KB after boot and a full game).

Measured as ``bench/bench_heap.py`` does it (the unix port, 192 KB heap, ``.mpy`` files from
mpy-cross): what a boot holds (main.py's own imports and ``board._load()``) and a Referee.

The target is NOT met on the 64-bit port we can measure (its objects are twice the Pico's): these
are ratchets at today's figures plus a little slack, so a change that makes the heap grow fails
here and has to move the figure on purpose. The full game on the virtual board is measured by
the bench (a game adds about nothing after the boot; tests/test_vboard_game.py plays one).
"""

import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import bench_heap  # noqa: E402
from rhinoref.mpy import MICROPYTHON_MISSING, micropython_binary  # noqa: E402

KB = 1024
BOOT_MAX = 114 * KB  # 64-bit, modules a boot holds: 127.7 KB before issue K, 111.4 KB after
REFEREE_MAX = 7 * KB  # 64-bit, a Referee with its detector, game and buffers: 5.4 KB
# Loaded only when asked for (and the deploy journal dropped once the boot used it)
ON_DEMAND = ("calibrator", "commands", "deployjournal", "selftest", "selftestapp", "trace")


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    if micropython_binary() is None:
        pytest.skip(MICROPYTHON_MISSING)
    return bench_heap.measure(tmp_path_factory.mktemp("heap"))


def test_boot_holds_no_more_than_the_ratchet(figures):
    held, mods = figures["boot"]
    assert held <= BOOT_MAX, "a boot holds %d bytes (ratchet %d): %s" % (held, BOOT_MAX, mods)
    # the per-module figures add up to what the boot holds (the measurement is consistent)
    parts = sum(figures["file"][m] for m in mods if m in figures["file"])
    assert abs(parts - held) < 8 * KB, (parts, held)


def test_rarely_used_code_is_not_loaded_at_boot(figures):
    _held, mods = figures["boot"]
    assert mods and "app" in mods and "detector" in mods
    for name in ON_DEMAND:
        assert name not in mods, "%s is loaded at boot" % name


def test_referee_objects_stay_small(figures):
    obj = dict(figures["obj"])
    assert 0 < obj["Referee(root=flash)"] <= REFEREE_MAX, obj


def test_romfs_split_is_a_split(figures):
    """The 32-bit estimate rests on file - romfs being the byte part: in place, every module
    must hold less than when loaded from a file."""
    if not figures["romfs"]:
        pytest.skip("mpremote romfs build is not available")
    for name, f in figures["file"].items():
        assert 0 < figures["romfs"][name] < f, name
