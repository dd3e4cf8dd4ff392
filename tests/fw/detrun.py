"""Running the detector over a generated trace, for the detector tests (CPython and MicroPython).

Usage::

    from detrun import collapses, names, run
    g = Gen(seed=1)
    g.floors(3)
    g.collapse(10.0)
    events, det = run(g, sps=80)     # [(t, name, event_t_ms)] and the Detector that ran
    events, cols = collapses(g)      # the same events, and the collapses among them
    names(events)                    # ["wall", "roof", ..., "collapse"] (bumps left out)
"""

from referee import detector

NAMES = detector.EVENT_NAMES


def run(gen, sps=80, accel=True, expect_rhino_at=None, jolts=(), rhino_owed=False,
        samples=None):
    """Feed ``gen``'s samples (or those of the generator function ``samples``, a test's own
    shape on top of them) to a new Detector (no accelerometer: zeros); Rhino Hero's move
    owed from ``expect_rhino_at`` on, or before every sample with ``rhino_owed`` (a referee
    that owes it all along tells the detector again after each event); ``jolts``: (t0, t1,
    mg) windows, mg added to the accelerometer's z reading of the samples at t0 <= t < t1."""
    d = detector.Detector(gen.cal, sps=sps, accel=accel)
    out = []
    for t, raw, ax, ay, az in (samples or gen.samples)():
        if rhino_owed or (expect_rhino_at is not None and t == expect_rhino_at):
            d.expect_rhino(True)
        for t0, t1, mg in jolts:
            if t0 <= t < t1:
                az += mg
        if accel:
            ev = d.feed(t, raw, ax, ay, az)
        else:
            ev = d.feed(t, raw, 0, 0, 0)
        if ev:
            out.append((t, NAMES[ev], d.event_t_ms))
    return out, d


def collapses(gen, sps=80):
    """The events of a run of ``gen``, and the collapses among them."""
    ev, _ = run(gen, sps=sps)
    return ev, [e for e in ev if e[1] == "collapse"]


def names(events, skip=("bump",)):
    return [e[1] for e in events if e[1] not in skip]
