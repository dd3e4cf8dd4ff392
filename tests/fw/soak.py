"""Soak: hours of simulated play at 80 samples/s, run on MicroPython (issue 8, part 5).

Usage (the unix port with a Pico-sized heap; ``tests/test_reliability_soak.py`` and
``bench/bench_reliability.py`` run it on the firmware compiled to .mpy as a deploy does,
``tests/rel_mpy.py``; the source folder works too)::

    micropython -X heapsize=192k tests/fw/soak.py FIRMWARE_DIR DATA_DIR HOURS SEED

Prints progress lines and, last, one JSON line of figures: games played, samples, the heap
after each game (``gc.mem_alloc`` after ``gc.collect``, at the lobby), detections against the
truth of what the table did, false events split into those during quiet spells (what drift
and creep could cause) and the rest.

The table is simulated here, small enough for MicroPython and running in the same process as
the unchanged firmware ``Referee`` (``root`` = DATA_DIR: the game log, options and calibration
are real files, as on the board's flash): a load cell with HX711-like noise and lone spikes,
slow creep toward a share of the load and temperature drift (a sine of 1.5 g over two hours
plus a ramp), an accelerometer at rest with noise, table bumps. Players sit down, start games
with the buttons, build walls, place roofs with finger pressure and ringing, move Rhino Hero
when owed, press symbol buttons (or let the window pass), enter tie-break counts, sometimes
topple the tower, take breaks of minutes with the tower standing, and start the next game from
the menu. They follow the board (its ``game`` state), as a family follows the lights.
"""

import gc
import json
from array import array
import math
import random
import sys
import time

_SPS = 80
_PERIOD = 12.5  # ms


class Cal:
    def __init__(self, offset, cpg):
        self.offset = offset
        self.counts_per_gram = cpg
        self.wall_g = 2.2
        self.roof_g = 4.8
        self.rhino_g = 5.5


