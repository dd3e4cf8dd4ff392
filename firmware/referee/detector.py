"""Placement and collapse detector: HX711 load samples (and accelerometer) in, game events out.

Usage::

    from referee import detector
    d = detector.Detector(cal, sps=80, accel=True)   # cal: offset, counts_per_gram, wall_g,
                                                     # roof_g, rhino_g, adc (duck-typed)
    # (accel=False: no accelerometer; accel=detector.TILT: a ball tilt switch's readings)
    ev = d.feed(t_ms, raw, ax, ay, az)   # every HX711 sample; ints (milli-g; 0s when accel False)
    if ev != detector.NONE:
        print(detector.EVENT_NAMES[ev], d.event_t_ms)
    d.expect_rhino(True)    # the referee says a Rhino Hero move is owed
    d.grams, d.stable       # settled net load (float, computed on read), at rest or not
    d.retare(); d.reset()   # zero here / start over for a new game

Pure logic shared by the board and the host: no ``machine``, no clock (time comes in with each
sample), integer arithmetic on the per-sample path (a float is a heap object on MicroPython),
nothing allocated per sample in steady state. Gram thresholds become counts in ``__init__``.

How it works (numbers and reasons in docs/detector.md):

1. Glitches: the HX711's lone spikes (2**n - 1, low bits all set, saturation) are replaced by
   the sample before; a median of three removes any other single wild sample.
2. The noise floor is measured (mean difference of consecutive samples) while the table rests,
   and in an episode that never settles (a noisier converter); every "still" test is a
   multiple of it, like a kitchen scale's stability test, so that a hand on the tower (tremor,
   wander) does not pass for a settled level.
3. Rest: the level stays within the band and the accelerometer is quiet. Only then does the
   resting level follow slow creep and temperature drift (zero tracking): the fast path.
4. An episode starts when the level leaves the band (or the accelerometer wakes). It ends when
   a window fits the band (200 ms of medians at 80 SPS, four raw samples at 10 SPS), or when
   the tower's ringing dies away after a hand visibly let go; the step between the two
   resting levels is classified by the learned masses (wall, two walls, roof, Rhino Hero, or
   a wall/two walls and a roof in quick succession), the game's order deciding near-ties
   (walls before a roof, Rhino Hero when his move is owed), or is Rhino Hero lifted or a
   piece taken back.
5. Collapse, decided while the episode runs: the level falls below the resting level by more
   than a hand explains (Rhino Hero lifted when his move is owed or a hand gripped him, the
   piece just placed taken back by a hand that gripped it, a wall falling over) plus a margin
   (larger just after a hand or a shake: the tower rings). A calm drop counts after two
   samples when it is more than a shake too small for the accelerometer could move, else
   once it has lasted or kept falling longer than half a table shake; a drop during shaking
   must exceed what the platform's and tower's inertia can do, or outlast the shaking. Also:
   a fall that the accelerometer then feels land, an impact after a fall (cards landing on
   the platform), cards smashed down within one 10 SPS conversion, a piece let go that falls
   again (or onto the platform) before it was weighed, a piece just brought that keeps
   falling past the old level, and a drop a hand could explain that comes to rest where
   nothing explains it. The reported time is the onset of the drop.
"""

from array import array

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


NONE = const(0)
WALL = const(1)
WALLS2 = const(2)
ROOF = const(3)
RHINO = const(4)
RHINO_LIFT = const(5)
REMOVED = const(6)
COLLAPSE = const(7)
BUMP = const(8)
SHIFT = const(9)

EVENT_NAMES = (
    "none",
    "wall",
    "walls2",
    "roof",
    "rhino",
    "rhino_lift",
    "removed",
    "collapse",
    "bump",
    "shift",
)

# Episode states.
_REST = const(0)
_BUSY = const(1)
_FALLEN = const(2)  # collapse reported: wait for the rubble to settle, classify nothing

_RAW_MAX = const(8388607)
_RAW_MIN = const(-8388608)

_WALL_ROOF = const(10)    # internal: a wall and a roof in one episode
_WALLS2_ROOF = const(11)  # internal: two walls and a roof in one episode

_CANDIDATES = (WALL, WALLS2, ROOF, RHINO)   # (a constant tuple: no allocation per call)

_QLEN = const(4)  # queued events (a lift and a set-down can be decided on one sample)
_HN = const(8)    # recent medians kept for the landing test
_NEVER = const(-536870912)  # -(1 << 29): "long ago" as a small int
_STILL_MS = const(300)  # (10 SPS) young shaking, the load down: the accelerometer's rest stays
_HELD_MS = const(150)  # (80 SPS) a piece weighed off its mass, reported this recently: in a hand?
_LIFT_MS = const(160)  # (80 SPS) fingers lift Rhino Hero's whole mass within this (114 ms seen)

# Detector(accel=TILT): a ball tilt switch (referee.tiltswitch) instead of an accelerometer.
TILT = const(2)
_TILT_HOLD_MS = const(400)  # the table shakes on this long after the switch's last roll
_TILT_MAX_MS = const(2000)  # ... but a ball that rolls on longer than this says nothing


def _ms_to_n(ms, sps):
    n = (ms * sps + 999) // 1000
    return n if n > 0 else 1


