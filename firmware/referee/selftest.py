"""The board's self-test: every LED, every button, the load cell and the accelerometer.

Usage (pure: time and readings come in as arguments, events go out through ``emit``)::

    from referee import selftest
    st = selftest.SelfTest(t_ms, emit)        # emit(name, fields) -> one event line each
    st.sample(t_ms, raw, ax, ay, az)          # every HX711 sample (and the accelerometer)
    st.tick(t_ms)                             # time passes without a sample
    st.press(t_ms, "skip")                    # a button, named as for Referee.press
    if st.render(frame, t_ms, brightness):    # the lights while it runs; True: frame changed
        write(frame)
    st.step_name()   # "rest", "leds", "buttons", "finger", "done", "over"
    st.report        # [[part, ok, message], ...] e.g.
                     # ["button SKIP (GP12)", False, "not pressed within 10 s - check ..."]

On the board the Referee runs it as ``ref.test`` through ``referee.selftestapp`` (the protocol
command, the menu's way in, the ending).

The steps, in order (docs/selftest.md has the light patterns a maker sees):

1. rest (2 s, keep the table still): the HX711 answers at all, at the rate the firmware
   expects, not stuck at full scale; the accelerometer sees 1 g (1000 +- 150 mg);
2. leds: seat by seat, every LED red, then green, then blue (a dark LED or a swapped colour
   order shows at once; the board cannot see its own LEDs: the person watching judges);
3. buttons: each button of ``pins.BUTTONS`` in turn is asked for; not pressed within
   ``wait_ms`` (10 s) -> "not pressed", naming a button that answered instead;
4. finger: "press the platform with a finger": the reading must move by ``finger_g`` (20 g)
   for a few samples in a row within ``wait_ms``;
5. done: the report as data and as lights (LED i = part i: green passed, red failed) until a
   button is pressed or 30 s pass. Holding MENU (unless MENU is the button asked for) or
   ``{"cmd": "selftest", "cancel": true}`` stops the test early.

Events (``emit("selftest", fields)``, docs/selftest.md): a prompt ``{"step", "ask",
"progress"}`` (buttons add ``"button"`` and ``"gpio"``, LEDs ``"seat"``), a verdict ``{"part",
"passed", "message", "progress"}`` for each part as soon as it is known, and a last, small one:
``{"state": "done", "passed", "checks", "failed": [parts]}`` or ``{"state": "cancelled", "why",
...}``. Nothing here allocates per sample beyond small ints; the module is imported only when a
self-test starts.
"""

from referee import cues

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


REST_MS = const(2000)
LED_MS = const(400)  # one colour at one seat
WAIT_MS = const(10000)  # for each button and for the finger
FINGER_G = const(20)  # a finger pushes far more; drift and noise stay far below
SHOW_MS = const(30000)  # the report lights
RELEASE_MS = const(3000)  # after the finger passed: time to let go before the report
GRAVITY_MG = const(1000)
GRAVITY_TOL_MG = const(150)
FULL_SCALE = const(0x7FFFFF)
_SEATS = const(5)
_MIN_LEVEL = const(80)  # the sweep must be seen even at the lowest family brightness

# steps
_REST = const(0)
_LEDS = const(1)
_BUTTONS = const(2)
_FINGER = const(3)
DONE = const(4)
_OVER = const(5)
STEPS = ("rest", "leds", "buttons", "finger", "done", "over")

COLOURS = (("red", 255, 0, 0), ("green", 0, 255, 0), ("blue", 0, 0, 255))


def _pins():
    from referee import pins

    return pins


def label(name):
    """A button's name on the box: "seat2" -> "SEAT 2", "skip" -> "SKIP"."""
    if name.startswith("seat"):
        return "SEAT " + name[4:]
    return name.upper()


