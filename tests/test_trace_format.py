"""The sensor trace format (SPEC 3.2): round trip and errors that name the line."""

import pytest

from referee import trace as fwtrace
from rhinoref.errors import InputError
from rhinoref.trace import read_trace, write_trace

META = {"sps": 80, "counts_per_gram": -2147.5, "offset": -1200, "wall_g": 2.2, "roof_g": 4.8,
        "rhino_g": 5.5, "accel": "mpu6050", "players": 3, "first": 1, "side": "expert"}
ROWS = [(12, 84213, 3, -8, 1001, None), (25, 84217, None, None, None, "symbol:skip"),
        (37, -8388608, 0, 0, 1000, "seat:2")]


def test_round_trip(tmp_path):
    p = tmp_path / "t.csv"
    write_trace(p, META, ROWS)
    text = p.read_text()
    assert text.startswith("# rhinoref-trace 1\n# sps=80\n")
    assert "t_ms,raw,ax,ay,az,input\n12,84213,3,-8,1001,\n25,84217,,,,symbol:skip\n" in text
    tr = read_trace(p)
    assert tr.meta == META
    assert tr.rows == ROWS
    assert tr.accel


def test_button_names_map_both_ways():
    for button, col in (("seat2", "seat:2"), ("skip", "symbol:skip"), ("menu_long", "menu:long"),
                        ("seat4_long", "seat:4:long"), ("menu", "menu")):
        assert fwtrace.button_to_input(button) == col
        assert fwtrace.input_to_button(col) == button


def _write(tmp_path, text):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    return p


HEAD = "".join("# %s=%s\n" % kv for kv in META.items())


@pytest.mark.parametrize("text, message", [
    ("", "line 1: empty file"),
    ("t_ms,raw\n", "line 1: not a rhinoref trace"),
    ("# rhinoref-trace\n", "line 1: no format version"),
    ("# rhinoref-trace 7\n", "line 1: unknown trace version '7'"),
    ("# rhinoref-trace 1\n# sps=80\nt_ms,raw,ax,ay,az,input\n", "line 3: metadata missing: counts_per_gram"),
    ("# rhinoref-trace 1\n# sps=fast\n", "line 2: sps must be a number"),
    ("# rhinoref-trace 1\n# just words\n", "line 2: metadata must be key=value"),
    ("# rhinoref-trace 1\n" + HEAD + "t_ms,raw\n", "line 12: expected the column header"),
    ("# rhinoref-trace 1\n" + HEAD + "t_ms,raw,ax,ay,az,input\n1,2,3,4,5,\nhello world\n",
     "line 14: expected 6 columns"),
    ("# rhinoref-trace 1\n" + HEAD + "t_ms,raw,ax,ay,az,input\n1,2,3\n", "line 13: expected 6 columns"),
    ("# rhinoref-trace 1\n" + HEAD + "t_ms,raw,ax,ay,az,input\n1,x2,3,4,5,\n", "line 13: raw is not a whole number"),
    ("# rhinoref-trace 1\n" + HEAD + "t_ms,raw,ax,ay,az,input\n1,99999999,3,4,5,\n", "line 13: raw 99999999 is outside"),
    ("# rhinoref-trace 1\n" + HEAD + "t_ms,raw,ax,ay,az,input\n1,2,3,,5,\n", "line 13: ax, ay, az must be all set"),
    ("# rhinoref-trace 1\n" + HEAD + "t_ms,raw,ax,ay,az,input\n9,2,3,4,5,\n5,2,3,4,5,\n", "line 14: t_ms goes backwards"),
])
def test_errors_name_the_line(tmp_path, text, message):
    with pytest.raises(InputError) as err:
        read_trace(_write(tmp_path, text))
    assert message in str(err.value)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_trace(tmp_path / "nope.csv")
