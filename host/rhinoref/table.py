"""The simulated table: a load cell under the tower, an HX711, an accelerometer, and people.

Usage::

    from rhinoref.table import Table
    t = Table(seed=1, sps=80, accel=True, noise="datasheet")   # or noise="worse"
    t = Table(seed=1, tilt_mg=100)   # a ball tilt switch instead of the accelerometer
    cal = t.calibration()          # what the board would have learned (with its errors)
    t.idle(2000); t.place_wall(); t.place_roof(); t.move_rhino(); t.collapse("partial")
    while t.busy():
        t_ms, raw, ax, ay, az, inp = t.next_sample()
    print(t.truth)                 # [(t_ms, "wall"), (t_ms, "roof"), (t_ms, "rhino"), ...]

Actions queue up one after the other (each starts when the previous one has finished;
``knock(at_ms=...)`` and ``bump(at_ms=...)`` strike at a moment instead, over an action
already queued); they return nothing and record ground truth in ``t.truth`` as ``(t_ms,
name)``: settle time (the hand has left) for placements, the ONSET for collapses.
``next_sample()`` makes idle samples when nothing is queued, so a caller can pull forever.

The physics and every number are in docs/detector.md ("The simulated table"). In short:

* A 1 kg, 1 mV/V bar cell on an HX711 at gain 128: 2147.5 counts per gram (ratiometric, the
  excitation cancels), times the cell's own sensitivity (+-10 %), sign flipped when mounted
  the other way up. Input-referred noise 90 nV (80 SPS) / 50 nV (10 SPS) at 4.3 V excitation:
  45 / 25 counts rms (0.021 / 0.012 g). ``noise="worse"``: 4x the noise, 10x the spikes, 3x
  the creep and drift, more timing jitter (a cheap module on a noisy supply).
* Lone spikes: one sample replaced by 2**n - 1 or with its low n bits set.
* Creep: a first-order lag toward 0.2 % (worse 0.6 %) of the load, time constant 5-15 min.
  Temperature drift: a slow sine of 0.2-1.5 g (worse x3) plus a ramp.
* Timing: the HX711's own oscillator (+-2 %), a read jitter of 0-2 ms and now and then a
  late read.
* The converter's filter (``adc``): ``"sinc1"`` (the default) makes each reading the mean load
  over its own conversion period; ``"sinc4"`` passes the load through four cascaded means of
  one period each, as sigma-delta converters of the HX711's kind may (TI's ADS1232, the same
  10 / 80 SPS and 400 / 50 ms settling time, documents a sinc^4 filter): a sudden change then
  reaches the readings over four conversions. The HX711's datasheet does not say which;
  docs/detector.md, "The converter's filter".
* Pieces drawn per set from the SPEC ranges (wall 1.7-2.8 g, roof 3.5-6 g, Rhino Hero 3-8 g),
  each piece +-2 %.
* Hands: finger pressure while placing (2-35 g, tremor), release, then the tower rings.
  Rhino Hero is lifted, carried in the hand (0.5-2 s) and set down.
* The platform (40-120 g above the cell) and the tower shake with the table in a bump: the
  load sees their inertia (mass x vertical acceleration).
* Collapses: the falling part first loses weight (it tips and falls), then leaves the platform
  (total, partial, a roof sliding off) or lands on it (an impact, ringing, little net change).
* ``tilt_mg``: a ball tilt switch stands in for the accelerometer. The table moves as it would
  under an accelerometer (the same game, draw for draw); the ball rolls when the table's
  acceleration strays more than ``tilt_mg`` from rest on any axis at any of eight instants of
  a sample period, and the readings are those of the firmware's own driver
  (``referee.tiltswitch``) on that pin: (0, 0, 1000) at rest, a 2000 mg jolt on X and Y when
  the ball rolled since the last read.
"""

import collections
import math
import random

from .firmware import fw

button_to_input = fw("trace").button_to_input   # "seat2" -> "seat:2" (the trace's column)

# -- the load cell and the converter (see docs/detector.md) --------------------------------------
COUNTS_PER_GRAM = 2147.5          # 1e-3 V/V * 128 * 2**24 / 1000 g
EXCITATION_V = 4.3
COUNTS_PER_VOLT = 2**23 / (0.5 * EXCITATION_V / 128)
NOISE_NV = {80: 90.0, 10: 50.0}   # HX711 datasheet, input-referred rms at gain 128

WALL_RANGE = (1.7, 2.8)
ROOF_RANGE = (3.5, 6.0)
RHINO_RANGE = (3.0, 8.0)
PIECE_SD = 0.02                   # per-piece variation within a set

COLLAPSE_KINDS = ("total", "partial", "on_platform", "roof_slide")
ADC_MODELS = ("sinc1", "sinc4")   # the converter's filter: one conversion's mean, or four cascaded


def tilt_switch_problem(tilt_mg, no_accel):
    """What is wrong with a command line's ``--tilt-switch MG`` (with ``--no-accel``), for its
    error; None when nothing is."""
    if tilt_mg is not None and (no_accel or tilt_mg <= 0):
        return ("--tilt-switch takes a positive MG and replaces the accelerometer; "
                "--no-accel has neither")
    return None


def motion_words(accel, tilt_mg):
    """How a table's motion is felt, in words: "accelerometer", "no accelerometer" or
    "100 mg tilt switch"."""
    if tilt_mg is not None:
        return "%d mg tilt switch" % tilt_mg
    return "accelerometer" if accel else "no accelerometer"


def motion_note(accel, tilt_mg):
    """The same as a note after a game's title, only when it is not the accelerometer:
    "", ", no accelerometer" or ", 100 mg tilt switch"."""
    return "" if accel and tilt_mg is None else ", " + motion_words(accel, tilt_mg)


