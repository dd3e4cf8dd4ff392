"""A maker at the virtual board's table: answers the board's self-test (``rhinoref selftest``).

Usage::

    from rhinoref.vboard.maker import Maker, PlatformHand
    table = PlatformHand(Table(seed=1))        # the table, and a finger that can push on it
    maker = Maker(table, broken={"skip"})      # never presses SKIP: a broken button
    vb = VirtualBoard(table=table, driver=maker, speed=0)
    maker.attach(vb)                           # reads the board's event lines
    vb.start()
    # then: rhinoref selftest --port <vb.port> --yes, or maker.from_menu() (hold MENU, then
    # hold SEAT 0, as at the board). maker.reports holds the board's final self-test events.

Like a person watching the lights, the maker reads the board's ``selftest`` event lines and
acts a moment later (0.4-1.2 s of simulated time): presses the button asked for, pushes the
platform with a finger (80-250 g for about a second) when asked, and keeps the table still
otherwise. It runs as the virtual board's driver, on the board's thread, once per sample, so it
works at any speed, including ``speed=0``. ``then`` chains another driver (the bot players).

``PlatformHand`` wraps any simulated table (``rhinoref.table.Table`` or the idle one) and adds
the finger's force to its HX711 samples at the cell's nominal 2147.5 counts per gram (a 1 kg,
1 mV/V cell at gain 128); every other attribute is the table's own.
"""

import json
import math
import random
from collections import deque

COUNTS_PER_GRAM = 2147.5
FULL_SCALE = 8388607


class PlatformHand:
    """A simulated table with a finger that can push on its platform (see the module doc)."""

    def __init__(self, table, counts_per_gram=COUNTS_PER_GRAM, seed=1):
        self._table = table
        self._cpg = counts_per_gram
        self._rng = random.Random(seed)
        self._pushes = []  # [t0 or None, grams, hold_ms]
        self._t = 0

    def __getattr__(self, name):
        return getattr(self._table, name)

    def push(self, grams, hold_ms):
        """A finger pushes ``grams`` on the platform for about ``hold_ms``, from the next sample
        (rising and falling over 100 ms, with a little tremor)."""
        self._pushes.append([None, float(grams), float(hold_ms)])

    def _force(self, t):
        g = 0.0
        keep = []
        for p in self._pushes:
            if p[0] is None:
                p[0] = t
            dt = t - p[0]
            end = p[2] + 200.0
            if dt > end:
                continue
            keep.append(p)
            env = min(1.0, dt / 100.0, max(0.0, (end - dt) / 100.0))
            g += p[1] * env * (1.0 + 0.03 * math.sin(dt * 0.06))
        self._pushes = keep
        return g

    def next_sample(self):
        s = self._table.next_sample()
        if not self._pushes:
            return s
        t_ms, raw, ax, ay, az, inp = s
        raw += int(self._force(t_ms) * self._cpg)
        raw = max(-FULL_SCALE - 1, min(FULL_SCALE, raw))
        return (t_ms, raw, ax, ay, az, inp)


class Maker:
    """Answers the self-test's prompts on a virtual board (see the module docstring).

    table: the ``PlatformHand`` under the board (without one, finger prompts go unanswered);
    broken: buttons never pressed; finger_g: the push (default 80-250 g); then: another driver.
    """

    def __init__(self, table=None, broken=(), finger_g=None, seed=1, then=None):
        self.table = table
        self.broken = set(broken)
        self.finger_g = finger_g
        self.rng = random.Random(seed)
        self.then = then
        self.vb = None
        self.asked = []  # every prompt seen
        self.reports = []  # the board's final self-test events (done / cancelled)
        self._seen = deque()  # prompts not yet acted on (read on the board's thread)
        self._todo = []  # (t_ms, what, arg) in time order

    def attach(self, vb):
        """Read the board's event lines (chained with whatever reads them already)."""
        self.vb = vb
        prev = vb.on_line

        def on_line(line):
            self.line(line)
            if prev is not None:
                prev(line)

        vb.on_line = on_line

    def from_menu(self):
        """Start the self-test as a maker does at the board: hold MENU (the parent menu
        opens), then hold SEAT 0 (docs/selftest.md). Acted out in the board's time."""
        self._seen.append({"menu": True})

    def line(self, raw):
        if not raw.startswith(b'{"ev": "selftest"'):
            return
        try:
            ev = json.loads(raw)
        except ValueError:
            return
        if "ask" in ev:
            self.asked.append(ev["ask"])
            self._seen.append(ev)
        if ev.get("state") in ("done", "cancelled"):
            self.reports.append(ev)

    def __call__(self, t_ms):
        while self._seen:
            self._plan(t_ms, self._seen.popleft())
        while self._todo and self._todo[0][0] <= t_ms:
            _t, what, arg = self._todo.pop(0)
            if what == "press" and self.vb is not None:
                self.vb.press(arg)
            elif what == "push" and self.table is not None and hasattr(self.table, "push"):
                self.table.push(arg, self.rng.uniform(800, 1400))
        if self.then is not None:
            self.then(t_ms)

    def _plan(self, t_ms, ev):
        if ev.get("menu"):
            self._todo.append((t_ms + 100, "press", "menu_long"))
            self._todo.append((t_ms + 2500, "press", "seat0_long"))  # after MENU is let go
            self._todo.sort(key=lambda x: x[0])
            return
        later = t_ms + int(self.rng.uniform(400, 1200))
        button = ev.get("button")
        if button is not None:
            if button not in self.broken:
                self._todo.append((later, "press", button))
        elif ev.get("step") == "finger" and ev["ask"].startswith("press"):
            g = self.finger_g if self.finger_g is not None else self.rng.uniform(80, 250)
            self._todo.append((later, "push", g))
        self._todo.sort(key=lambda x: x[0])
