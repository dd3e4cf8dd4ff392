"""bench/read_game.py: one benchmark game read back, with the rule that decided each collapse."""

import io
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import read_game  # noqa: E402
from rhinoref.firmware import fw  # noqa: E402
from rhinoref.trace import read_trace  # noqa: E402


def test_a_scripted_game_names_the_rule_and_prints_the_window(tmp_path):
    # Scripted 29115 at 10 SPS: cards smashed onto the platform (38.6 g down within one
    # conversion, then +48.6 g), decided by _smash (round 56); its trace written too.
    out = io.StringIO()
    path = tmp_path / "game.csv"
    decisions = read_game.report(29115, 10, out=out, trace=str(path))
    text = out.getvalue()
    assert [d[1] for d in decisions] == ["_smash"], decisions
    assert "truth   78678 collapse" in text and "event   78690 collapse" in text
    samples = [line.split() for line in text.splitlines() if line[:1] == " "]
    assert len(samples) == 30, text          # 3 s at 10 SPS
    times = [int(s[0]) for s in samples]
    assert times == sorted(times) and 77178 <= times[0] and times[-1] <= 80178
    assert any(float(s[2]) < -38 for s in samples[1:]), text    # the fall's step, in grams
    trace = read_trace(str(path))
    assert trace.meta["sps"] == 10 and [r[0] for r in trace.rows if 77178 <= r[0] <= 80178] == times


def test_a_bots_game_is_read_and_the_detector_is_left_as_it_was():
    # Bots' 36033 at 10 SPS: a roof taken back read as a slide (a false collapse left:
    # docs/detector-rounds.md, session 19), decided by _slide; the window given.
    detector = fw("detector").Detector
    before = {name: getattr(detector, name) for name in read_game.RULES + ("_collapsed",)}
    out = io.StringIO()
    decisions = read_game.report(36033, 10, bots=True, t_from=204900, t_to=205700, out=out)
    assert decisions[0][1] == "_slide", decisions
    assert "205517    83.97   -3.87" in out.getvalue(), out.getvalue()
    assert {name: getattr(detector, name) for name in before} == before


def test_read_through_head_ends_quietly():
    # `read_game.py SEED | head`: the reader leaves early; no BrokenPipeError traceback.
    import subprocess

    cmd = "%s %s 29115 --sps 10 | head -2" % (sys.executable, ROOT / "bench" / "read_game.py")
    done = subprocess.run(cmd, shell=True, capture_output=True, text=True, cwd=str(ROOT))
    assert done.stdout.startswith("scripted game 29115 at 10 SPS"), done.stdout
    assert "Traceback" not in done.stderr, done.stderr


def test_an_overlap_game_is_the_benchmarks_and_names_its_rule():
    # bench_overlap.py's cell "wall, bump at +0 ms", game 3 at 80 SPS: the bump as the hand
    # lets go swings the raw load 2.3 g under the old level, no deeper than a true fall
    # reaches, and the hand's run-of-new-lows rule calls it a collapse (a false collapse
    # left: docs/detector-rounds.md, session 28; dated a sample later since session 42: the
    # bump's first reading, a swing, no longer marks the end of a roof's tipping).
    from rhinoref.scenarios import play_overlap

    out = io.StringIO()
    decisions = read_game.report(3, 80, out=out, overlap=("wall", "bump", 0))
    text = out.getvalue()
    assert text.startswith("overlap wall, bump at +0 ms, game 3 at 80 SPS"), text
    assert "truth    8192 bump" in text and "event    8228 collapse" in text, text
    assert "   8241     6.58   -7.53" in text, text
    assert [d[1] for d in decisions] == ["_check_collapse"], decisions
    assert play_overlap(3, "wall", "bump", 0).false_collapses == 1    # the bench counts it


def test_bad_overlap_text_is_refused_by_name(capsys):
    for text in ("wall", "wall,shove,0", "wall,bump,soon", "wall,bump,0,1"):
        with pytest.raises(SystemExit) as stop:
            read_game.main(["4", "--overlap", text])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "--overlap" in err, err
        assert ("ACTION is one of" in err) == (text == "wall,shove,0"), err


def test_a_degraded_mode_game_is_read_with_no_accelerometer(capsys):
    # Scripted 237 at 80 SPS without an accelerometer (bench_detector.py --no-accel): a roof
    # slides off 460 ms after it was let go, before it was weighed. It read as taken back
    # until session 45 (docs/detector-rounds.md, session 40); now the rest watch runs with
    # no accelerometer too, and the fall is decided when the level settles. The readings
    # all zero.
    out = io.StringIO()
    decisions = read_game.report(237, 80, out=out, accel=False)
    text = out.getvalue()
    assert text.startswith("scripted game 237 at 80 SPS, no accelerometer:"), text
    assert "truth   61991 collapse" in text and "event   62075 collapse" in text, text
    assert [d[1] for d in decisions] == ["_settled"], decisions
    samples = [line.split() for line in text.splitlines() if line[:1] == " "]
    assert samples and all(s[-3:] == ["0", "0", "0"] for s in samples)
    with pytest.raises(SystemExit):
        read_game.main(["237", "--tilt-switch", "100", "--no-accel"])
    assert "--no-accel" in capsys.readouterr().err


def test_a_bots_game_is_read_with_a_tilt_switch():
    # Bots' game 38 at 80 SPS with a 100 mg switch (session 41): a roof gripped again and
    # taken back, read as a fall (degraded mode's rules; _grip_lift wants an accelerometer),
    # before the tower's own fall; the switch's readings at rest (0, 0, 1000).
    out = io.StringIO()
    decisions = read_game.report(38, 80, bots=True, t_from=276800, t_to=278300, out=out,
                                 tilt_mg=100)
    text = out.getvalue()
    assert text.startswith("bots' game 38 at 80 SPS, 100 mg tilt switch:"), text
    assert "truth  278111 removed" in text and "event  278051 collapse" in text, text
    assert [d[0] for d in decisions] == [278077, 356086], decisions
    samples = [line.split() for line in text.splitlines() if line[:1] == " "]
    assert samples and all(s[-3:] == ["0", "0", "1000"] for s in samples)
