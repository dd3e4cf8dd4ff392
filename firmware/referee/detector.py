"""Placement and collapse detector: HX711 load samples (and accelerometer) in, game events out.

Usage::

    from referee import detector
    d = detector.Detector(cal, sps=80, accel=True)   # cal: offset, counts_per_gram, wall_g,
                                                     # roof_g, rhino_g (duck-typed)
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

1. Lone-spike rejection: median of the last three samples (the HX711 glitches to values near
   2**n - 1 for one sample; a median of three removes any single wild sample).
2. Rest: the median stays within a motion band of the resting level and the accelerometer is
   quiet. Only then does the resting level follow slow creep and temperature drift (zero
   tracking), and this is the fast path: a few integer compares per sample.
3. An episode starts when the level leaves the band (or the accelerometer wakes). It ends when
   the level has stayed inside a band around a new level for a settle window (scale-style
   stability test); the step between the two resting levels is classified by the learned
   masses (wall, two walls, roof, Rhino Hero) with the game's order as a tie-breaker, or is a
   Rhino Hero lift. A piece set down and taken away again before it settled is "removed".
4. Collapse, decided while the episode is still running: the level falls below the resting
   level by more than can be explained (Rhino Hero being lifted when a move is owed) for a few
   samples; or it falls and then an impact comes within 300 ms (cards landing on the platform:
   little net change); or a smaller drop comes to rest at a level that is not Rhino Hero's
   mass (a roof sliding off). A drop that starts while the accelerometer shows a table bump
   must outlast the shaking. The reported time is the onset of the drop.
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

_QLEN = const(4)  # queued events (a lift and a set-down can be decided on one sample)


def _ms_to_n(ms, sps):
    n = (ms * sps + 999) // 1000
    return n if n > 0 else 1


class Detector:
    """One table's detector. Tuning values are class attributes (grams and milliseconds)."""

    band_g = 0.3            # half-width of the motion band (datasheet noise is 0.02 g at 80 SPS)
    margin_frac = 0.5       # a collapse drop must exceed the allowance by half a wall
    grab_frac = 0.6         # a hand touch below 0.6 wall is a grab (lifting), not a placement
    impact_g = 1.0          # an impact after a drop: at least this far above the resting level
    settle_ms = 350         # scale-style stability window
    drop_ms = 37            # how long a drop must last (80 SPS: 3 samples after the median)
    impact_ms = 300         # cards in free fall land within this time of the drop's start
    acc_thr_mg = 25         # accelerometer activity: sum of |deviation| over three axes
    bump_mg = 80            # activity above this is reported as a table bump
    acc_hold_ms = 150       # shaking counts as going on this long after the last active sample
    bump_gap_ms = 1000      # one bump event per second at most
    grab_ms = 500           # a hand on the tower this recently may be lifting something
    remove_ms = 3000        # a piece taken back within 3 s of settling is "removed"
    release_ms = 1000       # a hand resting when the level settled lets go within 1 s
    long_settle_ms = 2500   # ... for a level that no piece explains (a hand resting)
    track_n = 32            # zero tracking: move the resting level every 32 quiet samples

    def __init__(self, cal, sps=80, accel=True):
        if sps <= 0:
            raise ValueError("sps must be positive, e.g. 10 or 80")
        self.sps = sps
        self.accel = bool(accel)
        self.set_calibration(cal)
        self._ev = array("i", [0] * _QLEN)
        self._evt = array("i", [0] * _QLEN)
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
        self._hb = int(self.band_g * g)
        self._margin = int(w * self.margin_frac)
        self._grab = int(w * self.grab_frac)
        self._min_place = w // 2
        self._impact = int(self.impact_g * g)
        # Classification: a step farther than this from every piece is an unexplained shift.
        self._ctx_pen = int(0.6 * g)
        self._settle_n = _ms_to_n(self.settle_ms, sps)
        if self._settle_n < 4:
            self._settle_n = 4
        k = _ms_to_n(self.drop_ms, sps)
        if not self.accel:
            # Without an accelerometer a table bump is only seen in the load: its swings last
            # half a period of the table's ringing (<= 50 ms), so a drop must last longer.
            k = _ms_to_n(75, sps)
            if sps <= 20:
                k = 2
        self._drop_n = k
        self._impact_n = _ms_to_n(self.impact_ms, sps)
        self._long_n = _ms_to_n(self.long_settle_ms, sps)
        self._acc_hold = _ms_to_n(self.acc_hold_ms, sps)
        # Accelerometer rest tracking: about 400 ms time constant.
        sh = 0
        while (1 << (sh + 1)) * 1000 <= 400 * sps:
            sh += 1
        self._ash = sh

    # -- public state --------------------------------------------------------------------------
    @property
    def grams(self):
        """Settled net load in grams (float; computed on read only)."""
        return (self._base - self._zero) / self._cpg

    @property
    def stable(self):
        return self._state == _REST

    def expect_rhino(self, owed):
        self._expect_rhino = bool(owed)

    def retare(self):
        """Take the present resting level as zero (and start the game's piece bookkeeping over)."""
        self._zero = self._base
        self._clear_game()

    def reset(self):
        """Start over: forget levels, episode, queue and the game's pieces."""
        self._n0 = 0        # previous two samples (net counts) for the median
        self._n1 = 0
        self._nseen = 0
        self._t0 = 0        # their times
        self._t1 = 0
        self._base = 0
        self._zero = 0
        self._state = _BUSY
        self._have_base = False
        self._quiet_n = 0
        self._quiet_sum = 0
        self._rx = self._ry = self._rz = 0   # accelerometer rest, shifted left by _ash
        self._acc_init = False
        self._acc_idle = 1 << 20             # samples since the accelerometer was active
        self._last_bump = -(1 << 29)
        self._qn = 0
        self.event_t_ms = 0
        self._expect_rhino = False
        self._clear_game()
        self._start_episode(0, 0)

    def _clear_game(self):
        self._last_t = -(1 << 29)   # the last placement: when, what, measured step, excess
        self._last_ev = NONE
        self._last_step = 0
        self._last_excess = 0
        self._rhino_on = False
        self._walls_since_roof = 0
        self._placed = 0

    # -- the per-sample path ---------------------------------------------------------------------
    def feed(self, t_ms, raw, ax, ay, az):
        """One HX711 sample; returns an event code (NONE most of the time)."""
        # Accelerometer first: activity is the sum of deviations from the slow rest vector.
        if self.accel:
            sh = self._ash
            if not self._acc_init:
                self._rx = ax << sh
                self._ry = ay << sh
                self._rz = az << sh
                self._acc_init = True
            dx = ax - (self._rx >> sh)
            dy = ay - (self._ry >> sh)
            dz = az - (self._rz >> sh)
            self._rx += dx
            self._ry += dy
            self._rz += dz
            act = (dx if dx > 0 else -dx) + (dy if dy > 0 else -dy) + (dz if dz > 0 else -dz)
            if act > self.acc_thr_mg:
                self._acc_idle = 0
                if act > self.bump_mg and t_ms - self._last_bump > self.bump_gap_ms:
                    self._last_bump = t_ms
                    self._push(BUMP, t_ms)
            elif self._acc_idle < 1 << 20:
                self._acc_idle += 1

        # Lone-spike rejection: median of three (saturated readings count as spikes).
        if raw > _RAW_MAX - 1 or raw < _RAW_MIN + 1:
            n = self._n1
        else:
            n = (raw - self._offset) * self._sgn
        a = self._n0
        b = self._n1
        self._n0 = b
        self._n1 = n
        tm = self._t1        # the median belongs to the middle sample
        self._t0 = tm
        self._t1 = t_ms
        if self._nseen < 3:
            self._nseen += 1
            if self._nseen < 3:
                return self._pop()
        if a > b:
            a, b = b, a
        y = n if n < b else b
        if y < a:
            y = a

        if self._state == _REST:
            d = y - self._base
            hb = self._hb
            if -hb < d < hb and self._acc_idle >= self._acc_hold:
                # Fast path: at rest. Zero tracking follows creep and drift only here.
                self._quiet_sum += d
                self._quiet_n += 1
                if self._quiet_n >= self.track_n:
                    self._base += self._quiet_sum // self._quiet_n
                    self._quiet_n = 0
                    self._quiet_sum = 0
                return self._pop()
            self._start_episode(tm, y)
        self._episode(tm, y, n)
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
    def _start_episode(self, t, y):
        if self._state == _REST:
            self._state = _BUSY
        self._ep_t = t
        self._peak = 0          # highest level above the resting level in this episode
        self._low = 0           # deepest drop below it
        self._low_t = t
        self._dip_n = 0         # consecutive samples below the resting level by > margin
        self._dip_t = t         # when the present drop began
        self._dip_quiet = True  # accelerometer quiet when it began
        self._dip_seen = False  # a drop of about Rhino Hero's mass was seen (lift + set-down)
        self._dip_seen_t = t
        self._dip_n_max = 0
        self._above_t = t       # last time the level was not below the resting level
        self._hand_t = t if y - self._base > self._hb else -(1 << 29)
        self._al1 = self._al2 = self._al3 = self._al4 = 0
        self._cand = y
        self._cand_n = 0
        self._cand_sum = 0
        self._cand_t = t
        self._quiet_n = 0
        self._quiet_sum = 0

    def _episode(self, t, y, n):
        base = self._base
        d = y - base
        if self._state == _BUSY and self._have_base:
            if d > self._peak:
                self._peak = d
            if d < self._low:
                self._low = d
                self._low_t = t
            if self._check_collapse(t, d, n - base):
                self._state = _FALLEN
                self._push(COLLAPSE, self._dip_t)
        # Settle test: every sample within the band around a candidate level.
        c = y - self._cand
        if -self._hb < c < self._hb:
            self._cand_n += 1
            self._cand_sum += c
        else:
            self._cand = y
            self._cand_n = 0
            self._cand_sum = 0
            self._cand_t = t
        if self._cand_n >= self._settle_n and self._acc_idle >= self._acc_hold:
            level = self._cand + self._cand_sum // self._cand_n
            # A level that no piece explains is most likely a hand resting on the tower:
            # it must hold much longer before it counts.
            if (self._state == _FALLEN or not self._have_base or self._cand_n >= self._long_n
                    or self._explained(level - base)):
                self._settled(self._cand_t, level - base, level)

    def _check_collapse(self, t, d, dn):
        margin = self._margin
        if d > self._hb:
            self._hand_t = t
        if d >= -margin:
            if self._dip_n:
                self._dip_n = 0
            self._above_t = t
            # Impact after a drop: cards that fell landing on the platform.
            return (
                self._dip_n_max >= 2
                and dn > self._impact
                and self._dip_quiet
                and t - self._dip_t <= self.impact_ms
            )
        if self._dip_n == 0:
            self._dip_t = self._above_t
            self._dip_quiet = self._acc_idle >= self._acc_hold
            # Legitimate drops (counts below the resting level), decided as the drop begins:
            # Rhino Hero lifted (a move owed, or a hand took him), the piece just placed taken
            # back by a hand, or a hand that was still pressing when the level settled.
            grabbed = self._dip_t - self._hand_t <= self.grab_ms
            # A hand that set down a piece is not one lifting Rhino Hero.
            light = grabbed and self._peak < self._grab
            # (the referee knows better than our own bookkeeping whether he stands on the tower)
            self._al1 = self._rh if self._expect_rhino or (self._rhino_on and light) else 0
            recent = t - self._last_t <= self.remove_ms
            # (a hand that brought a new piece is not taking the last one back)
            took = grabbed and self._peak < self._w + self._hb * 5
            self._al2 = self._last_step if recent and (took or self._last_ev != ROOF) else 0
            self._al3 = self._last_excess if recent else 0
            # A hand still pressing when the level settled may have made a piece look like
            # another: the level may fall back to any single piece above the level before.
            self._al4 = self._last_step if t - self._last_t <= self.release_ms else 0
        self._dip_n += 1
        if self._dip_n > self._dip_n_max:
            self._dip_n_max = self._dip_n
        # Impact while still low (the raw sample, not the median: impacts are short).
        if (
            self._dip_n_max >= 2
            and dn > self._impact
            and self._dip_quiet
            and t - self._dip_t <= self.impact_ms
        ):
            return True
        drop = -d
        if self._al1 and drop > self._al1 - self._tol(self._al1):
            self._dip_seen = True
            self._dip_seen_t = t
        top = self._al1
        if self._al2 > top:
            top = self._al2
        if self._al3 > top:
            top = self._al3
        if self._al4 > top:
            top = self._al4
        if top and drop <= top + self._tol(top) + margin:
            # Maybe legitimate: a collapse only if the level comes to rest at a drop that
            # matches none of them.
            if self._cand_n >= 3 and self._acc_idle >= self._acc_hold and self._dip_n >= self._drop_n:
                if self._near(drop, self._al1) or self._near(drop, self._al2) or self._near(drop, self._al3):
                    return False
                if self._al4 and self._al4 - drop >= self._min_place and self._explained(self._al4 - drop):
                    return False
                return True
            return False
        if self._dip_n < self._drop_n:
            return False
        if not self._dip_quiet or self._acc_idle < self._acc_hold:
            # The drop began during a table bump: it must outlast the shaking.
            return self._acc_idle >= self._acc_hold and self._dip_n >= self._drop_n + 2
        return True

    def _explained(self, s):
        """Is a step (counts) explained by a piece (or by nothing at all)?"""
        if -self._min_place < s < self._min_place:
            return True
        if s > 0:
            w = self._w
            return (self._near2(s, w) or self._near2(s, 2 * w) or self._near2(s, self._r)
                    or self._near2(s, self._rh))
        s = -s
        return (self._near2(s, self._rh) or self._near(s, self._last_step)
                or self._near(s, self._last_excess))

    def _near2(self, s, m):
        return _absdiff(s, m) <= 2 * self._tol(m)

    def _near(self, drop, m):
        if m <= 0:
            return False
        return _absdiff(drop, m) <= self._tol(m)

    def _tol(self, m):
        # Classification tolerance: 8 % of the mass plus the band (creep, calibration error).
        return (m >> 4) + (m >> 5) + self._hb

    def _settled(self, t, step, level):
        state = self._state
        had_base = self._have_base
        self._state = _REST
        self._have_base = True
        self._base = level
        self._quiet_n = 0
        self._quiet_sum = 0
        if state == _FALLEN or not had_base:
            return
        ev = self._classify(step, t)
        if ev != NONE:
            self._push(ev, t)
        elif self._dip_seen and self._rhino_on and step > -self._min_place:
            # Lifted and set down again within one episode.
            self._push(RHINO_LIFT, self._dip_seen_t)
            self._push(RHINO, t)
        elif self._peak > self._w and t - self._ep_t > 300 and step < self._min_place:
            self._push(REMOVED, t)

    def _classify(self, s, t):
        mp = self._min_place
        if s >= mp:
            w = self._w
            pen = self._ctx_pen
            ws = self._walls_since_roof
            best = NONE
            best_cost = 1 << 29
            # Candidate costs: distance to the learned mass plus a context penalty for a
            # piece out of the game's order (a roof before any wall, a third wall, a roof
            # while Rhino Hero's move is owed...). The penalty only decides near-ties.
            cost = _absdiff(s, w) + (pen if ws >= 2 or self._expect_rhino else 0)
            if cost < best_cost:
                best, best_cost = WALL, cost
            cost = _absdiff(s, 2 * w) + (pen if ws >= 1 or self._expect_rhino else 0)
            if cost < best_cost:
                best, best_cost = WALLS2, cost
            cost = _absdiff(s, self._r) + (pen if ws == 0 or self._expect_rhino else 0)
            if cost < best_cost:
                best, best_cost = ROOF, cost
            if not self._rhino_on:
                cost = _absdiff(s, self._rh) + (0 if self._expect_rhino else pen)
                if cost < best_cost:
                    best, best_cost = RHINO, cost
            m = w if best == WALL else 2 * w if best == WALLS2 else self._r if best == ROOF else self._rh
            if _absdiff(s, m) > 2 * self._tol(m):
                return SHIFT
            self._last_t = t
            self._last_ev = best
            self._last_step = s
            self._last_excess = s - m if s - m > self._hb else 0
            if best == WALL:
                self._walls_since_roof += 1
            elif best == WALLS2:
                self._walls_since_roof += 2
            elif best == ROOF:
                self._walls_since_roof = 0
            else:
                self._rhino_on = True
                self._expect_rhino = False
            if best == ROOF:
                self._expect_rhino = False   # the move stays owed only until a roof lands
            self._placed += 1
            return best
        if s <= -mp:
            recent = t - self._last_t <= self.remove_ms + 2000
            if (self._rhino_on or self._expect_rhino) and _absdiff(-s, self._rh) <= 2 * self._tol(self._rh):
                self._rhino_on = False
                self._last_t = -(1 << 29)
                return RHINO_LIFT
            if recent and (self._near(-s, self._last_step) or self._near(-s, self._last_step - self._last_excess)):
                # The piece just placed was taken back: undo its bookkeeping.
                ev = self._last_ev
                if ev == WALL:
                    self._walls_since_roof -= 1
                elif ev == WALLS2:
                    self._walls_since_roof -= 2
                elif ev == RHINO:
                    self._rhino_on = False
                self._last_t = -(1 << 29)
                return REMOVED
            if recent and self._near(-s, self._last_excess):
                self._last_excess = 0
                return NONE      # a hand was still pressing when the level settled
            return SHIFT
        return NONE


def _absdiff(a, b):
    return a - b if a > b else b - a