SINC4_SUB = {80: 4, 10: 8}        # load instants per conversion for the sinc^4 model

_NOISE = {
    #            noise x, spikes per sample, creep frac, drift amplitude g, jitter ms
    "datasheet": (1.0, 2e-4, 0.002, (0.2, 1.5), 2.0),
    "worse": (4.0, 2e-3, 0.006, (0.6, 4.5), 4.0),
}



def _with_motion(comps, t, ax, ay, az):
    """``ax, ay, az`` (milli-g) plus the table's shaking and tilt at ``t``."""
    for c in comps:
        cls = c.__class__
        if cls is _Ring and c.acc is not None:
            v = c.value(t)
            ax += c.acc[0] * v
            ay += c.acc[1] * v
            az += c.acc[2] * v
        elif cls is _Tilt:
            v = c.value(t)
            ax += c.kx * v
            ay += c.ky * v
    return ax, ay, az


class _TiltSwitchPin:
    """A ball tilt switch on a pulled-up pin, read through the firmware's own driver: the
    ball rolls off its contacts and back (two edges, which the driver's interrupt counts)
    when the table's acceleration strays ``mg`` or more from rest on any axis."""

    IRQ_FALLING = 1
    IRQ_RISING = 2

    def __init__(self, mg):
        from array import array

        self.mg = mg
        self.rolled = False     # the ball rolled during the last sample's period
        self._handler = None
        self._xyz = array("i", (0, 0, 0))
        self._driver = fw("tiltswitch").TiltSwitch(self)

    # the Pin the driver sees
    def value(self):
        return 1

    def irq(self, handler=None, trigger=0):
        self._handler = handler

    def read(self, t0, period, comps):
        """The driver's reading at the end of the period that began at ``t0``."""
        self.rolled = False
        for k in range(1, 9):
            dx, dy, dz = _with_motion(comps, t0 + period * k / 8, 0.0, 0.0, 0.0)
            m = self.mg
            if not (-m < dx < m and -m < dy < m and -m < dz < m):
                self._handler(self)     # off its contacts ...
                self._handler(self)     # ... and back
                self.rolled = True
                break
        self._driver.read_into(self._xyz)
        return self._xyz[0], self._xyz[1], self._xyz[2]


class _Ring:
    """A damped sine on the load (grams) and/or the accelerometer (milli-g)."""

    __slots__ = ("t0", "t1", "amp", "w", "tau", "acc", "ph", "inertial", "freq", "att")

    def __init__(self, t0, amp, freq, tau, acc=None, ph=0.0, inertial=False):
        self.t0 = t0
        self.freq = freq
        self.att = 1.0   # the HX711 averaging over one conversion (set by the table)
        self.t1 = t0 + 6 * tau
        self.amp = amp
        self.w = 2 * math.pi * freq / 1000.0
        self.tau = tau
        self.acc = acc  # (kx, ky, kz) milli-g per unit of the sine, or None
        self.ph = ph
        self.inertial = inertial

    def value(self, t):
        dt = t - self.t0
        if dt < 0:
            return 0.0
        return math.exp(-dt / self.tau) * math.sin(self.w * dt + self.ph)


class _Press:
    """Finger force: rise, hold with tremor, release (grams)."""

    __slots__ = ("t0", "t1", "p", "rise", "hold_end", "fall", "a1", "w1", "p1", "a2", "w2", "p2")

    def __init__(self, rng, t0, p, rise, hold, fall):
        self.t0 = t0
        self.p = p
        self.rise = rise
        self.hold_end = t0 + rise + hold
        self.fall = fall
        self.t1 = self.hold_end + fall
        self.a1 = rng.uniform(0.03, 0.10)      # physiological tremor, 8-12 Hz
        self.w1 = 2 * math.pi * rng.uniform(8, 12) / 1000.0
        self.p1 = rng.uniform(0, 6.28)
        self.a2 = rng.uniform(0.05, 0.20)      # slow wander of the push, 1-3 Hz
        self.w2 = 2 * math.pi * rng.uniform(1, 3) / 1000.0
        self.p2 = rng.uniform(0, 6.28)

    def value(self, t):
        dt = t - self.t0
        if dt < 0 or t >= self.t1:
            return 0.0
        if dt < self.rise:
            env = dt / self.rise
        elif t < self.hold_end:
            env = 1.0
        else:
            env = 1.0 - (t - self.hold_end) / self.fall
        return self.p * env * (1.0 + self.a1 * math.sin(self.w1 * dt + self.p1)
                               + self.a2 * math.sin(self.w2 * dt + self.p2))


def _bspline3(x):
    """The cubic B-spline on [0, 4] (four unit boxes convolved), at x."""
    if x < 0 or x >= 4:
        return 0.0
    if x < 1:
        return x ** 3 / 6
    if x < 2:
        return (-3 * x ** 3 + 12 * x ** 2 - 12 * x + 4) / 6
    if x < 3:
        return (3 * x ** 3 - 24 * x ** 2 + 60 * x - 44) / 6
    return (4 - x) ** 3 / 6