class Detector:
    """One table's detector. Tuning values are class attributes (grams, milliseconds, or
    multiples of the measured noise)."""

    noise_counts_80 = 45    # HX711 datasheet input noise at gain 128 in counts rms (90 nV)
    noise_counts_10 = 25    # ... at 10 SPS (50 nV); measured online from there
    band_x = 4              # settle band: window range <= 4 x mean |sample difference| (4.5 sd)
    band_x_raw = 8          # ... for raw samples (low rates: 9 sd, about 0.1 g at 10 SPS)
    rest_x = 3              # at rest: |median - level| < 3 x mean |difference| (4 sd of a median)
    settle_ms = 200         # a level is settled when a window this long fits the band
    settle_min_n = 4        # ... and at least this many samples (10 SPS: 400 ms)
    margin_g = 0.25         # a collapse: this far below what can be explained (calm table)
    hand_g = 0.15           # a hand on the tower: the level this far above the resting level
    push_g = 1.5            # a hand setting a piece down pushes it at least this much more
    release_g = 1.0         # a hand let go: the level fell this far from the episode's peak
    steady_ms = 600         # ... else the level must stay still this long
    letgo_ms = 250          # a piece let go this long ago, not yet weighed, falls again...
    landing_ms = 600        # ... within this time of the landing jolt: a collapse
    hand_margin_g = 0.8     # right after a hand left or a shake, the tower rings: needs more
    hand_ring_ms = 500
    cfall_g = 0.5           # a continuous fall from a piece just brought, past the old level
    fall_g = 1.5            # a raw sample this far below, then an impact: cards smashed down
    impact_g = 1.0          # an impact after a drop: at least this far above the resting level
    land_decay = 8          # a landing's jolt: the next two readings below 1/8 of it (10 SPS),
    land_decay1 = 6         # ... the first of them below 1/6 will do
    clean_ms = 250          # a drop straight out of a rest this long (nothing swayed before)
    drop_ms = 25            # how long a drop must last beyond the threshold (80 SPS: 2 samples)
    impact_ms = 300         # cards in free fall land within this time of the drop's start
    platform_g = 150        # the most a platform carrying the foundation card may weigh
    acc_floor_mg = 8        # shaking below this goes unseen (MPU-6050 noise: 3 mg rms)
    acc_thr_mg = 25         # accelerometer activity: sum of |deviation| over three axes
    bump_mg = 80            # activity above this is reported as a table bump
    acc_hold_ms = 150       # shaking counts as going on this long after the last active sample
    bump_gap_ms = 1000      # one bump event per second at most
    grab_ms = 500           # a hand on the tower this recently may be lifting something
    remove_ms = 3000        # a piece taken back within 3 s of settling is "removed"
    long_settle_ms = 2500   # a level that no piece explains must hold this long (a hand resting)
    track_n = 32            # zero tracking: move the resting level every 32 quiet samples

    def __init__(self, cal, sps=80, accel=True):
        if sps <= 0:
            raise ValueError("sps must be positive, e.g. 10 or 80")
        self.sps = sps
        # A tilt switch is no accelerometer: the detector works as without one (degraded mode),
        # and a fall decided while the switch says the table shook first is held until the
        # shaking is over (see _collapsed). _held: None without a switch, else the onset of
        # the fall held, or _NEVER.
        self.accel = bool(accel) and accel != TILT
        self._held = _NEVER if accel == TILT else None
        self._ev = array("i", [0] * _QLEN)
        # (one slot more: the level at a landing's jolt, see _landed)
        self._hy = array("i", [0] * (_HN + 1))
        self._evt = array("i", [0] * _QLEN)
        # Every attribute exists from here on, at every rate (the lines below make the
        # ones otherwise made only at 80 SPS or by the first placement), and their number
        # is kept where MicroPython's attribute table is at most 85 % full: it grows a table
        # only once it is full, and each method call through self first misses in it,
        # which in a full table probes every slot (167 attributes in 167 slots: 13.8 us per
        # sample on the unix port; 168 in 223 slots: 2.3 us; 178: 3.1 us; 194: 3.3 us;
        # 189 fit).
        # tests/test_detector_attrs.py checks the count.
        self._ri = self._rk = self._rprev = 0       # (the rest test's ring buffers, 80 SPS)
        self._rs1 = self._rs2 = self._rv1 = self._rv2 = 0
        self._h_top = self._h_bot = 0               # (see _recent_span)
        self._pair_t = _NEVER                       # (80 SPS) two pieces weighed together
        self.set_calibration(cal)
        self.reset()

    # -- configuration (not per sample: floats allowed) --------------------------------------
    def set_calibration(self, cal):
        cpg = float(cal.counts_per_gram)
        if cpg == 0:
            raise ValueError("counts_per_gram must not be 0")
        self._sgn = 1 if cpg > 0 else -1
        self._cpg = abs(cpg)
        self._offset = int(cal.offset)
        g = self._cpg
        sps = self.sps
        self._w = int(cal.wall_g * g)
        self._r = int(cal.roof_g * g)
        self._rh = int(cal.rhino_g * g)
        w = self._w
        self._min_place = w // 2
        # A ring's half range: the collapse margin's floor with an accelerometer. (Without
        # one a bump goes unseen and the tower may sway after it at any time, so the floor
        # is the margin for after a shake: _set_bands.)
        self._margin0 = int(self.margin_g * g)
        self._hand_margin = int(self.hand_margin_g * g)
        self._hand = int(self.hand_g * g)
        self._release = int(self.release_g * g)
        self._plat_c = int(self.platform_g * g)
        self._push_c = int(self.push_g * g)
        # A hand that presses more than a wall and 2 g onto the tower brings a piece: fingers
        # gripping a card to take it back press it 0.3-3 g, a hand setting a wall down adds
        # the wall and pushes 1.5 g and more (see _grip_lift, _settled, _slid_off).
        self._bring_c = w + self._push_c + self._push_c // 3
        self._impact = int(self.impact_g * g)
        self._fall = int(self.fall_g * g)
        # (10 SPS with an accelerometer: a raw conversion an impact's depth below leaves rest,
        # for the landing test in _smash)
        self._rest_lo = -self._impact if self.accel else -self._fall
        self._cfall = int(self.cfall_g * g)
        self._raw_win = sps <= 20
        # (10 SPS) Some rules tell Rhino Hero's lift from a roof sliding off by how the loss
        # splits between consecutive conversions. They hold only where a reading is the mean
        # of its own conversion ("sinc1"): a converter that spreads a change over four
        # readings ("sinc4", as sigma-delta converters of the HX711's kind may) splits every
        # lift the way a slide splits, and they would call a fall in a fifth of the games.
        # Not known: not used (docs/detector.md, "The converter's filter").
        adc = getattr(cal, "adc", "unknown")
        # _conv, what the converter's filter lets the rules assume: 1, a reading is its own
        # conversion's mean (10 SPS, told sinc1: those rules); 4, a reading tells of the load a
        # conversion and a half later than that (80 SPS, told sinc4: _check_collapse leads a
        # falling reading); 0, neither.
        if self._raw_win:
            self._conv = 1 if adc == "sinc1" else 0
        else:
            self._conv = 4 if adc == "sinc4" else 0
        # (10 SPS, a converter known to be sinc^4) A reading then tells of the load a
        # conversion or two later than the mean of its own would, while the accelerometer is
        # read at an instant: its readings are taken one conversion late (see feed), so that a
        # hand's press reached on a still table, and the jolt of cards that fell, line up with
        # the load again (scripted 261: a roof sliding under a hand, the press's delayed peak
        # read with the jolt). Not for a converter not known: on a sinc1 one the late readings
        # make a fall of every jolt that follows a drop (96 in 3,000 games). 80 SPS lines up
        # either way (a reading or two late: a false fall more in 1,000 games). Set exactly
        # when cards landing are looked for in sinc^4's shape (_smash hands over to _smeared).
        self._acc_late = (array("i", [0, 0, 0]) if self._raw_win and adc == "sinc4" and self.accel
                          else None)
        hn = _ms_to_n(100, sps)       # the landing test looks back 100 ms (2 samples at least)
        self._hn = 2 if hn < 2 else _HN if hn > _HN else hn
        self._settle_n = _ms_to_n(self.settle_ms, sps)
        if self._settle_n < self.settle_min_n:
            self._settle_n = self.settle_min_n
        k = _ms_to_n(self.drop_ms, sps)
        if not self.accel:
            # Without an accelerometer a table bump is only seen in the load: its swings last
            # half a period of the table's ringing (<= 62 ms at >= 8 Hz), so a drop must last
            # longer than that.
            k = _ms_to_n(75, sps)
            if sps <= 20:
                k = 2
        self._drop_n = k
        # ... and half a period of the slowest table shake (8 Hz: 62 ms) and the sample the
        # median of three adds to a trough, at least 2 samples
        kl = _ms_to_n(87, sps)
        self._long_n_drop = kl if kl > k + 1 else k + 1
        self._clean_n = _ms_to_n(self.clean_ms, sps)
        # A fall that lasts longer than half a period of the slowest table shake (8 Hz);
        # at low rates a conversion averages the shake away and this test is not used.
        self._dec_k = _ms_to_n(75, sps) + 1 if sps > 20 else 1 << 20
        # A run of new lows below the rest band longer than a quarter period of the slowest
        # tower ring (6 Hz: 42 ms) and the median's sample: a take-back's ring goes down
        # past the old level for at most that (80 SPS; at low rates never counted).
        self._sub_k = _ms_to_n(55, sps) if sps > 20 else 1 << 20
        # Ringing settle test (see _episode): the last settle window in two halves.
        rn = self._settle_n if self._settle_n >= 8 else 0
        self._rn = rn
        self._rh2 = rn >> 1
        self._wy = array("i", [0] * (rn if rn else 1))
        self._wd = array("i", [0] * (rn if rn else 1))
        # A drop has come to rest (for the allowances' test) after half a settle window.
        self._rest_n = self._settle_n // 2 if self._settle_n >= 6 else 3
        self._long_n = _ms_to_n(self.long_settle_ms, sps)
        self._steady_n = _ms_to_n(self.steady_ms, sps)
        if self._steady_n < self._settle_n + 2:
            self._steady_n = self._settle_n + 2
        self._acc_hold = _ms_to_n(self.acc_hold_ms, sps)
        # Noise floor (mean |difference| of consecutive samples = 1.128 sd), x64, from the
        # datasheet until measured.
        nz = self.noise_counts_80 if sps > 20 else self.noise_counts_10
        self._nz_init = (nz * 1128 // 1000) << 6
        self._nz_min = self._nz_init // 2
        self._nz_max = self._nz_init * 8
        # Accelerometer rest tracking: about 400 ms time constant.
        sh = 0
        while (1 << (sh + 1)) * 1000 <= 400 * sps:
            sh += 1
        self._ash = sh

    def _set_bands(self):
        md = self._nz >> 6
        self._eps = md
        # (raw samples at low rates: a wider band than for medians)
        self._band = md * (self.band_x_raw if self._raw_win else self.band_x)
        # a calm drop must stand well clear of the noise (a noisy converter: 4x datasheet)
        m = 3 * self._band
        m0 = self._margin0 if self.accel else self._hand_margin
        self._margin = m if m > m0 else m0
        self._rb = md * self.rest_x

    # -- public state --------------------------------------------------------------------------
    @property
    def grams(self):
        """Settled net load in grams (float; computed on read only)."""
        return (self._base - self._zero) / self._cpg

    @property
    def stable(self):
        return self._state == _REST

    @property
    def noise_grams(self):
        """The measured noise floor (standard deviation, grams; computed on read only)."""
        return (self._nz >> 6) / 1.128 / self._cpg

    def expect_rhino(self, owed):
        self._expect_rhino = bool(owed)

    def retare(self):
        """Take the present resting level as zero (and start the game's piece bookkeeping over)."""
        self._zero = self._base
        self._clear_game()

    def reset(self):
        """Start over: forget levels, noise, episode, queue and the game's pieces."""
        self._n0 = 0        # previous two samples (net counts) for the median
        self._n1 = 0
        self._ylast = 0     # the last median (what a glitch-form reading is replaced by)
        self._glitch_t = _NEVER   # time of the last reading replaced by the one before it
        self._nseen = 0
        self._t1 = 0        # time of the newest sample (the median belongs to the one before)
        self._base = 0
        self._zero = 0
        self._state = _BUSY
        self._have_base = False
        self._rest_run = 0      # samples at rest since the last episode (up to _clean_n)
        self._quiet_n = 0
        self._quiet_sum = 0
        self._nz = self._nz_init
        self._enz = self._nz_init   # the same, measured during episodes (see feed)
        self._set_bands()
        self._set_inertia()
        self._rx = self._ry = self._rz = 0   # accelerometer rest, shifted left by _ash
        self._act1 = self._act2 = self._amax = 0
        self._shake_t = _NEVER
        self._sk0_t = _NEVER
        if self._held is not None:
            self._held = _NEVER     # (tilt switch: no fall held)
        self._hand_t = _NEVER
        self._was_quiet = True
        self._ndev = 0          # the previous raw sample (deviation), when, quiet then
        self._ndev2 = 0         # ... and the one before it
        self._ndev_t = self._ndev_t0 = self._ndev_tp = 0
        self._ndev_q = True
        self._j_t = _NEVER
        self._j_ref = 0
        self._j_n = 0
        self._j_up = 0
        self._hi = 0
        self._pax = self._pay = self._paz = 0
        self._act_now = 0
        self._acc_idle = 1 << 20             # samples since the accelerometer was active
        self._last_bump = _NEVER
        self._lw_t = _NEVER     # a rested piece lost half its mass fast: when, the onset, the
        self._lw_on = self._lw_lo = 0   # lowest median since (see _slid_off)
        self._qn = 0
        self.event_t_ms = 0
        self._expect_rhino = False
        self._clear_game()
        self._start_episode(0, 0, 0)

    def _clear_game(self):
        self._small_t = _NEVER  # the last small rise that settled (a light hand)
        self._small_step = 0
        self._last_t = _NEVER   # the last placement: when, what, measured step
        self._last_ev = NONE
        self._last_step = 0
        self._rhino_on = False
        self._walls_since_roof = 0
        self._ws_before = 0
        self._owed_before = False   # Rhino Hero's move was owed when the last piece was booked
        self._rh_maybe = False  # a piece booked during his owed move while he was not on: him?
        # (or, 10 SPS, his lift weighed right after one of his mass: that piece taken back?)
        self._owed_late = False  # his move may still be owed though the referee counts it ended

    # -- the per-sample path ---------------------------------------------------------------------
    def feed(self, t_ms, raw, ax, ay, az):
        """One HX711 sample; returns an event code (NONE most of the time)."""
        # Accelerometer first: activity is the sum of deviations from the slow rest vector.
        up = 0
        if self.accel:
            late = self._acc_late
            if late is not None:
                # (the reading of one conversion ago instead: see set_calibration)
                if not self._nseen:
                    late[0] = ax
                    late[1] = ay
                    late[2] = az
                ax, late[0] = late[0], ax   # (swaps: no tuple is made)
                ay, late[1] = late[1], ay
                az, late[2] = late[2], az
            # The accelerometer's previous reading goes with the median (which belongs to the
            # sample before this one): the load's story and the shaking's line up in time.
            sh = self._ash
            if not self._nseen:     # (the first reading: the rest starts there)
                self._rx = ax << sh
                self._ry = ay << sh
                self._rz = az << sh
                self._pax = ax
                self._pay = ay
                self._paz = az
            pax = self._pax
            pay = self._pay
            paz = self._paz
            # (this reading's own activity, for the newest raw sample: see _smash)
            dx = ax - (self._rx >> sh)
            dy = ay - (self._ry >> sh)
            dz = az - (self._rz >> sh)
            thr = self.acc_thr_mg     # (a class constant: read once a sample, not three times)
            a_now = (dx if dx > 0 else -dx) + (dy if dy > 0 else -dy) + (dz if dz > 0 else -dz)
            self._act_now = a_now
            # (80 SPS: how much faster the table accelerates upwards than a reading ago, mg:
            # the change projected on the rest vector, gravity, whichever way the part is
            # mounted; / 1024 for / |rest|, about 1000 mg. Nothing for a reading back at
            # rest: the shaking is over, as after a jolt felt in a single reading. Not at 10
            # SPS: readings 100 ms apart do not follow an 8-25 Hz swing. 0 = nothing to read,
            # so the rules that read it cost nothing while the table is still; see _inertial.)
            if a_now > thr and not self._raw_win:
                up = ((ax - pax) * (self._rx >> sh) + (ay - pay) * (self._ry >> sh)
                      + (az - paz) * (self._rz >> sh)) >> 10
            self._pax = ax
            self._pay = ay
            self._paz = az
            ax = pax
            ay = pay
            az = paz
            t_a = self._t1 if self._nseen else t_ms
            dx = ax - (self._rx >> sh)
            dy = ay - (self._ry >> sh)
            dz = az - (self._rz >> sh)
            act = (dx if dx > 0 else -dx) + (dy if dy > 0 else -dy) + (dz if dz > 0 else -dz)
            if act > thr and self._acc_idle:
                self._sk0_t = t_a
            # (10 SPS: the rest is not moved by the first 300 ms of shaking while the
            # load is down (the jolt of a roof that tips, of cards falling: no tilt; a
            # shake rings 60-200 ms); moved a quarter of the way towards the jolt, it read
            # a still table 25-50 mg off for two more conversions and the collapse waited.
            # A tilt that stays is followed from then on.)
            if not (self._raw_win and act > thr
                    and t_a - self._sk0_t <= _STILL_MS
                    and self._n1 - self._base < -self._rb):
                self._rx += dx
                self._ry += dy
                self._rz += dz
            # The strongest shaking of the last three samples (the two readings at the ends of
            # the conversion at low rates) bounds the load it can move.
            m = act if act > self._act1 else self._act1
            self._amax = m if m > self._act2 or self._raw_win else self._act2
            self._act2 = self._act1
            self._act1 = act
            if act > thr:
                self._acc_idle = 0
                self._shake_t = t_a
                if act > self.bump_mg and t_a - self._last_bump > self.bump_gap_ms:
                    self._last_bump = t_a
                    self._push(BUMP, t_a)
            elif self._acc_idle < 1 << 20:
                self._acc_idle += 1
        elif self._held is not None and (ay > self.bump_mg or ay < -self.bump_mg):
            # The tilt switch's ball rolled (the driver reads a jolt on Y): the table shook.
            # _sk0_t: when this shaking began.
            if t_ms - self._shake_t >= _TILT_HOLD_MS:
                self._sk0_t = t_ms
                dr = self._base - self._ylast
                if self._dip_n and not self._raw_win and (self._near_allow(dr, self._al_rh)
                                                          or self._near_allow(dr, self._al_take)):
                    # (80 SPS) It began with the level at what may be lifted: a bump as the
                    # hand leaves with Rhino Hero or the piece, no landing (_jolt -1 as with
                    # an accelerometer); a fall it seems to make is held (_collapsed). (Not
                    # only once the level has rested there 100 ms, _rested_allowed: his lift
                    # with a bump 100 ms after it 43 -> 10 %.)
                    self._jolt = -1
            self._shake_t = t_ms
            if t_ms - self._last_bump > self.bump_gap_ms:
                self._last_bump = t_ms
                self._push(BUMP, t_ms)

        # Lone-spike rejection: median of three. The HX711's glitches read as 2**n - 1 or
        # with the low bits all set, and saturated readings: such a sample is replaced by the
        # one before (a true reading has its 12 low bits set once in 4096: no harm done), so
        # that even two glitches in a row do not pass the median. (At high rates by the
        # last median, not the last reading: a true reading of glitch form right after a wild
        # one would otherwise copy the wild one, and two of them pass the median. At 10 SPS
        # the raw-conversion tests need to know which conversion was so replaced: its time.)
        if raw & 4095 == 4095 or raw > _RAW_MAX - 1 or raw < _RAW_MIN + 1:
            if self._nseen >= 3 and not self._raw_win:
                n = self._ylast
            else:
                n = self._n1
                self._glitch_t = t_ms   # (where the load was is unknown: see _episode)
        else:
            n = (raw - self._offset) * self._sgn
        a = self._n0
        b = self._n1
        self._n0 = b
        self._n1 = n
        tm = self._t1        # the median belongs to the middle sample
        self._t1 = t_ms
        if self._nseen < 3:
            self._nseen += 1
            if self._nseen < 3:
                return self._pop()
        e = n - b            # for the noise floor
        if a > b:
            a, b = b, a
        y = n if n < b else b
        if y < a:
            y = a
        self._ylast = y

        if self._state == _REST:
            d = y - self._base
            rb = self._rb
            dn = n - self._base
            fall = self._fall
            if self._raw_win and dn > self._hand:
                self._hand_t = tm     # a grip that lasts one conversion (median hides it)
            if -rb < d < rb and self._acc_idle >= self._acc_hold and (
                    not self._raw_win or self._rest_lo < dn < fall):
                # Fast path: at rest. Zero tracking follows creep and drift only here, and the
                # noise floor is measured (a lone spike's jump is left out). (A raw sample far
                # off, not a glitch, may be cards smashing down within one conversion.)
                if e < 0:
                    e = -e
                nz = self._nz
                if e < (nz >> 3):
                    self._nz = nz + e - (nz >> 6)
                self._quiet_sum += d
                self._quiet_n += 1
                if self._rest_run < self._clean_n:
                    self._rest_run += 1
                if self._quiet_n >= self.track_n:
                    self._base += self._quiet_sum // self._quiet_n
                    self._quiet_n = 0
                    self._quiet_sum = 0
                    nz = self._nz
                    if nz < self._nz_min:
                        self._nz = self._nz_min
                    elif nz > self._nz_max:
                        self._nz = self._nz_max
                    self._set_bands()
                return self._pop()
            self._start_episode(tm, y, n)
        elif self._acc_idle >= self._acc_hold:
            # The noise floor during episodes too, for a converter noisier than measured so
            # far (nothing would ever look still): an episode that has not settled for the
            # long settle time with the table still raises the floor to what it sees.
            if e < 0:
                e = -e
            enz = self._enz
            if e < (enz >> 3):
                self._enz = enz = enz + e - (enz >> 6)
            if tm - self._ep_t > self.long_settle_ms and enz > self._nz + (self._nz >> 2):
                self._nz = enz if enz < self._nz_max else self._nz_max
                self._set_bands()
                self._ep_t = tm
        held = self._held
        if held is not None and held != _NEVER and not self._shaking():
            # (tilt switch) The shaking is over: a fall held through it stands if the load is
            # still down past the margin (past what may be lifted, when something may be);
            # else it was the shake's own swing.
            self._held = _NEVER
            m = self._cthr if self._al_rh or self._al_take else self._margin
            if self._state == _BUSY and y - self._base < -m:
                self._dip_t = held
                self._collapsed()
        self._episode(tm, y, n, up)
        return self._pop()

    # -- events queue (preallocated) -------------------------------------------------------------
    def _push(self, code, t):
        if self._qn < _QLEN:
            self._ev[self._qn] = code
            self._evt[self._qn] = t
            self._qn += 1

    def _pop(self):
        if self._qn == 0:
            return NONE
        code = self._ev[0]
        self.event_t_ms = self._evt[0]
        i = 1
        while i < self._qn:
            self._ev[i - 1] = self._ev[i]
            self._evt[i - 1] = self._evt[i]
            i += 1
        self._qn -= 1
        return code

    # -- episodes --------------------------------------------------------------------------------
    def _start_episode(self, t, y, n):
        # (straight out of a long rest: nothing swayed or swung just before)
        self._clean = self._state == _REST and self._rest_run >= self._clean_n
        self._rest_run = 0
        if self._state == _REST:
            self._state = _BUSY
        self._ep_t = t
        self._peak = 0          # highest level above the resting level in this episode
        self._relpk = 0         # ... since a hand last came back (the release's reference)
        self._plat = 0          # a level the load rested at after the hand let go ...
        self._plat_ok = False   # ... (seen), from which a hand may come back: a re-grip
        self._plat0 = False     # ... at the old level: the hand brought nothing
        self._regrip = False    # a hand came back to a piece it had let go
        self._pl_t = _NEVER     # (80 SPS) the level last at a rest after a release (_slid_off);
                                # (10 SPS, where _slid_off never runs) a later rise's peak
        self._bk_t = _NEVER     # a hand last pressed a piece onto a roof let go, or (80 SPS)
                                # the roof slid off its rest (_slid_off; see _settled)
        self._rf_ok = False     # (80 SPS) ... a roof let go rested at its own mass (_slid_off)
        self._plat2 = 0         # (80 SPS) the rest a piece let go last held (_slid_off);
                                # (10 SPS) the largest fall over two conversion steps
        self._peak_t = t
        self._jl = _NEVER       # the level when the table first shook 100 ms after the peak
        self._jl_t = t          # ... and when
        self._rpeak = 0         # ... raw samples too at low rates (a hand that brought a piece)
        self._rpk_q = True      # ... reached with the table still
        self._rlow = 0          # ... (10 SPS) the lowest raw conversion since that peak
        self._rise = 0          # ... (10 SPS) the most one rose over it since, from a piece;
                                # (80 SPS) the highest level since it: a later rise's peak
        self._dip_n = 0         # consecutive samples below the resting level by > margin
        self._over_n = 0        # consecutive samples below the collapse threshold
        self._dip_t = t         # when the present drop began
        self._dip_quiet = True  # accelerometer quiet when it began
        self._dip_max = 0       # longest drop in this episode (samples)
        self._lowest = 0        # deepest median below the resting level
        self._dip_sum = 0       # raw samples of the present drop: sum, count
        self._dip_cnt = 0
        self._jolt = 0          # the accelerometer woke during a drop that began quietly (1, 2, 3;
                                # -1: a shake that began at an allowance, no landing)
        self._cthr = self._margin
        self._above_t = t       # last time the level was not below the resting level
        self._dlow = y - self._base
        self._dec_n = 0         # consecutive falling samples (new lows)
        self._rdec = 0          # ... raw samples, each below the one before (10 SPS)
        self._sub_n = 0         # consecutive samples below the rest band, their raw sum
        self._sub_sum = 0
        self._sub_dec = 0       # ... new lows counted before that run began
        self._rj = _NEVER       # the level at a jolt felt above the old one, this run of new lows
        self._calm = True       # the present drop began on a calm table (no hand, no shake)
        self._dec_miss = 0
        # A hand on the tower: when last seen (kept across episodes: a hand that rested long
        # enough to count as a level still grabs), and in this episode (the tower rings).
        self._hand_ep_t = _NEVER
        if y - self._base > self._hand:
            self._hand_t = self._hand_ep_t = t
        self._al_rh = 0         # allowances of the present drop: Rhino Hero lifted,
        self._al_take = 0       # the piece just placed taken back
        self._rh_t = _NEVER     # when the present drop first reached Rhino Hero's mass
        self._slack = 0         # ... measured from under a light hand's press
        self._dip_seen = False  # a drop of about Rhino Hero's mass was seen (lift + set-down)
        self._ndev = 0          # the previous raw sample's deviation (see _smash)
        self._ndev2 = 0
        self._ndev_t = self._ndev_t0 = self._ndev_tp = t
        self._ndev_q = self._acc_idle >= self._acc_hold
        self._ld_k = 0          # a landing's jolt seen this many readings ago (see _smash)
        self._sm_k = 0          # a one-conversion fall and its impact seen (see _smash)
        self._sm_up = 0         # ... the impact's level (see _smash)
        self._sl_k = 0          # a resting roof's conversions falling in a row (see _slide;
                                # from -3 up to 0 after a rest of two conversions)
        self._sl_1 = self._sl_2 = self._sl_3 = self._sl_4 = self._sl_prev = 0
        self._sl_t = t
        self._fmax = 0          # (10 SPS) the largest fall between two conversions (_settled,
                                # _check_collapse)
        self._pf_k = 0          # a piece let go falling onto the platform (see _onto_platform)
        self._pf_b = self._pf_lv = self._pf_lo = 0
        self._pf_t = t
        self._sm_t = t
        i = 0
        while i < self._hn:      # the landing test's recent medians
            self._hy[i] = y
            i += 1
        self._dip_seen_t = t
        # Settle window: first sample, min/max/sum relative to it. Medians at high rates (a
        # lone wild sample does not restart it); raw samples at low rates, where a median of
        # three repeats values and would hide a hand's wander.
        self._c0 = n if self._raw_win else y
        self._cmin = 0
        self._cmax = 0
        self._cn = 1
        self._csum = 0
        self._ct = t
        self._quiet_n = 0
        self._quiet_sum = 0
        rn = self._rn
        if rn:
            # Ring buffers of the last window's samples and |differences|, halves' sums.
            i = 0
            while i < rn:
                self._wy[i] = y
                self._wd[i] = 0
                i += 1
            self._ri = 0
            self._rs1 = self._rs2 = y * self._rh2
            self._rv1 = self._rv2 = 0
            self._rk = 0
            self._rprev = y

    def _episode(self, t, y, n, up):
        base = self._base
        # Settle test: a window of medians whose range fits the band.
        v = n if self._raw_win else y
        c = v - self._c0
        lo = self._cmin
        hi = self._cmax
        if c < lo:
            lo = c
        elif c > hi:
            hi = c
        if hi - lo <= self._band:
            self._cmin = lo
            self._cmax = hi
            self._cn += 1
            self._csum += c
        else:
            self._c0 = v
            self._cmin = 0
            self._cmax = 0
            self._cn = 1
            self._csum = 0
            self._ct = t
        if self._state == _BUSY and self._have_base:
            d = y - base
            if d > self._peak:
                self._peak = d
                self._peak_t = t
                self._jl = _NEVER
            elif (self._jl == _NEVER and self._act_now > self.acc_thr_mg + self.acc_floor_mg
                    and (self._t1 if self._raw_win else t) - self._peak_t > 100):
                # (10 SPS: the reading is the newest conversion's, a conversion after the
                # median's time: bots' 27023, a jolt 99 ms after the peak by the median's
                # clock, 200 ms by the reading's)
                self._jl = d
                self._jl_t = t
            if d > self._relpk:
                self._relpk = d
            if self._cn == self._rest_n:
                # The load rested a while (half a settle window) well below the episode's
                # peak: the hand had let go. A hand that then comes back (the level rises
                # from there by more than the band of a hand's touch, the table still)
                # grips the piece again, most likely to take it back: its push is part of
                # any level that settles now, so the release counts from the new grip.
                lv = self._c0 + self._csum // self._cn - base
                if lv <= self._peak - self._release:
                    self._plat = lv
                    self._plat_ok = True
                    if -self._min_place < lv < self._min_place:
                        self._plat0 = True
            elif (self._plat_ok and d > self._plat + self._hand
                    and self._acc_idle >= self._acc_hold):
                self._plat_ok = False
                self._regrip = True
                self._relpk = d
            # (80 SPS; without an accelerometer too: the rests and the losses it watches are
            # the load's own, and only its watch for cards landing wants the jolt)
            if not self._raw_win and self._slid_off(t, d):
                self._collapsed()
                return
            dn = n - base
            # (the raw peak too: at 10 SPS a short push lasts one or two conversions, which
            # the median may not show)
            pk = dn if self._raw_win and dn > d else d
            # (the lowest since that peak, and a later rise's peak from which _best counts a
            # release: the highest level since that lowest, _pl_t's slot at 10 SPS, _rise at
            # 80 SPS)
            if self._raw_win:
                if dn < self._rlow:
                    self._rlow = self._pl_t = dn
                else:
                    if dn > self._pl_t:
                        self._pl_t = dn
                    if (self._rise < self._release >> 1 and dn - self._rlow > self._rise
                            and self._best(self._rlow) != SHIFT):
                        # (a hand that came back to a piece let go at its mass: see _landed,
                        # which asks only whether it reached half a gram, so no more once it
                        # did)
                        self._rise = dn - self._rlow
            elif dn < self._rlow:
                self._rlow = dn
                self._rise = d
            elif d > self._rise:
                self._rise = d
            if (self._raw_win and self._rpeak - self._rlow >= self._release
                    and ((_absdiff(self._rlow, self._r) <= self._tol(self._r)
                          and dn - self._rlow > self._bring_c)
                         or (_absdiff(self._ndev, self._r) <= self._tol(self._r)
                             and _absdiff(self._ndev, self._ndev2) <= self._band + self._hand
                             and dn - self._ndev > self._bring_c))):
                # (10 SPS) A roof let go rests on the tower (the load a roof's mass above the
                # old level, within its tolerance, a release below the push's peak: a hand
                # still pushing wanders at no particular level, bots' game 3388) and a hand
                # presses more than a wall and 2 g onto it: a piece brought (fingers gripping
                # a card to take it back press it 0.3-3 g). The time of its last such
                # conversion (see _settled). Or the conversion before this one rested at
                # the roof's mass (within the band and a touch of the one before it) and
                # the press is measured from there: a roof let go may ring under its mass
                # by more than its tolerance first, in the lowest conversion (bots' game
                # 55945: 0.5 g under, then three conversions at its mass, then a 22 g press;
                # the roof slid off as the hand left: nothing reported). Not one conversion
                # alone: a hand's push caught rising may weigh a roof on its way (scripted
                # 48892), a bump's swing may pass through it (39228).
                self._bk_t = t
            if pk > self._rpeak:
                self._rpeak = self._rlow = pk
                self._rise = 0
                # (a hand's push, not a bump's inertia: the accelerometer quiet then; with
                # a tilt switch at 80 SPS, the ball not rolling: overlap table, his lift with
                # a bump 400 ms before it ended 57 -> 7 %. Not at 10 SPS, where a fall's
                # landing taken for a hand's push decides it in time: scripted 2191.)
                self._rpk_q = (self._acc_idle >= self._acc_hold and self._act_now <= self.acc_thr_mg
                               and not (self._held is not None and not self._raw_win
                                        and self._shaking()))
            if pk > self._hand and self._ndev > -self._margin:
                # (a grip may last one conversion; an impact right after a fall is no grip)
                self._hand_t = self._hand_ep_t = t
            if self._raw_win:
                # (10 SPS) The largest fall over one conversion step and over two (_settled,
                # Rhino Hero's lift); no two-step figure when the load moved across a
                # conversion replaced as a glitch: a reading of a glitch's form (one true
                # reading in 4,096 has its low 12 bits set) is replaced by the one before,
                # which hides where the load was (bots' games 33588, 37775, 37812: his
                # lifts, the middle conversion so replaced). Judged on the conversion after
                # it: with the load still on both sides it hid nothing. (A true reading may
                # equal the one before, two in a few hundred: bots' 47830, at the end of an 8
                # g fall; an episode's first conversion has no such pair.)
                if self._n0 - n > self._fmax:
                    self._fmax = self._n0 - n
                f2 = self._ndev2 - dn
                if self._glitch_t == self._ndev_t and t != self._ep_t and f2 > self._band:
                    self._plat2 = _RAW_MAX
                elif f2 > self._plat2:
                    self._plat2 = f2
            if (self._check_collapse(t, d, dn, up) or self._landed(t, y, d, dn) or self._smash(dn)
                    or self._slide(dn) or self._onto_platform(dn)):
                self._collapsed()
            self._ndev_tp = self._ndev_t    # the sample before the previous one
            if self._ndev >= -self._margin:
                self._ndev_t0 = self._ndev_t    # the last sample before a drop: the onset
            self._ndev2 = self._ndev
            self._ndev = dn
            self._ndev_t = self._t1
            self._ndev_q = self._acc_idle >= self._acc_hold and self._act_now <= self.acc_thr_mg
        if self._held is not None and self._have_base and self._shaking():
            return      # (tilt switch) nothing settles while the table shakes (but the first
                        # level: no fall is judged before it)
        if self._rn and self._ring_settle(t, y, base):
            return
        if self._cn >= self._settle_n and self._acc_idle >= self._acc_hold:
            level = self._c0 + self._csum // self._cn
            # A level that no piece explains is most likely a hand resting on the tower:
            # it must hold much longer before it counts.
            step = level - base
            if (self._state == _FALLEN or not self._have_base or self._cn >= self._long_n
                    or (self._explained(step)
                        and (self._cn >= self._steady_n or self._released(step)))
                    or (self._raw_win and self.accel and step <= -self._min_place
                        and not self._rpk_q and self._rpeak >= self._impact
                        and not self._explained(step))):
                # (10 SPS, the last test: a level a placement lower that no piece
                # explains, after the load rose an impact's height over the old level with
                # the table shaking; no hand pressed it there, so none rests on it: cards
                # that fell, see _settled)
                self._settled(self._ct, step, level)

    def _shaking(self):
        # (tilt switch) The ball says the table shakes: it rolled within _TILT_HOLD_MS, and
        # not on end for longer than _TILT_MAX_MS (a switch that chatters on, set at its
        # tipping angle or shaken by a motor, says nothing: degraded mode until it is still).
        t = self._t1
        return t - self._shake_t < _TILT_HOLD_MS and t - self._sk0_t < _TILT_MAX_MS

    def _collapsed(self):
        if (self._held is not None and self._shaking()
                and (self._sk0_t - self._dip_t <= (1500 if self._raw_win else 500) // self.sps
                     or self._jolt == -1)):
            # (tilt switch) The table shook first: the ball rolled by the fall's onset as the
            # rule dates it, most often the last sample the load was still up (10 SPS: by
            # the next one, whose conversion the swing moved and during which the ball
            # rolled), with half a period for the read's jitter. A bump's swing looks just
            # like a fall, and the switch cannot tell how hard the table shook: held until
            # the shaking is over (see feed). So is one whose shaking began with the level at
            # an allowance (_jolt -1, see feed: overlap table, his lift with a bump 100-200 ms
            # after it 60/50 % -> 10/7 %). A fall that the switch feels later, as cards land,
            # is decided now.
            if self._held == _NEVER:
                self._held = self._dip_t
            return
        self._state = _FALLEN
        self._push(COLLAPSE, self._dip_t)
        # One collapse, one report: the watch for cards landing after a piece slid off is
        # kept across episodes, and would otherwise report this fall again from its own
        # onset once the rubble has settled and something moves (sim games 701, 1949).
        self._lw_t = _NEVER
        # Likewise the watch for a piece that lands after a jolt (_landed): its reference is
        # the absolute level before the fall and it runs 600 ms after the jolt, so a rubble
        # that settles within that (four conversions at 10 SPS) and moves again lies a
        # piece below it: the same fall reported again from the jolt (bots' game 2644).
        self._j_t = _NEVER

    def _slid_off(self, t, d):
        # (80 SPS) A piece let go rests on the tower (the last 100 ms of medians within a
        # ring's reach of each other, a piece's mass above the old level, the push gone: a
        # hand's push below the episode's peak, 250 ms after it; a hand still holding only
        # wanders), then loses half its mass and, within the time cards fall (300 ms), the
        # accelerometer feels an impact harder than a hand's contact (a bump's 80 mg; a hand
        # jolts the table 5-20 mg per axis) and the load comes back up by an impact's worth
        # (1 g) from its low: the cards landed on the platform, on the cell (held-out 2773,
        # 13348, 15734: 3-4 g lost, back 3-4 g). A hand that takes a piece back strikes
        # nothing; one that brings the next piece jolts less (game 407). (The watch is
        # kept across episodes, on absolute levels: the low may settle as a piece taken back
        # just before the cards land.)
        if self._lw_t != _NEVER:
            y = d + self._base
            if t - self._lw_t > self.impact_ms:
                self._lw_t = _NEVER
            elif y < self._lw_lo:
                self._lw_lo = y
            elif self._amax > self.bump_mg and y - self._lw_lo >= self._impact:
                self._dip_t = self._lw_on
                self._lw_t = _NEVER
                return True
        self._recent_span()
        top = self._h_top
        bot = self._h_bot
        rr = self._margin0      # (a ring's half range: 0.25 g)
        if self._rf_ok:
            if d - self._r > self._bring_c:
                self._bk_t = t
        elif t - self._peak_t >= 150 and top - bot <= rr << 2:
            # A roof set down and let go comes down from its push and rests at its own mass,
            # ringing up to 1 g (a push below the peak, 150 ms after it); a hand that then
            # presses more than a wall and 2 g onto it brings the next piece, and a load
            # that ends at the old level lost the roof from under it (see below and
            # _settled). The watch's rest below (within 0.5 g, 250 ms after the peak) misses
            # a roof that rang harder or was pressed on sooner (bots' games 7316, 14540,
            # reported as the roof taken back). A rising push passes the roof's mass on its
            # way up, not 150 ms after its peak; a touch easing off comes down past it but
            # does not press again past a wall and 2 g above it. Even after a re-grip: the
            # hand that presses next is the one this is about.
            lv = ((top + bot) >> 1) - self._base
            if lv <= self._peak - self._push_c and _absdiff(lv, self._r) <= self._tol(self._r):
                self._rf_ok = True
        if self._regrip:
            return False
        if top - bot <= rr + rr:
            lv = ((top + bot) >> 1) - self._base
            # (not a level the load rose into, 2 g or more above the lowest raw sample since
            # the push's peak: a piece let go rings at most 1 g under its rest, so a hand
            # came back to it (as in _landed); scripted 38374: a wall let go for 100 ms,
            # gripped 2.8 g, weighing a roof, and lifted with the grip's ease)
            if (lv <= self._peak - self._push_c and t - self._peak_t >= self.letgo_ms
                    and lv - self._rlow < self._release + self._release):
                self._plat2 = lv
                self._pl_t = t
                return False
        p = self._plat2
        if d >= p - rr:
            if self._pl_t != _NEVER:
                self._pl_t = t      # (still at that level, ringing)
                if (d - p > self._bring_c
                        and _absdiff(p, self._r) <= self._tol(self._r)):
                    # A roof let go rests on the tower at its own mass (a hand still
                    # pushing wanders at no particular level) and a hand presses more than
                    # a wall and 2 g onto it: a piece brought (fingers gripping a card to
                    # take it back press it 0.3-3 g; see _settled).
                    self._bk_t = t
            return False
        if d < p - (p >> 1) and self._pl_t != _NEVER:
            # (half of it gone, the table still: watch for the landing; only with an
            # accelerometer, whose jolt alone ends that watch)
            if (self.accel and p >= self._min_place and self._best(p) != SHIFT
                    and self._acc_idle >= self._acc_hold):
                self._lw_t = t
                self._lw_on = self._pl_t
                self._lw_lo = d + self._base
            tr = self._tol(self._r)
            if (t - self._pl_t >= 70 and self._peak - p > self._bring_c
                    and -tr <= p - self._r <= tr >> 2):
                # A roof brought (pushed more than a wall and 2 g over its rest: a touch
                # presses 1.6-2.8 g, scripted 1568, 40364), let go, at rest at its own mass,
                # that loses half of it 70 ms or more after its last sample at the rest slid
                # off: a hand lifts a card within 40-120 ms, half of a roof within about 60 ms
                # of leaving the rest (63 ms at most in round 29's take-backs), while a roof
                # tips as the square of the time before it leaves (73-138 ms: bots' 3670,
                # 10476, 24949, 25218, 26523, scripted 2198, 31239, 41791). A rest heavier
                # than the roof by a quarter of its tolerance is a hand's grip on it (0.3-3 g;
                # one eased just before the lift adds its fall to the lift's time: scripted
                # 29591, 0.2 g over, 74 ms); a roof at rest weighs its mass or, as it begins
                # to tip, a little less (0.36 g under to 0.06 g over in the falls read).
                # With no jolt and nothing pressed on it, _settled would weigh the loss as
                # the roof taken back; it is lost from under, as with a piece pressed onto
                # it. Onset: its last sample at the rest.
                self._bk_t = self._pl_t
            self._pl_t = _NEVER
        return False

    def _ring_settle(self, t, y, base):
        """The tower rings after a hand let go (a damped 6-15 Hz sway): a level is also
        settled when, over the last window, the two halves agree on the mean and the up and
        down motion of the later half is smaller than that of the earlier one (decaying, where
        a hand's tremor keeps going)."""
        i = self._ri
        j = i - self._rh2
        if j < 0:
            j += self._rn
        ry = self._wy
        rd = self._wd
        dv = y - self._rprev
        if dv < 0:
            dv = -dv
        self._rprev = y
        ym = ry[j]
        dm = rd[j]
        self._rs2 += y - ym
        self._rs1 += ym - ry[i]
        self._rv2 += dv - dm
        self._rv1 += dm - rd[i]
        ry[i] = y
        rd[i] = dv
        i += 1
        if i == self._rn:
            i = 0
        self._ri = i
        if self._rk < self._rn:
            self._rk += 1
            return False
        if (self._acc_idle < self._acc_hold or not self._have_base
                or self._nz > self._nz_init << 1):
            # (with a converter much noisier than the datasheet, the up and down motion is
            # the noise's, decaying or not: only the plain window then)
            return False
        v2 = self._rv2
        if 5 * v2 > 3 * self._rv1 or self._cn < self._rh2:
            return False
        s1 = self._rs1
        s2 = self._rs2
        if _absdiff(s1, s2) > (self._band >> 1) * self._rh2:
            return False
        level = (s1 + s2) // self._rn
        step = level - base
        if self._state == _FALLEN or (self._explained(step) and self._released(step)):
            self._settled(t - self._rn * 1000 // self.sps, level - base, level)
            return True
        return False

    def _landed(self, t, y, d, dn):
        """A piece that never came to rest falls again: the accelerometer feels something
        land (it was still just before) and the load stays a piece's mass below where it was
        just before (a table shake swings back within half a period)."""
        h = self._hy
        i = self._hi
        if self._acc_idle == 0 and self._was_quiet:
            # Something hit the table: the level just before (highest of the last samples).
            self._recent_span()
            top = self._h_top
            bot = self._h_bot
            # ... a piece let go: the hand's push gone a while ago, the level a piece's mass
            # (At low rates, the level had come to rest: the last two medians, 300 ms of
            # conversions that average the tower's ringing, less than half a wall apart. A
            # piece that begins to tip loses 10-40 % of its weight over 60-200 ms before its
            # jolt, a level still falling from a hand's push grams per conversion, which may
            # weigh a wall and a roof by chance when the hand setting the second of two walls
            # jolts the table as it arrives: held-out games 6711, 6846, 7326)
            step = top - self._base
            # (And the load did not rise again after the release, 2 g or more above the
            # lowest raw sample since the push's peak, and stay up, the last two raw samples
            # too: a piece that tips makes new lows itself; a piece let go rings at most 1 g
            # under its level; a hand that came back or brings the next piece presses it up;
            # bots' game 551 at 80 SPS: the second of two walls brought with a 3-5 g press,
            # the jolt as it arrived, then the press eased by 4 g: a false collapse. At 10
            # SPS scripted 63295: a roof let go, one conversion at its mass, a 2.2 g grip
            # that jolted 27 mg, then the roof taken back.) (10 SPS: nor once any conversion
            # rose half a gram over the lowest since the push's peak, that lowest a piece's
            # mass: a conversion averages a let-go piece's ringing away (the falls this test
            # decides in the bots' 1-20000 and scripted 1-10000: 0.28 g at most), so that
            # was a hand come back to grip the piece, and a jolt as it lifts it is a knock
            # or a bump; round 81, bench_overlap.py's take-backs. A hand still pushing
            # wavers as much: not from a level that is no piece's, bots' 16623 and scripted
            # 7934, 1.6-1.9 g under a push.)
            up = self._release + self._release
            if (step >= self._min_place and self._peak - step >= self._release
                    and t - self._peak_t >= self.letgo_ms and self._best(step) != SHIFT
                    and (top - bot < self._min_place or not self._raw_win)
                    and (step - self._rlow < up or self._ndev - self._rlow < up
                         or dn - self._rlow < up)
                    and (not self._raw_win or self._rise < self._release >> 1)):
                self._j_t = t
                self._j_ref = top
                h[_HN] = h[(i if i else self._hn) - 1]   # (the level at the jolt)
                self._j_n = 0
                self._j_up = 0
        self._was_quiet = self._acc_idle >= self._acc_hold
        h[i] = y
        i += 1
        self._hi = 0 if i == self._hn else i
        if t - self._j_t > self.landing_ms:
            return False
        if not self._raw_win:
            # (80 SPS) A hand bringing the next piece: its contact was the jolt, and
            # the level rises more than a wall and a push above where a piece would have
            # fallen from, for three medians (longer than a landing's 5-25 ms impact): no
            # piece fell (held-out 2392: the second of two walls, the first's push let go
            # 270 ms before, the level at the jolt still on its way down from the push).
            if y > self._j_ref + self._w + self._push_c:
                self._j_up += 1
                if self._j_up >= 3:
                    self._j_t = _NEVER
                    return False
            else:
                self._j_up = 0
        if y < self._j_ref - self._min_place - self._margin:
            self._j_n += 1
            # (80 SPS: and the load has gone on falling after the jolt, by half a wall: a
            # piece that falls strikes while it is still leaving the tower, and the cards
            # land after the jolt of their tipping. A hand that brings the next piece jolts
            # the table as it arrives, with the level at rest where the last piece's push
            # left it: held-out 18702, the jolt 100 ms after a 10 g push fell to the first
            # of two walls, the level 0.3 g lower after it, then the second wall.)
            if self._j_n >= self._long_n_drop and (
                    self._raw_win or y < h[_HN] - self._min_place):
                self._dip_t = self._j_t
                return True
        else:
            self._j_n = 0
        return False

    def _released(self, step):
        """A new level above the old one: did a hand visibly let go (the level fell from the
        episode's peak)? A steady hand still pressing lightly looks settled otherwise."""
        return step < self._min_place or self._relpk - step >= self._release

    def _check_collapse(self, t, d, dn, up):
        if d > self._hand:
            self._hand_t = self._hand_ep_t = t
        # How long the level has been falling, sample after sample: a table's shaking swings
        # the load back within half a period (>= 8 Hz: 62 ms), a falling tower keeps going.
        # (one sample that is not a new low is forgiven: an impact's ringing, a late read)
        # (80 SPS) A run ends at once when the raw load swings back up with the table
        # accelerating upwards (_inertial): a bump's inertia, whose first swing down had
        # extended a hand's let-go into a "fall" (session 42, bench_overlap.py: a bump or a
        # knock as the hand leaves a wall, a roof, a touch or a piece taken back, 17 of 3,600
        # games no longer a fall). Cards that strike the platform raise the load too, but not
        # so (scripted 1286, 1746, 2266: a run ended on any rise with a jolt was decided
        # 25-90 ms later).
        if up and dn > self._ndev and self._inertial(dn - self._ndev, up):
            self._dec_n = 0
            self._dec_miss = 0
            self._dlow = d
            self._rj = _NEVER
        elif d < self._dlow - self._eps:
            self._dlow = d
            self._dec_n += 1
            self._dec_miss = 0
        else:
            self._dec_miss += 1
            if self._dec_miss >= 2:
                self._dec_n = 0
                self._dec_miss = 0
                self._dlow = d
                self._rj = _NEVER
        # (80 SPS) A roof that tips off jolts the table as its tipping ends and it starts to
        # fall; a hand lifting a piece strikes nothing. Felt while the level is still falling
        # towards the old level, the jolt marks the fall; the level when it was first felt
        # is kept (the lower of the median and the newest raw sample: a fall moves grams
        # per sample, the median lags one), see the test below. A jolt whose load moved
        # with the table's acceleration (a bump's or a knock's inertia; the step less the
        # one before it: a tipping roof's falling load and a table that happens to
        # accelerate down are no such swing) marks the run as a shake's instead: no
        # tipping's end for the rest of it (_RAW_MAX, which the test reads as a hand still
        # pressing; session 42, bench_overlap.py: a knock or a bump as a hand leaves, 156 ->
        # 147 false collapses of 3,600).
        if (self._dec_n >= 2 and d > self._rb and not self._raw_win
                and self._act_now >= self.acc_thr_mg + self.acc_floor_mg and self._rj == _NEVER):
            self._rj = (_RAW_MAX if up and self._inertial(
                dn - self._ndev - (self._ndev - self._ndev2), up) else dn if dn < d else d)
        if self._conv == 4 and dn < self._ndev <= self._rb:
            # (80 SPS, a converter told sinc^4) Its readings tell of the load a conversion and
            # a half later than a conversion's own mean: from here on (not for the run of new
            # lows and the jolt's mark above, which read the load's own steps) a reading that
            # falls from one at the old level or below is taken half its step further on.
            # Not from above the old level: a hand's press let go overshoots it and rings, and
            # half its step more made a false fall (held-out 10447, a touch). Session 43,
            # through sinc^4: 1-1000 p95 166 -> 164 ms, none later; docs/detector-rounds.md.
            dn += (dn - self._ndev) >> 1
        # How long the level has been below the rest band without a break (and the raw
        # samples' sum; capped: the test needs a few samples, sums stay small ints).
        if d < -self._rb:
            if self._sub_n == 0:
                self._sub_dec = self._dec_n - 1
            if self._sub_n < 64:
                self._sub_n += 1
                self._sub_sum += dn
        else:
            self._sub_n = 0
            self._sub_sum = 0
        margin = self._margin
        # (10 SPS: the raw samples' run of new lows, each below the one before; one
        # conversion is 100 ms, so the median's sample of delay is the whole target)
        if self._raw_win:
            if dn < self._ndev - self._eps:
                self._rdec += 1
            elif dn != self._ndev:    # (a glitch, replaced by the sample before, says nothing)
                self._rdec = 0
        if (self._raw_win and self._rdec >= 3 and self._ndev < -self._rb and dn < -self._cfall
                and self._rpeak >= self._w + self._push_c and self._rpk_q
                and not (self._rhino_on and self._expect_rhino) and self._past_wall(t, dn)
                and not (dn > self._ndev - self._band and self._grip_lift(t))):
            # A hand brought a piece (10 SPS) and the raw load has fallen conversion after
            # conversion ever since, the last two below the old level, the newest past it by
            # more than a piece taken back rings: the tower is going. (A hand letting go
            # leaves the piece; a take-back stops at the old level; two raw samples in a row
            # are no lone wild sample.) Not a grip on the roof just weighed (_grip_lift, as
            # for the median's rule below) once the fall has stopped, the newest reading
            # within the band of the one before: a roof gripped again and lifted is gone in
            # two conversions, and noise makes the resting third a new low (scripted 111591:
            # a 3.3 g grip, then 0.03 g lower). A roof sliding off under a hand that sets a
            # wall on it with a grip's light push is still falling here (scripted 18840,
            # 36945, 39920, 58640: missed with the grip alone).
            if self._dip_n == 0:
                self._dip_t = self._above_t
            return True
        # (Or one median below the rest band, the newest raw sample past the margin
        # after a hand, 0.8 g: more than a touch let go or a piece taken back rings;
        # or, after a jolt felt in this run of new lows with the level still above the old
        # one, the newest raw sample down at the old level (within the rest band): the
        # piece and the push are gone, a take-back strikes nothing, a roof ending its
        # tipping does. Round 70: it waited for the calm margin under the old level, one
        # or two samples more; scripted 2129, 2158, 2881. Not with that raw sample more
        # than a wall and a piece's least mass under the old level, the median above it:
        # the platform swinging under a bump that marked the run, not the level a piece
        # that slid off leaves; a fall that deep brings the median down a sample later.
        # Round 72: a bump as a wall is let go, 4-25 g under; true falls 2.8 g at most.
        # Nor with the level at the jolt more than a roof, a wall and a press above the
        # old level (as for `_settled`'s piece that fell off) and more than half the
        # push's peak: a hand still pressed as the table was knocked or bumped, and then
        # let go of a touch or took its piece back. A roof's tipping ends with less than
        # the piece and a press left, or, under a hand that pressed hard, with most of
        # that press gone with it (scripted 4507, 14868: 7.6 and 10.3 g left of 23 and 31 g).
        # Round 77, bench_overlap.py: 12 of 3,600 games no longer a fall.)
        if (((self._sub_n >= 1 and (self._sub_n >= 2 or dn < -self._hand_margin)
                and (dn < -self._cfall
                     or (self._sub_n >= self._sub_k and self._dec_miss == 0
                         and 2 * (self._dec_n - self._sub_dec) > self._sub_n
                         and dn < -self._margin)))
                or (self._rj != _NEVER
                    and (not self._pressed(self._rj) or self._rj + self._rj <= self._rpeak)
                    and -self._w - self._min_place < dn < self._rb))
                and self._dec_n >= self._dec_k
                and self._rpeak >= self._w + self._push_c
                and not (self._rhino_on and self._expect_rhino) and self._past_wall(t, dn)
                and not self._grip_lift(t)
                and not self._settling(dn)):
            # A hand brought a piece and the level has been falling ever since (new lows),
            # now below the old level, and the newest raw sample is past it by more than a
            # piece taken back rings: not a hand letting go (the piece would stay), the tower
            # is going. (The median lags a sample; its run of new lows, below the rest band
            # for two samples already, rules out a lone wild raw sample and the first
            # overshoot of a hand's push let go.)
            if self._dip_n == 0:
                self._dip_t = self._above_t
            return True
        p = self._plat2
        if (not self._raw_win and self._pl_t != _NEVER and not self._regrip
                and p >= self._min_place and d < p - margin
                and (self._acc_idle >= self._acc_hold or self._sk0_t == t)
                and self._act_now >= self.acc_thr_mg + self.acc_floor_mg
                and self._dec_n >= 3 and self._dec_miss == 0 and dn < d - self._eps
                and (self._ndev if self._act1 <= self.acc_thr_mg else self._ndev2) < p - margin
                and (p - d) << 3 <= p * self._dec_n and self._best(p) != SHIFT):
            # (80 SPS, round 83) Round 70's test below, from a piece let go that rests on the
            # tower not yet weighed (_slid_off's rest) instead of from the old level: the
            # median three new lows down and under that rest, the raw load under it by the
            # margin before the table was first felt (the sample before the newest, or the
            # one before that when the median's own reading shook already), the table felt
            # now and the newest raw sample lower still: the load moved before the table did,
            # a roof ending its tipping strikes it. From the old level the fall waited to
            # pass it or for _landed's 87 ms run: scripted 514, 2801 at 181 and 188 ms (now
            # 80, 75); through sinc^4 a ringing roof is weighed later, 961 212 -> 98 ms.
            # Not a rest a hand came back to (_regrip), nor a loss faster than a hand lifts
            # a piece (all of it within 100 ms: an eighth of the rest per sample), nor a rest
            # that weighs as no piece (a hand's steady press: a touch, a push held). (Round
            # 70's four lines are written out again: as a method of their own they held
            # about 100 bytes more at boot, past the in-place ratchet.)
            self._dip_t = self._pl_t
            return True
        if d >= -margin:
            if self._dip_n:
                self._dip_n = 0
                self._over_n = 0
            self._above_t = t
            # Impact after a drop: cards that fell landing on the platform.
            return self._impact_after_drop(t, dn)
        if self._dip_n == 0:
            self._drop_begins(t)
        if d < self._lowest:
            self._lowest = d
        # The raw samples' mean over the drop: a shake faster than the median's three samples
        # keeps the median low while the raw load swings both ways.
        self._dip_sum += dn
        self._dip_cnt += 1
        self._dip_n += 1
        if self._dip_n > self._dip_max:
            self._dip_max = self._dip_n
        quiet = self._acc_idle >= self._acc_hold
        if (self._dip_quiet and self._acc_idle == 0 and self._dip_n >= 2 and -d >= self._min_place
                and self._jolt >= 0):
            # Something landed: the table was still when the load began to fall (by a
            # piece's mass at least by now). 2: felt the accelerometer's floor above the
            # activity threshold: its noise and the tracked rest's error reach 25 mg now
            # and then (scripted 42577 at 10 SPS, 47497 and 49191 at 80 SPS: 25-26 mg
            # during Rhino Hero's owed lift, taken for cards landing). A roof's slide jolts
            # 33-36 mg and more, this reading measured against a rest already moved a
            # little towards it. 1 (80 SPS): a weaker reading, enough to decide a drop
            # beyond what may be lifted without waiting for the table to be quiet, not to
            # make a lift that matches an allowance a fall (10 SPS: nothing).
            # 3 (10 SPS): the shaking went on into the newest reading as well: a bump's
            # lasts, an impact's is mostly over within one reading (round 74).
            # -1 (80 SPS): the level had stopped at what may be lifted when the shaking was
            # first felt (round 71: the allowed mass is gone, a knock or a bump as the hand
            # leaves with it), and the rest of that shake is no landing either: its swing
            # soon carries the level off the allowance, where the next reading over the
            # threshold made it cards landing (round 78, bench_overlap.py: his lift with a
            # bump 19.6 -> 9.6 %, a take-back 30.0 -> 25.9 %). A fall that follows in the
            # same drop is left to the load alone, as one that began during a shake.
            # (the allowance's test walks the last medians: only asked when it decides)
            if self._act1 >= self.acc_thr_mg + self.acc_floor_mg:
                if self._rested_allowed():
                    if self._jolt < 2:
                        self._jolt = -1
                elif self._jolt != 3:
                    self._jolt = 3 if self._raw_win and self._act_now > self.acc_thr_mg else 2
            elif not self._raw_win and not self._jolt and not self._rested_allowed():
                self._jolt = 1
        if (up and (self._al_rh or self._al_take) and self._jolt >= 0
                and self._inertial(dn - self._ndev, up)):
            # (80 SPS) A drop that may be legitimate (his lift, the piece just placed taken
            # back) with the raw load moving the way the table accelerates, down as it
            # accelerates down or up as up (_inertial): a bump's inertia, no cards landing.
            # As for a jolt felt at the allowance (-1), no landing for the rest of that shake
            # (session 42, bench_overlap.py: his lift with a bump as the hand leaves 67 -> 20
            # %; in all 185 -> 156 false collapses of 3,600).
            self._jolt = -1
        if self._impact_after_drop(t, dn):
            return True
        drop = -d
        if (not self._raw_win and not self._al_rh and not self._al_take and self._dip_quiet
                and (self._acc_idle >= self._acc_hold or self._sk0_t == t)
                and self._act_now >= self.acc_thr_mg + self.acc_floor_mg
                and self._dec_n >= 3 and self._dec_miss == 0 and drop > self._cthr
                and dn < d - self._eps):
            # (80 SPS, round 70) Nothing allowed, the table still when the drop began, the
            # median three new lows down and past the threshold, and a jolt felt first in
            # the newest reading or the one before (the median's), the newest raw sample
            # lower still: the load moved before the table did. A shake from rest moves the
            # load with its first, largest swing, as it is felt; a roof ending its tipping
            # strikes the table. (It waited for the 87 ms run: scripted 1242, 1286, 2005,
            # 2203, 14-60 ms sooner.)
            return True
        if self._al_rh and self._rh_t == _NEVER and drop >= self._al_rh - self._tol(self._al_rh):
            self._rh_t = t
        if (self._al_rh and self._dip_quiet and quiet and self._cn >= self._rest_n
                and self._ct > self._dip_t and self._near_allow(drop, self._al_rh)):
            # Rhino Hero lifted: the level rested at his mass below (he may come back down
            # in this same episode).
            self._dip_seen = True
            self._dip_seen_t = self._dip_t
        if (self._dec_n >= self._dec_k and drop > self._cfall and not self._al_rh
                and not self._al_take and self._rpeak >= self._w + self._push_c
                and (dn < d - self._eps or (self._sub_n >= 2 and self._dec_miss == 0))
                and not self._settling(dn)):
            # A hand brought a piece and the level has been falling ever since, past the old
            # level: not a hand letting go (the piece would stay), the tower is going. It must
            # still be falling now (the newest raw sample below the median, or a second median
            # below the rest band and a new low): a hand's touch let go fast falls as steadily
            # to the old level and rings 0.5 g under it, where the fall stops.
            return True
        if drop > self._cthr:
            self._over_n += 1
        else:
            self._over_n = 0
            allow = self._al_rh if self._al_rh > self._al_take else self._al_take
            if allow:
                # Maybe legitimate (Rhino Hero lifted, a piece taken back): a collapse if the
                # cards are felt landing, or if the level comes to rest at a drop that matches
                # neither. Not felt while the drop lies at an allowance: the allowed mass is
                # gone, and a jolt then is a knock or a bump as the hand leaves with it (a
                # Rhino Hero lift with a knock: bench_overlap.py; round 71, 80 SPS). Unless
                # the load fell by more than the allowance between two conversions (10 SPS,
                # round 74): cards that land as he is lifted may leave the level there,
                # unseen by the impact tests, but fell through more than his mass on the
                # way (scripted 52136, 87143, 113146: 18-27 g; bots' 6825, its impact
                # ringing on into a second reading). Shaking felt in two readings (3) is a
                # bump's, no fall, while the drop matches no allowance but is not past it
                # either (scripted 2607, 15061: a roof's slide that jolts on, past it).
                # (The two "past" tests at 10 SPS only: at 80 SPS a drop past the allowance
                # but within its slack, his lift with a knock, is no fall, as before round
                # 74, which let them through there too: 3 false collapses in bench_overlap)
                if (self._jolt >= 2 and self._dip_n >= self._long_n_drop
                        and self._one_sided(self._margin)):
                    if self._jolt == 2 and not self._near_allow(drop, allow):
                        return True
                    if self._raw_win:
                        past = allow + self._tol(allow)
                        if drop > past or self._fmax > past:
                            return True
                if self._cn >= self._rest_n and self._ct > self._dip_t and quiet:
                    if self._near_allow(drop, self._al_rh) or self._near_allow(drop, self._al_take):
                        return False
                    if not self._raw_win and self._press_let_go(drop):
                        # (80 SPS) A hand's steady press weighed with the piece, let go (or
                        # a wall alone falling): every collapse loses a roof or more.
                        return False
                    if (self._raw_win and self._jolt <= 0 and self._dip_quiet
                            and self._rpeak <= self._hand and drop < allow - self._tol(allow)
                            and (drop < self._r - self._tol(self._r) or self._al_take)):
                        # (10 SPS) The load rests less than the allowed piece lower, the
                        # table still all along and the load never above the old level
                        # since: a hand's steady grip weighed as the piece eased off. A
                        # collapse loses a roof or more, or its cards strike the platform
                        # (felt, or an impact in the load): a part lost unfelt is no fall.
                        # With no piece just placed to hold (only Rhino Hero's allowance),
                        # a roof's mass or more lost unfelt is a roof sliding off slowly
                        # (bots' games 788, 2482, 2496: 4-5 g over 300-400 ms, Rhino Hero
                        # owed and allowed, nobody at the tower): no grip was weighed with
                        # a piece, and one eases by less than its piece. (With the piece
                        # just placed allowed, four times the datasheet's noise misweighs
                        # pieces and grips: scripted 237, 486, 809 became false falls.)
                        return False
                    return drop >= self._min_place    # (less is a sway, not a piece)
            return False
        # (A calm run below the rest band: two medians, or one and the newest raw sample;
        # at 10 SPS not a glitch replaced by the sample before, which made one
        # conversion's knock read twice: scripted 65176, -0.4 g)
        crun = (self._calm and self._clean and self._peak <= self._rb
                and (self._sub_n >= self._long_n_drop
                     or (self._sub_n >= self._long_n_drop - 1 and dn < -self._rb
                         and self._glitch_t != self._t1))
                and self._sub_sum < -self._rb * self._sub_n and self._one_sided(self._cthr))
        if self._over_n < self._drop_n:
            # The calm run has lasted already: its last median past the threshold and
            # the newest raw sample past it too count as the two samples (the median lags
            # one; the run below the rest band, not the depth, is what rules out a shake).
            # With an accelerometer only: without one, six samples past it are the guard.
            return (crun and self.accel and self._over_n + 1 == self._drop_n
                    and dn < -self._cthr and self._dip_quiet and quiet)
        if self._raw_win and (self._ndev > self._rb or self._n0 - self._base > self._rb):
            # (10 SPS) The conversion before the newest lay above the resting level, between
            # two below it (a median of three is low only if two of its three are): the
            # load swung down, up and down. A shake does (the accelerometer, read once per
            # 100 ms conversion, can miss an 8-25 Hz bump whole); a falling tower does not
            # come back above where it stood (a landing's rise has its own tests): decided
            # on the next conversion, if the level stays down. (The previous raw sample
            # itself: in an episode's first conversion the tracked one is not set yet;
            # scripted 44391, a bump's -0.9, +0.55, -0.34 g, the last past the threshold.)
            return False
        if (self._raw_win and not self.accel and -self._cthr <= dn < drop
                and (self._ndev >= self._ndev2 or self._ndev2 >= -self._cthr)):
            # (10 SPS, no accelerometer) The newest conversion is back within the margin of
            # the old level, and the drop had stopped deepening before it: the load dipped
            # and swings back, as a bump's inertia does (degraded mode's false collapses: the
            # two conversions past the margin made the median of three a fall). A falling
            # tower does not come back up, unless its cards land on the platform and strike
            # it: the newest conversion above the level by the median's drop or more. Decided
            # on the next conversion if the level stays down. Scripted 351: -3.1, -1.5, -0.6
            # g; 1944: -1.2, -0.7 g. A fall that dips and swings back so is lost with them
            # (2976: 4.5 g down, 1.7 g, then the old level; session 46, docs/detector.md).
            return False
        # A falling tower keeps falling; a table's shaking swings the load back within half a
        # period. The accelerometer cannot feel a shake of a few milli-g, which still moves a
        # heavy platform's load by a gram: a drop is trusted at once only beyond that,
        # otherwise once it has lasted (or kept falling) longer than half a shake.
        over = drop - self._cthr
        if (self._over_n >= self._long_n_drop and self._one_sided(self._cthr)) or (
                self._dec_n >= self._dec_k) or crun:
            if (self._dip_quiet and quiet) or self._jolt > 0:
                return True
        if self._dip_quiet or self._jolt > 0:
            # (below the activity threshold, the reading less half its noise floor bounds
            # the shake: a leaning player's first swing lowers the load in the very sample
            # the accelerometer first reads it, and less the whole floor the bound was half
            # that swing, scripted 15720, 26133, 31187, 57880 at 80 SPS; the whole reading
            # held one quiet fall in six a sample longer, 129 of seeds 1-1000's 735)
            a = self._amax - (self.acc_floor_mg >> 1)
            if a < self.acc_floor_mg:
                a = self.acc_floor_mg
            elif a > 2000:
                a = 2000
            return over > (self._kin * a) >> 6
        # The drop began during a table bump: it must be more than the shaking can move
        # (platform and tower pressing with their inertia), or outlast the shaking.
        a = self._amax if self._amax < 2000 else 2000
        if over > (self._kin * a) >> 6 or self._dec_n >= self._dec_k:
            return True
        if (self._raw_win and self._over_n > self._drop_n and self._acc_idle
                and self._act_now <= self.acc_thr_mg and dn <= self._ndev < -self._cthr
                and -dn - self._cthr > (self._kin * self.acc_floor_mg) >> 6):
            # (10 SPS) The newest conversion lies between two quiet readings and is no
            # higher than the one before, both beyond the threshold: a shake's inertia swings
            # with the acceleration and is gone once both ends of a 100 ms conversion are
            # quiet; a roof whose slide jolted the table as it began stays down.
            return True
        # (10 SPS: the newest conversion still beyond the threshold too; the median lags a
        # conversion, and a load back within it is a shake's swing that ended)
        if not (quiet and self._over_n >= self._drop_n + 2):
            return False
        if self._raw_win:
            return dn < -self._cthr
        # (80 SPS) The shaking has not stopped when the accelerometer falls quiet: a bump's
        # ring decays on below its activity threshold, and a few milli-g still swing a heavy
        # platform and tower by grams on the cell (8 mg on 300 g: 2.4 g; held-out 4162 and
        # 36002: a bump's 8 Hz swing of about 2 g went on after 150 ms of quiet readings
        # and was taken for a fall). A falling tower's load stays off; a shake's swing
        # comes back within half its period. So the drop is then judged as one that began
        # quietly: beyond the inertial bound of what the accelerometer still shows, or past
        # the threshold on one side for half a period of the slowest table shake.
        a = self._amax - self.acc_floor_mg
        if a < self.acc_floor_mg:
            a = self.acc_floor_mg
        return over > (self._kin * a) >> 6 or (
            self._over_n >= self._long_n_drop and self._one_sided(self._cthr))

    def _inertial(self, r, up):
        """(80 SPS) The raw load moved by ``r`` (the newest sample less the one before, or
        that less the step before it, to leave a fall's own pace out) the way the table
        accelerates (``up``, see feed), by more than the band and an eighth of what that
        acceleration moves the platform and tower (the conversion's mean passes that much of
        an 8-25 Hz swing): a bump's inertia. Cards that strike the platform move the load
        against the jolt, or far less."""
        if r < 0:
            r = -r
            up = -up
        return up > self.acc_thr_mg and r > self._band and r << 3 > (self._kin * up) >> 6

    def _settling(self, dn):
        # (80 SPS) The newest raw sample's step down is less than a third of the step before
        # and under two rest bands, the load still within the after-hand margin: a hand's
        # touch let go settles back like a damped spring, its steps into its 0.5-0.6 g
        # undershoot shrinking to the noise. A falling tower (cards tipping, a roof sliding)
        # loses its load ever faster. Not yet a fall past the old level: decided a sample
        # later. (Half instead of a third delayed roof slides: seeds 6001-9000, p95 155 ->
        # 156 ms.)
        if self._raw_win or dn < -self._hand_margin:
            return False
        # (And on the second median below the rest band, any step smaller than the one
        # before: a touch let go swings down through the old level at the pace of its
        # release and slows into its first trough there (held-out 18618, 20422, 20928,
        # 50986: steps 0.35-0.75 of the one before, the raw sample under 0.015 g past
        # the 0.5 g depth); a roof creeping off has been below the band longer by then, and
        # a tower going through the old level is past the after-hand margin.)
        step = self._ndev - dn
        prev = self._ndev2 - self._ndev
        return step < (self._rb << 1) and (3 * step < prev
                                           or (self._sub_n == 2 and step < prev))

    def _recent_span(self):
        # The highest and lowest of the recent medians, into _h_top and _h_bot (attributes,
        # not a returned tuple: nothing is allocated per sample).
        h = self._hy
        top = bot = h[0]
        j = 1
        while j < self._hn:
            if h[j] > top:
                top = h[j]
            elif h[j] < bot:
                bot = h[j]
            j += 1
        self._h_top = top
        self._h_bot = bot

    def _rested_allowed(self):
        # (80 SPS) The last 100 ms of medians all lay at a drop a hand explains (Rhino
        # Hero lifted, the piece just placed taken back): the lifted piece is in the hand and
        # the level has stopped there, ringing. A card that falls lands while the load is
        # still going (a tipping roof leaves the tower as its jolt comes): a jolt felt now is
        # no landing (held-out 6410, 6732: 25 mg of the accelerometer's own noise 300 ms after
        # Rhino Hero was lifted, the level still ringing too much to settle).
        if self._raw_win or not (self._al_rh or self._al_take):
            return False
        h = self._hy
        base = self._base
        j = 0
        while j < self._hn:
            dr = base - h[j]
            if not (self._near_allow(dr, self._al_rh) or self._near_allow(dr, self._al_take)):
                return False
            j += 1
        return True

    def _drop_begins(self, t):
        """A drop below the resting level begins: what may it legitimately be?"""
        self._dip_t = self._above_t
        self._dip_quiet = self._acc_idle >= self._acc_hold
        self._jolt = 0
        self._dip_sum = 0
        self._dip_cnt = 0
        self._over_n = 0
        grabbed = self._dip_t - self._hand_t <= self.grab_ms
        # A hand that brought a new piece (a wall and a push to set it) is not lifting Rhino
        # Hero or taking one back (a grip to lift a piece presses little).
        # A press reached with the table still: a bump's inertia shakes the table and is no
        # hand (10 SPS: scripted 42528, a 5.45 g bump, then Rhino Hero lifted; 80 SPS since
        # session 41: overlap table, a take-back with a bump 400-100 ms before it ended, with
        # an accelerometer 20-17 % -> 17-0 %, with a tilt switch 17-7 % -> 0-10 %).
        brought = self._rpeak >= self._w + self._push_c and self._rpk_q
        rh = 0
        if (self._rhino_on or self._rh_maybe) and (self._expect_rhino or self._owed_late
                                                    or (grabbed and not brought)):
            rh = self._rh
        take = 0
        # The piece just placed, taken back by a hand that gripped it; a wall that was the
        # last piece may also just fall over (a wall alone falling is not a collapse).
        # (with a wall last, also when the hand seems to bring a piece, unless it pressed
        # more than a wall and a push above it: a hand that let the wall go and grips it
        # again to take it back presses like one bringing a piece; every collapse, a floor,
        # a roof or the tower, weighs more than the wall plus its tolerance, so allowing it
        # costs no collapse, only latency where a hand brought a piece with a light push)
        wall = self._last_ev == WALL or self._last_ev == WALLS2
        if ((wall and self._rpeak < self._w * 2 + self._push_c) or (grabbed and not brought)
                or (grabbed and self._grip_lift(t))) and t - self._last_t <= self.remove_ms:
            take = self._last_step
        self._al_rh = rh
        self._al_take = take
        self._rh_t = _NEVER
        allow = rh if rh > take else take
        m = self._margin
        # (shaking that began with the drop is the fall's own landing or a bump, which the
        # shaking tests handle; the tower sways on after a bump that came before)
        sh = self._shake_t if self._shake_t < self._dip_t else _NEVER
        last = self._hand_ep_t if self._hand_ep_t > sh else sh
        self._calm = self._dip_t - last > self.hand_ring_ms
        if not self._calm:
            m = self._hand_margin    # a hand just left or the table shook: the tower rings
        self._cthr = allow + self._tol(allow) + m if allow else m
        # A light hand (grabbing) that rested long enough to count as a level of its own:
        # what it takes is measured from under its press.
        slack = 0
        if allow and t - self._small_t <= self.grab_ms * 2:
            slack = self._small_step
            self._cthr += slack
        elif self._raw_win and t - self._small_t <= self.grab_ms * 2:
            # (10 SPS) No allowance, but a level less than half a wall above the one before
            # settled within a second: a light hand resting on the tower (four conversions
            # are enough to settle), and its lifting off takes that much away again; a
            # falling part takes more (held-out 12710: a touch of 1.3 g settled, then left).
            self._cthr += self._small_step
        self._slack = slack

    def _smash(self, dn):
        """Cards falling onto the platform within one or two conversions (10 SPS): a raw
        sample far below, taken while the table was still, then an impact. The median of
        three would take the pair for glitches. (At high rates the fall lasts many samples.)
        Without an accelerometer no shake is known to be over: only the watch of k 1-2, the
        level back and still after the impact, and what follows from it (5-6: cards that
        bounced off; 9: an impact over two conversions, the activity threshold standing in
        for the reading; session 46)."""
        if not self._raw_win:
            return False
        if self._acc_late is not None:
            return self._smeared(dn)    # (a converter known to be sinc^4: see _acc_late)
        k = self._sm_k
        if ((k == 2 or 4 <= k <= 6)
                and (_absdiff(dn, self._ndev) - self._band) * 16 > self._sm_up - dn):
            # (a fall within one conversion and its impact seen, the level back: from the
            # second conversion after the impact on, each conversion must lie within the
            # settle band and a 16th of the impact's height over it of the one before.
            # Cards that landed lie still on the cell at once (their ring dies within 20-60
            # ms): 0.1-0.8 % of it apart. A bump's inertia is a damped 8-25 Hz ring on the
            # load that the accelerometer, read once per conversion, may miss: its dip and
            # its swing back read as the fall and the impact, and it may swing on by a
            # quarter of that height as it dies away, the tower where it was.)
            self._sm_k = 0
            k = 0
        if 5 <= k <= 6:
            # (cards that landed lie lower by less than half a wall: some bounced off
            # the cell onto the table; the next two conversions must lie still, each
            # within the band of the one before: a tower swaying after a bump swings on.
            # And a 64th of the impact, as for the level itself below: cards that struck
            # hard ring a little longer; scripted 81790: 56 g down, +24 g felt, then -0.27,
            # -0.13, -0.08 g)
            if (-self._min_place < dn < 0
                    and _absdiff(dn, self._ndev) <= self._band + (self._sm_up >> 6)):
                self._sm_k = k + 1
                if k >= 6:
                    self._sm_k = 0
                    self._dip_t = self._sm_t
                    return True
            else:
                self._sm_k = 0
            k = 0
        if k == 9:
            # (the impact split over two conversions, see k 1 and 7 below: the next one
            # not above the level by more than the fall's reach; the cards lie on the cell,
            # or some fell off it; a hand that pressed would hold the load up)
            self._sm_k = 0
            if dn < self._cfall:
                self._dip_t = self._sm_t
                return True
            k = 0
        if k:
            # Cards that fell and landed (started below): the level must then stay back where
            # it stood for a run of conversions, the cards lying on the platform, on the cell.
            # After a fall within one conversion (k 1-2): back within the fall's reach in the
            # third and closer still in the fourth, also within the settle band (their
            # ringing dies; a tower swaying after a bump swings on: held-out games 617 and
            # 5502 swung back 0.4-0.7 g; 12048, a bump's tower swung -0.29, -0.23, +0.26 g,
            # within the 0.25 g bound alone). After a deep fall and a smaller impact with a
            # jolt (k 3-4): within the settle band for two conversions.
            if k == 7 and -self._ndev2 <= (self._kin * self._act_now) >> 5:
                # (the reading after the impact shakes harder than the fall's and the
                # impact's did: a shake read at that reading could have pressed the fall.
                # Cards that landed ring 20-60 ms and are quiet by then; a bump shakes the
                # table 60-200 ms, and its peak may fall between two readings. A fall within
                # one conversion, then, whose tower must die away as k 1-2 want; scripted
                # 70976: a bump dipped 2.7 g of a 30 g tower with 23 mg, swung back 1.5 g
                # over the level with 21 mg, then lay 0.5 g under it with 32 mg and swung
                # on to 0.1 g over it)
                k = 1
            if k >= 7:
                # (a fall far deeper than any shake the accelerometer's readings allow: the
                # fourth conversion within the fall's reach too, the tower may still ring)
                lim = self._cfall if k == 7 else self._cfall >> 1
                last = 8
            elif k >= 3:
                # (|dn| <= band, and a 64th of the impact: cards that struck hard ring a
                # little longer; cards that fell a quarter of the load or more (round 54)
                # read 0.11-0.17 g off the level with bands of 0.10-0.11 g after impacts of
                # 3.3-15 g: scripted 45073, 63595, 74418, bots' 34340, missed. A first
                # reading below the band is left to the test for cards that bounced off,
                # which wants the next two still.)
                lim = self._band + 1
                if k == 4 or dn > 0:
                    lim += self._sm_up >> 6
                last = 4
            else:
                lim = self._cfall if k == 1 else self._cfall >> 1
                if k > 1 and self._band < lim:
                    lim = self._band
                last = 2
            if (k == 3 and (self._act_now - self.acc_floor_mg) * 4 >= self._act1
                    and -self._ndev2 <= (self._kin * self._act1) >> 3):
                # (a bump: the reading after the impact's, above the accelerometer's floor, a
                # quarter of the impact's or more: cards landing ring 20-60 ms, under a fifth of
                # it 100 ms later; a bump shakes the table for 60-200 ms, a fifth to a half.
                # The load is a conversion's middle, the accelerometer its end: a bump's
                # first swing may go unfelt, its next one felt as this smaller impact;
                # scripted 43918: more than a wall low, +1.1 g with 44 mg, then 21 mg. Not
                # for a fall over eight times what the impact's shaking could press: a bump
                # that dips the load so far shakes harder than that and does not die to it
                # within a conversion; scripted 29115: 38.6 g of 77 g, 32 then 19 mg)
                self._sm_k = 0
            elif -lim < dn < lim:
                self._sm_k = k + 1
                if k >= last:
                    self._sm_k = 0
                    self._dip_t = self._sm_t
                    return True
            elif ((k == 1 or k == 7) and dn > self._sm_up
                    and dn > (self._kin * (self._act1 if self._act1 > self.acc_thr_mg
                                           else self.acc_thr_mg)) >> 4):
                # (higher still than the impact, by more than four times what a shake at
                # the impact's reading could press: the cards of a falling tower land one
                # after another and their impulses straddle two conversions; bots' 38773:
                # 18 g down, +50 g with 219 mg, +76 g, then 3.3 g under the level, his
                # mass off the platform. A shake's inertia is bounded by the reading; a
                # hand's press does not follow a fall of cards.)
                self._sm_k = 9
            elif (k == 3 or k == 7 or k == 8 or not self.accel) and -self._min_place < dn < 0:
                # (the cards may lie a little lower: see k >= 5 above; after a fall deeper
                # than a shake can press (k 7-8) the third and the fourth conversion too:
                # landed cards that bounced off the platform onto the table, scripted
                # 64458: -12.4 g, +11.6 g, then -0.33, -0.44, -0.42 g, still; bots' 50565:
                # 6.5 then 36 g down, +85 g with 116 mg, then -0.8, -0.8, -0.7 g)
                self._sm_k = 5
            else:
                self._sm_k = 0
        if self._ld_k:
            # A landing's jolt was felt: the readings after it, against the rest before it
            # (the tracked rest has moved towards the jolt since).
            a = (_absdiff(self._pax, self._ldx) + _absdiff(self._pay, self._ldy)
                 + _absdiff(self._paz, self._ldz))
            if a * (self.land_decay1 if self._ld_k == 1 else self.land_decay) > self._ld_a or (
                    self._ld_k == 1 and dn > self._band
                    and -self._ndev2 * 4 < self._base - self._zero):
                # (or the reading after the jolt still above the old level after a bump's
                # dip, the fall under a quarter of the load on the cell: its swing, the tower
                # where it was. A bump's dip is the load's inertia times the table's
                # acceleration, 0.03-0.2 of it (scripted 23017, 66795, 74157; and 48376,
                # 66026 below); cards that fell onto the platform and read like it took
                # 0.37-0.68 (rounds 53b and 54). Inline, not a method: the boot's heap.)
                self._ld_k = 0
            else:
                self._ld_k += 1
                if self._ld_k > 2:
                    self._dip_t = self._ld_t
                    return True
        if (self.accel and self._ndev < -self._fall and dn > self._impact and dn > -self._ndev
                and self._ndev_q and self._ndev_t0 == self._ndev_tp):
            # (one sample down from the level, the next one up: not a lift, a set-down; the
            # impact harder than the fall was deep: not a table shake swinging back, which
            # the accelerometer, read once per conversion, may miss at 10 SPS. Without one,
            # k 1 below: degraded mode's bumps on heavy towers dipped the load 1.7-2.1 g and
            # swung back 2-3.6 g, more, and on, -0.9 to -2.6 g, ten false collapses in
            # scripted 1-4000 when decided here)
            self._dip_t = self._ndev_t0
            return True
        if (self._ndev < -self._w and self._ndev_q
                and (dn + dn >= -self._ndev
                     or (-self._band < dn and self._act_now > self.acc_thr_mg
                         and -self._ndev > (self._kin * self._act_now) >> 5
                         and -self._ndev * 4 >= self._base - self._zero
                         and self._ndev_t0 != self._ndev_tp))
                and (self._ndev_t0 == self._ndev_tp
                     or (self._ndev2 > self._ndev
                         and (self._ndev_tp - self._ndev_t0) * self.sps <= 1500))):
            # A conversion at least a wall's mass low with the table still (no bump's
            # inertia: the accelerometer quiet before and at it), then a rise of half that
            # or more (the impact: a fall's lost momentum comes back when it lands; whatever
            # the jolt the accelerometer reads, once per conversion): decided on the next
            # reading, which must be back at the old level (a hand lifting something keeps
            # it lower; a piece set down keeps it higher). The fall may begin late in the
            # conversion before (two conversions falling, the second deeper, the table still
            # at both): a tower of 10-15 cm takes 150-250 ms to come down (bots' games 363
            # and 550: 4-7 g, then 24-48 g down, then the impact and the old level; missed).
            # (k 7: the fall more than twice what a shake can press the platform and tower
            # with their inertia, at the largest of the readings of the fall and the
            # impact: no bump's swing, so the tower ringing after the landing is no sway.
            # After a fall over two conversions the impact may be any size that is felt,
            # the load back at the level or above, when the fall took a quarter of the load
            # or more, as in the test for a smaller impact below, which takes the falls
            # within one conversion (a bump's dip is 0.03-0.2 of it; a reading once per
            # conversion may miss a bump's peak: scripted 17885, 21526, 23952, 66026, dips
            # of 4-6 g with 21-40 mg read): the cards landed late in the conversion, or
            # lightly; scripted 66291, 0.4 then 4.3 g of 10 g down, +0.6 g with 44 mg;
            # 78920, 1.4 then 38.8 g of 85 g down, +0.5 g with 188 mg, the tower ringing
            # -0.27, +0.10 g after it)
            # (Without an accelerometer always k 1, whose tower must lie still, then the
            # test for cards that bounced off, k 5, or k 9: no shake is known to be over. Degraded
            # mode, scripted 52: -26 g, +74 g, +0.1 g; 109: -1.0, -5.5, +4.0, -0.06 g; 502:
            # -4.9, +3.9, then 0.46 g low and still. Session 46: the watch's other tests,
            # which read the accelerometer's activity, took bumps for falls.)
            a = self._act_now if self._act_now > self.acc_thr_mg else self.acc_thr_mg
            a = a if a < 2000 else 2000
            self._sm_k = 7 if self.accel and -self._ndev > (self._kin * a) >> 5 else 1
            self._sm_up = dn
            self._sm_t = self._ndev_t0
        elif (self.accel and self._ndev < -self._w and self._ndev_q
                and self._ndev_t0 == self._ndev_tp and not self._sm_k
                and -self._ndev * 4 >= self._base - self._zero
                and ((dn > self._impact and self._act_now > self.acc_thr_mg)
                     or (-self._band < dn
                         and (dn <= -self._ndev >> 3
                              or -self._ndev > (self._kin * self.acc_thr_mg) >> 2)))):
            # (10 SPS) A conversion a wall's mass or more low with the table still, then an
            # impact above the old level smaller than the fall, felt by the accelerometer:
            # the cards fell for most of a conversion (their weight gone from it) and landed
            # late in the next (only part of the impulse inside it). A collapse if the next
            # two conversions are back at the old level within the settle band: the cards lie
            # on the cell (one alone added a false collapse on a check range). A shake's
            # inertia leaves the load swinging for several 100 ms conversions (its readings
            # 0.2-0.5 of each other, held-out 12048, 14215), and a hand that lifts something
            # keeps it off the cell (held-out 14159, 15289: 20-24 g down, 2.8-8.6 g up with
            # 77-177 mg, then 0.0 g, were missed). No bump's dip: the fall a quarter of the
            # load or more, as in _ld_k's watch (scripted 48376, 66026, their swing back
            # within the band). Or, the impact small or unfelt, the load back at the old
            # level: above it by an eighth of the fall at most (cards that landed within
            # their fall's conversion; a bump's swing back, its ring lasting 60-200 ms, is a
            # fifth of its dip or more even when the accelerometer misses it at both ends
            # of the conversion: scripted 27865, 5.6 g of 14.8 g, then +0.4 g), or by any
            # amount after a fall over eight times what a shake at the accelerometer's
            # threshold could press (49003: 41.5 g of 66 g, then +9.6 g unfelt).
            self._sm_k = 3
            self._sm_t = self._ndev_t0
            self._sm_up = dn
        if (self._ndev < -self._impact and dn > self._band and self._act_now >= self.bump_mg
                and self._ndev_q and self._ndev_t0 == self._ndev_tp and not self._ld_k):
            # Cards that fell within one conversion (the table still: the load 1 g lower in
            # one reading) and landed in the next, above the old level, with a jolt: a
            # landing if the jolt dies away at once (the next reading below a sixth of it,
            # the one after below an eighth). A bump that lowered the load first shakes the
            # table at 8-25 Hz for 60-200 ms: its readings 100 ms apart stay a fifth to a
            # half of each other. Cards ring 20-60 ms: under 19 % of the jolt 100 ms later,
            # under 4 % 200 ms later (scripted 132415: 14 % then 2 %; 43184: 14 %, 3.5 %; a
            # bump's with a wall on the cell, 116035: 15 %, 14 %; each reading read once at
            # an unknown phase of the ring, so the first is no sure sign alone).
            sh = self._ash
            self._ld_k = 1
            self._ld_a = self._act_now
            self._ld_t = self._ndev_t0
            self._ldx = self._rx >> sh
            self._ldy = self._ry >> sh
            self._ldz = self._rz >> sh
        return False

    def _smeared(self, dn):
        """Cards falling onto the platform, read through a sinc^4 filter (10 SPS, a converter
        known to be one; in place of _smash, which wants a fall and its impact within one or
        two conversions, where such a filter spreads them over four): a conversion half a
        wall or more under the level the load rested at, the table still, then, within three
        conversions and rising, one above that level with a jolt felt since the lowest, then
        one lower again by more than the band. ``_sm_up``: the level (the last conversion
        within the band of the one before it); ``_sm_k``: 0 watching, else the conversions
        counted (two low bits), 4 once the load came back above the level, 8 once a jolt was
        felt."""
        k = self._sm_k
        jolt = self._act_now >= self.acc_thr_mg + self.acc_floor_mg
        if k & 4:
            # (the impact is brief; a hand that set something down would hold the load up)
            if dn < self._ndev - self._band:
                self._sm_k = 0
                self._dip_t = self._sm_t
                return True
            k = 0 if k & 3 == 2 else k + 1
        elif k:
            if jolt:
                k |= 8
            if dn < self._ndev:
                k = 0       # (falling again: watched from its lowest)
            elif dn > self._sm_up + self._band and k & 8:
                k = 12
            else:
                k = 0 if k & 3 == 2 else k + 1
        elif self._ndev < self._sm_up - self._min_place and self._ndev_q and dn > self._ndev:
            self._sm_t = self._ndev_t0
            k = 9 if jolt else 1
            if dn > self._sm_up + self._band and jolt:
                k = 12
        elif _absdiff(dn, self._ndev) <= self._band:
            self._sm_up = dn
        self._sm_k = k
        return False

    def _slide(self, dn):
        """(10 SPS) A roof let go that slides off before it was weighed (0.2-0.6 s after
        the release): the last three conversions rested within the settle band a roof's mass
        above the old level, the hand's push gone (the level a release below the episode's
        peak, no hand came back), then three conversions in a row each a hand's touch lower
        than the one before, down to less than half a wall above the old level: the roof is
        gone (a hand's steady press let go from a level that happens to weigh a roof leaves
        the piece it pressed: two walls in game 500 without an accelerometer). A tipping
        roof loses its weight over 120-400 ms; a hand that takes a piece back either still
        presses it (the level no piece's mass) or grips it again first (a rise: a re-grip),
        and lifts it within 40-120 ms (two conversions)."""
        if not self._raw_win:
            return False
        k = self._sl_k
        if k:
            if dn <= self._sl_prev - self._hand:
                if k == -2:
                    # (the third step after two resting conversions: the steps are weighed
                    # now, see below; the verdict is kept in _sl_4, which holds the
                    # conversion before the rests: _NEVER unless the roof is gone)
                    first = self._sl_2 - self._sl_1
                    mid = self._sl_1 - self._sl_prev
                    last = self._sl_prev - dn
                    outer = first if first < last else last
                    total = first + mid + last
                    half = self._tol(self._r) >> 1
                    growing = last > mid + self._hand and mid > first
                    at_roof = (_absdiff(self._sl_2, self._r) <= half
                               and _absdiff(self._sl_3, self._r) <= half)
                    no_lift = (outer * 16 > total * 3
                               or (outer * 16 > total and mid * 8 < total * 5 and first < last
                                   and self._sl_4 >= self._sl_3 - self._band - self._hand))
                    if not (growing or (at_roof and no_lift)):
                        self._sl_4 = _NEVER
                elif k == 2:
                    # (the third step after three resting conversions: a hand's lift puts
                    # the most in the middle one, and a piece gripped again after it was
                    # let go rests heavier than itself, by the grip: both rests on hand more
                    # than half the roof's tolerance over its mass is a take-back (scripted
                    # 23247, 34232: 0.3-0.5 g over, steps of 21, 72, 12 %). A roof alone
                    # rests at its own mass.)
                    mid = self._sl_1 - self._sl_prev
                    lo = self._sl_2 if self._sl_2 < self._sl_3 else self._sl_3
                    if (mid > self._sl_2 - self._sl_1 and mid > self._sl_prev - dn
                            and lo > self._r + (self._tol(self._r) >> 1)):
                        self._sl_k = 0
                        return False
                self._sl_prev = dn
                k += 1
                if (k >= 3 or k == 0) and dn < self._min_place:
                    self._sl_k = 0
                    self._dip_t = self._sl_t
                    return True
                self._sl_k = k
                return False
            # Either: two conversions took the roof's whole mass away and the load stays at
            # the old level, after FOUR conversions at its mass (400 ms): as fast as a
            # take-back's lift, but a hand that takes a piece back without letting go
            # lifts it within 180 ms of its press's end, and one that let go grips it
            # again for 150-350 ms before it lifts: a rise after the rest, or, when
            # the grip began as the press let go, a light grip (0.3 g: still, near the
            # piece's mass; scripted 45291, a wall and a grip weighed as a roof) that
            # lifts within 350 ms. A roof that rested longer than that and then went
            # slid off (scripted games 43812, 46068, 47937: reported as the roof taken
            # back; with three resting conversions a take-back may look the same). The
            # conversion after the two may be an impact instead, above the old level with
            # a jolt of bump_mg or more: the tower fell onto the platform with the roof
            # (scripted 134629: +10.9 g with 148 mg, then a quarter of the load off it,
            # booked as a wall placed); a hand that takes a roof back strikes nothing.
            # Or: the roof that rested two conversions was gone in three, each step
            # larger than the one before, the last by more than a hand's touch (bots'
            # games 6087, 9003: 0.3, 2.8, 7.2 g and 0.8, 3.6, 4.9 g): a tipping roof loses
            # its weight as the square of the time until it leaves. A hand's lift of
            # 40-120 ms, spread by the conversions (each the mean of its 100 ms) over
            # three steps, puts the most in the middle one (scripted 21, 1011: 2.6, 4.2,
            # 0.3 g and 3.5, 5.5, 0.6 g). Or: both outer steps carry more than 3/16 of the
            # loss, and both resting conversions lay within half the roof's tolerance of its
            # mass (bots' 24746: 21 %, 57 %, 22 %; the lifts above leave 4.5 and 6.5 % in
            # the smaller outer step). A roof at rest alone weighs its own mass; a grip
            # easing before a lift weighs the rest heavy, one lifting a little light
            # (scripted 919 without an accelerometer: a wall taken back from 4-6 % under a
            # roof's mass, in steps of 20, 60 and 20 %). Or both outer steps carry more than
            # 1/16, the middle one less than 5/8 and the last more than the first, the
            # rests as before and reached from above (the conversion before them not lower
            # by the band and a touch): a linear lift of 40-120 ms that leaves 1/16 in each
            # outer step puts 65 % or more in the middle one (scripted 124347, 130694,
            # 133432: 14, 59, 27 %; 18.5, 52, 29 %; 8, 48, 44 %); a wall gripped again and
            # lifted, the grip let go within 40 ms and then the wall, rose into its rest
            # (22059, 52054: 1.1, 1.5 g) or leaves less in the last step than in the first
            # (31077, 77350, 129102: 45, 46, 7 %; 33, 60, 7 %; 29, 59, 11 %). Not all:
            # 41426, a wall and a grip of 0.9 g let go at once, 15, 60, 25 %.
            if ((k == 2 or k == -1) and self._sl_4 != _NEVER and self._sl_prev < self._min_place
                    and (dn < self._min_place
                         or (dn > self._impact and self._act_now >= self.bump_mg))):
                self._sl_k = 0
                self._dip_t = self._sl_t
                return True
            self._sl_k = 0
        a = self._sl_1
        b = self._sl_2
        c = self._sl_3
        d = self._sl_4
        self._sl_4 = c
        self._sl_3 = b
        self._sl_2 = a
        self._sl_1 = dn
        hi = a if a > b else b
        hi = hi if hi > c else c
        lo = a if a < b else b
        lo = lo if lo < c else c
        # (The newest of the three may already be a little lower, by less than a
        # hand's touch: a tipping roof loses its first 10 % slowly, the loss growing as the
        # square of the time, and a conversion can catch that start; a hand's wander goes up
        # as well as down. Held-out game 2908: 108.05, 108.04, 107.94 g, then the slide.
        # The two before it then within a band and a half: a roof let go 300 ms ago still
        # rings, and three conversions of a decaying ring wander a little past the band of
        # a still one; scripted 72410, 0.11 g apart with a band of 0.10 g, was reported as
        # the roof taken back.)
        if ((hi - lo <= self._band or (a == lo and _absdiff(b, c) <= self._band + (self._band >> 1)
                                       and hi - a <= self._band + self._hand))
                and dn <= a - self._hand and self._near(a, self._r)
                and self._peak - a >= self._release and not self._regrip):
            self._sl_k = 1
            self._sl_prev = dn
            self._sl_t = self._ndev_t
            # (and the conversion before the three rested with them, near the roof's mass
            # and within the band and a touch of each of them; else _NEVER)
            if not (self._near(d, self._r) and _absdiff(d, lo) <= self._band + self._hand
                    and _absdiff(d, hi) <= self._band + self._hand):
                self._sl_4 = _NEVER
                # Three resting conversions will do when none of them weighed more than the
                # roof by half its tolerance (the spread of a set's pieces and the noise),
                # the push's peak lay two releases above them and the conversion before
                # lay above them too: a hand that takes a piece back after letting go
                # grips it 0.3-3 g for 150-350 ms first, so a rest that short with the
                # piece gripped weighs the piece AND the grip (scripted 16676, 45291:
                # 0.36-0.64 g over the roof), or, gripped after a rest too short to count
                # as one, rose into it (60497: a wall let go, gripped 0.9 g, weighed a
                # roof); a roof alone comes down from the push onto its own mass (47971,
                # 48862, 24203: a roof let go slid off after 300 ms, unfelt). A touch whose
                # wandering press weighs a roof has not dropped from a push to get there
                # (19626: 1.1 g below its peak).
                if (hi <= self._r + (self._tol(self._r) >> 1) and d > hi
                        and self._peak - hi >= self._release + self._release):
                    self._sl_4 = d
        elif (dn <= a - self._hand and self._near(a, self._r) and _absdiff(a, b) <= self._band
                and self._peak - a >= self._release + self._release and not self._regrip):
            # (10 SPS) A roof let go that rested only two conversions (bots' games 9596,
            # 12939; scripted 13704, 23304, 33872: the release still ringing before them):
            # four conversions in a row each a hand's touch lower make it a slide. A hand
            # lifts a piece within 40-120 ms, which the conversions (each the mean of its
            # 100 ms) spread over three steps at most; a tipping roof loses its weight over
            # 120-400 ms. A roof let go comes down from the push onto its own mass, the
            # push's peak 10-35 g above its rest; a press eased slowly down to the piece's
            # mass and the piece lifted at once can take four steps too, but its peak lies
            # only about a release above the rest (scripted 2418, a take-back: 2.3 g).
            self._sl_k = -3     # (counts up to 0: four conversions)
            self._sl_prev = dn
            self._sl_t = self._ndev_t
        return False

    def _onto_platform(self, dn):
        # (10 SPS) A piece let go that falls onto the platform before it was weighed (a
        # roof tipping over within 0.4 s of the release: the settle window needs four
        # conversions): the last two conversions rested within the band and a hand's touch
        # a piece's mass above the old level (the tower still rings after the release, 0.2 g
        # from one conversion to the next in held-out 35001; the impact, not the rest, is
        # what tells cards from a hand lifting the piece, which strikes nothing), the hand's
        # push gone (a release below the peak since a hand last
        # came back: a touch's episode, not yet settled, may run on into the next hand's
        # piece, held-out 18940), the table still; then the load falls for one to four
        # conversions, each lower than the one before, by at least a gram (the falling cards
        # lose 40-90 % of their weight; a tower tips 60-200 ms and falls 100-250 ms: scripted
        # 50591 lost 0.2 and 0.1 g tipping, then 2.5 and 1.2 g; after two falling
        # conversions one may stay at the low, within the band, the cards in the air for a
        # whole conversion: scripted 50268), then rises from its low by at least as much as it
        # fell, less a touch and the band (the impact: the cards land on the platform, on the
        # cell, and give back the momentum the fall took), and the next conversion is back
        # near the rest level (the cards lie on the cell again; some may have bounced off:
        # above the fall's low, where they were in the air; held-out 16571, 1.7 g under the
        # rest after a 3.3 g fall, was missed by a bound at half the fall). A hand does not
        # lift a card and set it back within 0.3 s, and the impact's conversion is followed
        # at once by the level, not by a hand's press (at most a touch above it, and the
        # band: the level was one conversion, as uncertain as the band; held-out 13363, 0.18
        # g above, was missed). Nor a fall whose first conversion is read with the table
        # shaking: tipping cards fall on a still table and strike as they land, while a bump
        # swings the load with the platform's and the tower's inertia as it is felt, down,
        # up and back (round 82, bench_overlap.py: a bump 300-400 ms after a roof or Rhino
        # Hero was let go, 29-213 mg; the falls this test decides in scripted 1-4000 and the
        # bots' 1-10000 read 4-14 mg there).
        if not self._raw_win:
            return False
        k = self._pf_k
        a = self._ndev
        if k == 0:
            if (dn < a - self._band and _absdiff(a, self._pf_b) <= self._band + self._hand
                    and a >= self._min_place and self._relpk - a >= self._release
                    and self._ndev_q and self._act_now <= self.acc_thr_mg
                    and self._best(a) != SHIFT):
                self._pf_k = 1
                self._pf_lv = a
                self._pf_lo = dn
                self._pf_t = self._ndev_t
        elif k < 10:
            lo = self._pf_lo
            f = self._pf_lv - lo
            if dn < lo + self._band and (dn < lo or k > 1):
                # (lower, or at the low after two falling conversions: see above)
                if dn < lo:
                    self._pf_lo = dn
                self._pf_k = k + 1 if k < 4 else 0
            elif f >= self._impact and dn - lo >= f - self._band - self._hand:
                # (11: the impact felt by the accelerometer, see below. Back at the level
                # less a touch and the band is enough: the cards may land late in the
                # lowest conversion, its impact read there, and the next conversion holds
                # the level; scripted 89266: 3.6 g down over three conversions, then 0.2 g
                # under the level, no impact to see)
                self._pf_k = 11 if self.accel and self._act_now > self.acc_thr_mg else 10
            elif (f >= self._impact and dn - lo >= f >> 1 and self.accel
                    and self._act_now > self.acc_thr_mg):
                # (the impact smaller than the fall, felt: the cards fell for most of a
                # conversion and landed late in the next, only part of the impulse inside
                # it; then two conversions back at the rest level within the band: they
                # lie on the cell, where a hand lifting the piece keeps it off)
                self._pf_k = 20
            else:
                self._pf_k = 0
        elif k >= 20:
            if _absdiff(dn, self._pf_lv) <= self._band:
                self._pf_k = k + 1
                if k > 20:
                    self._pf_k = 0
                    self._dip_t = self._pf_t
                    return True
            else:
                self._pf_k = 0
        else:
            self._pf_k = 0
            lv = self._pf_lv
            if self._pf_lo < dn <= lv + self._hand + self._band:
                self._dip_t = self._pf_t
                return True
            if k == 11 and dn >= a:
                # (the impact felt, and the next conversion higher still: the cards of a
                # piece land one after another, a roof and its walls 10-100 ms apart, and
                # their impulses straddle two conversions; one more conversion must then be
                # back near the level. A hand's press holds for 100-300 ms; a bump's swing,
                # read in two conversions, goes up and down)
                self._pf_k = 12
        self._pf_b = a
        return False

    def _one_sided(self, depth):
        """The raw samples of the present (or last) drop average more than ``depth`` below."""
        return self._dip_cnt and self._dip_sum < -depth * self._dip_cnt

    def _impact_after_drop(self, t, dn):
        # (a drop that lasted longer than half a table shake: a shake swings both ways)
        if not (self._dip_max >= self._long_n_drop and self._one_sided(self._margin)
                and self._lowest < -self._impact and self._dip_quiet):
            return False
        if self._raw_win and (self._near_allow(-self._lowest, self._al_rh)
                              or self._near_allow(-self._lowest, self._al_take)):
            # (10 SPS) The drop was an allowed one (Rhino Hero lifted, a piece taken back):
            # the rise after it may be the next hand setting him down or bringing a piece,
            # whose press builds over 100-300 ms and holds. Cards landing strike within one
            # conversion (their ringing dies in 8-25 ms) and leave the cards lying, lower:
            # the conversion after the impact must come back down by more than a touch.
            return (self._ndev > self._impact and dn < self._ndev - self._hand
                    and self._ndev_t - self._dip_t <= self.impact_ms)
        # (80 SPS) And more above the old level than the platform and the tower could swing
        # under the shaking felt with it: a bump's inertia does that as it is felt (Rhino
        # Hero's lift or a take-back with a bump, bench_overlap.py; round 75); cards that
        # land strike harder than their jolt can swing the load.
        return (dn > self._impact and t - self._dip_t <= self.impact_ms
                and (self._raw_win or dn > (self._kin * self._act_now) >> 6))

    def _explained(self, s):
        """Is a step (counts) explained by a piece (or by nothing at all)?"""
        if -self._min_place < s < self._min_place:
            return True
        if s > 0:
            return self._best(s) != SHIFT
        s = -s
        if self._near2(s, self._rh) or self._near(s, self._last_step) or self._eased(s):
            return True
        if self._ep_t - self._small_t <= self.grab_ms * 2:
            # measured from under a light hand that rested just before (a grip)
            s -= self._small_step
            # (10 SPS: a step back to the level under that hand is the hand gone)
            return ((self._raw_win and s < self._min_place) or self._near2(s, self._rh)
                    or self._near(s, self._last_step))
        return False

    def _press_let_go(self, s):
        # (80 SPS) A drop of ``s`` (counts) is a hand's steady press, weighed with the piece
        # just placed, let go: the piece is still there, lighter by the press; a collapse
        # loses a roof or more, or strikes the platform.
        a = self._al_take
        if not a:
            return False
        if self._pair_t == self._last_t and (self._near(s, self._w) or self._near(s, a - self._w)):
            # The last level was weighed as two pieces at once (a wall and a roof, or two
            # walls) and the drop is a wall, or the pair's excess over a wall: one piece fewer
            # than weighed (two walls and a press weigh a wall and a roof, a wall and a press
            # two walls; held-out 36196, 47122). A wall alone falling is no collapse either.
            return True
        # Less than a roof lost, the table still all along (no reading past the activity
        # threshold once the loss passed half a wall: cards landing light on the platform
        # jolt 25-33 mg, scripted 36814, 37672, 39916, 41693), no hand's press in the
        # episode, and what stays above the level before that placement is a wall, two
        # walls or a roof (bots' game 16730: two walls, the second held 2.7 g over its mass
        # for 550 ms, weighed as Rhino Hero; the hand let go 300 ms later and the level fell
        # 2.8 g, unfelt (4-14 mg), to two walls above the old level: a false collapse).
        # (10 SPS has its own form of this test in _check_collapse and _eased.)
        return (self._jolt <= 0 and self._dip_quiet and self._rpeak <= self._hand
                and s < self._r - self._tol(self._r) and self._piece(a - s))

    def _eased(self, s):
        # A drop of ``s`` (counts) is the rest a hand's steady press weighed with the piece
        # eased off to: the new level, the piece still there, lighter by the press; no event.
        # Rhino Hero's mass is his lift, classified as such. (80 SPS: see _press_let_go;
        # before, such a level no piece explains held until the next hand, whose let-go then
        # fell past it.) (10 SPS: the drop _check_collapse let pass: less than the allowed
        # piece, the table still, the load never above the old level; held-out 37299, 41272:
        # a touch 1-2 s later, before a long rest, and the level under the weighed one was a
        # collapse.)
        if not self._raw_win:
            return self._press_let_go(s) and not self._near2(s, self._rh)
        a = self._al_take
        return (a and self._jolt <= 0 and self._dip_quiet
                and not self._near2(s, self._rh)
                and self._rpeak <= self._hand and s < a - self._tol(a)
                and self._last_step - s >= self._min_place)

    def _near_allow(self, drop, m):
        return self._near(drop, m) or (self._slack and self._near(drop - self._slack, m))

    def _near2(self, s, m):
        return _absdiff(s, m) <= 2 * self._tol(m)

    def _near(self, drop, m):
        if m <= 0:
            return False
        return _absdiff(drop, m) <= self._tol(m)

    def _past_wall(self, t, dn):
        """With a wall last (settled within remove_ms), a fall must also be past the old level
        minus that wall: a hand that let the wall go and gripped it again with a firm push
        looks like a hand bringing a piece, and lifting the wall is no collapse (SPEC: a wall
        alone falling over is none either). Every collapse weighs more than a wall. Not when
        the hand pressed more than a wall and a push above the wall (a grip to lift a piece
        presses less: that hand brought a piece)."""
        if ((self._last_ev != WALL and self._last_ev != WALLS2) or t - self._last_t > self.remove_ms
                or self._rpeak >= self._w * 2 + self._push_c):
            return True
        w = self._last_step
        return dn < -self._cfall - w - self._tol(w)

    def _grip_lift(self, t):
        """(With an accelerometer) A roof last (settled within remove_ms), and the
        hand pressed less than a wall and 2 g above it: a grip on that roof to lift it, not a
        hand bringing a wall. Fingers that close on a card to lift it press it 0.3-3 g, up to
        4 g with a hand's tremor and wander; a hand that sets a wall down adds the wall and
        pushes it 2-35 g. A light wall (1.7-2 g) and the firmest grips overlap at a push of
        1.5 g (held-out 2823, 6488, 7358, 12699, 16977, 21434: grips of 3.3-3.8 g, 1.5-1.7 g
        above the wall, lifted: taken for a wall brought and sliding off). With the roof
        allowed, a slide under such a light push waits for its jolt or its depth past the
        roof (the other hands' slides all pushed 2.7 g or more beyond their wall). At 10 SPS
        too: scripted 2172, a roof let go, weighed, gripped again 3.5 g (1.7 g above a
        1.78 g wall) and taken back, was a fall with no allowance."""
        return (self.accel and self._last_ev == ROOF
                and t - self._last_t <= self.remove_ms
                and self._rpeak < self._bring_c)

    def _mass(self, code):
        """The learned mass (counts) of a placement's code."""
        return (self._w if code == WALL else self._w * 2 if code == WALLS2
                else self._r if code == ROOF else self._rh)

    def _piece(self, s):
        """A step (counts) within its tolerance of a wall, two walls or a roof."""
        return self._near(s, self._w) or self._near(s, self._w * 2) or self._near(s, self._r)

    def _pressed(self, lv):
        """A level (counts above the old one) higher than a roof with a wall on it and a
        press: a hand still pressing, not a piece let go (rounds 72 and 77)."""
        return lv > self._r + self._w + self._push_c

    def _tol(self, m):
        # Classification tolerance: 6 % of the mass (pieces of a set differ by 2 %, learned
        # masses by 1 %) plus the band (the two levels' own uncertainty).
        return (m >> 4) + self._band

    def _set_inertia(self):
        """Counts (x64) the load moves per milli-g of shaking: platform and tower mass, times
        what survives the HX711's averaging over one conversion of a >= 8 Hz shake (about a
        quarter at 10 SPS: sinc of 8 Hz over 100 ms is 0.23). Integers only."""
        m = self._base - self._zero
        if m < 0:
            m = 0
        m += self._plat_c           # counts; x64 stays below 2**30 for a 1 kg cell
        if self.sps > 20:
            self._kin = (m * 64) // 1000
        else:
            self._kin = (m * 64) // 1000 // 4

    def _settled(self, t, step, level):
        state = self._state
        had_base = self._have_base
        self._state = _REST
        self._have_base = True
        self._base = level
        self._set_inertia()
        self._quiet_n = 0
        self._quiet_sum = 0
        if state == _FALLEN or not had_base:
            return
        if 0 < step < self._min_place:
            self._small_t = t
            self._small_step = step
        if step <= -self._min_place and self._eased(-step):
            # (the piece stays, lighter by the press; the hand may still be on it)
            ev = NONE
            self._last_step += step
            self._hand_t = self._t1
        else:
            ev = self._classify(step, t)
            if (ev == NONE and step < 0 and self._raw_win and -step < self._min_place
                    and t - self._last_t <= self.remove_ms
                    and not self._near(self._last_step, self._mass(self._last_ev))
                    and self._piece(self._last_step + step)):
                # (10 SPS) A little lower soon after a piece weighed off its mass by more
                # than its tolerance (a level no piece explained, held long enough to count):
                # the hand's steady press let off, and the piece is what rests now; a hand
                # that takes it back lifts that (scripted 81380: a roof set down under a 1 g
                # press held 900 ms, weighed as two walls 0.7 g light, the press let off,
                # then the roof gripped again and lifted: a fall, its 3.7 g matching nothing;
                # bots' 35836: a wall under a 1.2 g press weighed as Rhino Hero 0.5 g heavy)
                self._last_step += step
            if (ev == SHIFT and step < 0 and self._raw_win
                    and ((self._calm and self._clean and self._peak <= self._rb
                          and -step >= self._r - self._tol(self._r)
                          and not self._near(-step, self._rh))
                         or (self.accel and -step >= self._min_place and not self._rpk_q
                             and self._rpeak >= self._impact))):
                # (10 SPS) The load fell out of a long rest on a calm table and never rose
                # (no hand pressed: the calm run's terms), then rested lower by a roof or
                # more that matches no allowance (neither Rhino Hero's lift nor a piece
                # taken back): something left the platform. Bots' 42582: a roof sliding
                # off over 400 ms, 0.3 g past the threshold of his allowance, within what
                # the accelerometer's floor bounds and settled before the raw mean passed
                # it: reported as a shift. (Less than a roof is a press weighed with the
                # piece easing off, his mass is his lift with his bookkeeping lost: scripted
                # 737 and 640 under four times the datasheet's noise.)
                # Or a placement or more lower after the raw load rose an impact's height
                # (1 g) over the old level with the table shaking (the episode's highest
                # conversion not reached on a still table): cards fell onto the platform,
                # landed, and some left it. A hand's press is reached with the table
                # still, a bump moves no piece, and every piece a hand lifts is allowed
                # (scripted 122819: an 8.1 g tower 3.2 g down, +2.7 g with 45 mg, then
                # 1.6 g lower, still: reported as a shift. Levels that settle a placement
                # low unexplained are rare: none in scripted 12001-42000, two falls in
                # bots' 1-12000; under four times the noise 21 in 3,000 games, all a
                # press easing off on a still table.)
                self._collapsed()
                return
            if ((ev == RHINO_LIFT or (ev == SHIFT and step < 0 and self._raw_win))
                    and self._rpk_q and not self._plat0 and self._rpeak > self._bring_c):
                # Rhino Hero's mass lost after a hand pressed more than a wall and 2 g onto
                # the tower with the table still: that hand brought a piece, and fingers
                # lifting Rhino Hero grip him lightly and lift; it takes back at most what
                # it brought, so the level cannot end below where it began. A roof fell
                # (bots' games 1770, 3251 at 10 SPS, 2787 at 80 SPS with a 14-18 g press:
                # a roof slides off as a piece is set on it; the roof weighs what Rhino
                # Hero weighs, or he went with it). (Not when the load rested at the old
                # level after the press, less than half a wall off: that hand let go and
                # left nothing, a hard touch, and Rhino Hero lifted later in the same
                # episode is his move; scripted 26232, 27105 at 10 SPS: a 3.9-19 g touch,
                # the old level for 300-700 ms, then his lift; 70811 at 80 SPS, where the
                # tower swayed 0.1-0.15 g at that level for 700 ms, too much to settle.)
                # (10 SPS) The same for a loss weighed as nothing placed: after a hand
                # pressed more than a wall and 2 g onto the tower with the table still, the
                # level ends a placement or more below where it began. That hand brought a
                # piece and takes back at most that piece: the roof under it slid off and
                # the hand kept its wall (bots' game 7144: 8.5 g, then a roof's 5.2 g lost,
                # taken for a shift).
                self._collapsed()
                return
            if self._raw_win and (
                    (self._conv == 1 and (
                        (ev == RHINO_LIFT and (self._fmax < (-step >> 1) - (-step >> 6)
                                               or self._plat2 + self._band < -step + (step >> 3)))
                        or (ev == REMOVED and self._hand_t == _NEVER
                            and self._fmax < (-step >> 1) - (-step >> 4))))
                    or (ev == RHINO_LIFT and self._jl - step >= self._min_place
                        and self._ep_t == self._dip_t)):
                # (10 SPS) Fingers lift Rhino Hero within 40-100 ms, his grip eased just
                # before: conversions (each the mean of its 100 ms) split a ramp that short
                # so that one step between two of them carries half his mass or more (L/200
                # of it at most is left for the other two, L the ramp's ms). A roof of his
                # mass that tips and slides off loses its weight over 120-400 ms, slowly at
                # first (as the square of the time): spread over three steps or more, none
                # of them half (bots' games 16619, 19553, 22529, 25759, 9452, 11792, 15638:
                # 32-47 %; his lifts: 50 % or more). Under 48.4 %: a fall. Nor can such a
                # ramp leave more than L/800 of his mass outside the two largest consecutive
                # steps (1/8 at 100 ms, the conversions' edges in its middle; the band for
                # the noise): a roof of his mass that tips and slides off spreads its loss
                # over four steps or more, one of them half of it now and then (bots' games
                # 19299, 24206, 26695, 32237, 35634, 36682: 51-58 % in one step, 79-85 % in
                # two; his lifts in bots' 1-1000 and 6001-9000: 88.5 % in two at least, of
                # 5,346). Under 7/8 less the band: a fall.
                # The same for a drop weighed as the piece just placed taken back,
                # that piece let go when it was weighed and no hand seen since (_book clears
                # _hand_t): a hand lifts it within 40-120 ms, which leaves half its mass,
                # less a hair, to one step between two conversions (49.6 % at 120 ms); a
                # roof that rested and then slid off loses it over three steps or more, none
                # of them half (bots' game 8291: a roof of Rhino Hero's mass at rest for 3 s
                # while his move was owed, gone in four steps, 39 % the largest). Under
                # 43.75 % (a wider margin than his lift's: a take-back's lift is slower): a
                # fall. A hand still on the piece may ease its press as it lifts, which
                # spreads the loss (scripted 51, 165, 989 under four times the noise: a
                # piece weighed under a steady press or a grip, taken back, 30-41 %).
                # And a drop weighed as his lift during which the table jolted past the
                # accelerometer's floor over its activity threshold, the load still a
                # placement above where it ended: fingers lifting him strike nothing (his
                # lifts in bots' 16001-16500: 24 mg at most), falling cards do (bots' 27023:
                # a partial fall of his mass, 39 and 57 mg as it went; 10172, 10385: roofs
                # of his mass sliding off; each with a lift's step shape, taken for his lift).
                # Only a drop that began its episode: nothing touched or shook the tower
                # before it. A knock starts the episode it rings through, and his lift
                # within it reads that ringing as a jolt (scripted 53201: his lift 700 ms
                # after a knock, 40-53 mg through it; 14102: 600 ms after one, the ringing
                # decayed to 23 mg for one conversion and rose again to 38 mg).
                # The step-shape tests (all but the jolt's) only where each reading is known
                # to be its own conversion's mean (_conv 1): with a sinc^4 filter a lift's
                # loss reaches the readings in steps of 4-60 %, a slide's shape.
                self._collapsed()
                return
            if not self._raw_win and ev == RHINO_LIFT and self._rh_t - self._dip_t > _LIFT_MS:
                # (80 SPS) Fingers lift Rhino Hero's whole mass within 114 ms of the drop's
                # start (878 lifts in bots' games 1-650: 60-89 ms mostly); a roof of his mass
                # that tips and slides off, nobody near, loses it slower, the square of the
                # time at first (bots' games 3388, 30876: the mass below by its tolerance
                # only after more than 160 ms, weighed as his lift). Slower: a fall.
                self._collapsed()
                return
        if self._regrip or (self._raw_win and step >= self._min_place
                            and (not self._released(step)
                                 or step - self._rlow >= self._release + self._release)):
            # (a level that settled under a hand that came back: the hand still holds the
            # piece and may lift it now, which is no collapse; at 10 SPS likewise a level
            # that settled with no release seen: a hand holding steady for 600 ms may still
            # be on the piece and ease its press or lift it now; held-out 28397, 30234: a
            # wall or Rhino Hero and a steady 1-4 g press weighed as a roof, eased off;
            # and one that settled 2 g or more above the lowest conversion after the push's
            # peak: a piece let go rings at most 1 g under its level, so the load rose again
            # after the release, a hand that came back (or a second piece: its hand too may
            # still be on it) before the rest a re-grip needs; held-out 37299, 41272: two
            # walls let go, pressed again by 2.2 g within 100 ms and weighed as a wall and a
            # roof, eased off)
            self._hand_t = self._t1
        if ev != NONE:
            self._push(ev, t)
        elif self._dip_seen and self._rhino_on and step > -self._min_place:
            # Lifted and set down again within one episode.
            self._push(RHINO_LIFT, self._dip_seen_t)
            self._push(RHINO, t)
        elif (self._peak > self._w and step < self._min_place
                and (t - self._ep_t > 300 or self._bk_t != _NEVER)):
            # (a roof that rested at its own mass and then had a hand press a piece onto it
            # was set down, let go and pressed over far more than 300 ms, however late the
            # long episode's noise floor restarted _ep_t: bots' games 6672, 7455, 13348 at
            # 80 SPS, 9296, 10217, 12170 at 10 SPS, the roof sliding off as the hand leaves
            # with its piece, unreported)
            # A take-back strikes nothing: a jolt felt after a push's peak reached with the
            # table still, the piece (let go: a release below the peak) still on the tower,
            # is the piece falling off (bots' games 429, 1049: a roof let go rings 100-200
            # ms, then slides off with a 37-263 mg jolt; its level ends where it was before
            # the roof). The jolt must exceed the accelerometer's floor over the activity
            # threshold: its noise and the tracked rest's error reach 25 mg now and then,
            # and a hand lifting a piece jolts nothing (scripted game 536: 26 mg). The level
            # at the jolt stands no more above the settled one than a roof with a wall on it
            # and a press's ringing: higher, a hand still pressed, and the jolt was a knock
            # while it eased before taking its piece back or leaving a touch (round 72,
            # bench_overlap: 7-20 g; the falls found, bots' 429 and 1391: 3.7-6.6 g).
            above = self._jl - step
            bk = self._bk_t != _NEVER
            if self._raw_win:
                # 10 SPS, where the median's level at the jolt is a conversion or two old:
                # after a hand pressed a piece onto a roof let go (`_bk_t`), the median
                # perhaps still bearing that press (bots' 1049, 1660, 3683: 14-26 g above),
                # or whenever the converter is not known to read a conversion's own mean:
                # through a sinc^4 filter the roof's rest that `_bk_t` looks for is smeared
                # away (bots' 1049 told sinc4: 19 g above, no `_bk_t`). Told sinc1 and no
                # `_bk_t`, the jolt was a knock or a bump as a hand lifted its piece back or
                # left a touch, the stale median still bearing them (round 80: 51 false
                # collapses in bench_overlap.py; every fall the rule decides in the bots'
                # 1-40000 and scripted 1-20000 had `_bk_t`, and a roof let go that slides off
                # alone is decided by other rules, 295 of 300 on the simulated table either
                # way). And at least a wall (less its tolerance) above: a piece still on the
                # tower as the table shook, the old median only later on the way down;
                # less, the hand had lifted its piece or touch nearly all away already, and
                # the jolt was a knock as it left (round 76: each fall it decides at 10 SPS,
                # 51 in the bots' 1-40000 and 8 scripted through either filter, stood 3.3 g
                # and more above).
                fell_off = (above >= self._w - self._tol(self._w)
                            and (bk or self._conv != 1))
            else:
                # 80 SPS: only after a hand pressed a piece onto a roof let go (`_bk_t`:
                # then a fall either way, below; the jolt gives the onset). A roof let go
                # that slides off alone is a fall `_check_collapse` has already decided
                # (297 of 300 on the simulated table; the other three unfelt, taken for
                # the roof taken back either way), and the rule without `_bk_t` decided no
                # fall in scripted 1-20000 or bots' 1-6000 but 47 take-backs and touches
                # with a knock or a bump in bench_overlap.py: the hand held its piece
                # still (round 79).
                fell_off = bk and not self._pressed(above)
            if (fell_off and self.accel and self._rpk_q and above >= self._min_place
                    and self._peak - self._jl >= self._release):
                # Onset: the jolt (the card strikes 60-200 ms after it begins to slide; the
                # drop's start and the push's peak came up to 1.5 s before the fall).
                self._dip_t = self._jl_t
                self._collapsed()
            elif bk:
                # A hand pressed a piece onto a roof that had been let go, and the load then
                # lost the roof too: a hand takes back only what it holds, and what it
                # brought goes with it, so the roof under it fell (bots' games 2993, 3701,
                # 3740 at 10 SPS, 2874 at 80 SPS: a roof slides off as a wall is set on it,
                # the wall kept in the hand, often unfelt). Onset: that hand's last press
                # (the roof gives way as the push stops).
                self._dip_t = self._bk_t
                self._collapsed()
            else:
                self._push(REMOVED, t)

    def _best(self, s):
        """The placement that best explains a positive step (counts), or SHIFT. Candidate
        costs: the distance to the learned mass in tolerances, plus one tolerance for a piece
        out of the game's order (a roof before any wall, a third wall, anything but Rhino
        Hero while his move is owed...). The order only decides near-ties: a set whose two
        walls weigh what a roof weighs, or whose Rhino Hero weighs what a roof weighs. Two
        pieces placed in quick succession (the first never came to rest) are a wall or two
        walls and then the roof."""
        w = self._w
        ws = self._walls_since_roof
        owed = self._expect_rhino
        best = NONE
        best_cost = 1 << 29
        bm = w
        for code in _CANDIDATES:
            if code == WALL:
                m = w
                odd = ws >= 2 or owed
            elif code == WALLS2:
                m = 2 * w
                odd = ws >= 1 or owed
            elif code == ROOF:
                m = self._r
                odd = ws == 0 or owed
            else:
                if self._rhino_on:
                    continue
                m = self._rh
                # (Rhino Hero just lifted is set down next, owed or not: the referee may have
                # stopped owing his move meanwhile, e.g. a symbol window that closed while he
                # was in the hand; bots' game 1364: weighed as a roof, his next lift a collapse)
                odd = not owed and self._last_ev != RHINO_LIFT
            cost = (_absdiff(s, m) << 8) // self._tol(m) + (256 if odd else 0)
            if cost < best_cost:
                best = code
                best_cost = cost
                bm = m
        if _absdiff(s, bm) <= 2 * self._tol(bm):
            return best
        # (one wall already: the second one and the roof in one go; and only once a hand
        # visibly let go: a hand still pushing a piece is no second piece. Once the level
        # rose again by a piece from its lowest since the episode's peak, the hand let go of
        # what that rise brought: held-out 10541 (80 SPS), a wall's 41 g press let go and
        # 150 ms at its mass, then the second wall under a steady 2.1 g press, which weighed
        # a wall and a roof, its release a roof's fall; 9464 (10 SPS) the same with 2.4 g.)
        if ws > 1 or self._peak - s < self._release:
            return SHIFT
        rp = self._pl_t if self._raw_win else self._rise
        if rp - self._rlow >= self._min_place and rp - s < self._release:
            return SHIFT
        m = w + self._r
        if _absdiff(s, m) <= self._tol(m):
            return _WALL_ROOF
        m += w
        if ws == 0 and _absdiff(s, m) <= self._tol(m):
            return _WALLS2_ROOF
        return SHIFT

    def _classify(self, s, t):
        mp = self._min_place
        if s >= mp:
            best = self._best(s)
            if best == _WALL_ROOF or best == _WALLS2_ROOF or best == WALLS2:
                self._pair_t = t
            if best == _WALL_ROOF:
                self._push(self._book(WALL, self._w, t), t)
                return self._book(ROOF, s - self._w, t)
            if best == _WALLS2_ROOF:
                self._push(self._book(WALLS2, 2 * self._w, t), t)
                return self._book(ROOF, s - 2 * self._w, t)
            if best == SHIFT:
                return SHIFT
            return self._book(best, s, t)
        if s <= -mp:
            # Rhino Hero lifted, or the piece just placed taken back: the nearer in
            # tolerances, Rhino Hero preferred while his move is owed.
            # (measured also from under a light hand that rested just before: a grip)
            recent = t - self._last_t <= self.remove_ms + 2000
            slack = self._small_step if self._ep_t - self._small_t <= self.grab_ms * 2 else 0
            c_rh = 1 << 29
            c_take = 1 << 29
            if self._rhino_on or self._expect_rhino:
                c_rh = self._cost2(-s, slack, self._rh)
                if not self._expect_rhino:
                    c_rh += 128
            if recent and self._last_step > 0:
                c_take = self._cost2(-s, slack, self._last_step)
                if self._expect_rhino:
                    c_take += 256    # the turn has passed: nobody takes that piece back
            if c_rh <= 512 and c_rh <= c_take:
                self._rhino_on = False
                # (10 SPS) A piece booked during his owed move that weighs what he weighs
                # (the take-back fits too, preferred only as his move is owed) may be what
                # the hand took back, and he still on the tower: his next lift, while his
                # move is still owed, is no fall (bots' games 22831, 26026, 31910: a roof
                # set on a roof while his move was owed, weighed as two walls of his mass,
                # taken back 0.8-1.4 s later and weighed as his lift; his real lift 1.2-2.5 s
                # later had no allowance). A fall takes more than his mass, and a roof of
                # his mass sliding off still meets round 42's test of the lift's shape.
                self._rh_maybe = self._raw_win and self._owed_before and c_take <= 512
                self._owed_late = False
                self._last_t = _NEVER
                self._last_ev = RHINO_LIFT   # (he is in a hand: see _best)
                return RHINO_LIFT
            if self._raw_win and slack and -s - slack < mp:
                return NONE    # (10 SPS) a light hand that rested on the tower lifted off
            if c_take <= 512:
                # The piece just placed was taken back: undo its bookkeeping.
                ev = self._last_ev
                if ev == WALL:
                    self._walls_since_roof -= 1
                elif ev == WALLS2:
                    self._walls_since_roof -= 2
                elif ev == ROOF:
                    self._walls_since_roof = self._ws_before
                elif ev == RHINO:
                    self._rhino_on = False
                if self._owed_before:
                    # A roof (or a piece weighed as Rhino Hero) booked while his move was owed
                    # ended that move; the referee still counts it (removed is only
                    # informational), so it says nothing is owed now, but the player still
                    # moves him: his lift is no collapse, his setting down is his (bots' games
                    # 85, 583, 1364, 1940: lifted 1-2 s after a roof was taken back).
                    self._expect_rhino = True
                    if ev == ROOF:
                        # ... and the referee says so again at the next wall, but
                        # he is still to be moved, before the next roof: a hand's grip of a
                        # wall to take it back, weighed as a roof while his move was owed,
                        # then the wall lifted off, then set again (bots' games 7411, 8550,
                        # 13144: he was lifted 3-5 s later, after the wall). His lift takes
                        # his mass and the level rests there; a falling tower takes a roof
                        # or more and does not rest at his mass: his allowance decides.
                        # (10 SPS too: bots' 54585, a roof weighed and taken back while his
                        # move was owed, then a wall, then his lift, taken for a fall; at 10
                        # SPS his lift's step shape is then judged as well, see _settled.)
                        self._owed_late = True
                self._last_t = _NEVER
                return REMOVED
            return SHIFT
        return NONE

    def _cost2(self, drop, slack, m):
        """Distance of a drop (or of the drop less a light hand's press) to a mass, in
        tolerances x 256."""
        tol = self._tol(m)
        c = (_absdiff(drop, m) << 8) // tol
        if slack:
            c2 = (_absdiff(drop - slack, m) << 8) // tol
            if c2 < c:
                c = c2
        return c

    def _book(self, code, s, t):
        """A placement decided: the game's bookkeeping (the order of pieces, the last one)."""
        self._hand_t = _NEVER    # (the hand that placed it does not grab it)
        if not self._raw_win:
            # (80 SPS) ... unless the step weighs more than the piece by more than its
            # tolerance (which covers how pieces of a set and learned masses differ): the
            # excess is a finger still on the piece (a grip that began before the push was
            # let go: it leaves no rise of its own), and it may lift the piece now, which is
            # no collapse (held-out 1355, 7437, 7900: roofs 0.4-0.7 g heavy, lifted 0.1 s
            # after they were reported).
            m = self._mass(code)
            if s - m > self._tol(m):
                self._hand_t = self._t1
            elif _absdiff(s, m) * 8 > self._tol(m) * 5 or (code == RHINO
                                                          and not self._expect_rhino):
                # A step off its piece by more than 5/8 of the tolerance either way (the
                # pieces of a set differ by 2 %, learned masses by 1 %: a piece alone weighs
                # within about half a tolerance) is not that piece alone: a hand resting on it
                # without pressing (the settle window needs only 200 ms of stillness), or
                # another piece and a finger (a wall weighed as a roof). A fall that begins
                # within 150 ms of the report counts as after a grip: the hand may take it
                # back (held-out 25479, 25713: a wall weighed as a roof and as Rhino Hero,
                # lifted 0.12 s after the report with no rise seen). Likewise Rhino Hero
                # weighed while his move is not owed: a player moves him only when a roof
                # symbol says so, and a wall with a finger left on it weighs what he weighs
                # in sets where he weighs little more than a wall (held-out 30040, 35653: lifted
                # 13-100 ms after the report).
                self._hand_t = self._t1 - self.grab_ms + _HELD_MS
        # (10 SPS) A roof weighed while his move is owed right after a roof was taken back
        # (the symbol, pressed as this roof was set down, went to the roof taken back, which
        # the referee still counts), or after more than two walls since a roof (one of them
        # most likely a misweighed roof: the referee's symbols then run one roof behind):
        # this roof's symbol may owe his move while the referee counts none owed. His lift
        # before the next piece is no fall (scripted 36248, 41272: lifted 4-5 s later).
        # Likewise, at both rates, a roof weighed while his move is owed, he is on the tower
        # and no wall has been set since the last roof: no roof is set on a roof, so this
        # was most likely two walls weighing what a roof weighs, and his move is still owed
        # to the player who lifts him next (bots' games 8259, 11729, 12023, 13906 at 10 SPS,
        # 23946 at 80 SPS).
        if code == ROOF:
            late = self._expect_rhino and self._walls_since_roof == 0 and self._rhino_on
            if self._raw_win and not late:
                late = ((self._expect_rhino and self._last_ev == ROOF and self._last_t == _NEVER)
                        or self._walls_since_roof > 2)
        else:
            # (kept through walls until the next roof, see _classify's take-back)
            late = self._owed_late and (code == WALL or code == WALLS2)
        self._owed_late = late
        self._last_t = t
        self._last_ev = code
        self._last_step = s
        self._owed_before = self._expect_rhino
        if self._raw_win and code != RHINO and self._expect_rhino and not self._rhino_on:
            # (10 SPS) His move owed, he is not on the tower, and something else was
            # weighed: it may have been him, misweighed (a set where he weighs about two
            # walls or a roof); the player lifts him on a later owed turn, and that lift
            # is no fall (scripted 22795, 30234, 64102, 67747).
            self._rh_maybe = True
        if code == WALL:
            self._walls_since_roof += 1
        elif code == WALLS2:
            self._walls_since_roof += 2
        elif code == ROOF:
            self._ws_before = self._walls_since_roof
            self._walls_since_roof = 0
            self._expect_rhino = False   # the move stays owed only until a roof lands
        else:
            self._rhino_on = True
            self._rh_maybe = False
            self._expect_rhino = False
        return code


def _absdiff(a, b):
    return a - b if a > b else b - a
