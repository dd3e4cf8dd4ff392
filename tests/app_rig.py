"""Test rig for the board app: the firmware's Referee on B's simulated table (rhinoref.table).

Usage (tests/test_app_*.py)::

    rig = Rig(tmp_path, seed=3)          # calib.json written from the table's calibration
    rig.run(2000)                        # play out queued table actions + 2 s idle
    rig.press("seat2")                   # a button now
    rig.table.place_wall(); rig.run(600)
    rig.cues(2), rig.named("input")      # what seat 2 shows, the events seen so far
    rig.boot()                           # a power cut: a new Referee on the same files
"""

import json

from rhinoref.firmware import FIRMWARE_DIR  # noqa: F401  (puts firmware/ on sys.path)
from rhinoref.table import Table

from referee import rules  # noqa: F401  (re-exported for the tests)
from referee.app import Referee

SYMBOLS = ("reverse", "skip", "draw", "double", "rhino")


class NoDetector:
    """For tests about files and commands: a detector that never sees anything."""

    EVENT_NAMES = ("none",)
    stable = True
    grams = 0.0

    def __init__(self, cal, sps=80, accel=True):
        self.cal = cal

    def feed(self, *a):
        return 0

    def expect_rhino(self, owed):
        pass

    def retare(self):
        pass


class Rig:
    """The board's Referee on B's simulated table, with a file root like the board's /data."""

    def __init__(self, root, seed=1, sps=80, accel=True, noise="datasheet", **kw):
        self.root = str(root)
        self.table = Table(seed=seed, sps=sps, accel=accel, noise=noise)
        self.table.calibration().save(self.root + "/calib.json")
        self.sps = sps
        self.accel = accel
        self.kw = kw
        self.events = []
        self.ref = None
        self.boot()

    def boot(self, t=None):
        """Power on (again): a new Referee on the same files, like the board after a reset."""
        t = self.table.now_ms if t is None else t
        self.ref = Referee(root=self.root, sps=self.sps, accel=self.accel, t_ms=t, **self.kw)
        self._collect()
        return self.ref

    def _collect(self):
        for line in self.ref.pop_events():
            self.events.append(json.loads(line))

    def run(self, idle_ms=0):
        """Play out every queued table action, then ``idle_ms`` more."""
        if idle_ms:
            self.table.idle(idle_ms)
        table = self.table
        feed = self.ref.sample
        while table.busy():
            t, raw, ax, ay, az, inp = table.next_sample()
            feed(t, raw, ax, ay, az)
        self._collect()

    def step(self, ms):
        """Feed ``ms`` of samples now, whether or not table actions are still playing out."""
        table = self.table
        end = table.now_ms + ms
        feed = self.ref.sample
        while table.now_ms < end:
            t, raw, ax, ay, az, inp = table.next_sample()
            feed(t, raw, ax, ay, az)
        self._collect()

    def press(self, name):
        self.ref.press(self.table.now_ms, name)
        self._collect()

    def cues(self, phys):
        return self.ref.seat_cues()[phys]

    def named(self, name):
        return [e for e in self.events if e.get("ev") == name]


def start(rig, seats=(2, 0, 4), side_toggles=0, idle_ms=10000):
    """Power on and let the table settle while the family sits down (the detector needs a few
    seconds after a start to learn the resting level), join ``seats`` in that order (the
    first starts), press menu."""
    rig.run(idle_ms)
    for s in seats:
        rig.press("seat%d" % s)
    for _ in range(side_toggles):
        rig.press("reverse")
    rig.press("menu")
    return sorted(seats)


def play_turn(rig, ideal, symbol, walls=1, gap_ms=600):
    """One turn as a family plays it, mirrored on ``ideal`` (a rules.Game fed the truth).

    Moves Rhino Hero first when owed, builds ``walls`` walls, places a roof, then presses the
    symbol button (``"none"``: presses nothing and lets the symbol window pass)."""
    t = rig.table
    if ideal.owes_rhino:
        t.move_rhino()
        ideal.apply(0, "rhino")
        rig.run(gap_ms)
    for _ in range(walls):
        t.place_wall()
        ideal.apply(0, "wall")
        rig.run(gap_ms)
    t.place_roof()
    ideal.apply(0, "roof")
    rig.run(800)
    if ideal.over and symbol == "none":
        return
    if symbol == "none":
        rig.run(rig.ref.symbol_ms + 500)
    else:
        rig.press(symbol)
    ideal.apply(0, "symbol", symbol=symbol)
    rig.run(300)


def same_state(ref_game, ideal):
    a = ref_game.state()
    b = ideal.state()
    for d in (a, b):
        d.pop("warning", None)
        d.pop("error", None)
    return a == b, a, b