class Table:
    """Load (grams) on the cell as a function of time; events scheduled as small parts."""

    def __init__(self, seed, hours):
        random.seed(seed)
        self.cal = Cal(120000 + random.randint(-5000, 5000), 2147.5 * (0.9 + random.random() * 0.2))
        self.t = 0.0
        self.static = 0.0  # grams resting on the platform
        self.creep = 0.0
        self.creep_frac = 0.002
        self.creep_tau_ms = 600000.0
        self.drift_amp = 1.5
        self.drift_period_ms = 7200000.0
        self.drift_ramp = 0.3 / 3600000.0  # grams per ms
        self.parts = []  # [t0, t1, kind, a, b, c]
        self.steps = []  # [t, grams] mass changes still to come
        self.truth = []  # (t_ms, name)
        self.tower = []  # masses on the tower (walls, roofs)
        self.rhino_on = False
        self.rubble = 0.0  # grams of a fallen tower still lying on the platform
        self.rhino_m = self.cal.rhino_g * (0.98 + random.random() * 0.04)
        self.spike_p = 2e-4
        self.samples = 0

    def mass(self, kind):
        m = {"wall": self.cal.wall_g, "roof": self.cal.roof_g}[kind]
        return m * (0.98 + random.random() * 0.04)

    # -- actions: each starts at ``at`` (ms) and returns when the hand has left ---------------
    def place(self, at, kind, m=None):
        if m is None:
            m = self.mass(kind)
        press = 2.0 + random.random() * 12.0
        hold = 250 + random.randint(0, 400)
        self.steps.append([at + 30, m])
        self.parts.append([at, at + 60 + hold + 60, 0, press, 60, hold])  # finger
        end = at + 120 + hold
        self.parts.append([end, end + 600, 1, 0.5, 9.0, 120.0])  # ringing
        self.truth.append((end, kind))
        if kind != "rhino":
            self.tower.append(m)
        return end + 50

    def lift_rhino(self, at):
        self.parts.append([at, at + 200, 0, 0.3, 40, 100])
        self.steps.append([at + 220, -self.rhino_m])
        self.rhino_on = False
        return at + 220

    def move_rhino(self, at):
        t = at
        if self.rhino_on:
            t = self.lift_rhino(t) + 500 + random.randint(0, 1500)
        self.rhino_on = True
        return self.place(t, "rhino", self.rhino_m)

    def bump(self, at):
        self.parts.append([at, at + 700, 2, 100 + random.randint(0, 250), 15.0, 100.0])
        return at + 700

    def collapse(self, at):
        total = sum(self.tower) + (self.rhino_m if self.rhino_on else 0.0)
        falls = total * (0.7 + random.random() * 0.3)
        self.parts.append([at, at + 150, 3, falls * 0.6, 150, 0])
        self.steps.append([at + 150, -falls])
        self.parts.append([at + 150, at + 700, 1, 1.0, 10.0, 100.0])
        self.truth.append((at, "collapse"))
        self.tower = []
        self.rhino_on = False
        self.rubble += total - falls
        return at + 700

    def clear(self, at):
        """The family takes what is left off the platform (hands, no mass judged)."""
        left = sum(self.tower) + (self.rhino_m if self.rhino_on else 0.0) + self.rubble
        self.rubble = 0.0
        self.parts.append([at, at + 800, 0, 3.0, 100, 500])
        self.steps.append([at + 400, -left])
        self.truth.append((at + 400, "clear"))  # any detection here is no false one
        self.tower = []
        self.rhino_on = False
        return at + 1500

    # -- samples --------------------------------------------------------------------------------
    def _noise(self):
        s = random.getrandbits(16) + random.getrandbits(16) + random.getrandbits(16) \
            + random.getrandbits(16)
        return (s / 32768.0 - 4.0) * 39.0  # ~45 counts rms (HX711 at 80 SPS)

    def sample(self):
        """The next (t_ms, raw, ax, ay, az)."""
        tf = self.t
        t = int(tf)
        self.t = tf + _PERIOD
        self.samples += 1
        steps = self.steps
        i = 0
        while i < len(steps):
            if steps[i][0] <= t:
                self.static += steps[i][1]
                steps.pop(i)
            else:
                i += 1
        # creep: a first-order lag toward a share of the load
        self.creep += (self.static * self.creep_frac - self.creep) * _PERIOD / self.creep_tau_ms
        f = self.static + self.creep + self.drift_amp * math.sin(
            6.2832 * tf / self.drift_period_ms) + self.drift_ramp * tf
        az = 1000
        ax = 5
        parts = self.parts
        i = 0
        while i < len(parts):
            p = parts[i]
            if t >= p[1]:
                parts.pop(i)
                continue
            i += 1
            if t < p[0]:
                continue
            dt = t - p[0]
            kind = p[2]
            if kind == 0:  # finger pressure
                rise = p[4]
                hold = p[5]
                if dt < rise:
                    f += p[3] * dt / rise
                elif dt < rise + hold:
                    f += p[3] * (1.0 + 0.05 * math.sin(dt / 15.0))
                else:
                    f += p[3] * max(0.0, 1.0 - (dt - rise - hold) / 60.0)
            elif kind == 1:  # ringing
                f += p[3] * math.exp(-dt / p[5]) * math.sin(6.2832 * p[4] * dt / 1000.0)
            elif kind == 2:  # a bump: the table shakes
                a = p[3] * math.exp(-dt / p[5]) * math.sin(6.2832 * p[4] * dt / 1000.0)
                az += int(a)
                ax += int(a * 0.5)
                f -= (80.0 + self.static) * a / 1000.0
            elif kind == 3:  # falling: the part loses weight first
                x = dt / p[4]
                f -= p[3] * x * x
        raw = int(self.cal.offset + f * self.cal.counts_per_gram + self._noise())
        if random.random() < self.spike_p:
            n = 12 + random.getrandbits(3)
            raw = (1 << n) - 1 if random.getrandbits(1) else raw | ((1 << n) - 1)
        return t, raw, ax + random.randint(-3, 3), -12 + random.randint(-3, 3), \
            az + random.randint(-3, 3)

    def busy(self):
        return bool(self.parts or self.steps)


