"""The guided calibration steps: learn the offset, the scale and the piece masses from raw
HX711 samples (``Calibrator``; what they learn is a ``referee.calibration.Calibration``).

Usage: see ``referee.calibration``. Split from it so that a game's heap does not hold this
code: ``referee.appstore`` imports it when a calibration step starts.
"""

from referee.calibration import PIECES

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


# A single piece outside these bounds (grams) is refused while learning: someone put down two
# pieces, or a hand is still on the platform. Wide around the SPEC estimates (wall 1.7-2.8,
# roof 3.5-6, Rhino Hero 3-8) so that other editions of the game still fit.
_PIECE_RANGE = {"wall": (0.8, 6.0), "roof": (1.7, 12.0), "rhino": (1.5, 16.0)}
_WHAT = {"wall": "place a wall", "roof": "place a roof card", "rhino": "set Rhino Hero down"}
_NAME = {"wall": "wall", "roof": "roof card", "rhino": "Rhino Hero"}


# Calibrator states
IDLE = "idle"
BUSY = "busy"
DONE = "done"
FAILED = "failed"

# phases of a step
_ZERO = const(1)  # waiting for a still platform: the reference level
_MASS = const(2)  # waiting for the known mass to settle
_PIECE = const(3)  # waiting for pieces to settle, one at a time


