"""bench/bench_bots_detection.py on a few games: its figures are the sim's own statistics."""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))

import bench_bots_detection  # noqa: E402
from rhinoref.sim import play_batch, statistics  # noqa: E402


def test_bench_prints_the_sims_collapse_and_placement_figures(capsys):
    status = bench_bots_detection.main(["--games", "6", "--first", "11", "--sps", "10", "--workers", "1", "-v"])
    out = capsys.readouterr().out
    st = statistics(play_batch(6, players=4, seed=11, sps=10, mode="firmware", processes=1))
    falls = st["truth"]["collapse"]
    lost = st["missed"].get("collapse", 0)
    assert "(%d of %d)" % (falls - lost, falls) in re.search(r"collapse recall.*", out).group(0)
    assert re.search(r"false collapses\s+%d " % st["extra"].get("collapse", 0), out)
    walls = st["truth"]["wall"]
    assert "(%d of %d;" % (walls - st["missed"].get("wall", 0), walls) in out
    assert (status == 0) == ("targets met" in out) and (status == 1) == ("TARGETS MISSED" in out)