class Soak:
    def __init__(self, root, hours, seed):
        from referee import detector
        from referee.app import Referee
        from referee.calibration import Calibration

        import os

        for name in os.listdir(root):  # a fresh flash: nothing to resume from an earlier run
            os.remove(root + "/" + name)
        self.table = Table(seed, hours)
        c = Calibration()
        tc = self.table.cal
        c.offset = tc.offset
        c.counts_per_gram = tc.counts_per_gram
        c.wall_g, c.roof_g, c.rhino_g = tc.wall_g, tc.roof_g, tc.rhino_g
        for step in ("tare", "scale", "wall", "roof", "rhino"):
            c.mark(step)
        c.save(root + "/calib.json")
        self.ref = Referee(root=root, sps=_SPS)
        assert type(self.ref.det) is detector.Detector
        self.end_ms = int(hours * 3600000)
        self.presses = []  # (t, name), in time order
        self.detected = []  # (t_ms, event)
        # heap marks in an array made up front: a growing list would be a leak of our own
        self._heap = array("i", bytearray(4 * (int(hours * 100) + 20)))
        self.marks = 0
        self.games = 0
        self.counted = None  # the last game counted
        self.bad_starts = 0  # the buttons did not start the game the family meant
        self.results = {}
        self.inputs = 0
        self.quiet = []  # (t0, t1) spells with the tower standing untouched
        # judged game by game (and the lists emptied) so the harness's memory stays flat
        self.matched = 0
        self.missed = []  # a few examples
        self.false_ev = []
        self.n_missed = self.n_false = self.n_quiet_false = 0
        self.quiet_ms = 0
        self.kinds = {}

    # -- running the clock ----------------------------------------------------------------------
    def run_until(self, t_end):
        ref = self.ref
        tab = self.table
        pr = self.presses
        det = self.detected
        while tab.t < t_end:
            t, raw, ax, ay, az = tab.sample()
            while pr and pr[0][0] <= t:
                ref.press(t, pr.pop(0)[1])
            ref.sample(t, raw, ax, ay, az)
            ev = ref._events
            if ev:
                for line in ref.pop_events():
                    if line.startswith('{"ev": "detect"'):
                        d = json.loads(line)
                        det.append((d["t_ms"], d["event"]))
                    elif line.startswith('{"ev": "input"'):
                        self.inputs += 1

    def press(self, at, name):
        self.presses.append((at, name))

    def wait(self, ms):
        self.run_until(self.table.t + ms)

    def act(self, fn, *args):
        """Do a table action now and let it play out."""
        end = fn(int(self.table.t), *args)
        self.run_until(end)
        return end

    # -- a family -------------------------------------------------------------------------------
    def heap_mark(self):
        self.judge()
        gc.collect()
        if self.marks < len(self._heap):
            self._heap[self.marks] = gc.mem_alloc()
            self.marks += 1

    def play(self):
        self.wait(12000)  # power on; the family sits down
        while self.table.t < self.end_ms:
            self.heap_mark()
            g = self.ref.game
            if g is None:
                # the seats of the last game are still joined: they leave, the next family
                # (2 to 5 players, a random first) joins, menu starts
                seats = [0, 1, 2, 3, 4]
                for i in range(5):
                    j = random.randint(0, 4)
                    seats[i], seats[j] = seats[j], seats[i]
                seats = seats[: random.randint(2, 5)]
                presses = ["seat%d" % p for p in self.ref.joined] + \
                    ["seat%d" % p for p in seats] + ["menu"]
                t = int(self.table.t)
                for i, name in enumerate(presses):
                    self.press(t + 300 * i, name)
                self.wait(300 * len(presses) + 3000)
                g = self.ref.game
                if g is None or g.players != len(seats):
                    self.bad_starts += 1
                    continue
            self.play_game()
            g = self.ref.game
            if g is not None and g is not self.counted and (g.over or self.table.t >= self.end_ms):
                self.counted = g
                self.games += 1
                self.results[g.result] = self.results.get(g.result, 0) + 1
            if random.random() < 0.15:  # a long break between games: drift and creep
                t0 = self.table.t
                self.wait(300000 + random.randint(0, 900000))
                self.quiet.append((t0 + 3000, self.table.t))
            t = int(self.table.t)
            self.press(t, "menu")  # result -> lobby
            self.wait(2000)
            self.act(self.table.clear)
            self.wait(4000)

    def play_game(self):
        tab = self.table
        ref = self.ref
        while tab.t < self.end_ms:
            g = ref.game
            if g is None or g.over:
                return
            if g.tiebreak_seats:
                t = int(tab.t)
                for gs in list(g.tiebreak_seats):
                    phys = ref.seats[gs]
                    for _ in range(random.randint(0, 3)):
                        self.press(t, "seat%d" % phys)
                        t += 400
                    t += 3500  # the count is entered 3 s after the last press
                self.wait(t - int(tab.t) + 1000)
                if g.tiebreak_seats:  # still owed (e.g. a count of 0): one long press
                    for gs in list(g.tiebreak_seats):
                        self.press(int(tab.t), "seat%d_long" % ref.seats[gs])
                        self.wait(1500)
                continue
            if random.random() < 0.01:  # a drink break with the tower standing
                t0 = tab.t
                self.wait(60000 + random.randint(0, 120000))
                self.quiet.append((t0 + 3000, tab.t))
            if random.random() < 0.03:
                self.act(tab.bump)
                self.wait(1500)
            if g.owes_rhino:
                self.act(tab.move_rhino)
                self.wait(800 + random.randint(0, 700))
            floors = g.roofs_placed
            if random.random() < 0.01 + 0.004 * floors:
                self.act(tab.collapse)
                self.wait(3000)
                if ref.game is not None and not ref.game.over and not ref.game.tiebreak_seats:
                    # not detected: someone declares it from the menu
                    t = int(tab.t)
                    self.press(t, "menu_long")
                    self.press(t + 500, "skip")
                    self.wait(2000)
                continue
            walls = 1 if random.random() < 0.6 or g.walls_left < 2 else 2
            for _ in range(min(walls, g.walls_left)):
                self.act(tab.place, "wall")
                self.wait(400 + random.randint(0, 800))
            self.act(tab.place, "roof")
            self.wait(500 + random.randint(0, 700))
            g = ref.game
            if g is None or g.over or not g.awaiting_symbol:
                continue
            r = random.random()
            if r < 0.4:
                self.wait(ref.symbol_ms + 500)  # no button: the window passes
            else:
                sym = ("reverse", "skip", "draw", "double", "rhino")[int((r - 0.4) / 0.12) % 5]
                if sym == "double" and g.double_pending:
                    sym = "skip"
                self.press(int(tab.t), sym)
                self.wait(1200)

    # -- judging ----------------------------------------------------------------------------------
    def judge(self):
        """Detections so far against the truth, added to the totals (matched, missed, false,
        false during quiet spells, a few examples of each); the lists start again empty."""
        truth = self.table.truth
        det = self.detected
        used = [False] * len(det)
        second = False  # a "walls2" detection also stands for the next wall
        for tt, name in truth:
            self.kinds[name] = self.kinds.get(name, 0) + 1
            if second and name == "wall":
                second = False
                self.matched += 1
                continue
            second = False
            ok = False
            for i in range(len(det)):
                td, ev = det[i]
                if used[i] or td < tt - 600 or td > tt + 2500:
                    continue
                if ev == name or (name == "wall" and ev == "walls2") or name == "clear":
                    used[i] = True
                    ok = True
                    second = ev == "walls2"
                    break
            if name == "clear":
                self.kinds[name] -= 1  # not a placement: nothing to count
                if ok:
                    used[i] = True
                    for k in range(len(det)):  # the rubble may make several
                        if det[k][0] >= tt - 600 and det[k][0] <= tt + 2500:
                            used[k] = True
                continue
            if ok:
                self.matched += 1
            else:
                self.n_missed += 1
                if len(self.missed) < 5:
                    self.missed.append((tt, name))
        for i in range(len(det)):
            td, ev = det[i]
            if used[i] or ev not in ("wall", "walls2", "roof", "rhino", "collapse"):
                continue
            self.n_false += 1
            if len(self.false_ev) < 5:
                self.false_ev.append((td, ev))
            for q0, q1 in self.quiet:
                if q0 <= td <= q1:
                    self.n_quiet_false += 1
        for q0, q1 in self.quiet:
            self.quiet_ms += q1 - q0
        self.table.truth = []
        self.detected = []
        self.quiet = []


