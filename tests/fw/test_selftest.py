"""The self-test state machine (referee.selftest): every step, every verdict, the lights.

A scripted maker answers the prompts (presses the asked button, pushes the platform) unless told
to leave a part broken. Runs on CPython (pytest) and on MicroPython (tests/fw/run.py)."""

from referee import selftest


class W:
    """A small wiring: two seats, two symbol buttons, the menu."""

    BUTTONS = (("seat0", 6), ("seat1", 7), ("skip", 12), ("draw", 13), ("menu", 16))
    HX711_DOUT = 2
    HX711_SCK = 3
    I2C_SDA = 4
    I2C_SCL = 5
    TILT_SWITCH = 18
    LED_COUNT = 30
    LEDS_PER_SEAT = 6


CPG = 2147.5


class Rig:
    """The self-test and a maker at the table, in simulated time."""

    def __init__(self, sps=80, accel="mpu6050", acc=(12, -25, 995), cpg=CPG, broken=(),
                 samples=True, finger_g=150, wrong=None, rate=None, raw=None, **kw):
        self.events = []
        self.t = 0
        self.period = 1000 // (rate or sps)
        self.load_g = 0
        self.acc = acc
        self.cpg = cpg
        self.broken = broken
        self.wrong = wrong  # {asked: pressed instead}
        self.samples = samples
        self.finger_g = finger_g
        self.raw = raw  # a function t -> raw, replacing the load model
        self.pending = []
        self.seed = 7
        self.ended = 0
        self.st = selftest.SelfTest(0, self.emit, wiring=W, sps=sps, counts_per_gram=cpg,
                                    accel=accel, **kw)
        self.st.ended = self.on_end

    def on_end(self, t):
        self.ended += 1

    def emit(self, name, f):
        assert name == "selftest"
        self.events.append(f)
        b = f.get("button")
        if b is not None and "ask" in f:
            if self.wrong and b in self.wrong:
                self.pending.append((self.t + 200, self.wrong[b]))
            if b not in self.broken:
                self.pending.append((self.t + 400, b))
        if f.get("step") == "finger" and "ask" in f:
            self.load_g = self.finger_g if f["ask"].startswith("press") else 0

    def noise(self):
        self.seed = (self.seed * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.seed >> 8) % 91 - 45

    def run(self, ms=400000, until="over"):
        end = self.t + ms
        st = self.st
        while self.t < end and st.step_name() != until:
            self.t += self.period
            while self.pending and self.t >= self.pending[0][0]:
                name = self.pending.pop(0)[1]
                st.press(self.t, name)
            if self.samples:
                if self.raw is not None:
                    raw = self.raw(self.t)
                else:
                    raw = 120000 + int(self.load_g * self.cpg) + self.noise()
                st.sample(self.t, raw, self.acc[0], self.acc[1], self.acc[2])
            else:
                st.tick(self.t)
        return self

    def part(self, prefix):
        for p, ok, msg in self.st.report:
            if p.startswith(prefix):
                return ok, msg
        raise AssertionError("no part %r in %r" % (prefix, self.st.report))

    def asks(self):
        return [e["ask"] for e in self.events if "ask" in e]


