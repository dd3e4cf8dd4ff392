"""``rhinoref detect`` on simulated traces and on traces with bad lines."""

import json

from rhinoref.cli import main
from rhinoref.table import Table
from rhinoref.trace import write_trace


def _sim_trace(path, seed=4, sps=80, accel=True):
    t = Table(seed=seed, sps=sps, accel=accel, masses={"wall": 2.2, "roof": 4.8, "rhino": 6.5})
    t.players, t.first, t.side = 2, 0, "easy"
    t.idle(1500)
    t.place_wall()
    t.idle(1500)
    t.place_roof()
    t.idle(800)
    t.press("rhino")          # the symbol of the roof: the next player owes a Rhino Hero move
    t.idle(1500)
    t.move_rhino()
    t.idle(1500)
    t.place_walls2()
    t.idle(1500)
    t.collapse("total")
    t.idle(1500)
    rows = []
    while t.busy():
        s = t.next_sample()
        rows.append(s if accel else (s[0], s[1], None, None, None, s[5]))
    write_trace(path, t.meta(), rows)
    return t


def test_detect_simulated_trace(tmp_path, capsys):
    for sps in (80, 10):
        p = tmp_path / ("g%d.csv" % sps)
        table = _sim_trace(p, sps=sps)
        assert main(["detect", str(p)]) == 0
        out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        events = [o["event"] for o in out if o["event"] != "bump"]
        # (two walls in quick succession may also come to rest in between: two walls)
        if events[3:5] == ["wall", "wall"]:
            events[3:5] = ["walls2"]
        assert events == ["wall", "roof", "rhino", "walls2", "collapse"], (sps, out)
        rhino = [o for o in out if o["event"] == "rhino"][0]
        assert rhino["turn"] == 1 and rhino["owes_rhino"] is False
        onset = [t for t, n in table.truth if n == "collapse"][0]
        col = [o for o in out if o["event"] == "collapse"][0]
        assert col["t_ms"] - 150 <= onset <= col["at_ms"]


def test_detect_without_rules_and_filter(tmp_path, capsys):
    p = tmp_path / "g.csv"
    _sim_trace(p, accel=False)
    assert main(["detect", str(p), "--no-rules", "--events", "collapse,roof"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["event"] for o in out] == ["roof", "collapse"]
    assert "turn" not in out[0]


def test_detect_bad_lines(tmp_path, capsys):
    p = tmp_path / "g.csv"
    _sim_trace(p)
    lines = p.read_text().splitlines()
    lines.insert(40, "garbage here")
    p.write_text("\n".join(lines) + "\n")
    assert main(["detect", str(p)]) == 2
    err = capsys.readouterr().err
    assert "line 41: expected 6 columns" in err and "Traceback" not in err
    p.write_text("t_ms,raw,ax,ay,az,input\n1,2,3,4,5,\n")
    assert main(["detect", str(p)]) == 2
    assert "line 1: not a rhinoref trace" in capsys.readouterr().err


def test_detect_simulate_writes_a_readable_trace(tmp_path, capsys):
    assert main(["detect", "--simulate", "3", "--sps", "10"]) == 0
    p = tmp_path / "s.csv"
    p.write_text(capsys.readouterr().out)
    assert main(["detect", str(p)]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert any(o["event"] == "roof" for o in out)
