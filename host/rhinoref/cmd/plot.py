"""``rhinoref plot TRACE.csv -o trace.png``: a sensor trace as a picture.

Top: the net load in grams (raw counts through the trace's own calibration), with every event
the firmware's detector finds in the trace (run exactly as ``rhinoref detect`` runs it, rules
engine alongside) marked as a coloured line. Bottom: the accelerometer's magnitude in g (when
the trace has one). Button presses from the trace's input column are marked on both.
"""

import math
import os

from ..errors import InputError

HELP = "draw a sensor trace with its detected events as a PNG"
EXAMPLE = """\
rhinoref plot trace.csv -o trace.png
rhinoref plot trace.csv -o start.png --from 0 --to 90      # the first 90 seconds
rhinoref sim --seed 7 --trace t.csv && rhinoref plot t.csv -o t.png
"""

# event -> (colour, line style, label in the legend)
EVENT_STYLE = {
    "wall": ("#1f77b4", "-", "wall"),
    "walls2": ("#17becf", "-", "two walls"),
    "roof": ("#2ca02c", "-", "roof"),
    "rhino": ("#ff7f0e", "-", "Rhino Hero set down"),
    "rhino_lift": ("#ff7f0e", ":", "Rhino Hero lifted"),
    "removed": ("#7f7f7f", ":", "piece taken away"),
    "collapse": ("#d62728", "-", "collapse"),
    "bump": ("#9467bd", "--", "table bump"),
    "shift": ("#8c564b", "--", "load shift"),
}
SHORT = {"wall": "W", "walls2": "WW", "roof": "R", "rhino": "Rh", "rhino_lift": "lift",
         "removed": "x", "collapse": "COLLAPSE", "bump": "bump", "shift": "shift"}
MAX_LABELS = 80


def add_arguments(parser):
    parser.add_argument("trace", help="the trace CSV (SPEC 3.2)")
    parser.add_argument("-o", "--output", metavar="PNG",
                        help="the picture to write (default: the trace's name with .png)")
    parser.add_argument("--from", dest="t_from", type=float, default=None, metavar="S",
                        help="start at S seconds into the trace")
    parser.add_argument("--to", dest="t_to", type=float, default=None, metavar="S",
                        help="end at S seconds into the trace")
    parser.add_argument("--no-rules", action="store_true",
                        help="run the detector alone (no rules engine context)")
    parser.add_argument("--width", type=float, default=None, metavar="INCHES",
                        help="picture width (default grows with the trace's length)")
    parser.add_argument("--dpi", type=int, default=110)


def _button_label(inp):
    from ..firmware import fw

    name = fw("trace").input_to_button(inp)
    return name.replace("_long", " (long)")