class _Sinc4:
    """A sigma-delta converter's sinc^4 decimation filter: four cascaded means over one
    conversion period each. The load, taken ``sub`` times per conversion, comes out as a
    weighted mean over the last four periods (a cubic B-spline): a step in the load reaches
    the readings over four conversions (4, 46, 46 and 4 % when it falls on a conversion's
    edge), two periods late on average where one conversion's mean is half a period late.
    The converter's input noise goes through the filter too: ``noise_sd`` is what each
    instant gets so that a reading's noise has the datasheet's sd, and consecutive readings'
    noise then correlates (0.49), as four-period windows that overlap by three make it."""

    __slots__ = ("sub", "weights", "loads", "noise_sd")

    def __init__(self, sub, reading_sd):
        # Four cascaded means of one period make a cubic B-spline four periods wide; its
        # value at the middle of each of the 4 x sub instants weighs that instant.
        kernel = [_bspline3((i + 0.5) / sub) for i in range(4 * sub)]
        total = sum(kernel)
        self.sub = sub
        self.weights = [k / total for k in kernel]
        self.loads = collections.deque([0.0] * len(kernel), maxlen=len(kernel))
        self.noise_sd = reading_sd / math.sqrt(sum(w * w for w in self.weights))

    def reading(self):
        return sum(w * f for w, f in zip(self.weights, self.loads))


class _Lin:
    """A load going linearly from v0 to v1 over [t0, t1) (grams), nothing outside: a mass
    arriving is then folded into the static load by a scheduled change."""

    __slots__ = ("t0", "t1", "v0", "k")

    def __init__(self, t0, t1, v0, v1):
        self.t0 = t0
        self.t1 = max(t1, t0 + 1)
        self.v0 = v0
        self.k = (v1 - v0) / (self.t1 - t0)

    def value(self, t):
        if t < self.t0 or t >= self.t1:
            return 0.0
        return self.v0 + self.k * (t - self.t0)


class _Collapse:
    """Part of the tower falling: from t0 it loses weight as it tips (quadratic growth to
    ``dip`` grams over ``grow`` ms), then goes linearly to ``-gone`` at t1 (cards leaving the
    platform, or landing on it when ``gone`` equals ``dip``... the impact is separate). The
    static load is changed at t1 by a scheduled change."""

    __slots__ = ("t0", "t1", "grow", "dip", "gone")

    def __init__(self, t0, grow, t1, dip, gone):
        self.t0 = t0
        self.grow = grow
        self.t1 = max(t1, t0 + grow + 1)
        self.dip = dip
        self.gone = gone

    def value(self, t):
        dt = t - self.t0
        if dt < 0 or t >= self.t1:
            return 0.0
        if dt < self.grow:
            x = dt / self.grow
            return -self.dip * x * x
        x = (dt - self.grow) / (self.t1 - self.t0 - self.grow)
        return -self.dip + (self.dip - self.gone) * x


class _Tilt:
    """Leaning on the table: the accelerometer sees a slow tilt (milli-g), up, hold, down."""

    __slots__ = ("t0", "t1", "kx", "ky", "ramp")

    def __init__(self, t0, dur, kx, ky, ramp):
        self.t0 = t0
        self.t1 = t0 + dur
        self.kx = kx
        self.ky = ky
        self.ramp = ramp

    def value(self, t):
        dt = t - self.t0
        if dt < 0 or t >= self.t1:
            return 0.0
        if dt < self.ramp:
            return dt / self.ramp
        if self.t1 - t < self.ramp:
            return (self.t1 - t) / self.ramp
        return 1.0