def main(argv):
    sys.path.insert(0, argv[1])
    root = argv[2]
    hours = float(argv[3])
    seed = int(argv[4]) if len(argv) > 4 else 1
    t0 = time.time()
    s = Soak(root, hours, seed)
    try:
        s.play()
    except MemoryError as err:  # report it as a figure, with where the run had got to
        print(json.dumps({"error": "MemoryError: %s" % err, "t_ms": int(s.table.t),
                          "games": s.games, "detected": len(s.detected)}))
        return
    s.heap_mark()
    heap = list(s._heap[: s.marks])
    first = heap[1] if len(heap) > 1 else heap[0]  # at the lobby after the first game
    later = heap[2:] if len(heap) > 2 else heap[1:]
    # a leak shows as a trend: least-squares slope over the games after the first, and the
    # mean of the first and the last ten marks
    n = len(later)
    slope = 0.0
    if n > 2:
        mx = (n - 1) / 2.0
        my = sum(later) / n
        sxy = 0.0
        sxx = 0.0
        for i in range(n):
            sxy += (i - mx) * (later[i] - my)
            sxx += (i - mx) * (i - mx)
        slope = sxy / sxx
    k = min(10, n) or 1
    out = {
        "hours": hours, "seed": seed, "samples": s.table.samples, "games": s.games,
        "bad_starts": s.bad_starts,
        "results": s.results, "inputs": s.inputs, "truth": s.kinds, "matched": s.matched,
        "missed": s.n_missed, "missed_first": s.missed, "false": s.n_false,
        "false_first": s.false_ev, "false_in_quiet": s.n_quiet_false,
        "quiet_minutes": s.quiet_ms // 60000,
        "heap_after_first_game": first, "heap_max_later": max(later) if later else first,
        "heap_min_later": min(later) if later else first, "heap_last": heap[-1],
        "heap_growth": (max(later) - first) if later else 0, "heap_marks": len(heap),
        "heap_trend_bytes_per_game": round(slope, 2),
        "heap_mean_first10": sum(later[:k]) // k if later else first,
        "heap_mean_last10": sum(later[-k:]) // k if later else first,
        "gc_free_last": gc.mem_free(), "wall_s": time.time() - t0,
    }
    print(json.dumps(out))


main(sys.argv)
