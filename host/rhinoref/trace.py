"""Read and write sensor traces (SPEC 3.2; the format is in firmware/referee/trace.py and
docs/detector.md).

Usage::

    from rhinoref.trace import read_trace, write_trace
    tr = read_trace("game.csv")          # rhinoref.errors.InputError naming the line if bad
    tr.meta["sps"], tr.meta["counts_per_gram"]          # typed: int, float, ...
    for t_ms, raw, ax, ay, az, inp in tr.rows:          # ax/ay/az/inp None when empty
        ...
    write_trace("copy.csv", tr.meta, tr.rows)
"""

from pathlib import Path

from .errors import InputError
from .firmware import fw

_trace = fw("trace")

# key -> type; unknown keys are kept as text.
META_TYPES = {
    "sps": int,
    "counts_per_gram": float,
    "offset": int,
    "wall_g": float,
    "roof_g": float,
    "rhino_g": float,
    "accel": str,
    "players": int,
    "first": int,
    "side": str,
}
REQUIRED = ("sps", "counts_per_gram", "offset", "wall_g", "roof_g", "rhino_g")


class Trace:
    def __init__(self, meta, rows, path=None):
        self.meta = meta
        self.rows = rows
        self.path = path

    @property
    def accel(self):
        return self.meta.get("accel", "none") not in ("none", "")


def _int(text, what, where):
    try:
        return int(text)
    except ValueError:
        raise InputError("%s: %s is not a whole number: %r" % (where, what, text)) from None


def read_trace(path):
    """Parse a trace file; every problem raises InputError naming the file and line."""
    name = str(path)
    try:
        with open(path, encoding="utf-8", newline="") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        raise InputError("%s: no such file" % name) from None
    except UnicodeDecodeError:
        raise InputError("%s: not a text file (is it a trace?)" % name) from None
    except OSError as err:
        raise InputError("%s: %s" % (name, err.strerror or err)) from None
    return parse_trace(lines, name)


def parse_trace(lines, name="trace"):
    if not lines:
        raise InputError("%s line 1: empty file, expected '# rhinoref-trace 1'" % name)
    first = lines[0].strip()
    if not first.startswith(_trace.MAGIC):
        raise InputError("%s line 1: not a rhinoref trace (expected '# rhinoref-trace 1')" % name)
    version = first[len(_trace.MAGIC):].strip()
    if not version:
        raise InputError("%s line 1: no format version after '# rhinoref-trace'" % name)
    if version != str(_trace.VERSION):
        raise InputError("%s line 1: unknown trace version %r (this tool reads version %d)"
                         % (name, version, _trace.VERSION))
    meta = {}
    i = 1
    while i < len(lines) and lines[i].startswith("#"):
        where = "%s line %d" % (name, i + 1)
        body = lines[i][1:].strip()
        if body:
            if "=" not in body:
                raise InputError("%s: metadata must be key=value, got %r" % (where, body))
            key, _, value = body.partition("=")
            key = key.strip()
            value = value.strip()
            typ = META_TYPES.get(key, str)
            try:
                meta[key] = typ(value)
            except ValueError:
                raise InputError("%s: %s must be a %s, got %r"
                                 % (where, key, "number" if typ is not str else "text", value)) from None
        i += 1
    missing = [k for k in REQUIRED if k not in meta]
    if missing:
        raise InputError("%s line %d: metadata missing: %s" % (name, i + 1, ", ".join(missing)))
    if meta["sps"] <= 0:
        raise InputError("%s: sps must be positive" % name)
    if meta["counts_per_gram"] == 0:
        raise InputError("%s: counts_per_gram must not be 0" % name)
    if i >= len(lines) or lines[i].strip().replace(" ", "") != _trace.COLUMNS:
        raise InputError("%s line %d: expected the column header %r"
                         % (name, i + 1, _trace.COLUMNS))
    i += 1
    rows = []
    last_t = None
    for n in range(i, len(lines)):
        line = lines[n]
        where = "%s line %d" % (name, n + 1)
        if not line.strip():
            continue
        if line.startswith("#"):
            continue
        cols = line.split(",")
        if len(cols) != 6:
            raise InputError("%s: expected 6 columns (t_ms,raw,ax,ay,az,input), got %d"
                             % (where, len(cols)))
        t = _int(cols[0].strip(), "t_ms", where)
        raw = _int(cols[1].strip(), "raw", where)
        if not -8388608 <= raw <= 8388607:
            raise InputError("%s: raw %d is outside the HX711's signed 24-bit range" % (where, raw))
        acc = [c.strip() for c in cols[2:5]]
        if all(a == "" for a in acc):
            ax = ay = az = None
        elif any(a == "" for a in acc):
            raise InputError("%s: ax, ay, az must be all set or all empty" % where)
        else:
            ax, ay, az = (_int(a, k, where) for a, k in zip(acc, ("ax", "ay", "az")))
        inp = cols[5].strip() or None
        if last_t is not None and t < last_t:
            raise InputError("%s: t_ms goes backwards (%d after %d)" % (where, t, last_t))
        last_t = t
        rows.append((t, raw, ax, ay, az, inp))
    return Trace(meta, rows, name)


def write_trace(path, meta, rows):
    """Write a trace (rows as (t_ms, raw, ax, ay, az, input)); returns the path."""
    out = [*_trace.header_lines(meta)]
    row = _trace.row
    for r in rows:
        out.append(row(r[0], r[1], r[2], r[3], r[4], r[5]))
    Path(path).write_text("\n".join(out) + "\n", encoding="utf-8")
    return path
