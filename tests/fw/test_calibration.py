"""Calibration: the stored format, and the Calibrator driven by noisy simulated placements
(finger pressure, ringing, creep, lone spikes, a hand that will not keep still).
Runs on CPython and MicroPython."""

import json
import os
import random

from mptest import raises

from referee import calibration, calibrator, storage
from referee.calibration import Calibration
from referee.calibrator import Calibrator
from referee.storage import CorruptFile


class _Scale:
    """A load cell on an HX711 with noise, feeding a Calibrator sample by sample.

    ``sigma`` is the HX711 noise in counts (datasheet at 80 SPS: 90 nV / ~2 nV per count, about
    45); ``spikes`` adds a lone spike of 2**20 counts every 37 samples.
    """

    def __init__(self, cb, sps=80, cpg=2147.5, offset=-41234, sigma=45, seed=7, spikes=False):
        self.cb = cb
        self.sps = sps
        self.cpg = cpg
        self.offset = offset
        self.a = sigma * 0.866  # four uniforms in [-a, a] sum to about N(0, sigma)
        self.spikes = spikes
        self.t = 0
        self.n = 0
        self.grams = 0.0  # what lies on the platform
        self.prompts = []
        self.moved = False
        random.seed(seed)

    def _noise(self):
        u = random.random() + random.random() + random.random() + random.random() - 2.0
        return u * 2 * self.a

    def sample(self, extra_g=0.0):
        self.n += 1
        self.t = self.n * 1000 // self.sps
        raw = int(self.offset + (self.grams + extra_g) * self.cpg + self._noise())
        if self.spikes and self.n % 37 == 0:
            raw += 1 << 20
        if self.cb.feed(self.t, raw):
            if self.cb.moving:
                self.moved = True
            if not self.prompts or self.prompts[-1] != self.cb.prompt:
                self.prompts.append(self.cb.prompt)

    def idle(self, seconds, creep_g_per_s=0.0):
        for i in range(int(seconds * self.sps)):
            self.grams += creep_g_per_s / self.sps
            self.sample()

    def wobble(self, seconds, amp_g):
        for i in range(int(seconds * self.sps)):
            self.sample(amp_g * random.random() * (1 if i % 8 < 4 else -1))

    def place(self, grams, finger_g=2.0):
        """A hand sets a piece down: pressure and wobble, release, ringing, then creep."""
        for i in range(int(0.4 * self.sps)):
            self.sample(grams * i / (0.4 * self.sps) + finger_g * random.random())
        self.grams += grams
        ring = 0.8
        for i in range(int(0.3 * self.sps)):
            ring *= 0.8
            self.sample(ring if i % 2 else -ring)
        self.idle(3.0, creep_g_per_s=0.01)

    def remove(self, grams):
        for i in range(int(0.3 * self.sps)):
            self.sample(-grams * i / (0.3 * self.sps) + random.random())
        self.grams -= grams
        self.idle(3.0)

    def run_until_done(self, limit_s=120):
        for _ in range(int(limit_s * self.sps)):
            if self.cb.state != "busy":
                return
            self.sample()


def test_defaults():
    cal = Calibration()
    assert cal.offset == 0
    assert cal.counts_per_gram == calibration.DEFAULT_COUNTS_PER_GRAM
    assert (cal.wall_g, cal.roof_g, cal.rhino_g) == (2.2, 4.8, 5.5)
    assert cal.sps == 80 and cal.accel == "none" and cal.adc == "unknown"
    assert cal.done == [] and cal.learned is False
    assert cal.grams(2147 * 10 + 0) > 9.9


def test_json_round_trip():
    cal = Calibration()
    cal.offset = -123456
    cal.counts_per_gram = -1987.25
    cal.wall_g, cal.roof_g, cal.rhino_g = 2.37, 5.12, 6.8
    cal.sps = 10
    cal.accel = "mpu6050"
    cal.adc = "sinc4"
    cal.mark("scale")
    cal.mark("wall")
    text = cal.to_json()
    d = json.loads(text)
    assert d["rhinoref"] == "calib" and d["version"] == 1
    back = Calibration.from_json(text)
    for key in ("offset", "counts_per_gram", "wall_g", "roof_g", "rhino_g", "sps", "accel",
                "adc", "done"):
        assert getattr(back, key) == getattr(cal, key), key
    assert back.learned is True


