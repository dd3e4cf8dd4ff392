"""A tiny seeded trace generator for detector tests, runnable on MicroPython and CPython.

Usage::

    from tracegen import Gen
    g = Gen(seed=1, sps=80)
    g.idle(2000); g.place(2.2); g.idle(1500); g.collapse(20.0)
    for t_ms, raw, ax, ay, az in g.samples():      # a generator: nothing kept in memory
        ...
    g.cal                                          # offset, counts_per_gram, wall_g, roof_g, rhino_g
    g.marks                                        # [(t_ms, "place"|"collapse"|...)]

Much simpler than the host's simulated table (rhinoref.table) but with what matters: white
noise at about the HX711 datasheet level (sum of uniform deviates), lone spikes near 2**n-1,
a slow drift, finger pressure and ringing on placements, table bumps seen by the accelerometer
with the platform's inertia on the load, collapses with a dip and an impact.
"""

import math
import random


class Cal:
    def __init__(self, offset, cpg, wall_g=2.2, roof_g=4.8, rhino_g=5.5):
        self.offset = offset
        self.counts_per_gram = cpg
        self.wall_g = wall_g
        self.roof_g = roof_g
        self.rhino_g = rhino_g
        self.adc = "sinc1"      # (the samples are the load at an instant: a step in one)


class Gen:
    def __init__(self, seed=1, sps=80, cpg=2147.5, noise_counts=45, spikes=0.0, drift_g=0.0,
                 wall_g=2.2, roof_g=4.8, rhino_g=5.5):
        random.seed(seed)
        self.sps = sps
        self.cpg = cpg
        self.noise = noise_counts
        self.spikes = spikes
        self.drift_g = drift_g
        self.offset = 120000
        self.cal = Cal(self.offset, cpg, wall_g, roof_g, rhino_g)
        self.t = 0
        self.parts = []      # (t0, t1, kind, a, b, c)
        self.steps = []      # (t, grams) static changes
        self.marks = []

    # -- script ----------------------------------------------------------------------------------
    def idle(self, ms):
        self.t += ms

    def place(self, grams, press=8.0, hold=400, wander=0.0):
        """A piece set down with a finger's press (tremor 5 %, and a slow 1.5 Hz wander of
        ``wander`` times the press)."""
        t = self.t
        self.steps.append((t + 30, grams))
        self.parts.append((t, t + 60 + hold + 60, "press", press, 60, hold, wander))
        end = t + 60 + hold + 60
        self.parts.append((end, end + 600, "ring", 0.5, 9.0, 120))
        self.marks.append((end, "place"))
        self.t = end + 50

    def floors(self, n=3):
        """Build ``n`` floors: a wall and a roof each, left 1.2 s to settle after each piece."""
        for _ in range(n):
            self.place(self.cal.wall_g)
            self.idle(1200)
            self.place(self.cal.roof_g)
            self.idle(1200)

    def hand_on_top_roof(self):
        """Three floors, then a hand sets a wall on the top roof with a 6 g push held 500 ms.
        Returns when the push starts to let go; the caller writes what follows."""
        self.idle(1500)
        self.floors(3)
        self.idle(900)
        t0 = self.t
        self.steps.append((t0 + 30, self.cal.wall_g))
        self.parts.append((t0, t0 + 620, "press", 6.0, 60, 500, 0.0))
        return t0 + 560

    def lift(self, grams, carry=800, back=True):
        """Rhino Hero: lifted, carried, set down again (when back)."""
        t = self.t
        self.parts.append((t, t + 200, "press", 0.3, 40, 100, 0.0))
        self.steps.append((t + 220, -grams))
        self.marks.append((t + 220, "lift"))
        self.t = t + 220 + carry
        if back:
            self.place(grams, press=4.0, hold=300)

    def bump(self, mg=250, platform_g=80.0, hz=15.0):
        t = self.t
        self.parts.append((t, t + 700, "bump", mg, hz, 100, platform_g))
        self.marks.append((t, "bump"))
        self.t = t + 700

    def collapse(self, grams, on_platform=False, fall_ms=150):
        t = self.t
        self.marks.append((t, "collapse"))
        self.parts.append((t, t + fall_ms, "dip", grams * 0.6, fall_ms, 0))
        if on_platform:
            # The impact's impulse, averaged over one conversion (these samples are points).
            w = 1000 // self.sps
            self.parts.append((t + fall_ms, t + fall_ms + w, "impulse", grams * 0.9 * 80 / self.sps, 0, 0))
            self.parts.append((t + fall_ms, t + 700, "ring", 2.0, 12.0, 100))
        else:
            self.steps.append((t + fall_ms, -grams))
            self.parts.append((t + 150, t + 700, "ring", 1.0, 10.0, 100))
        self.t = t + 700

    # -- samples -------------------------------------------------------------------------------
    def _noise(self):
        # Sum of 4 uniform deviates in [-1, 1): sd = sqrt(4/3) ~ 1.155
        s = 0
        for _ in range(4):
            s += random.getrandbits(16)
        return (s / 32768.0 - 4.0) / 1.155 * self.noise

    def samples(self, until=None):
        end = self.t if until is None else until
        period = 1000.0 / self.sps
        tf = 0.0
        static = 0.0
        si = 0
        steps = sorted(self.steps)
        while tf < end:
            t = int(tf)
            while si < len(steps) and steps[si][0] <= t:
                static += steps[si][1]
                si += 1
            f = static + self.drift_g * math.sin(tf / 60000.0)
            ax = 5
            ay = -12
            az = 1000
            for p in self.parts:
                if not p[0] <= t < p[1]:
                    continue
                dt = t - p[0]
                kind = p[2]
                if kind == "press":
                    rise = p[4]
                    hold = p[5]
                    if dt < rise:
                        f += p[3] * dt / rise
                    elif dt < rise + hold:
                        f += p[3] * (1.0 + 0.05 * math.sin(dt / 15.0)
                                     + p[6] * math.sin(dt * 0.00942))
                    else:
                        f += p[3] * max(0.0, 1.0 - (dt - rise - hold) / 60.0)
                elif kind == "ring":
                    f += p[3] * math.exp(-dt / p[5]) * math.sin(2 * math.pi * p[4] * dt / 1000.0)
                elif kind == "bump":
                    a = p[3] * math.exp(-dt / p[5]) * math.sin(2 * math.pi * p[4] * dt / 1000.0)
                    az += int(a)
                    ax += int(a * 0.5)
                    f += (p[6] + static) * a / 1000.0   # (the cell bears m (g + a): up with z)
                elif kind == "dip":
                    x = dt / p[4]
                    f -= p[3] * x * x
                elif kind == "impulse":
                    f += p[3]
            raw = int(self.offset + f * self.cpg + self._noise())
            if self.spikes and random.random() < self.spikes:
                n = 12 + random.getrandbits(3)
                raw = (1 << n) - 1 if random.getrandbits(1) else raw | ((1 << n) - 1)
            yield t, raw, ax + int(self._noise() / self.noise * 3), ay, az
            tf += period
