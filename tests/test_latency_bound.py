"""bench/bench_latency_bound.py: when the readings first lie under where the tower stood."""

import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))

import bench_latency_bound as bound  # noqa: E402


def _fall(seed):
    """A noisy reading every 12.5 ms: 20 g at rest with a spike over it, a sway under it before
    the onset at 500 ms, then a tower that tips (a slow start) and falls away."""
    rng = random.Random(seed)
    out = []
    for i in range(80):
        t = int(i * 12.5)
        g = 20.0 + rng.gauss(0, 0.05)
        if t == 200:
            g += 4.0                     # a lone spike, above
        if 350 <= t < 400:
            g -= 0.4                     # the table swayed: under, but before the onset
        if t >= 500:
            g -= 0.002 * (t - 500) ** 1.5
        out.append((t, g))
    return out


def test_the_first_reading_under_the_rest_is_counted_from_the_onset():
    for seed in range(5):
        readings = _fall(seed)
        level = bound.rest_level(readings, 100, 500)
        assert abs(level - 20.0) < 0.1                  # the spike and the sway are not the level
        # 0.002 x^1.5 passes 0.25 g at x = 25 ms, 0.5 g at 40 ms, 1 g at 63 ms (+- the noise)
        for under, lo, hi in ((0.25, 12, 50), (0.5, 25, 63), (1.0, 50, 88)):
            ms = bound.first_under(readings, 500, level, under)
            assert lo <= ms <= hi, (seed, under, ms)
        assert bound.first_under(readings, 500, level, 50.0) is None
        assert bound.rest_level(readings, 2000, 3000) is None


def test_the_bench_prints_the_detectors_latency_beside_the_bound(capsys):
    assert bound.main(["--games", "12", "--sps", "10", "--adc", "sinc4", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    falls = int(re.search(r"(\d+) collapses in 12 games", out).group(1))
    assert falls > 0
    p95 = [int(m) for m in re.findall(r"under the rest .*p95 +(\d+) ms", out)]
    assert len(p95) == 3 and p95 == sorted(p95)        # deeper under comes later
    sooner, found = map(int, re.search(r"0\.25 g reading +(\d+) of (\d+)", out).groups())
    assert found <= falls and sooner <= found
    late, n = map(int, re.search(r"0\.25 g reading after 300 ms +(\d+) of (\d+)", out).groups())
    assert n == falls and late <= falls