class Table:
    """A simulated table (see the module docstring)."""

    def __init__(self, seed=1, sps=80, accel=True, noise="datasheet", masses=None, adc="sinc1",
                 tilt_mg=None):
        if sps not in (10, 80):
            raise ValueError("sps must be 10 or 80 (the HX711 RATE pin)")
        if noise not in _NOISE:
            raise ValueError("noise must be 'datasheet' or 'worse'")
        if adc not in ADC_MODELS:
            raise ValueError("adc must be 'sinc1' or 'sinc4' (the converter's filter)")
        self.adc = adc
        rng = self.rng = random.Random(seed)
        self.sps = sps
        self.accel = bool(accel) or tilt_mg is not None
        self.noise = noise
        self._switch = None
        if tilt_mg is not None:
            if tilt_mg <= 0:
                raise ValueError("tilt_mg must be positive: the acceleration that rolls the ball")
            self._switch = _TiltSwitchPin(tilt_mg)
        nx, self._p_spike, creep, drift, self._jitter = _NOISE[noise]
        # The cell and converter.
        sens = rng.uniform(0.9, 1.1)
        sign = -1 if rng.random() < 0.2 else 1
        self._cpg = sign * COUNTS_PER_GRAM * sens
        self._noise_counts = nx * NOISE_NV[sps] * 1e-9 * COUNTS_PER_VOLT
        self._offset = int(rng.uniform(-300000, 300000))
        self._period = 1000.0 / sps * (1 + rng.uniform(-0.02, 0.02))
        self._window = 1000.0 / sps          # the conversion averages over the period
        self._nsub = 1 if sps >= 40 else 5
        self._creep_frac = creep * rng.uniform(0.5, 1.5)
        self._creep_tau = rng.uniform(5, 15) * 60000.0
        self._creep = 0.0
        self._drift_a = rng.uniform(*drift)
        self._drift_w = 2 * math.pi / (rng.uniform(20, 60) * 60000.0)
        self._drift_ph = rng.uniform(0, 6.28)
        self._drift_slope = rng.uniform(-0.5, 0.5) * drift[1] / 3600000.0
        self._platform_g = rng.uniform(40, 120)
        # Accelerometer: mounting tilt and noise (MPU-6050 ~3 mg rms per axis with the DLPF).
        self._acc_rest = (rng.uniform(-30, 30), rng.uniform(-30, 30), 1000 + rng.uniform(-20, 20))
        self._acc_noise = [rng.gauss(0, 3.0) for _ in range(4099)]
        self._cal_seed = rng.random()
        self._sinc4 = None
        if adc == "sinc4":
            # (its noise comes from a stream of its own: a seed plays the same game, draw for
            # draw, under either model)
            self._sinc4 = _Sinc4(SINC4_SUB[sps], self._noise_counts)
            self._noise_rng = random.Random(seed * 104729 + sps)
        self._acc_i = 0
        # The pieces of this set.
        if masses is None:
            masses = {
                "wall": rng.uniform(*WALL_RANGE),
                "roof": rng.uniform(*ROOF_RANGE),
                "rhino": rng.uniform(*RHINO_RANGE),
            }
        self.masses = dict(masses)
        self._rhino_m = self.masses["rhino"]
        # State.
        self._t = rng.uniform(0, self._period)   # float ms of the next sample
        self.now_ms = 0
        self._cursor = 0.0                       # when the queued actions end
        self._static = 0.0                       # grams on the platform at rest (tared zero)
        self._comps = []                         # active load/accel contributions
        self._pending = []                       # (t, kind, obj) sorted by t
        # Changes of the static load within the last conversion, (t, grams): a conversion is
        # evaluated at instants before its end, which must not see a change made after them.
        self._steps = []
        self._inputs = []                        # (t, name) button presses
        # The tower as PLANNED by the queued actions (actions are queued ahead of the samples):
        self._pieces = []                        # [kind, mass], bottom to top
        self._rhino_idx = None                   # index in _pieces of the roof he stands on
        self._rhino_off = False                  # lifted, in a hand
        self._now = (0, 0, False)                # the tower NOW: walls, roofs, Rhino Hero on it
        self.truth = []
        # The same actions with their span, for scoring (rhinoref.scenarios.score): dicts with
        # name, start (the hand arrives), t (= the truth time), and for "walls2" the first
        # wall's release ("first"), for "removed" the piece ("kind") and, when the hand let go
        # of it for a while before taking it back, when it let go ("letgo").
        self.actions = []
        self.players = None
        self.first = None
        self.side = None
        self.collapsed = False
        self.collapse_kind = None

    # -- facts for bots, renderers, metadata ----------------------------------------------------
    @property
    def tower_walls(self):
        return self._now[0]

    @property
    def tower_roofs(self):
        return self._now[1]

    @property
    def rhino_on_tower(self):
        return self._now[2]

    @property
    def tilt_rolled(self):
        """The tilt switch's ball rolled during the last sample's period (False without one):
        what the virtual board drives its pin with (two edges, off its contacts and back)."""
        return self._switch is not None and self._switch.rolled

    def _plan_rhino_on(self):
        return self._rhino_idx is not None and not self._rhino_off

    def _snapshot(self, t):
        """Schedule the present-tower facts to become true at time t (as planned now)."""
        snap = (
            sum(1 for p in self._pieces if p[0] == "wall"),
            sum(1 for p in self._pieces if p[0] == "roof"),
            self._plan_rhino_on(),
        )

        def apply():
            self._now = snap

        self._at(t, apply)

    def busy(self):
        """True while queued actions have not all played out."""
        return self._cursor > self._t or bool(self._pending)

    def board_motion(self):
        """What the board tells its detector about motion sensing (``Detector(accel=)``):
        ``detector.TILT`` for a tilt switch (``referee.board.make_referee``), else whether
        an accelerometer is fitted."""
        return fw("detector").TILT if self._switch is not None else self.accel

    def calibration(self, told=None):
        """The calibration the board would have learned: tare, a 100 g known mass and a few
        placements of each piece, each with the errors a real calibration has (the same
        every time it is asked for). Its ``adc`` is the table's own converter model, as a
        maker who checked it would have told the board, or ``told`` ("unknown", "sinc1",
        "sinc4": what the board was told instead)."""
        rng = random.Random(self._cal_seed)
        cpg = self._cpg * (1 + rng.gauss(0, 0.002))
        sd = self._noise_counts / abs(self._cpg)
        offset = int(self._offset + rng.gauss(0, 0.02 + sd) * abs(self._cpg))

        def learned(m):
            return round(m * (1 + rng.gauss(0, 0.008)) + rng.gauss(0, sd), 3)

        cal = fw("calibration").Calibration()
        cal.offset, cal.counts_per_gram = offset, round(cpg, 3)
        cal.wall_g, cal.roof_g = learned(self.masses["wall"]), learned(self.masses["roof"])
        cal.rhino_g = learned(self._rhino_m)
        cal.sps = self.sps
        cal.accel = "tilt" if self._switch else "mpu6050" if self.accel else "none"
        cal.adc = self.adc if told is None else told    # (hardware/README.md: the check)
        for step in ("tare", "scale", "wall", "roof", "rhino"):
            cal.mark(step)
        return cal

    def meta(self, told=None):
        """The trace metadata (SPEC 3.2) of a board that learned ``calibration(told)``: its
        ``adc`` is what that board was told, as a board's own recording says."""
        cal = self.calibration(told)
        m = {
            "sps": self.sps,
            "counts_per_gram": cal.counts_per_gram,
            "offset": cal.offset,
            "wall_g": cal.wall_g,
            "roof_g": cal.roof_g,
            "rhino_g": cal.rhino_g,
            "accel": cal.accel,
            "adc": cal.adc,
        }
        for k in ("players", "first", "side"):
            if getattr(self, k) is not None:
                m[k] = getattr(self, k)
        return m

    # -- scheduling helpers -----------------------------------------------------------------------
    @property
    def cursor_ms(self):
        """When the next queued action starts (the end of the last one, plus any idle)."""
        return self._cursor

    def _start(self):
        if self._cursor < self._t:
            self._cursor = self._t
        return self._cursor

    def _add(self, comp):
        if comp.__class__ is _Ring:
            # The HX711 averages over its conversion period: a sine of frequency f seen through
            # a boxcar of width T keeps sinc(f T) of its amplitude (exact for a steady sine).
            x = math.pi * comp.freq * self._window / 1000.0
            comp.att = abs(math.sin(x) / x)
            if comp.acc is not None:
                # The accelerometer's low-pass filter (MPU-6050 DLPF at 44 Hz).
                k = 1.0 / math.sqrt(1.0 + (comp.freq / 44.0) ** 2)
                comp.acc = (comp.acc[0] * k, comp.acc[1] * k, comp.acc[2] * k)
        self._pending.append((comp.t0, 0, comp))

    def _at(self, t, fn):
        self._pending.append((t, 1, fn))

    def _sort(self):
        self._pending.sort(key=lambda e: e[0])

    def _piece_mass(self, kind):
        return self.masses[kind] * (1 + self.rng.gauss(0, PIECE_SD))

    def _ring(self, t0, lo=0.1, hi=1.0):
        """The tower rings after a hand leaves it."""
        r = self.rng
        self._add(_Ring(t0, r.uniform(lo, hi), r.uniform(6, 15), r.uniform(60, 200), ph=r.uniform(0, 6.28)))

    def _set_down(self, t, m, kind, press_lo, press_hi, hold_lo=150, hold_hi=900):
        """A piece of mass m set down by hand from time t; returns the release time."""
        r = self.rng
        contact = r.uniform(20, 60)
        self._add(_Lin(t, t + contact, 0.0, m))
        self._at(t + contact, lambda: self._change(m))
        p = r.uniform(press_lo, press_hi)
        rise = r.uniform(40, 150)
        hold = r.uniform(hold_lo, hold_hi)
        fall = r.uniform(40, 120)
        self._add(_Press(r, t, p, rise, hold, fall))
        # Now and then the hand adjusts the piece: a second, smaller push.
        if r.random() < 0.25:
            self._add(_Press(r, t + rise + hold * 0.5, p * r.uniform(0.2, 0.6), 60, hold * 0.3, 60))
        self._acc_jolt(t, 5, 20)
        end = t + rise + hold + fall
        self._ring(end)
        return end

    def _acc_jolt(self, t, lo, hi, f_lo=20, f_hi=60, tau_lo=20, tau_hi=60, load=None):
        if not self.accel and load is None:
            return
        r = self.rng
        a = r.uniform(lo, hi)
        k = (a * r.uniform(-1, 1), a * r.uniform(-1, 1), a * r.uniform(-1, 1))
        ring = _Ring(t, 0.0 if load is None else load, r.uniform(f_lo, f_hi), r.uniform(tau_lo, tau_hi),
                     acc=k, ph=r.uniform(0, 6.28))
        self._add(ring)

    def _change(self, dm):
        self._static += dm

    # -- actions --------------------------------------------------------------------------------
    def idle(self, ms):
        self._cursor = self._start() + ms

    def finger_press(self, grams, hold_ms, release_ms, rise_ms=100, at_ms=None, hand=None):
        """A fingertip presses the empty platform and is snapped away, the motion of
        ``rhinoref calibrate --adc check``: ``grams`` of push reached in ``rise_ms`` (with a
        finger's tremor and wander), held ``hold_ms``, gone in ``release_ms``. Nothing moves on
        the tower: no truth. ``at_ms`` as for ``knock``; ``hand``: the random stream of the
        finger's tremor (the table's own by default)."""
        t = self._start_at(at_ms)
        self._add(_Press(hand or self.rng, t, grams, rise_ms, hold_ms, release_ms))
        self._overlaid(t + rise_ms + hold_ms + release_ms, at_ms)

    def touch(self):
        """A hand touches the tower (straightens a card): pressure, no mass change."""
        t = self._start()
        r = self.rng
        p = r.uniform(1.5, 20)
        rise, hold, fall = r.uniform(40, 150), r.uniform(100, 800), r.uniform(40, 120)
        self._truth(t, t, "touch", end=int(t + rise + hold + fall))
        self._add(_Press(r, t, p, rise, hold, fall))
        self._ring(t + rise + hold + fall, 0.05, 0.6)
        self._cursor = t + rise + hold + fall + 50
        self._sort()

    def place_wall(self):
        t = self._start()
        m = self._piece_mass("wall")
        end = self._set_down(t, m, "wall", 2, 35)
        self._pieces.append(["wall", m])
        self._snapshot(end)
        self._truth(t, end, "wall")
        self._cursor = end + 50
        self._sort()

    def place_walls2(self):
        """Two walls in quick succession (no rest in between)."""
        t = self._start()
        r = self.rng
        m1 = self._piece_mass("wall")
        m2 = self._piece_mass("wall")
        end1 = self._set_down(t, m1, "wall", 2, 35, 120, 600)
        self._pieces.append(["wall", m1])
        self._snapshot(end1)
        t2 = end1 + r.uniform(80, 400)
        end = self._set_down(t2, m2, "wall", 2, 35, 120, 600)
        self._pieces.append(["wall", m2])
        self._snapshot(end)
        self._truth(t, end, "walls2", first=int(end1))
        self._cursor = end + 50
        self._sort()

    def place_roof(self):
        t = self._start()
        m = self._piece_mass("roof")
        end = self._set_down(t, m, "roof", 1.5, 25)
        self._pieces.append(["roof", m])
        self._snapshot(end)
        self._truth(t, end, "roof")
        self._cursor = end + 50
        self._sort()

    def _truth(self, start, t, name, **more):
        self.truth.append((int(t), name))
        act = {"name": name, "start": int(start), "t": int(t)}
        act.update(more)
        self.actions.append(act)

    def _top_roof(self):
        for i in range(len(self._pieces) - 1, -1, -1):
            if self._pieces[i][0] == "roof":
                return i
        return None

    def set_rhino(self):
        """Rhino Hero set down on the top roof (from the hand or the box)."""
        t = self._start()
        m = self._rhino_m
        end = self._set_down(t, m, "rhino", 1, 15, 150, 700)

        top = self._top_roof()
        self._rhino_idx = top if top is not None else -1
        self._rhino_off = False
        self._snapshot(end)
        self._truth(t, end, "rhino")
        self._cursor = end + 50
        self._sort()

    def lift_rhino(self):
        """Rhino Hero picked up from the tower (he stays in the hand)."""
        if not self._plan_rhino_on():
            return
        t = self._start()
        r = self.rng
        m = self._rhino_m
        grab = r.uniform(100, 300)
        self._add(_Press(r, t, r.uniform(0.0, 0.5), 40, grab - 80, 40))
        lift = r.uniform(40, 100)
        t1 = t + grab
        self._add(_Lin(t1, t1 + lift, 0.0, -m))
        self._at(t1 + lift, lambda: self._change(-m))

        self._rhino_off = True
        self._snapshot(t1 + lift)
        self._ring(t1 + lift, 0.05, 0.4)
        self._truth(t, t1 + lift, "rhino_lift")
        self._cursor = t1 + lift + 50
        self._sort()

    def move_rhino(self):
        """Lift Rhino Hero, carry him in the hand, set him down on the top roof (first time:
        only set down)."""
        if self._plan_rhino_on():
            self.lift_rhino()
            self._cursor += self.rng.uniform(500, 2000)
        self.set_rhino()

    def remove_piece(self):
        """A piece is set down and taken away again before it was left on the tower."""
        t = self._start()
        r = self.rng
        kind = r.choice(("wall", "wall", "roof"))
        m = self._piece_mass(kind)
        contact = r.uniform(20, 60)
        self._add(_Lin(t, t + contact, 0.0, m))
        p = r.uniform(1, 20)
        hold = r.uniform(200, 900)
        self._add(_Press(r, t, p, r.uniform(40, 120), hold, r.uniform(40, 100)))
        t1 = t + contact + hold + r.uniform(50, 200)
        letgo = None
        if r.random() < 0.3:
            letgo = int(t1)
            # The hand lets go for a moment, then grips the piece again to take it back.
            t1 += r.uniform(100, 1500)
            g = r.uniform(150, 350)
            self._add(_Press(r, t1 - g, r.uniform(0.3, 3.0), 50, g - 90, 40))
        lift = r.uniform(40, 120)
        self._add(_Lin(t + contact, t1, m, m))
        self._add(_Lin(t1, t1 + lift, m, 0.0))
        self._ring(t1 + lift, 0.05, 0.4)
        self._truth(t, t1 + lift, "removed", kind=kind, letgo=letgo)
        self._cursor = t1 + lift + 50
        self._sort()

    def _start_at(self, at_ms):
        """Where a disturbance starts: after the last action, or at ``at_ms`` (the table's
        clock, not before the next sample) so that it overlaps an action already queued."""
        if at_ms is None:
            return self._start()
        if at_ms < self._t:
            raise ValueError("at_ms=%d is before the next sample (%d ms)" % (at_ms, self._t))
        return at_ms

    def _overlaid(self, end, at_ms):
        # The queue goes on after whichever ends later; truth stays in time order.
        self._cursor = max(self._cursor, end)
        if at_ms is not None:
            self.truth.sort(key=lambda tr: tr[0])
            self.actions.sort(key=lambda a: a["start"])
        self._sort()

    def bump(self, at_ms=None):
        """Someone bumps the table: the table shakes; tower and platform inertia load the cell.
        ``at_ms``: at that moment instead of after the last action (see ``knock``)."""
        t = self._start_at(at_ms)
        r = self.rng
        a = r.uniform(50, 400)
        k = (a * r.uniform(-1, 1), a * r.uniform(-1, 1), a * r.uniform(0.3, 1) * r.choice((-1, 1)))
        self._truth(t, t, "bump")
        ring = _Ring(t, 0.0, r.uniform(8, 25), r.uniform(60, 200), acc=k, ph=r.uniform(0, 6.28), inertial=True)
        self._add(ring)
        # The tower sways a little too.
        self._add(_Ring(t, r.uniform(0.1, 0.8), r.uniform(5, 12), r.uniform(100, 300), ph=r.uniform(0, 6.28)))
        self._overlaid(t + 6 * ring.tau, at_ms)

    def knock(self, at_ms=None):
        """A knuckle on the table: a short sharp jolt, little load change. ``at_ms``: at that
        moment of the table's clock instead of after the last action, so that it falls
        during one already queued (a knock while a piece is taken back); the queue then goes
        on after whichever ends later."""
        t = self._start_at(at_ms)
        r = self.rng
        a = r.uniform(150, 1200)
        k = (a * r.uniform(-0.5, 0.5), a * r.uniform(-0.5, 0.5), a * r.uniform(0.5, 1) * r.choice((-1, 1)))
        self._truth(t, t, "knock")
        ring = _Ring(t, 0.0, r.uniform(60, 150), r.uniform(8, 25), acc=k, ph=r.uniform(0, 6.28), inertial=True)
        self._add(ring)
        self._overlaid(t + 6 * ring.tau, at_ms)

    def lean(self, ms):
        """Someone leans on the table for ``ms``: it tilts a little and shakes at first."""
        t = self._start()
        r = self.rng
        self._truth(t, t, "lean")
        tilt = r.uniform(10, 40)
        ang = r.uniform(0, 6.28)
        self._add(_Tilt(t, ms, tilt * math.cos(ang), tilt * math.sin(ang), r.uniform(200, 500)))
        if self.accel or True:
            a = r.uniform(15, 60)
            k = (a * r.uniform(-1, 1), a * r.uniform(-1, 1), a * r.uniform(-1, 1))
            self._add(_Ring(t, 0.0, r.uniform(8, 20), r.uniform(50, 150), acc=k, inertial=True))
        self._cursor = t + ms
        self._sort()

    def collapse(self, kind="total", hand=None):
        """The tower (or part of it) falls; truth records the onset. ``hand``: for a roof
        slide, whether a hand is setting a wall on the top roof when it slides (None: 60 %
        of the time)."""
        if kind not in COLLAPSE_KINDS:
            raise ValueError("collapse kind must be one of " + ", ".join(COLLAPSE_KINDS))
        r = self.rng
        t = self._start()
        pieces = self._pieces
        n = len(pieces)
        roofs = [i for i, p in enumerate(pieces) if p[0] == "roof"]
        if kind == "roof_slide" and not roofs:
            kind = "total"
        if kind == "partial" and len(roofs) < 2:
            kind = "total"
        onset = t
        held = 0.0          # a wall in the hand that goes down with a sliding roof
        if kind == "roof_slide":
            first = roofs[-1]
            u = r.random()
            if (u < 0.6) if hand is None else hand:
                # A hand is setting a wall on the top roof when the roof slides off: the push
                # stops as the roof gives way under it, and the fingers that hold the wall
                # mostly keep it (its weight leaves the tower with the hand); a startled child
                # sometimes lets go and it falls with the roof.
                wall = self._piece_mass("wall")
                contact = r.uniform(20, 60)
                press_t = r.uniform(150, 600)
                give = r.uniform(30, 100)
                onset = t + contact + press_t
                self._add(_Lin(t, t + contact, 0.0, wall))
                self._add(_Lin(t + contact, onset, wall, wall))
                self._add(_Press(r, t, r.uniform(2, 25), contact, press_t, give))
                if r.random() < 0.75:
                    self._add(_Lin(onset, onset + give, wall, 0.0))
                else:
                    held = wall
        elif kind == "partial":
            first = r.choice(roofs[:-1]) + 1      # the floors above a lower roof fall
        elif kind == "total" and n > 3 and r.random() < 0.5:
            first = r.randint(1, 2)               # a wall or two stay on the foundation
        else:
            first = 0
        m_fall = sum(p[1] for p in pieces[first:])
        if self._plan_rhino_on() and (self._rhino_idx >= first or first == 0):
            m_fall += self._rhino_m
        if m_fall <= 0:
            m_fall = 0.0
        self._truth(t, onset, "collapse", kind=kind)
        self.collapse_kind = kind
        grow = r.uniform(60, 200)                 # tipping before the real fall
        if kind == "on_platform":
            tfall = r.uniform(100, 250)
            frac = r.uniform(0.4, 0.9)
            ti = onset + grow + tfall
            self._add(_Collapse(onset, grow, ti, m_fall * frac, m_fall * frac))
            h = r.uniform(0.03, 0.15) * (1 + 0.1 * len(roofs))
            v = math.sqrt(2 * 9.81 * h)
            self._add(_Impulse(ti, m_fall * v * r.uniform(0.5, 1.0) / 9.81, r.uniform(5, 25)))
            self._ring(ti, 0.3, 2.0)
            self._acc_jolt(ti, 100, 800, 30, 80, 20, 60, load=r.uniform(0.5, 3.0))
            lost = m_fall * r.uniform(0, 0.25) if r.random() < 0.5 else 0.0   # bounced off
            self._at(ti, lambda: self._change(-lost))
            end = ti + 300
        else:
            leave = r.uniform(80, 250) if kind != "roof_slide" else r.uniform(60, 200)
            frac = r.uniform(0.3, 0.7) if kind != "roof_slide" else r.uniform(0.1, 0.4)
            stay = 0.0
            if kind in ("total", "partial") and r.random() < 0.3:
                stay = m_fall * r.uniform(0.05, 0.3)   # some cards land on the platform
            gone = m_fall - stay
            t2 = onset + grow + leave
            self._add(_Collapse(onset, grow, t2, (m_fall + held) * frac, gone + held))
            if held:
                self._add(_Lin(onset, t2, held, held))
            self._at(t2, lambda: self._change(-gone))
            if stay > 0 or r.random() < 0.5:
                self._add(_Impulse(onset + grow + leave * r.uniform(0.3, 1.0), max(stay, 1.0) * 0.5 / 9.81, 10))
            self._ring(t2, 0.2, 1.5)
            self._acc_jolt(onset + grow, 20, 400, 20, 80, 20, 80, load=r.uniform(0.1, 1.0))
            end = t2 + 300

        del pieces[first:]
        if self._rhino_idx is not None and (self._rhino_idx >= first or first == 0):
            self._rhino_idx = None
        self._snapshot(onset)

        def fallen():
            self.collapsed = True

        self._at(onset, fallen)
        self._cursor = end
        self._sort()

    def press(self, name):
        """A button press now; it appears in the next sample's input column."""
        self._inputs.append(button_to_input(name))

    # -- samples ----------------------------------------------------------------------------------
    def _static_at(self, t):
        f = self._static
        for ts, dm in self._steps:
            if ts > t:
                f -= dm
        return f

    def _load(self, t, rings):
        f = self._static_at(t)
        for c in self._comps:
            cls = c.__class__
            if cls is _Ring:
                if rings:
                    if c.inertial:
                        # The table accelerates: platform and tower press with their inertia,
                        # M (g + a): the load rises with the accelerometer's z (+1 g at rest).
                        f += (self._platform_g + self._static) * c.att * c.value(t) * c.acc[2] / 1000.0
                    else:
                        f += c.amp * c.att * c.value(t)
            elif cls is not _Impulse and cls is not _Tilt:
                f += c.value(t)
        return f

    def _rings_sinc4(self, t):
        """The rings' load at t through the sinc^4 filter: what four cascaded means keep of a
        sine, sinc(f T)^4 of it, at the filter's middle (the caller's t, two periods back). A
        knock's 60-150 Hz is all but gone; taken at the load's instants instead, it would
        alias into the readings. (The physics of _load's rings, written apart so that the
        sinc1 path's arithmetic, and so its samples, stay as they were.)"""
        f = 0.0
        for c in self._comps:
            if c.__class__ is _Ring:
                a = c.att ** 4 * c.value(t)
                if c.inertial:
                    f += (self._platform_g + self._static) * a * c.acc[2] / 1000.0
                else:
                    f += c.amp * a
        return f

    def _static_mid(self, t):
        f = self._static_at(t)
        for c in self._comps:
            cls = c.__class__
            if cls is not _Ring and cls is not _Impulse and cls is not _Tilt:
                f += c.value(t)
        return f

    def next_sample(self):
        """The next HX711 sample: (t_ms, raw, ax, ay, az, input or None)."""
        t = self._t
        pend = self._pending
        while pend and pend[0][0] <= t:
            ts, kind, obj = pend.pop(0)
            if kind == 0:
                self._comps.append(obj)
            else:
                # A piece's mass moves to the static load when its part (a lift, a fall) ends;
                # samples evaluated before that instant still see it in the part, not twice.
                before = self._static
                obj()
                if self._static != before:
                    self._steps.append((ts, self._static - before))
        if self._steps:
            self._steps = [st for st in self._steps if st[0] > t - self._window]
        comps = self._comps
        if comps:
            self._comps = comps = [c for c in comps if c.t1 > t - self._window]
        r = self.rng
        win = self._window
        # Load: the conversion averages over the sample period.
        if self._sinc4 is not None:
            f = self._sinc4_reading(t, comps)
        elif comps:
            if self._nsub == 1:
                f = self._load(t - win * 0.5, True)
            else:
                # Slow parts averaged over the conversion; rings once, already attenuated.
                s = 0.0
                for i in range(self._nsub):
                    s += self._load(t - win * (i + 0.5) / self._nsub, False)
                f = s / self._nsub + self._load(t - win * 0.5, True) - self._static_mid(t - win * 0.5)
            for c in comps:
                if c.__class__ is _Impulse and t - win < c.t0 <= t:
                    f += c.j * 1000.0 / win
        else:
            f = self._static
        # Creep (first-order lag toward a fraction of the load) and temperature drift.
        self._creep += (self._creep_frac * self._static - self._creep) * (self._period / self._creep_tau)
        drift = self._drift_a * math.sin(self._drift_w * t + self._drift_ph) + self._drift_slope * t
        noise = r.gauss(0.0, self._noise_counts)
        if self._sinc4 is not None:
            noise = 0.0     # (filtered with the load; the draw keeps the stream the same)
        raw = self._offset + self._cpg * (f + self._creep + drift) + noise
        raw = int(raw)
        if raw > 8388607:
            raw = 8388607
        elif raw < -8388608:
            raw = -8388608
        if r.random() < self._p_spike:
            n = r.randint(12, 23)
            if r.random() < 0.5:
                raw = (1 << n) - 1 if n < 23 else 8388607
            else:
                raw = raw | ((1 << n) - 1)
                if raw > 8388607:
                    raw = 8388607
        # Accelerometer (milli-g), read at the sample time.
        if self.accel:
            ax, ay, az = self._acc_rest
            tab = self._acc_noise
            i = self._acc_i
            ax += tab[i]
            ay += tab[i + 1]
            az += tab[i + 2]
            i += 3
            self._acc_i = i if i < 4096 else r.randrange(0, 64)
            ax, ay, az = _with_motion(comps, t, ax, ay, az)
            ax, ay, az = int(ax), int(ay), int(az)
            if self._switch is not None:
                ax, ay, az = self._switch.read(t - self._period, self._period, comps)
        else:
            ax = ay = az = 0
        # Timestamp: the board's ticks_ms when it saw the data ready, with read jitter.
        jit = r.random() * self._jitter
        if r.random() < 0.002:
            jit += r.uniform(3, 10)      # the loop was busy (LED write, serial)
        t_ms = int(t + jit)
        if t_ms <= self.now_ms and self.now_ms:
            t_ms = self.now_ms + 1
        self.now_ms = t_ms
        self._t = t + self._period
        inp = None
        if self._inputs:
            inp = self._inputs.pop(0)
        return (t_ms, raw, ax, ay, az, inp)

    def _sinc4_reading(self, t, comps):
        """The reading of the conversion ending at t through the sinc^4 filter: the load at
        ``sub`` instants of the period, each with its input noise (an impact as its mean force
        over its instant's share of the period), joins the last four periods' instants; the
        rings are added as the filter keeps them (``_rings_sinc4``)."""
        sinc = self._sinc4
        sub = sinc.sub
        dt = self._window / sub
        noise_g = sinc.noise_sd / abs(self._cpg)
        gauss = self._noise_rng.gauss
        for i in range(sub):
            start = t - dt * (sub - i)
            f = self._load(start + dt * 0.5, False) + gauss(0.0, noise_g)
            for c in comps:
                if c.__class__ is _Impulse and start < c.t0 <= start + dt:
                    f += c.j * 1000.0 / dt
            sinc.loads.append(f)
        return sinc.reading() + self._rings_sinc4(t - 2 * self._window)


class _Impulse:
    """A short impact: ``j`` gram-force seconds at t0 (spread within one conversion)."""

    __slots__ = ("t0", "t1", "j")

    def __init__(self, t0, j, spread):
        self.t0 = t0
        self.t1 = t0 + spread
        self.j = j

    def value(self, t):
        return 0.0
