"""Scale calibration: what the board knows about its load cell and the game pieces (the
guided steps that learn it from raw HX711 samples are ``referee.calibrator``, loaded only
while a calibration runs: 5 KB of heap a game does not need).

Usage::

    from referee.calibration import Calibration
    from referee.calibrator import Calibrator

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
# The HX711's filter, as far as the board knows it (docs/detector.md, "The converter's filter"):
# "sinc1", a reading is the mean over its own conversion; "sinc4", a load change reaches the
# readings over four conversions; "unknown" until the maker has checked (hardware/README.md).
ADC_FILTERS = ("unknown", "sinc1", "sinc4")
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
    ``adc``              the HX711's filter: "unknown" (until checked), "sinc1" or "sinc4"
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
        self.adc = "unknown"
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
            "adc": self.adc,
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
        adc = d.get("adc", "unknown")     # (files written before it: not known)
        if adc not in ADC_FILTERS:
            raise _bad("adc must be one of " + ", ".join(ADC_FILTERS))
        cal.adc = adc
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