def test_everything_passes():
    r = Rig().run(until="done")
    st = r.st
    assert st.passed()
    labels = [p for p, _ok, _m in st.report]
    assert labels == st.parts()
    assert labels == ["HX711 load-cell amplifier", "accelerometer", "LEDs",
                      "button SEAT 0 (GP6)", "button SEAT 1 (GP7)", "button SKIP (GP12)",
                      "button DRAW (GP13)", "button MENU (GP16)", "load cell under a finger"]
    ok, msg = r.part("HX711")
    assert ok and "answers" in msg and "83 readings a second" in msg, msg  # 12 ms period
    ok, msg = r.part("accelerometer")
    assert ok and "sees gravity: 995 mg" in msg, msg
    ok, msg = r.part("load cell under a finger")
    assert ok and msg.split()[2] in ("149", "150"), msg  # 150 g, three samples in a row
    done = r.events[-1]
    assert done["state"] == "done" and done["passed"] is True
    assert done["checks"] == 9 and done["failed"] == [], done
    verdicts = [[e["part"], e["passed"], e["message"]] for e in r.events if "part" in e]
    assert verdicts == st.report
    asks = r.asks()
    assert asks[0].startswith("keep the table still")
    assert asks[1] == "watch seat 0: its 6 LEDs light red, then green, then blue"
    assert "press the SEAT 0 button (its seat blinks white)" in asks
    assert "press the SKIP button (every seat blinks 1 yellow LED)" in asks
    assert "press the MENU button (every seat blinks 3 yellow LEDs)" in asks
    assert asks[-2].startswith("press the platform with a finger (at least 20 g)")
    assert asks[-1] == "let go of the platform"
    # progress counts up to the number of parts
    last = [e for e in r.events if "progress" in e][-1]
    assert last["progress"] == [9, 9]


def test_report_lights_and_dismissal():
    r = Rig(broken=("skip",)).run(until="done")
    frame = bytearray(90)
    assert r.st.render(frame, r.t, 80)
    for i, (_p, ok, _m) in enumerate(r.st.report):
        g, red, b = frame[3 * i], frame[3 * i + 1], frame[3 * i + 2]
        assert (g > 0 and red == 0) if ok else (red > 0 and g == 0), (i, frame[3 * i:3 * i + 3])
        assert b == 0
    assert bytes(frame[3 * 9:]) == bytes(90 - 27)  # nothing past the last part
    assert not r.st.render(frame, r.t + 40, 80)  # unchanged: not redrawn
    assert r.ended == 0
    r.st.press(r.t + 100, "seat1")  # any button ends the report
    assert r.st.step_name() == "over" and r.ended == 1


def test_report_lights_time_out():
    r = Rig().run(until="done")
    t = r.t
    r.st.tick(t + selftest.SHOW_MS - 1)
    assert r.st.step_name() == "done"
    r.st.tick(t + selftest.SHOW_MS)
    assert r.st.step_name() == "over" and r.ended == 1


def test_button_not_pressed_names_the_wire():
    r = Rig(broken=("draw",)).run(until="done")
    ok, msg = r.part("button DRAW (GP13)")
    assert not ok
    assert msg.startswith("not pressed within 10 s - check its wiring: one leg to GP13"), msg
    assert "GND" in msg and "instead" not in msg
    assert not r.st.passed()
    assert r.part("button MENU")[0]  # the test went on to the next button
    assert r.events[-1]["passed"] is False


def test_another_button_answering_is_named():
    r = Rig(broken=("skip",), wrong={"skip": "draw"}).run(until="done")
    ok, msg = r.part("button SKIP")
    assert not ok and "(the DRAW button answered instead: are their wires swapped?)" in msg, msg


def test_wait_time_is_an_option():
    r = Rig(broken=("seat1",), wait_ms=3000).run(until="done")
    ok, msg = r.part("button SEAT 1")
    assert not ok and "within 3 s" in msg
    t_asked = [e for e in r.events if e.get("button") == "seat1"]
    t_fail = [e for e in r.events if e.get("part") == "button SEAT 1 (GP7)"]
    assert len(t_asked) == 1 and len(t_fail) == 1


def test_dead_hx711():
    r = Rig(samples=False).run(until="done")
    ok, msg = r.part("HX711")
    assert not ok and msg.startswith("no reading within 2 s"), msg
    assert "DOUT (DT) to GP2, SCK to GP3" in msg and "VCC" in msg
    ok, msg = r.part("accelerometer")
    assert not ok and msg.startswith("not checked"), msg
    ok, msg = r.part("load cell under a finger")
    assert not ok and msg.startswith("not checked"), msg
    assert r.part("button SKIP")[0] and r.part("LEDs")[0]  # the rest still ran