def plot_trace(tr, out_path, t_from=None, t_to=None, rules_on=True, width=None, dpi=110):
    """Draw ``tr`` (a ``rhinoref.trace.Trace``) into ``out_path``; returns a summary dict."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from .detect import detect

    meta = tr.meta
    rows = tr.rows
    if not rows:
        raise InputError("%s: the trace has no samples to plot" % tr.path)
    events = [e for e in detect(tr, rules_on=rules_on, inputs=False)]
    t0 = rows[0][0]
    lo = t0 + (t_from * 1000 if t_from is not None else -1)
    hi = t0 + (t_to * 1000 if t_to is not None else float("inf"))
    sel = [r for r in rows if lo <= r[0] <= hi]
    if not sel:
        raise InputError("%s: no samples between %s and %s s" % (tr.path, t_from, t_to))
    cpg = meta["counts_per_gram"]
    off = meta["offset"]
    ts = [(r[0] - t0) / 1000.0 for r in sel]
    grams = [(r[1] - off) / cpg for r in sel]
    accel = tr.accel and sel[0][2] is not None
    presses = [((r[0] - t0) / 1000.0, r[5]) for r in sel if r[5]]
    shown = [e for e in events if lo <= e["t_ms"] <= hi]

    # A robust load axis: lone HX711 spikes must not squash the game into a flat line.
    srt = sorted(grams)
    n = len(srt)
    g_lo, g_hi = srt[int(0.002 * (n - 1))], srt[int(0.998 * (n - 1))]
    pad = max(2.0, 0.08 * (g_hi - g_lo))
    g_lo, g_hi = g_lo - pad, g_hi + pad
    outside = sum(1 for g in grams if g < g_lo or g > g_hi)

    span = ts[-1] - ts[0]
    if width is None:
        width = min(40.0, max(11.0, span / 12.0))
    panels = 2 if accel else 1
    fig, axes = plt.subplots(panels, 1, sharex=True, figsize=(width, 6.5 if accel else 4.5),
                             gridspec_kw={"height_ratios": [3, 1.3]} if accel else None,
                             squeeze=False)
    ax_g = axes[0][0]
    ax_g.plot(ts, grams, color="#333333", linewidth=0.7, zorder=3)
    ax_g.set_ylim(g_lo, g_hi)
    ax_g.set_ylabel("net load (g)")
    ax_g.grid(True, alpha=0.25)
    title = "%s: %d samples at %s SPS, %.0f s" % (os.path.basename(str(tr.path)), len(sel),
                                                meta.get("sps"), span)
    if "players" in meta:
        title += ", %s players" % meta["players"]
    title += ", accelerometer: %s" % meta.get("accel", "none")
    if outside:
        title += "  (%d sample%s off the scale: HX711 spikes, finger pressure)" % (
            outside, "" if outside == 1 else "s")
    ax_g.set_title(title, fontsize=10, loc="left")

    label = len(shown) <= MAX_LABELS
    used = set()
    for i, e in enumerate(shown):
        colour, style, _ = EVENT_STYLE.get(e["event"], ("#000000", "-", e["event"]))
        x = (e["t_ms"] - t0) / 1000.0
        width_px = 2.2 if e["event"] == "collapse" else 1.1
        for row in axes:
            row[0].axvline(x, color=colour, linestyle=style, linewidth=width_px, zorder=1)
        used.add(e["event"])
        if label:
            y = 0.97 - 0.07 * (i % 3)
            ax_g.text(x, y, " " + SHORT.get(e["event"], e["event"]), transform=ax_g.get_xaxis_transform(),
                      color=colour, fontsize=8, va="top", ha="left",
                      fontweight="bold" if e["event"] == "collapse" else "normal")

    # Button presses: triangles on the bottom edge of the load panel, named.
    for x, inp in presses:
        ax_g.plot([x], [0.0], marker="^", color="#e377c2", markersize=8, transform=ax_g.get_xaxis_transform(),
                  clip_on=False)
        if len(presses) <= MAX_LABELS:
            ax_g.text(x, 0.035, " " + _button_label(inp), transform=ax_g.get_xaxis_transform(),
                      rotation=90, fontsize=7, color="#b0337f", va="bottom", ha="center")

    if accel:
        ax_a = axes[1][0]
        mag = [math.sqrt(r[2] * r[2] + r[3] * r[3] + r[4] * r[4]) / 1000.0 for r in sel]
        ax_a.plot(ts, mag, color="#555555", linewidth=0.6, zorder=3)
        a_srt = sorted(mag)
        a_lo = min(0.9, a_srt[int(0.001 * (n - 1))] - 0.02)
        a_hi = max(1.1, a_srt[int(0.999 * (n - 1))] + 0.02)
        ax_a.set_ylim(a_lo, a_hi)
        ax_a.set_ylabel("|acceleration| (g)")
        ax_a.grid(True, alpha=0.25)
        for x, _ in presses:
            ax_a.plot([x], [0.0], marker="^", color="#e377c2", markersize=6,
                      transform=ax_a.get_xaxis_transform(), clip_on=False)
    axes[-1][0].set_xlabel("time (s)")
    axes[-1][0].set_xlim(ts[0], ts[-1])

    handles = [Line2D([0], [0], color=EVENT_STYLE[k][0], linestyle=EVENT_STYLE[k][1],
                      linewidth=2.2 if k == "collapse" else 1.4, label=EVENT_STYLE[k][2])
               for k in EVENT_STYLE if k in used]
    if presses:
        handles.append(Line2D([0], [0], color="#e377c2", marker="^", linestyle="", label="button press"))
    if handles:
        ax_g.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8,
                    frameon=False, title="detected", title_fontsize=8)
    fig.tight_layout()
    try:
        fig.savefig(out_path, dpi=dpi)
    except OSError as err:
        raise InputError("cannot write %s: %s" % (out_path, err.strerror or err))
    finally:
        plt.close(fig)
    counts = {}
    for e in shown:
        counts[e["event"]] = counts.get(e["event"], 0) + 1
    return {"samples": len(sel), "events": counts, "presses": len(presses), "seconds": span,
            "off_scale": outside, "output": str(out_path)}


def run(args):
    from ..trace import read_trace

    tr = read_trace(args.trace)
    out = args.output or os.path.splitext(args.trace)[0] + ".png"
    if args.t_from is not None and args.t_to is not None and args.t_to <= args.t_from:
        raise InputError("--to must be after --from")
    summary = plot_trace(tr, out, args.t_from, args.t_to, rules_on=not args.no_rules,
                         width=args.width, dpi=args.dpi)
    events = ", ".join("%d %s" % (v, k) for k, v in sorted(summary["events"].items())) or "no events"
    print("wrote %s: %d samples, %.0f s, %s, %d button presses"
          % (out, summary["samples"], summary["seconds"], events, summary["presses"]))
    return 0
