"""Running the detector over a generated trace, for the detector tests (CPython and MicroPython).

Usage::

    from detrun import collapses, names, run
    g = Gen(seed=1)
    g.floors(3)
    g.collapse(10.0)
    events, det = run(g, sps=80)     # [(t, name, event_t_ms)] and the Detector that ran
    events, cols = collapses(g)      # the same events, and the collapses among them
    events, det = run(g, accel=detector.TILT, samples=tilt_switch(g))   # a ball tilt switch
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


class _BallPin:
    """The pin of a ball tilt switch for the firmware's driver: pulled up, its ball on the
    contacts; ``roll()`` takes it off and back (two edges, which the driver counts)."""

    IRQ_FALLING = 1
    IRQ_RISING = 2

    def __init__(self):
        self._handler = None

    def value(self):
        return 1

    def irq(self, handler=None, trigger=0):
        self._handler = handler

    def roll(self):
        self._handler(self)
        self._handler(self)


def tilt_switch(gen, mg=100, jolts=()):
    """``gen``'s samples with a ball tilt switch instead of the accelerometer, read through
    the firmware's driver (referee.tiltswitch): its ball rolls on a sample whose accelerometer
    reading strays ``mg`` or more from the first on any axis (``jolts`` as for ``run``, added
    to z first). For ``run(gen, accel=detector.TILT, samples=tilt_switch(gen))``."""
    from array import array

    from referee.tiltswitch import TiltSwitch

    def samples():
        pin = _BallPin()
        switch = TiltSwitch(pin)
        xyz = array("i", (0, 0, 0))
        rest = None
        for t, raw, ax, ay, az in gen.samples():
            for t0, t1, j in jolts:
                if t0 <= t < t1:
                    az += j
            if rest is None:
                rest = (ax, ay, az)
            if (abs(ax - rest[0]) >= mg or abs(ay - rest[1]) >= mg
                    or abs(az - rest[2]) >= mg):
                pin.roll()
            switch.read_into(xyz)
            yield t, raw, xyz[0], xyz[1], xyz[2]

    return samples


def collapses(gen, sps=80):
    """The events of a run of ``gen``, and the collapses among them."""
    ev, _ = run(gen, sps=sps)
    return ev, [e for e in ev if e[1] == "collapse"]


def names(events, skip=("bump",)):
    return [e[1] for e in events if e[1] not in skip]