def test_hx711_stuck_at_full_scale():
    r = Rig(raw=lambda t: 0x7FFFFF).run(until="done")
    ok, msg = r.part("HX711")
    assert not ok and "sits at its limit (8388607)" in msg and "E+" in msg, msg
    assert r.part("load cell under a finger")[1].startswith("not checked")


def test_lone_full_scale_spikes_are_not_a_fault():
    r = Rig(raw=lambda t: 0x7FFFFF if t % 500 == 0 else 120000 + (t % 7))
    r.run(until="leds")
    ok, msg = r.part("HX711")
    assert ok, msg


def test_wrong_rate():
    r = Rig(sps=80, rate=10).run(until="leds")
    ok, msg = r.part("HX711")
    assert not ok and "about 10 readings a second, but the firmware expects 80" in msg, msg
    assert '"sps": 10' in msg
    r = Rig(sps=10, rate=80).run(until="leds")
    ok, msg = r.part("HX711")
    assert not ok and "expects 10" in msg and '"sps": 80' in msg, msg


def test_ten_samples_a_second():
    r = Rig(sps=10).run(until="done")
    assert r.st.passed(), r.st.report
    assert "10 readings a second" in r.part("HX711")[1]


def test_accelerometer_missing_is_degraded_mode():
    r = Rig(accel="none", accel_why="no device answers on I2C (check SDA/SCL wiring and power)",
            acc=(0, 0, 0)).run(until="done")
    ok, msg = r.part("accelerometer")
    assert not ok
    assert msg.startswith("missing: no device answers on I2C"), msg
    assert "SDA to GP4, SCL to GP5" in msg and "degraded mode" in msg
    assert r.part("HX711")[0] and r.part("load cell under a finger")[0]


def test_tilt_switch_standing_in_is_reported():
    r = Rig(accel="tilt", acc=(0, 0, 1000)).run(until="leds")
    ok, msg = r.part("accelerometer")
    assert not ok and "tilt switch on GP18 stands in" in msg, msg


def test_accelerometer_wrong_reading():
    r = Rig(acc=(40, 30, 310)).run(until="leds")
    ok, msg = r.part("accelerometer")
    assert not ok and msg.startswith("sees 314 mg at rest, not about 1000 mg"), msg
    r = Rig(acc=(0, 0, 0)).run(until="leds")
    ok, msg = r.part("accelerometer")
    assert not ok and "reads 0 on every axis" in msg, msg
    # tilted but 1 g all the same: fine
    r = Rig(acc=(700, 0, 700)).run(until="leds")
    assert r.part("accelerometer")[0]
    r = Rig(acc=(0, 0, 1160)).run(until="leds")
    assert not r.part("accelerometer")[0]


def test_finger_too_light_or_absent():
    r = Rig(finger_g=6).run(until="done")
    ok, msg = r.part("load cell under a finger")
    assert not ok and msg.startswith("moved only "), msg
    assert msg.split()[2] in ("5", "6") and "within 10 s (at least 20 g wanted)" in msg, msg
    r = Rig(finger_g=0).run(until="done")
    ok, msg = r.part("load cell under a finger")
    assert not ok and msg.startswith("did not move within 10 s"), msg


def test_finger_sign_does_not_matter():
    r = Rig(cpg=-CPG).run(until="done")
    assert r.st.passed(), r.st.report


def test_a_lone_spike_is_no_finger():
    base = [0]

    def raw(t):
        # the platform never moves, but one sample during the finger step jumps by 400 g
        if r.st.step_name() == "finger":
            base[0] += 1
            if base[0] == 20:
                return 120000 + int(400 * CPG)
        return 120000

    r = Rig(raw=raw)
    r.run(until="done")
    ok, msg = r.part("load cell under a finger")
    assert not ok and msg.startswith("did not move"), msg


