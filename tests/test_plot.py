"""``rhinoref plot``: a PNG of a trace with the detector's events and the button presses."""

import json

import pytest

from rhinoref import cli

matplotlib = pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def game_trace(tmp_path_factory):
    """A whole simulated game with a collapse, written by ``rhinoref sim --trace``."""
    from rhinoref.sim import play_game

    def falls(seed):
        r = play_game(players=4, seed=seed)
        return r.result == "collapse" and r.truth.get("collapse") == 1 == r.detected.get("collapse")

    # The first seed whose game ends with the tower falling once (and the board seeing it once).
    seed = next(s for s in range(1, 50) if falls(s))
    path = tmp_path_factory.mktemp("plot") / "game.csv"
    assert cli.main(["sim", "--seed", str(seed), "--plain", "--trace", str(path)]) == 0
    return path


def _detected(capsys, path):
    capsys.readouterr()
    assert cli.main(["detect", str(path)]) == 0
    return [json.loads(x) for x in capsys.readouterr().out.splitlines()]


def _pixels(png):
    from matplotlib.image import imread

    img = imread(str(png))
    h, w = img.shape[:2]
    return img, h, w


def _count(img, kind):
    """Pixels of a colour family (lines are anti-aliased: exact colours are rare)."""
    r, g, b = img[:, :, 0], img[:, :, 1], img[:, :, 2]
    if kind == "red":
        hit = (r > 0.6) & (g < 0.45) & (b < 0.45)
    elif kind == "green":
        hit = (g > r + 0.2) & (g > b + 0.2)
    elif kind == "pink":
        hit = (r > 0.75) & (b > 0.55) & (g < 0.65)
    else:  # the dark grey load curve
        hit = (r < 0.35) & (g < 0.35) & (b < 0.35)
    return int(hit.sum())


def test_plot_writes_a_png_with_the_events_marked(game_trace, tmp_path, capsys):
    events = _detected(capsys, game_trace)
    kinds = {e["event"] for e in events}
    assert "collapse" in kinds and "roof" in kinds
    out = tmp_path / "game.png"
    assert cli.main(["plot", str(game_trace), "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith("wrote %s:" % out)
    assert "1 collapse" in said
    assert "%d roof" % sum(e["event"] == "roof" for e in events) in said
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 40_000
    img, h, w = _pixels(out)
    assert w >= 1200 and h >= 600
    # The collapse is drawn as a red line the height of both panels; roofs as green lines;
    # the presses as pink triangles; the load itself in dark grey.
    assert _count(img, "red") > 2 * 0.6 * h
    assert _count(img, "green") > 5 * 0.5 * h
    assert _count(img, "pink") > 50
    assert _count(img, "dark") > 1000
    # ... and a trace with no collapse in view has no red line
    calm = tmp_path / "calm.png"
    assert cli.main(["plot", str(game_trace), "-o", str(calm), "--to", "60"]) == 0
    img2, h2, _ = _pixels(calm)
    assert _count(img2, "red") < 0.2 * h2


def test_plot_window_and_default_output_name(game_trace, tmp_path, capsys):
    import shutil

    copy = tmp_path / "copy.csv"
    shutil.copy(game_trace, copy)
    assert cli.main(["plot", str(copy), "--from", "0", "--to", "30"]) == 0
    said = capsys.readouterr().out
    assert (tmp_path / "copy.png").exists()
    assert "collapse" not in said  # the tower stands in the first 30 s
    assert " 30 s," in said or " 29 s," in said


def test_plot_summary_matches_detect(game_trace, tmp_path, capsys):
    from rhinoref.cmd.plot import plot_trace
    from rhinoref.trace import read_trace

    events = _detected(capsys, game_trace)
    summary = plot_trace(read_trace(str(game_trace)), str(tmp_path / "x.png"))
    counts = {}
    for e in events:
        counts[e["event"]] = counts.get(e["event"], 0) + 1
    assert summary["events"] == counts
    assert summary["presses"] >= 5  # joins, start, symbols, tie-break


def test_plot_without_accelerometer_has_one_panel(tmp_path, capsys):
    trace = tmp_path / "noacc.csv"
    assert cli.main(["sim", "--seed", "2", "--players", "2", "--no-accel", "--plain",
                     "--trace", str(trace)]) == 0
    capsys.readouterr()
    out = tmp_path / "noacc.png"
    assert cli.main(["plot", str(trace), "-o", str(out)]) == 0
    img, h, w = _pixels(out)
    assert h < 600  # one panel, shorter figure


@pytest.mark.parametrize("argv, words", [
    (["--from", "50", "--to", "20"], "--to must be after --from"),
    (["--from", "100000"], "no samples between"),
])
def test_plot_bad_windows(game_trace, tmp_path, capsys, argv, words):
    code = cli.main(["plot", str(game_trace), "-o", str(tmp_path / "y.png"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and words in err


def test_plot_bad_trace_names_the_line(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("# rhinoref-trace 1\n# sps=80\nhello\n")
    assert cli.main(["plot", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rhinoref: ") and "line" in err and "Traceback" not in err
    assert not (tmp_path / "bad.png").exists()
