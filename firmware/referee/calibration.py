"""Scale calibration: what the board knows about its load cell and the game pieces, and the
guided steps that learn it from raw HX711 samples.

Usage::

    from referee.calibration import Calibration, Calibrator

    cal = Calibration.load("/data/calib.json")   # defaults (cal.learned False) if there is none;
                                                 # storage.CorruptFile if the file is damaged
    grams = cal.grams(raw)                       # display only: a float

    cb = Calibrator(cal, sps=80)
    cb.tare()                                    # or cb.known_mass(100) / cb.learn("wall", 3)
    while cb.state == "busy":
        if cb.feed(t_ms, raw):                   # True when prompt/progress/state changed
            show(cb.prompt, cb.progress, cb.moving, cb.note)
    if cb.state == "done":
        cal.save("/data/calib.json")             # atomic, checksummed (referee.storage)
    else:
        show(cb.error)                           # e.g. "cannot tare: the platform keeps moving"

Nothing here reads a clock or a pin: time and samples are arguments, so the board app, the host
``rhinoref calibrate`` (through the board) and the virtual board all drive the same code.
Calibration is not the per-sample path of a game; it still works on ints per sample (median of
three against lone HX711 spikes, then window min/max/sum) and uses floats only per result.
"""

import json

from referee import storage

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


FORMAT_VERSION = const(1)

# A 1 mV/V bar cell on an HX711 at gain 128 (ratiometric, so the excitation voltage cancels):
# 1e-3 * 128 * 2**24 counts / 1000 g. Only a starting point until a known mass is weighed.
DEFAULT_COUNTS_PER_GRAM = 2147.5
# SPEC section 1 estimates (grams), used until the pieces are learned.
DEFAULT_WALL_G = 2.2
DEFAULT_ROOF_G = 4.8
DEFAULT_RHINO_G = 5.5

PIECES = ("wall", "roof", "rhino")
# A single piece outside these bounds (grams) is refused while learning: someone put down two
# pieces, or a hand is still on the platform. Wide around the SPEC estimates (wall 1.7-2.8,
# roof 3.5-6, Rhino Hero 3-8) so that other editions of the game still fit.
_PIECE_RANGE = {"wall": (0.8, 6.0), "roof": (1.7, 12.0), "rhino": (1.5, 16.0)}
_WHAT = {"wall": "place a wall", "roof": "place a roof card", "rhino": "set Rhino Hero down"}
_NAME = {"wall": "wall", "roof": "roof card", "rhino": "Rhino Hero"}

_RAW_MIN = const(-8388608)  # HX711 counts are signed 24-bit
_RAW_MAX = const(8388607)


def _bad(reason):
    return storage.CorruptFile("calib.json: " + reason)


def _number(d, key, lo, hi):
    v = d.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo <= v <= hi):
        raise _bad("%s must be a number from %s to %s" % (key, lo, hi))
    return v


class Calibration:
    """Load-cell scale and learned piece masses. Attributes (read by the detector, duck-typed):

    ``offset``           raw counts with an empty platform (int)
    ``counts_per_gram``  float; negative when the cell is mounted the other way up
    ``wall_g``, ``roof_g``, ``rhino_g``   learned masses in grams (floats)
    ``sps``              samples per second the board was calibrated at (10 or 80)
    ``accel``            accelerometer part name ("mpu6050", "lis3dh", "tilt", "none")
    ``done``             steps completed: any of "tare", "scale", "wall", "roof", "rhino"
    ``learned``          True once loaded from a saved file or after a calibration step
    """

    def __init__(self):
        self.offset = 0
        self.counts_per_gram = DEFAULT_COUNTS_PER_GRAM
        self.wall_g = DEFAULT_WALL_G
        self.roof_g = DEFAULT_ROOF_G
        self.rhino_g = DEFAULT_RHINO_G
        self.sps = 80
        self.accel = "none"
        self.done = []
        self.learned = False

    def grams(self, raw):
        """Net grams on the platform for a raw count (a float: for display, not per sample)."""
        return (raw - self.offset) / self.counts_per_gram

    def counts(self, grams):
        """The count difference ``grams`` make (signed, rounded to an int)."""
        return int(round(grams * self.counts_per_gram))

    def mass(self, piece):
        return getattr(self, piece + "_g")

    def mark(self, step):
        if step not in self.done:
            self.done.append(step)
        self.learned = True

    def to_dict(self):
        return {
            "rhinoref": "calib",
            "version": FORMAT_VERSION,
            "offset": self.offset,
            "counts_per_gram": round(self.counts_per_gram, 4),
            "wall_g": round(self.wall_g, 3),
            "roof_g": round(self.roof_g, 3),
            "rhino_g": round(self.rhino_g, 3),
            "sps": self.sps,
            "accel": self.accel,
            "done": list(self.done),
        }

    def to_json(self):
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text):
        """Parse and validate; ``storage.CorruptFile`` names the first bad field."""
        try:
            d = json.loads(text)
        except ValueError:
            raise _bad("not valid JSON")
        if not isinstance(d, dict) or d.get("rhinoref") != "calib":
            raise _bad("not a calibration file")
        version = d.get("version")
        if version != FORMAT_VERSION:
            raise _bad("unsupported calibration version %r" % (version,))
        cal = cls()
        offset = d.get("offset")
        if isinstance(offset, bool) or not isinstance(offset, int) or not (
            _RAW_MIN <= offset <= _RAW_MAX
        ):
            raise _bad("offset must be a 24-bit count")
        cal.offset = offset
        cpg = _number(d, "counts_per_gram", -1e6, 1e6)
        if -0.01 < cpg < 0.01:
            raise _bad("counts_per_gram must not be zero")
        cal.counts_per_gram = float(cpg)
        cal.wall_g = float(_number(d, "wall_g", 0.1, 100))
        cal.roof_g = float(_number(d, "roof_g", 0.1, 100))
        cal.rhino_g = float(_number(d, "rhino_g", 0.1, 100))
        sps = d.get("sps", 80)
        if sps not in (10, 80) or isinstance(sps, bool):
            raise _bad("sps must be 10 or 80")
        cal.sps = sps
        accel = d.get("accel", "none")
        if not isinstance(accel, str) or len(accel) > 16:
            raise _bad("accel must be a part name")
        cal.accel = accel
        done = d.get("done", [])
        if not isinstance(done, list):
            raise _bad("done must be a list")
        for step in done:
            if step not in ("tare", "scale") and step not in PIECES:
                raise _bad("unknown step %r in done" % (step,))
            if step not in cal.done:
                cal.done.append(step)
        cal.learned = True
        return cal

    def save(self, path):
        """Write atomically with a checksum (``storage.FlashFull`` keeps the old file)."""
        storage.write_atomic(path, self.to_json().encode())

    @classmethod
    def load(cls, path):
        """The saved calibration, or defaults with ``learned = False`` when there is no file.

        A damaged file raises ``storage.CorruptFile`` with the reason; it never crashes.
        """
        try:
            payload = storage.read_checked(path)
        except OSError as err:
            if storage.is_missing(err):
                return cls()
            raise
        try:
            text = payload.decode()
        except UnicodeError:
            raise _bad("not valid text")
        return cls.from_json(text)


def load(path):
    """Module-level shorthand for ``Calibration.load(path)``."""
    return Calibration.load(path)


def save(cal, path):
    """Module-level shorthand for ``cal.save(path)``."""
    cal.save(path)


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
