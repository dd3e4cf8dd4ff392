"""``rhinoref record``: stream samples from a board into a SPEC 3.2 sensor trace.

The board's ``stream`` command sends one ``{"ev": "sample", "row": "t_ms,raw,ax,ay,az,input"}``
event per HX711 sample; its reply carries the trace metadata (scale, learned masses,
accelerometer, game setup). Rows go to the file as they arrive, so Ctrl-C (or the board going
away) keeps everything recorded so far.
"""

import sys
import time

from ..errors import BoardError, InputError

HELP = "save a sensor trace from a board"
EXAMPLE = """\
rhinoref record -o trace.csv                 # until Ctrl-C
rhinoref record -o trace.csv --seconds 60 --port /dev/ttyACM0
rhinoref plot trace.csv -o trace.png         # then look at it
"""

FLUSH_S = 0.5


def add_arguments(parser):
    parser.add_argument("-o", "--output", required=True, metavar="TRACE.csv",
                        help="the trace file to write")
    parser.add_argument("--seconds", type=float, default=None, metavar="N",
                        help="stop after N seconds (default: until Ctrl-C)")
    parser.add_argument("--port", help="serial port (default: $RHINOREF_PORT or the one board found)")


def _open_link(port):
    from ..boardlink import AppLink

    return AppLink(port)


class Recorder:
    """Writes the rows of ``sample`` events to an open text file (also used by tests)."""

    def __init__(self, out, meta):
        from ..firmware import fw

        self.out = out
        self.rows = 0
        self.bad = 0
        self.gaps = 0
        self.first_t = None
        self.last_t = None
        self.sps = int(meta.get("sps") or 80)
        for line in fw("trace").header_lines(meta):
            out.write(line + "\n")
        out.flush()

    def add(self, row):
        cols = row.split(",") if isinstance(row, str) else []
        if len(cols) != 6:
            self.bad += 1
            return
        try:
            t = int(cols[0])
            int(cols[1])
        except ValueError:
            self.bad += 1
            return
        if self.last_t is not None:
            if t < self.last_t:
                self.bad += 1   # a row from before: the board restarted; keep the file readable
                return
            if t - self.last_t > 3 * 1000 // self.sps + 50:
                self.gaps += 1
        if self.first_t is None:
            self.first_t = t
        self.last_t = t
        self.out.write(row + "\n")
        self.rows += 1

    @property
    def seconds(self):
        if self.first_t is None:
            return 0.0
        return (self.last_t - self.first_t) / 1000.0

    def summary(self, path):
        text = "recorded %d samples (%.1f s) to %s" % (self.rows, self.seconds, path)
        if self.gaps:
            text += "; %d gaps (samples lost on the way)" % self.gaps
        if self.bad:
            text += "; %d malformed rows skipped" % self.bad
        return text


def record(link, out, seconds=None, progress=None):
    """Stream from ``link`` into ``out`` until ``seconds`` pass or Ctrl-C; returns the Recorder.

    The board's stream is switched off again in every case (best effort when it is gone).
    """
    reply = link.command({"cmd": "stream", "on": True}, timeout=3.0)
    if not reply.get("ok"):
        raise BoardError("the board refused to stream samples: %s" % reply.get("error", "no reason given"))
    meta = dict(reply.get("meta") or {})
    st = link.command({"cmd": "status"}, timeout=3.0)
    if st.get("ok") and st.get("accel") and meta.get("accel") in (None, "", "none"):
        # The board reads an accelerometer but its metadata names none (the part name comes
        # from its calibration file): the rows do carry ax, ay, az, so say so.
        meta["accel"] = "present"
    if "sps" not in meta:
        cal = st.get("calibration") or {}
        meta = {"sps": st.get("options", {}).get("sps", 80), "counts_per_gram": cal.get("counts_per_gram"),
                "offset": cal.get("offset"), "wall_g": cal.get("wall_g"), "roof_g": cal.get("roof_g"),
                "rhino_g": cal.get("rhino_g"), "accel": "none" if not st.get("accel") else "mpu6050"}
    rec = Recorder(out, meta)
    deadline = None if seconds is None else time.monotonic() + seconds
    flushed = time.monotonic()
    try:
        while deadline is None or time.monotonic() < deadline:
            wait = 0.2 if deadline is None else max(0.0, min(0.2, deadline - time.monotonic()))
            for ev in link.events(timeout=wait):
                if ev.get("ev") == "sample":
                    rec.add(ev.get("row"))
            now = time.monotonic()
            if now - flushed >= FLUSH_S:
                out.flush()
                flushed = now
                if progress is not None:
                    progress(rec)
    except KeyboardInterrupt:
        pass  # Ctrl-C ends the recording; what came in is kept
    except BoardError as err:
        out.flush()
        rec.lost = str(err)
        return rec
    finally:
        out.flush()
        if link.connected:
            try:
                link.command({"cmd": "stream", "on": False}, timeout=2.0)
            except BoardError:
                pass
    rec.lost = None
    return rec


def run(args):
    if args.seconds is not None and args.seconds <= 0:
        raise InputError("--seconds must be above 0")
    try:
        out = open(args.output, "w", encoding="utf-8", newline="\n")
    except OSError as err:
        raise InputError("cannot write %s: %s" % (args.output, err.strerror or err))
    show = sys.stderr.isatty()

    def progress(rec):
        if show:
            sys.stderr.write("\rrecording: %d samples, %.1f s (Ctrl-C to stop) " % (rec.rows, rec.seconds))
            sys.stderr.flush()

    with out:
        link = _open_link(args.port)
        try:
            rec = record(link, out, args.seconds, progress)
        finally:
            link.close()
    if show:
        sys.stderr.write("\r" + " " * 60 + "\r")
    print(rec.summary(args.output))
    if rec.lost:
        raise BoardError("the board went away during the recording (%s); the trace keeps the %d "
                         "samples before that" % (rec.lost, rec.rows))
    return 0
