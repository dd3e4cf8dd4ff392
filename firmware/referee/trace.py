"""Sensor trace format, board side (SPEC 3.2): the header lines and one CSV row per sample.

Usage::

    from referee import trace
    for line in trace.header_lines({"sps": 80, "counts_per_gram": 2147.5, "offset": -1200,
                                    "wall_g": 2.2, "roof_g": 4.8, "rhino_g": 5.5,
                                    "accel": "mpu6050", "adc": "sinc1", "players": 3, "first": 0,
                                    "side": "easy"}):
        out.write(line + "\\n")
    out.write(trace.row(12, 84213, 3, -8, 1001, None) + "\\n")   # "12,84213,3,-8,1001,"
    out.write(trace.row(25, 84217, None, None, None, "symbol:skip") + "\\n")

A trace, version 1::

    # rhinoref-trace 1
    # sps=80
    # counts_per_gram=2147.5
    # offset=-1200
    # wall_g=2.2
    # roof_g=4.8
    # rhino_g=5.5
    # accel=mpu6050
    # adc=sinc1
    # players=3
    # first=0
    # side=easy
    t_ms,raw,ax,ay,az,input
    12,84213,3,-8,1001,
    25,84217,,,,symbol:skip

``raw`` is the signed 24-bit HX711 count, ``ax,ay,az`` milli-g (empty without an
accelerometer), ``input`` a button press at that instant (``seat:2``, ``symbol:skip``,
``menu``, ``menu:long``, ``seat:2:long``) or empty. The host reads it with
``rhinoref.trace.read_trace``.
"""

VERSION = 1
MAGIC = "# rhinoref-trace"
COLUMNS = "t_ms,raw,ax,ay,az,input"
# Metadata keys in the order they are written; others may follow (readers keep them as text).
KEYS = ("sps", "counts_per_gram", "offset", "wall_g", "roof_g", "rhino_g", "accel", "adc",
        "players", "first", "side")

_SYMBOLS = ("none", "reverse", "skip", "draw", "double", "rhino")


def header_lines(meta):
    """The comment lines and the column header for a metadata dict."""
    lines = ["%s %d" % (MAGIC, VERSION)]
    for k in KEYS:
        if k in meta and meta[k] is not None:
            lines.append("# %s=%s" % (k, meta[k]))
    for k in sorted(meta):
        if k not in KEYS and meta[k] is not None:
            if "=" in k or "\n" in k or "\n" in str(meta[k]):
                raise ValueError("trace metadata key/value cannot hold '=' or a newline")
            lines.append("# %s=%s" % (k, meta[k]))
    lines.append(COLUMNS)
    return lines


def row(t_ms, raw, ax, ay, az, inp):
    """One sample as a CSV line (no newline). ``ax`` None: no accelerometer."""
    if ax is None:
        acc = ",,"
    else:
        acc = "%d,%d,%d" % (ax, ay, az)
    return "%d,%d,%s,%s" % (t_ms, raw, acc, inp or "")


def button_to_input(name):
    """The board's button name ("seat2", "skip", "menu_long") as the trace's input column
    ("seat:2", "symbol:skip", "menu:long"); a name already in column form passes."""
    if ":" in name:
        return name
    suffix = ""
    if name.endswith("_long"):
        name = name[:-5]
        suffix = ":long"
    if name.startswith("seat") and name[4:].isdigit():
        return "seat:" + name[4:] + suffix
    if name in _SYMBOLS:
        return "symbol:" + name + suffix
    return name + suffix


def input_to_button(value):
    """The inverse of :func:`button_to_input`: "symbol:skip" -> "skip", "seat:2:long" ->
    "seat2_long"."""
    parts = value.split(":")
    long = parts[-1] == "long" and len(parts) > 1
    if long:
        parts = parts[:-1]
    if parts[0] == "seat" and len(parts) == 2:
        name = "seat" + parts[1]
    elif parts[0] == "symbol" and len(parts) == 2:
        name = parts[1]
    else:
        name = ":".join(parts)
    return name + ("_long" if long else "")