def test_from_json_names_the_bad_field():
    good = json.loads(Calibration().to_json())
    cases = (
        ("not json {", "not valid JSON"),
        ("[1, 2]", "not a calibration file"),
        ('{"rhinoref": "game"}', "not a calibration file"),
    )
    for text, reason in cases:
        with raises(CorruptFile) as err:
            Calibration.from_json(text)
        assert str(err.value) == "calib.json: " + reason

    changes = (
        ("version", 2, "unsupported calibration version 2"),
        ("offset", 1.5, "offset must be a 24-bit count"),
        ("offset", 9000000, "offset must be a 24-bit count"),
        ("offset", True, "offset must be a 24-bit count"),
        ("counts_per_gram", 0, "counts_per_gram must not be zero"),
        ("counts_per_gram", "2000", "counts_per_gram must be a number"),
        ("wall_g", -1, "wall_g must be a number"),
        ("roof_g", None, "roof_g must be a number"),
        ("rhino_g", 1000, "rhino_g must be a number"),
        ("sps", 20, "sps must be 10 or 80"),
        ("accel", 5, "accel must be a part name"),
        ("adc", "sinc3", "adc must be one of unknown, sinc1, sinc4"),
        ("adc", 1, "adc must be one of"),
        ("done", ["tare", "dance"], "unknown step 'dance' in done"),
        ("done", "tare", "done must be a list"),
    )
    for key, value, reason in changes:
        d = dict(good)
        d[key] = value
        with raises(CorruptFile) as err:
            Calibration.from_json(json.dumps(d))
        assert reason in str(err.value), (key, str(err.value))


def test_a_file_from_before_the_converters_filter_was_recorded_loads_as_unknown():
    d = json.loads(Calibration().to_json())
    d["adc"] = "sinc1"
    assert Calibration.from_json(json.dumps(d)).adc == "sinc1"
    del d["adc"]
    assert Calibration.from_json(json.dumps(d)).adc == "unknown"


def _tmp(name):
    folder = "/tmp/rr-calib-%08x" % random.getrandbits(32)
    os.mkdir(folder)
    return folder, folder + "/" + name


def _cleanup(folder):
    for name in os.listdir(folder):
        os.remove(folder + "/" + name)
    os.rmdir(folder)


def test_save_load_missing_and_corrupt():
    folder, path = _tmp("calib.json")
    try:
        missing = Calibration.load(path)
        assert missing.learned is False and missing.offset == 0

        cal = Calibration()
        cal.offset = 777
        cal.counts_per_gram = 2100.5
        cal.wall_g = 2.41
        cal.mark("wall")
        cal.save(path)
        back = calibration.load(path)
        assert back.learned and back.offset == 777 and back.wall_g == 2.41
        calibration.save(back, path)  # the module-level pair works too
        assert Calibration.load(path).counts_per_gram == 2100.5

        with open(path, "rb") as f:
            blob = bytearray(f.read())
        blob[-3] ^= 0x20
        with open(path, "wb") as f:
            f.write(blob)
        with raises(CorruptFile) as err:
            Calibration.load(path)
        assert str(err.value) == "calib.json: checksum mismatch"

        storage.write_atomic(path, b"{not json")  # intact file, bad content
        with raises(CorruptFile) as err:
            Calibration.load(path)
        assert str(err.value) == "calib.json: not valid JSON"

        storage.write_atomic(path, b"\xff\xfe")
        with raises(CorruptFile) as err:
            Calibration.load(path)
        assert "not valid text" in str(err.value)
    finally:
        _cleanup(folder)


def test_tare_from_noisy_samples():
    for sps, sigma, tol in ((80, 45, 25), (10, 45, 60), (80, 150, 80), (10, 150, 200)):
        cal = Calibration()
        cb = Calibrator(cal, sps=sps)
        scale = _Scale(cb, sps=sps, sigma=sigma)
        cb.tare()
        assert cb.state == "busy"
        assert cb.prompt == "take everything off the platform and keep it still"
        scale.run_until_done(limit_s=20)
        assert cb.state == "done", (sps, sigma, cb.error)
        assert abs(cal.offset - scale.offset) <= tol, (sps, sigma, cal.offset)
        assert cb.result == {"offset": cal.offset}
        assert "tare" in cal.done and cal.learned
        assert scale.t <= 3000  # a kitchen scale's patience, not more


def test_tare_ignores_lone_spikes():
    cal = Calibration()
    cb = Calibrator(cal)
    scale = _Scale(cb, spikes=True)
    cb.tare()
    scale.run_until_done(limit_s=20)
    assert cb.state == "done"
    assert abs(cal.offset - scale.offset) <= 25