def _median(values):
    s = sorted(values)
    n = len(s)
    if n % 2:
        return s[n // 2]
    return (s[n // 2 - 1] + s[n // 2]) / 2


class Calibrator:
    """The guided calibration steps, driven by raw samples (see the module docstring).

    Stillness is judged like a kitchen scale: after a median of three (a lone HX711 spike is
    dropped), a window of ``window_ms`` whose samples all lie within a band of ``band_g`` is
    still; two still windows in a row whose means agree within a quarter band give the level
    (the second mean). A sample outside the band sets ``moving``, drops the next quarter
    window (ringing, the last touch of a hand) and starts over. So a placement is measured
    about 2.3 s after the hand lets go. Tuning values are class attributes.
    """

    window_ms = 1000  # one still second, as a kitchen scale waits
    band_g = 0.5  # peak-to-peak motion band (grams)
    min_band_counts = 400  # floor: ~9 sigma of HX711 noise at 80 SPS (90 nV, 2 nV per count)
    still_timeout_ms = 10000  # tare / reference refused after this long without stillness
    timeout_ms = 60000  # waiting for a mass or a piece to be placed
    min_step_g = 0.5  # level changes smaller than this are creep, not a placement

    def __init__(self, cal, sps=80):
        self.cal = cal
        self.sps = sps
        self._n_window = max(3, sps * self.window_ms // 1000)
        self.state = IDLE
        self.step = ""  # "tare", "scale", "wall", "roof" or "rhino" once started
        self.prompt = ""
        self.progress = (0, 0)
        self.moving = False
        self.note = ""
        self.error = None
        self.result = None
        self.level = None  # mean raw count of the last still window
        self._m1 = self._m2 = 0  # the two samples before this one
        self._fill = 0
        self._n = 0
        self._skip = 0
        self._prev = None  # mean of the last still window
        self._sum = self._lo = self._hi = 0
        self._phase = 0
        self._since = None
        self._ref = 0
        self._grams = 0.0
        self._samples = []
        self._count = 0
        self._band = self._band_counts()

    def _band_counts(self):
        return max(self.min_band_counts, int(abs(self.cal.counts_per_gram) * self.band_g))

    # starting a step ---------------------------------------------------------------------

    def _start(self, step, prompt, total):
        self.state = BUSY
        self.step = step
        self.prompt = prompt
        self.progress = (0, total)
        self.note = ""
        self.error = None
        self.result = None
        self._phase = _ZERO
        self._since = None
        self._n = 0  # a new step needs fresh still windows
        self._prev = None
        self._samples = []
        self._band = self._band_counts()

    def tare(self):
        """Zero the scale: the platform must be empty and still."""
        self._start("tare", "take everything off the platform and keep it still", 1)

    def known_mass(self, grams):
        """Counts per gram from a known mass (50-200 g is best); zeroes the scale first."""
        if isinstance(grams, bool) or not isinstance(grams, (int, float)) or not (
            1 <= grams <= 5000
        ):
            raise ValueError("the known mass must be 1 to 5000 grams")
        self._grams = float(grams)
        self._start("scale", "take everything off the platform and keep it still", 2)

    def learn(self, piece, count=3):
        """Learn a piece's mass: ``count`` placements, each averaged over a still window; the
        median is kept. Pieces may be stacked or taken off again between placements."""
        if piece not in PIECES:
            raise ValueError("piece must be one of wall, roof, rhino")
        if isinstance(count, bool) or not isinstance(count, int) or not (1 <= count <= 9):
            raise ValueError("count must be 1 to 9")
        self._count = count
        self._start(piece, "keep the platform still", count)

    def cancel(self):
        if self.state == BUSY:
            self._fail("cancelled")

    # samples ---------------------------------------------------------------------------------

    def feed(self, t_ms, raw):
        """One raw HX711 sample at ``t_ms``. Returns True when anything a user sees changed.

        Works in any state: when idle it only tracks ``moving`` (so an app can tell at once
        that a tare would have to wait).
        """
        # median of the last three: a lone spike never reaches the window
        m1 = self._m1
        m2 = self._m2
        self._m2 = m1
        self._m1 = raw
        if self._fill < 2:  # the first two samples pass as they are
            self._fill += 1
            x = raw
        elif raw > m1:
            x = m1 if m1 >= m2 else (raw if raw < m2 else m2)
        else:
            x = raw if raw >= m2 else (m1 if m1 < m2 else m2)
        changed = False
        if self._skip:
            self._skip -= 1  # just moved: let ringing and the hand's last touch die down
        elif self._n == 0:
            self._n = 1
            self._sum = self._lo = self._hi = x
        else:
            if x < self._lo:
                self._lo = x
            elif x > self._hi:
                self._hi = x
            if self._hi - self._lo > self._band:
                self._n = 0
                self._prev = None
                self._skip = self._n_window >> 2
                if not self.moving:
                    self.moving = True
                    changed = True
            else:
                self._n += 1
                self._sum += x
                if self._n >= self._n_window:
                    n = self._n
                    mean = (2 * self._sum + n) // (2 * n)  # rounded
                    self._n = 0
                    prev = self._prev
                    self._prev = mean
                    # a level counts once two still windows in a row agree: the first one
                    # after a touch may still hold its tail
                    if prev is not None and abs(mean - prev) <= self._band >> 2:
                        self.level = mean
                        if self.moving:
                            self.moving = False
                            changed = True
                        if self.state == BUSY and self._still(mean):
                            changed = True
        if self.state == BUSY:
            if self._since is None:
                self._since = t_ms
            elif self._timed_out(t_ms):
                changed = True
        return changed

    def _timed_out(self, t_ms):
        waited = t_ms - self._since
        if self._phase == _ZERO:
            if waited < self.still_timeout_ms:
                return False
            if self.step == "tare" or self.step == "scale":
                self._fail("cannot tare: the platform keeps moving (empty it and keep it still)")
            else:
                self._fail("cannot start: the platform keeps moving (keep it still)")
            return True
        if waited < self.timeout_ms:
            return False
        if self._phase == _MASS:
            what = "the known mass"
        else:
            what = "a " + _NAME[self.step]
        if self.moving:
            self._fail("timed out: the platform kept moving while waiting for " + what)
        else:
            self._fail("timed out waiting for " + what)
        return True

    def _fail(self, reason):
        self.state = FAILED
        self.error = reason
        self.prompt = reason
        self._phase = 0

    def _still(self, level):
        """A still window ended at ``level``; advance the step. True if anything changed."""
        cal = self.cal
        if self._phase == _ZERO:
            self._ref = level
            if self.step == "tare":
                cal.offset = level
                cal.mark("tare")
                self.result = {"offset": level}
                self._finish("tared")
                return True
            self._since = None  # the placement timeout starts now
            if self.step == "scale":
                self._phase = _MASS
                self.progress = (1, 2)
                self.prompt = "place the %s g mass on the platform" % _fmt(self._grams)
            else:
                self._phase = _PIECE
                self.prompt = _WHAT[self.step] + " (1 of %d)" % self._count
            return True

        delta = level - self._ref
        if self._phase == _MASS:
            if abs(delta) < 3 * self._band:
                self._ref = level  # still empty: follow creep until the mass arrives
                return False
            cpg = delta / self._grams
            if not (10 <= abs(cpg) <= 200000):
                self._fail("implausible scale: %s counts per gram (check the wiring)" % _fmt(cpg))
                return True
            cal.counts_per_gram = cpg
            cal.offset = self._ref
            cal.mark("tare")
            cal.mark("scale")
            self.result = {"counts_per_gram": cpg, "offset": self._ref}
            self.progress = (2, 2)
            self._finish("scale set: %s counts per gram; take the mass off" % _fmt(cpg))
            return True

        # _PIECE: one placement is the step between two still levels
        grams = delta / cal.counts_per_gram
        self._ref = level
        if -self.min_step_g < grams < self.min_step_g:
            return False  # creep or nothing happened
        name = _NAME[self.step]
        if grams < 0:
            self.note = "%s g taken off" % _fmt(-grams)
            return True
        lo, hi = _PIECE_RANGE[self.step]
        if grams < lo:
            self.note = "that was %s g: too light for a %s" % (_fmt(grams), name)
            return True
        if grams > hi:
            self.note = "that was %s g: too heavy for one %s; place one at a time" % (
                _fmt(grams),
                name,
            )
            return True
        self._samples.append(grams)
        self._since = None
        got = len(self._samples)
        self.progress = (got, self._count)
        self.note = "%s: %s g" % (name, _fmt(grams))
        if got < self._count:
            self.prompt = _WHAT[self.step] + " (%d of %d)" % (got + 1, self._count)
            return True
        mass = _median(self._samples)
        setattr(cal, self.step + "_g", mass)
        cal.mark(self.step)
        self.result = {"piece": self.step, "grams": mass, "samples": list(self._samples)}
        self._finish("%s learned: %s g" % (name, _fmt(mass)))
        return True

    def _finish(self, prompt):
        self.state = DONE
        self.prompt = prompt
        self._phase = 0


def _fmt(x):
    """A number for people: 2 decimals, no trailing zeros (same on CPython and MicroPython)."""
    s = "%.2f" % x
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s
