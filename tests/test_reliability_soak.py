"""Soak (issue 8, part 5), small size: an hour of simulated play at 80 samples/s with the
unchanged firmware on MicroPython (192 KB heap): flat heap after the first game, no false
event from drift or creep, every placement and collapse found. The 8-hour run is in
bench/bench_reliability.py; tests/fw/soak.py has the simulated family and table."""

import json
from pathlib import Path

from rel_mpy import compiled_firmware

SOAK = Path(__file__).parent / "fw" / "soak.py"
HEAP_SLACK = 2048  # bytes: the heap after later games may differ by a few small objects


def _soak(micropython, tmp_path, hours, seed):
    fw = compiled_firmware(tmp_path.parent / (tmp_path.name + "_fw"))
    r = micropython(SOAK, fw, tmp_path, hours, seed, timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_an_hour_of_play_on_micropython(micropython, tmp_path):
    f = _soak(micropython, tmp_path, 1.0, 2)
    assert "error" not in f, f
    assert f["samples"] >= 80 * 3600
    assert f["games"] >= 10 and f["matched"] > 400 and f["bad_starts"] == 0
    assert f["quiet_minutes"] >= 10  # breaks with the tower standing: drift and creep at work
    assert f["false"] == 0, f["false_first"]
    assert f["missed"] == 0, f["missed_first"]
    assert f["heap_growth"] <= HEAP_SLACK, f
    assert abs(f["heap_trend_bytes_per_game"]) < 50, f  # (the 8-hour run: < 4)
    assert f["heap_marks"] >= 6
    # the game logs are on "flash" (the last one archived when the lobby opened)
    for name in ("game.jsonl", "last.jsonl"):
        if (tmp_path / name).exists():
            assert (tmp_path / name).read_text().startswith('{"rhinoref": "game"')


def test_the_soak_judge_sees_false_events(micropython, tmp_path):
    # The checks must be able to fail: a load cell that jumps by a wall's weight every three
    # minutes with nobody at the table must show up as false events, some in quiet spells.
    src = SOAK.read_text()
    hook = "        # creep: a first-order lag toward a share of the load\n"
    assert hook in src
    src = src.replace(hook, "        if t % 180000 < 13:\n            self.static += 2.3\n" + hook)
    bad = tmp_path / "soak_bad.py"
    bad.write_text(src)
    data = tmp_path / "data"
    data.mkdir()
    r = micropython(bad, compiled_firmware(tmp_path), data, 0.5, 2, timeout=300)
    f = json.loads(r.stdout.strip().splitlines()[-1])
    assert "error" not in f, f
    assert f["false"] > 0 and f["false_in_quiet"] > 0, f