def test_tare_refused_while_the_platform_keeps_moving():
    cal = Calibration()
    cal.offset = 5
    cb = Calibrator(cal)
    scale = _Scale(cb)
    cb.tare()
    scale.wobble(9.5, amp_g=3.0)
    assert cb.state == "busy" and cb.moving and scale.moved
    scale.wobble(1.0, amp_g=3.0)
    assert cb.state == "failed"
    assert cb.error == "cannot tare: the platform keeps moving (empty it and keep it still)"
    assert cb.prompt == cb.error
    assert cal.offset == 5 and cb.result is None


def test_tare_waits_for_stillness_then_succeeds():
    cal = Calibration()
    cb = Calibrator(cal)
    scale = _Scale(cb)
    scale.idle(0.5)
    assert not cb.moving
    scale.wobble(0.5, amp_g=3.0)
    assert cb.moving  # tracked even when idle: an app can say "wait" at once
    cb.tare()
    scale.wobble(3.0, amp_g=3.0)
    assert cb.state == "busy" and cb.moving
    scale.run_until_done(limit_s=5)
    assert cb.state == "done" and not cb.moving
    assert abs(cal.offset - scale.offset) <= 25


def test_known_mass_sets_counts_per_gram_either_sign():
    for cpg in (2147.5, -1803.0, 430.0):
        cal = Calibration()
        cb = Calibrator(cal)
        scale = _Scale(cb, cpg=cpg)
        cb.known_mass(100)
        assert cb.progress == (0, 2)
        scale.idle(2.5)
        assert cb.prompt == "place the 100 g mass on the platform"
        assert cb.progress == (1, 2)
        scale.idle(5)  # nothing placed yet: keeps waiting, follows creep
        assert cb.state == "busy"
        scale.place(100.0, finger_g=20.0)
        assert cb.state == "done", cb.error
        assert abs(cal.counts_per_gram - cpg) <= abs(cpg) * 0.003, cal.counts_per_gram
        assert abs(cal.offset - scale.offset) <= 30
        assert cb.progress == (2, 2)
        assert cb.prompt.startswith("scale set: ") and cb.prompt.endswith("take the mass off")
        assert "scale" in cal.done and "tare" in cal.done
        scale.remove(100.0)
        assert abs(cal.grams(int(scale.offset + 50 * cpg)) - 50) < 0.2


def test_known_mass_times_out_and_refuses_nonsense():
    cal = Calibration()
    cb = Calibrator(cal)
    scale = _Scale(cb)
    cb.known_mass(200)
    scale.idle(61)
    assert cb.state == "busy"  # the 60 s start when the platform was found empty
    scale.idle(2)
    assert cb.state == "failed"
    assert cb.error == "timed out waiting for the known mass"
    assert cal.counts_per_gram == calibration.DEFAULT_COUNTS_PER_GRAM

    cb = Calibrator(cal)
    scale = _Scale(cb, cpg=1.2)  # 5 kg claimed, ~6000 counts seen: a wiring fault
    cb.known_mass(5000)
    scale.idle(2.5)
    scale.place(5000.0, finger_g=0)
    assert cb.state == "failed" and cb.error.startswith("implausible scale: 1.")
    assert cb.error.endswith(" counts per gram (check the wiring)")
    for bad in (0, -5, 6000, "100", True):
        with raises(ValueError):
            cb.known_mass(bad)


def test_learning_a_wall_from_noisy_placements():
    cal = Calibration()
    cal.counts_per_gram = 2147.5
    cal.offset = -41234
    cb = Calibrator(cal)
    scale = _Scale(cb, sigma=60)
    cb.learn("wall", 3)
    assert cb.prompt == "keep the platform still" and cb.progress == (0, 3)
    scale.idle(2.5)
    for grams in (2.05, 2.31, 2.18):  # stacked: each measured from the level before
        scale.place(grams)
    assert cb.state == "done", cb.error
    assert scale.prompts == [
        "place a wall (1 of 3)",
        "place a wall (2 of 3)",
        "place a wall (3 of 3)",
        "wall learned: %s g" % calibrator._fmt(cal.wall_g),
    ]
    # creep of 0.01 g/s between two settled levels (about 3.5 s apart) is part of a step
    assert abs(cal.wall_g - 2.18) <= 0.05, cal.wall_g
    assert cb.progress == (3, 3)
    assert cb.result["piece"] == "wall" and len(cb.result["samples"]) == 3
    samples = sorted(cb.result["samples"])
    for got, want in zip(samples, (2.05, 2.18, 2.31)):
        assert abs(got - want) <= 0.05
    assert "wall" in cal.done


