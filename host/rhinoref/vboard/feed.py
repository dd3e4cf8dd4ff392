"""What the virtual board's sensors and buttons see: samples from the simulated table.

Usage::

    from rhinoref.vboard.feed import TableFeed
    feed = TableFeed(Table(seed=1, sps=80), buttons={"seat0": 6, ...})
    recs, horizon_us = feed.records(t_until_us=500_000, min_count=1, fill=False)

One record per HX711 conversion: ``(t_us, raw, ax, ay, az, gpio, hold_ms, rolled)`` in board
time; ``gpio`` is -1 or the GPIO of a button pressed at that instant (held ``hold_ms``);
``rolled`` is 1 when the table's ball tilt switch (``Table(tilt_mg=)``) rolled during the
conversion, else 0 (the board pulses its pin, when it has one, off and back). Button
presses come from the table's input column (``Table.press`` or the bots) and from
``press()``. A ``driver`` (for example the bot players) is stepped once per sample with the
table time and may queue actions on the table.

Board time and table time: the board clock starts at 0 at every power-on (hard reset) while
the table, like a real table, goes on; ``offset_ms`` maps one to the other.
"""

from collections import deque

PRESS_MS = 150  # a child's ordinary press
LONG_MS = 1500  # a long press: longer than the board's long-press threshold (1 s)


def parse_input(inp):
    """A trace input column value ("seat:2", "symbol:skip:long", "menu") or a board button
    name ("seat2", "skip", "menu_long") -> (button name, hold_ms)."""
    name = inp
    hold = PRESS_MS
    if name.endswith(":long") or name.endswith("_long"):
        name = name[:-5]
        hold = LONG_MS
    if name.startswith("seat:"):
        name = "seat" + name[5:]
    elif name.startswith("symbol:"):
        name = name[7:]
    return name, hold


class IdleTable:
    """A stand-in when no simulated table is wanted: an empty platform, a little noise."""

    def __init__(self, seed=1, sps=80, accel=True):
        import random

        self.rng = random.Random(seed)
        self.period = 1000.0 / sps
        self.accel = accel
        self._t = 0.0
        self.now_ms = 0
        self._inputs = []

    def press(self, name):
        self._inputs.append(name)

    def next_sample(self):
        t_ms = int(self._t)
        self._t += self.period
        self.now_ms = t_ms
        raw = 120000 + int(self.rng.gauss(0, 45))
        acc = (3, -8, 1000) if self.accel else (0, 0, 0)
        inp = self._inputs.pop(0) if self._inputs else None
        return (t_ms, raw) + acc + (inp,)


class TableFeed:
    def __init__(self, table, buttons, driver=None, log=None):
        self.table = table
        self.buttons = dict(buttons)
        self.driver = driver
        self.log = log or (lambda msg: None)
        self.offset_ms = 0
        self._ahead = None  # the next sample, already pulled from the table
        self._presses = deque()
        self.samples = 0

    def press(self, name):
        """Press a board button at the next sample (thread-safe enough: a deque)."""
        self._presses.append(name)

    def power_on(self):
        """The board restarts its clock at 0 (hard reset): map the table's time to it."""
        self._pull()
        self.offset_ms = self._ahead[0]

    def accel_now(self):
        """The accelerometer's current reading (milli-g), from the next sample."""
        s = self._pull()
        return s[2], s[3], s[4]

    def _pull(self):
        if self._ahead is None:
            s = self.table.next_sample()
            rolled = 1 if getattr(self.table, "tilt_rolled", False) else 0
            if self.driver is not None:
                self.driver(s[0])
            self._ahead = s + (rolled,)
        return self._ahead

    def _record(self, s):
        t_ms, raw, ax, ay, az, inp, rolled = s
        gpio, hold = -1, 0
        name = None
        if inp:
            name = inp
        elif self._presses:
            name = self._presses.popleft()
        if name is not None:
            button, hold = parse_input(name)
            gpio = self.buttons.get(button, -1)
            if gpio < 0:
                self.log("vboard: no button %r on this board" % name)
        return ((t_ms - self.offset_ms) * 1000, raw, ax, ay, az, gpio, hold, rolled)

    def records(self, t_until_us, min_count, fill, cap):
        """Records up to board time t_until_us, plus at least min_count more (up to cap
        with fill); returns (records, horizon_us): everything up to the horizon is given."""
        out = []
        s = self._pull()
        # Far behind (the board sat at the REPL in real time): skip what nobody will read.
        behind = t_until_us - (s[0] - self.offset_ms) * 1000
        if behind > 2_000_000:
            skip_to = t_until_us - 200_000
            while (s[0] - self.offset_ms) * 1000 < skip_to:
                self._ahead = None
                s = self._pull()
        extra = 0
        while len(out) < cap:
            t_us = (s[0] - self.offset_ms) * 1000
            if t_us > t_until_us and not fill:
                if extra >= min_count:
                    break
                extra += 1
            out.append(self._record(s))
            self.samples += 1
            self._ahead = None
            s = self._pull()
        # Everything before the sample pulled ahead has been handed out.
        return out, (s[0] - self.offset_ms) * 1000 - 1