class SelfTest:
    """One run of the self-test (see the module docstring).

    wiring: a ``referee.pins``-like module (BUTTONS, HX711_DOUT/SCK, I2C_SDA/SCL, TILT_SWITCH,
    LED_COUNT, LEDS_PER_SEAT); sps: the rate the firmware expects; counts_per_gram: the
    calibration's (its sign does not matter); accel: the part the board found ("mpu6050",
    "lis3dh", "adxl345", "tilt" or "none") and accel_why: why none was found on I2C.
    """

    def __init__(self, t_ms, emit=None, wiring=None, sps=80, counts_per_gram=2147.5,
                 accel="mpu6050", accel_why=None, wait_ms=WAIT_MS, led_ms=LED_MS,
                 finger_g=FINGER_G, rest_ms=REST_MS, show_ms=SHOW_MS):
        w = wiring if wiring is not None else _pins()
        self.w = w
        self.emit = emit
        self.sps = sps
        cpg = counts_per_gram if counts_per_gram else 2147.5
        self.cpg = cpg if cpg > 0 else -cpg
        self.accel = accel
        self.accel_why = accel_why
        self.wait_ms = wait_ms
        self.led_ms = led_ms
        self.finger_g = finger_g
        self.rest_ms = rest_ms
        self.show_ms = show_ms
        self.buttons = [b for b in w.BUTTONS]  # (name, gpio)
        self.report = []
        self.cancelled = False
        self.step = _REST
        self._t0 = t_ms  # start of the present step (or button, or seat colour)
        self._key = -1  # what the frame shows now (render() redraws when it changes)
        # rest: the HX711 and the accelerometer
        self._n = 0
        self._sat = 0
        self._t_first = 0
        self._t_last = 0
        self._raw0 = 0
        self._dsum = 0
        self._sx = 0
        self._sy = 0
        self._sz = 0
        self._zeros = 0
        self._hx_ok = False
        self._base = 0
        # leds: seat * 3 + colour
        self._led = 0
        # buttons
        self._btn = 0
        self._other = None
        # finger
        self._thr = int(finger_g * self.cpg)
        self._ring = [0, 0, 0]
        self._run = 3 if sps >= 40 else 2  # samples in a row beyond the threshold
        self._ri = 0
        self._seen = 0
        self._peak = 0
        self._passed_at = -1
        self._say(_REST, {"ask": "keep the table still: checking the load cell and the "
                                 "accelerometer (%d s)" % (rest_ms // 1000)})

    # -------------------------------------------------------------------- inputs

    def sample(self, t, raw, ax, ay, az):
        """One HX711 sample with the accelerometer's reading at that time."""
        st = self.step
        if st == _REST:
            self._rest_sample(t, raw, ax, ay, az)
        elif st == _FINGER:
            self._finger_sample(t, raw)
        self.tick(t)

    def tick(self, t):
        """Time passes: step deadlines, the LED sweep, button and finger timeouts."""
        st = self.step
        if st == _REST:
            if t - self._t0 >= self.rest_ms:
                self._end_rest(t)
        elif st == _LEDS:
            while self.step == _LEDS and t - self._t0 >= self.led_ms:
                self._t0 += self.led_ms
                self._led += 1
                if self._led >= 3 * _SEATS:
                    self._end_leds(t)
                elif self._led % 3 == 0:
                    self._ask_seat_leds()
        elif st == _BUTTONS:
            if t - self._t0 >= self.wait_ms:
                name, gpio = self.buttons[self._btn]
                why = "not pressed within %d s - check its wiring: one leg to GP%d, the " \
                      "other to GND, on the normally-open contact" % (self.wait_ms // 1000, gpio)
                if self._other is not None:
                    why += " (the %s button answered instead: are their wires swapped?)" \
                           % label(self._other)
                self._part("button %s (GP%d)" % (label(name), gpio), False, why)
                self._next_button(t)
        elif st == _FINGER:
            if self._passed_at >= 0:
                if t - self._passed_at >= RELEASE_MS:
                    self._finish(t)
            elif t - self._t0 >= self.wait_ms:
                self._finger_failed(t)
        elif st == DONE:
            if t - self._t0 >= self.show_ms:
                self._over(t)

    def press(self, t, name):
        """A button event ("seat0".."seat4", "reverse", ..., "menu", each maybe + "_long")."""
        long = name.endswith("_long")
        base = name[:-5] if long else name
        st = self.step
        asked = self.buttons[self._btn][0] if st == _BUTTONS else None
        if base == "menu" and long and asked != "menu":
            self.cancel(t, "stopped with the MENU button")
            return
        if st == _BUTTONS:
            if base == asked:
                self._part("button %s (GP%d)" % (label(asked), self.buttons[self._btn][1]),
                           True, "pressed")
                self._next_button(t)
            elif self._other is None:
                self._other = base
        elif st == DONE:
            self._over(t)  # any button: the report lights go, the referee comes back
        self.tick(t)

    def cancel(self, t, why="cancelled"):
        """Stop now; what was tested so far stays in the report."""
        if self.step >= DONE:
            if self.step == DONE:
                self._over(t)
            return
        self.cancelled = True
        self._emit({"state": "cancelled", "why": why, "passed": False,
                    "checks": 4 + len(self.buttons), "checked": len(self.report)})
        self._over(t)

    # -------------------------------------------------------------------- outputs

    def step_name(self):
        return STEPS[self.step]

    def passed(self):
        """True when the test finished and every part passed."""
        if self.cancelled or self.step < DONE:
            return False
        for _part, ok, _msg in self.report:
            if not ok:
                return False
        return True

    def parts(self):
        """The labels of every part, in report (and report-light) order."""
        out = ["HX711 load-cell amplifier", "accelerometer", "LEDs"]
        for name, gpio in self.buttons:
            out.append("button %s (GP%d)" % (label(name), gpio))
        out.append("load cell under a finger")
        return out

    def state(self):
        """Plain data for a status reply."""
        f = {"step": STEPS[self.step], "progress": [len(self.report), 4 + len(self.buttons)],
             "report": self.report}
        if self.step >= DONE:
            f["passed"] = self.passed()
        return f

    def render(self, frame, t, brightness):
        """Fill ``frame`` (GRB, 3 bytes per LED) for time ``t``; True when it changed."""
        st = self.step
        n = len(frame) // (3 * _SEATS)
        if st == _REST:
            key = 1
        elif st == _LEDS:
            key = 100 + self._led
        elif st == _BUTTONS:
            key = 1000 + 2 * self._btn + ((t // 250) & 1)
        elif st == _FINGER:
            key = 3000 + (t // 100) % 20
        else:
            key = 4000
        if key == self._key:
            return False
        self._key = key
        lv = brightness if brightness > _MIN_LEVEL else _MIN_LEVEL
        for i in range(len(frame)):
            frame[i] = 0
        if st == _REST:
            for i in range(n * _SEATS):
                _put(frame, i, 255, 255, 255, lv >> 2)
        elif st == _LEDS:
            seat = self._led // 3
            _c, r, g, b = COLOURS[self._led % 3]
            for i in range(seat * n, seat * n + n):
                _put(frame, i, r, g, b, lv)
        elif st == _BUTTONS:
            name = self.buttons[self._btn][0]
            if (t // 250) & 1 == 0:
                pass  # the dark half of the blink
            elif name.startswith("seat"):
                seat = ord(name[4]) - 48
                if 0 <= seat < _SEATS:
                    for i in range(seat * n, seat * n + n):
                        _put(frame, i, 255, 255, 255, lv)
            else:
                k = self._count(name)
                for s in range(_SEATS):
                    for i in range(s * n, s * n + (k if k < n else n)):
                        _put(frame, i, 255, 200, 0, lv)
        elif st == _FINGER:
            p = (t // 100) % 20
            _put_all(frame, n, 0, 60, 255, lv * (4 + (p if p < 10 else 20 - p)) // 14)
        elif not self.cancelled:
            for i in range(len(self.report)):
                if i < n * _SEATS:
                    if self.report[i][1]:
                        _put(frame, i, 0, 255, 0, lv)
                    else:
                        _put(frame, i, 255, 0, 0, lv)
        cues.cap_current(frame)
        return True

    # -------------------------------------------------------------------- steps

    def _rest_sample(self, t, raw, ax, ay, az):
        if self._n == 0:
            self._t_first = t
            self._raw0 = raw
        self._n += 1
        self._t_last = t
        if raw >= FULL_SCALE or raw <= -FULL_SCALE - 1:
            self._sat += 1
        else:
            self._dsum += raw - self._raw0
        self._sx += ax
        self._sy += ay
        self._sz += az
        if ax == 0 and ay == 0 and az == 0:
            self._zeros += 1

    def _end_rest(self, t):
        w = self.w
        n = self._n
        hx = "HX711 load-cell amplifier"
        wires = "DOUT (DT) to GP%d, SCK to GP%d" % (w.HX711_DOUT, w.HX711_SCK)
        if n == 0:
            self._part(hx, False, "no reading within %d s - check its power (VCC to 3.3 V, "
                                  "GND) and the wires %s; then the load cell's wires (a "
                                  "converter stuck at one value is not read either)"
                       % (self.rest_ms // 1000, wires))
        elif self._sat * 2 > n:
            self._part(hx, False, "the reading sits at its limit (%d) - check the load cell's "
                                  "wires: red and black to E+ and E-, the other two to A+ and "
                                  "A-; an overloaded or broken cell does this too"
                       % FULL_SCALE)
        else:
            good = n - self._sat
            self._base = self._raw0 + self._dsum // good
            rate = 0
            if n >= 2 and self._t_last > self._t_first:
                rate = (n - 1) * 1000 // (self._t_last - self._t_first)
            if (self.sps >= 40) != (rate >= 40) and n >= 3:
                self._part(hx, False, "about %d readings a second, but the firmware expects "
                                      "%d - the RATE pin sets 10 or 80 (hardware/README.md); "
                                      "or tell the firmware: {\"cmd\": \"options\", "
                                      "\"sps\": %d}" % (rate, self.sps, 80 if rate >= 40 else 10))
            else:
                self._hx_ok = True
                self._part(hx, True, "answers: %d readings a second, %d counts at rest"
                           % (rate, self._base))
        self._accel_verdict(n)
        self.step = _LEDS
        self._t0 = t
        self._led = 0
        self._ask_seat_leds()

    def _accel_verdict(self, n):
        w = self.w
        name = "accelerometer"
        bus = "SDA to GP%d, SCL to GP%d, VCC to 3.3 V, GND, AD0 to GND" % (w.I2C_SDA, w.I2C_SCL)
        why = self.accel_why or "no device answers on I2C"
        if self.accel == "none":
            self._part(name, False, "missing: %s - check %s. Until then the referee runs in "
                                    "degraded mode (load cell only, no knock or tilt sensing)"
                       % (why, bus))
            return
        if self.accel == "tilt":
            self._part(name, False, "not found: %s. The tilt switch on GP%s stands in "
                                    "(degraded mode: knocks only); if you fitted an "
                                    "accelerometer, check %s"
                       % (why, getattr(w, "TILT_SWITCH", "?"), bus))
            return
        if n == 0:
            self._part(name, False, "not checked: it is read with each HX711 reading, and "
                                    "there were none")
            return
        if self._zeros == n:
            self._part(name, False, "reads 0 on every axis: it stopped answering - check %s"
                       % bus)
            return
        ax = self._sx // n
        ay = self._sy // n
        az = self._sz // n
        mag = _isqrt(ax * ax + ay * ay + az * az)
        if GRAVITY_MG - GRAVITY_TOL_MG <= mag <= GRAVITY_MG + GRAVITY_TOL_MG:
            self._part(name, True, "sees gravity: %d mg at rest (%s)" % (mag, self.accel))
        else:
            self._part(name, False, "sees %d mg at rest, not about %d mg (1 g) - it must sit "
                                    "flat and firm under the platform; check its wiring (%s)"
                       % (mag, GRAVITY_MG, bus))

    def _ask_seat_leds(self):
        seat = self._led // 3
        n = self.w.LED_COUNT // _SEATS
        self._say(_LEDS, {"seat": seat, "ask": "watch seat %d: its %d LEDs light red, then "
                                               "green, then blue" % (seat, n)})

    def _end_leds(self, t):
        self._part("LEDs", True, "lit all %d, seat by seat, red, green, blue: check by eye - "
                                 "a dark LED or a wrong colour is a fault (hardware/README.md, "
                                 "troubleshooting)" % self.w.LED_COUNT)
        self.step = _BUTTONS
        self._btn = -1
        self._next_button(t)

    def _next_button(self, t):
        self._btn += 1
        self._t0 = t
        self._other = None
        if self._btn >= len(self.buttons):
            self._btn = 0
            self._start_finger(t)
            return
        name, gpio = self.buttons[self._btn]
        if name.startswith("seat"):
            how = "its seat blinks white"
        else:
            k = self._count(name)
            how = "every seat blinks %d yellow LED%s" % (k, "" if k == 1 else "s")
        self._say(_BUTTONS, {"button": name, "gpio": gpio,
                             "ask": "press the %s button (%s)" % (label(name), how)})

    def _count(self, name):
        """Symbol and menu buttons are shown as a count: the first non-seat button 1, ..."""
        k = 0
        for b, _g in self.buttons:
            if not b.startswith("seat"):
                k += 1
                if b == name:
                    return k
        return k

    def _start_finger(self, t):
        self.step = _FINGER
        self._t0 = t
        if not self._hx_ok:
            self._part("load cell under a finger", False,
                       "not checked: the HX711 gave no usable reading")
            self._finish(t)
            return
        self._say(_FINGER, {"ask": "press the platform with a finger (at least %d g), then "
                                   "let go" % self.finger_g})

    def _finger_sample(self, t, raw):
        if self._passed_at >= 0:
            return
        d = raw - self._base
        if d < 0:
            d = -d
        if raw >= FULL_SCALE or raw <= -FULL_SCALE - 1:
            d = 0  # a spike or a clipped reading is no finger
        ring = self._ring
        ring[self._ri] = d
        self._ri = (self._ri + 1) % self._run
        if self._seen < self._run:
            self._seen += 1
            return
        low = ring[0]
        for i in range(1, self._run):
            if ring[i] < low:
                low = ring[i]
        if low > self._peak:
            self._peak = low
        if low >= self._thr:
            self._part("load cell under a finger", True, "moved by %d g (or more) under the "
                                                         "finger" % int(low / self.cpg))
            self._passed_at = t
            self._say(_FINGER, {"ask": "let go of the platform"})

    def _finger_failed(self, t):
        g = int(self._peak / self.cpg)
        if g >= 1:
            why = "moved only %d g within %d s (at least %d g wanted) - press harder; if it " \
                  "still barely moves, the platform rests on the lid or the overload stop " \
                  "(hardware/README.md, the load platform)" % (g, self.wait_ms // 1000,
                                                               self.finger_g)
        else:
            why = "did not move within %d s - is the platform free to move, and are the " \
                  "cell's A+ and A- wires on the HX711?" % (self.wait_ms // 1000)
        self._part("load cell under a finger", False, why)
        self._finish(t)

    def _finish(self, t):
        self.step = DONE
        self._t0 = t
        # The verdicts went out one by one (part events): the last event stays small, so it
        # never needs a big block of a fragmented heap. The whole report: {"cmd": "selftest",
        # "report": true}.
        failed = [r[0] for r in self.report if not r[1]]
        self._emit({"state": "done", "passed": self.passed(), "checks": len(self.report),
                    "failed": failed})

    def _over(self, t):
        self.step = _OVER
        self.ended(t)

    def ended(self, t):
        """Called once when the test is over (report dismissed or cancelled)."""

    # -------------------------------------------------------------------- events

    def _part(self, part, ok, message):
        self.report.append([part, ok, message])
        self._emit({"part": part, "passed": ok, "message": message,
                    "progress": [len(self.report), 4 + len(self.buttons)]})

    def _say(self, step, fields):
        fields["step"] = STEPS[step]
        fields["progress"] = [len(self.report), 4 + len(self.buttons)]
        self._emit(fields)

    def _emit(self, fields):
        if self.emit is not None:
            self.emit("selftest", fields)


def _put(frame, i, r, g, b, level):
    j = 3 * i
    if j + 2 >= len(frame):
        return
    g = g * level >> 8
    r = r * level >> 8
    b = b * level >> 8
    cap = cues.CHANNEL_MAX
    frame[j] = g if g < cap else cap
    frame[j + 1] = r if r < cap else cap
    frame[j + 2] = b if b < cap else cap


def _put_all(frame, n, r, g, b, level):
    for i in range(n * _SEATS):
        _put(frame, i, r, g, b, level)


def _isqrt(v):
    """Integer square root (no floats on the board's fast paths; exact for the test's use)."""
    if v <= 0:
        return 0
    x = v
    y = (x + 1) >> 1
    while y < x:
        x = y
        y = (x + v // x) >> 1
    return x