def _note_g(cb, before, after):
    """The grams in ``cb.note`` (which must read before + number + after), to 0.1 g."""
    note = cb.note
    assert note.startswith(before) and note.endswith(after), note
    return round(float(note[len(before):len(note) - len(after)]), 1)


def test_learning_refuses_doubles_and_crumbs_and_follows_removals():
    cal = Calibration()
    cal.offset = -41234
    cb = Calibrator(cal)
    scale = _Scale(cb)
    cb.learn("roof", 2)
    scale.idle(2.5)
    scale.place(4.9)
    assert cb.progress == (1, 2) and _note_g(cb, "roof card: ", " g") == 4.9
    scale.remove(4.9)  # took it off to place it again
    assert cb.progress == (1, 2) and _note_g(cb, "", " g taken off") == 4.9
    scale.place(9.8 + 4.9)  # three roofs at once
    assert cb.progress == (1, 2) and "too heavy for one roof card" in cb.note
    scale.remove(9.8 + 4.9)
    scale.place(0.2)  # a crumb: creep-sized, ignored
    assert cb.progress == (1, 2) and _note_g(cb, "", " g taken off") == 14.7
    scale.place(1.2)
    assert cb.progress == (1, 2)
    assert _note_g(cb, "that was ", " g: too light for a roof card") == 1.2
    scale.remove(1.4)
    scale.place(5.1)
    assert cb.state == "done"
    assert abs(cal.roof_g - 5.0) <= 0.03  # median of 4.9 and 5.1
    assert cal.wall_g == calibration.DEFAULT_WALL_G  # the other pieces are untouched


def test_learning_rhino_hero_lifted_and_set_down():
    cal = Calibration()
    cal.offset = -41234
    cb = Calibrator(cal, sps=10)
    scale = _Scale(cb, sps=10)
    cb.learn("rhino", 3)
    scale.idle(2.5)
    assert cb.prompt == "set Rhino Hero down (1 of 3)"
    for _ in range(3):
        scale.place(6.3)
        if cb.state == "busy":
            scale.remove(6.3)
    assert cb.state == "done"
    assert abs(cal.rhino_g - 6.3) <= 0.05
    assert cb.prompt == "Rhino Hero learned: %s g" % calibrator._fmt(cal.rhino_g)


def test_learning_times_out_when_the_hand_never_leaves():
    cal = Calibration()
    cal.offset = -41234
    cb = Calibrator(cal)
    scale = _Scale(cb)
    cb.learn("wall", 3)
    scale.idle(2.5)
    scale.wobble(61, amp_g=2.0)
    assert cb.state == "failed"
    assert cb.error == "timed out: the platform kept moving while waiting for a wall"

    cb.learn("wall", 3)
    scale.wobble(10.5, amp_g=2.0)
    assert cb.error == "cannot start: the platform keeps moving (keep it still)"


def test_bad_arguments_and_cancel():
    cb = Calibrator(Calibration())
    for piece, count in (("door", 3), ("wall", 0), ("wall", 10), ("wall", 2.5)):
        with raises(ValueError):
            cb.learn(piece, count)
    assert cb.state == "idle"
    cb.tare()
    cb.cancel()
    assert cb.state == "failed" and cb.error == "cancelled"
    cb.cancel()  # nothing running: no change
    assert cb.error == "cancelled"


def test_full_procedure_then_grams_from_raw():
    folder, path = _tmp("calib.json")
    try:
        cal = Calibration.load(path)
        assert not cal.learned
        cb = Calibrator(cal)
        scale = _Scale(cb, cpg=-2050.0, offset=120000, sigma=80, spikes=True)
        cb.tare()
        scale.run_until_done()
        cb.known_mass(100)
        scale.idle(2.5)
        scale.place(100.0, finger_g=15)
        scale.remove(100.0)
        for piece, grams in (("wall", 2.2), ("roof", 4.6), ("rhino", 7.1)):
            cb.learn(piece, 3)
            scale.idle(2.5)
            for _ in range(3):
                scale.place(grams)
            assert cb.state == "done", (piece, cb.error)
            for _ in range(3):
                scale.remove(grams)
        cal.save(path)
        back = Calibration.load(path)
        assert back.done == ["tare", "scale", "wall", "roof", "rhino"]
        assert abs(back.wall_g - 2.2) < 0.05
        assert abs(back.roof_g - 4.6) < 0.05
        assert abs(back.rhino_g - 7.1) < 0.05
        assert abs(back.grams(int(120000 + 3 * 2.2 * -2050.0)) - 6.6) < 0.1
    finally:
        _cleanup(folder)