def test_led_sweep_frames():
    r = Rig()
    frame = bytearray(90)
    r.run(until="leds")
    seen = []
    while r.st.step_name() == "leds":
        if r.st.render(frame, r.t, 40):
            lit = [i for i in range(30) if frame[3 * i] or frame[3 * i + 1] or frame[3 * i + 2]]
            g, red, b = frame[3 * lit[0]], frame[3 * lit[0] + 1], frame[3 * lit[0] + 2]
            colour = "green" if g else ("red" if red else "blue")
            assert (g > 0) + (red > 0) + (b > 0) == 1  # one pure colour, GRB byte order
            for i in lit:
                assert frame[3 * i:3 * i + 3] == frame[3 * lit[0]:3 * lit[0] + 3]
            seen.append((lit[0] // 6, len(lit), colour))
        r.run(ms=12)
    want = []
    for s in range(5):
        for c in ("red", "green", "blue"):
            want.append((s, 6, c))
    assert seen == want, seen
    # even at the family's lowest brightness the sweep is clearly lit
    assert max(frame) <= 200


def test_button_prompt_lights():
    r = Rig(broken=("seat0", "seat1", "skip", "draw", "menu"), wait_ms=2000)
    r.run(until="buttons")
    frame = bytearray(90)

    def lit_at(t):
        r.st.render(frame, t, 255)
        return [i for i in range(30) if frame[3 * i + 1]]

    t = r.t - r.t % 500 + 500
    assert lit_at(t + 300) == [0, 1, 2, 3, 4, 5]  # seat 0 blinks (on half)
    assert lit_at(t + 100) == []  # (off half)
    r.run(ms=2000)
    r.run(ms=2000)  # now SKIP: the first non-seat button, one LED at every seat
    assert r.events[-1].get("button") == "skip"
    t = r.t - r.t % 500 + 500
    assert lit_at(t + 300) == [0, 6, 12, 18, 24]


def test_menu_hold_cancels_unless_menu_is_asked():
    r = Rig().run(until="buttons")
    r.st.press(r.t, "menu_long")
    assert r.st.step_name() == "over" and r.ended == 1
    ev = r.events[-1]
    assert ev["state"] == "cancelled" and ev["passed"] is False and "MENU" in ev["why"]
    assert not r.st.passed()
    # the MENU button asked for: holding it counts as the press
    r = Rig(broken=("menu",)).run(until="buttons")
    while r.events[-1].get("button") != "menu":
        r.run(ms=12)
    r.st.press(r.t + 10, "menu_long")
    assert r.part("button MENU")[0]
    assert r.st.step_name() == "finger"


def test_cancel_keeps_what_was_tested():
    r = Rig().run(until="buttons")
    r.st.cancel(r.t, "cancelled by the host")
    assert r.st.step_name() == "over" and r.ended == 1
    assert [p for p, _o, _m in r.st.report] == ["HX711 load-cell amplifier", "accelerometer",
                                                "LEDs"]
    r.st.cancel(r.t + 5)  # a second cancel changes nothing
    assert r.ended == 1


def test_state_for_status():
    r = Rig().run(until="buttons")
    s = r.st.state()
    assert s["step"] == "buttons" and s["progress"] == [3, 9] and "passed" not in s
    r.run(until="done")
    s = r.st.state()
    assert s["passed"] is True and s["progress"] == [9, 9]


def test_default_wiring_is_the_pin_map():
    from referee import pins

    st = selftest.SelfTest(0, None)
    assert len(st.parts()) == 4 + len(pins.BUTTONS)
    assert "button SKIP (GP%d)" % dict(pins.BUTTONS)["skip"] in st.parts()


def test_labels_and_isqrt():
    assert selftest.label("seat3") == "SEAT 3" and selftest.label("rhino") == "RHINO"
    for v in (0, 1, 2, 3, 4, 15, 16, 17, 999999, 1000000, 3000000):
        s = selftest._isqrt(v)
        assert s * s <= v < (s + 1) * (s + 1), v
