"""The self-test on the board's Referee: the protocol command, the menu's way in, the ending.

Usage (``Referee`` and ``referee.commands`` call these; split from ``referee.selftest`` so that
each module compiles from source within a Pico's heap)::

    from referee import selftestapp
    selftestapp.start(ref, t_ms)              # ref.test = a running BoardTest; ValueError
                                              # with a sentence when not now (game in play,
                                              # calibrating, already running)
    selftestapp.press(ref, t_ms, "seat0_long")   # a button while it runs, or the menu's way in
    selftestapp.command(ref, t_ms, msg)       # {"cmd": "selftest", ...} -> reply fields

While ``ref.test`` is set the Referee feeds it every sample, tick and button and lets it draw
the lights; the detector and the game stand still. When the test is over (report dismissed,
cancelled) the referee takes the lights back and starts its detector over on the present load.
The board tells which accelerometer it found in ``ref.parts`` (``referee.board``).
"""

from referee import protocol
from referee.selftest import DONE, FINGER_G, LED_MS, RELEASE_MS, WAIT_MS, SelfTest


class BoardTest(SelfTest):
    """A SelfTest run by a ``Referee`` (``ref.test``): its events go out with the referee's,
    and when it is over the referee takes the lights and buttons back."""

    def __init__(self, ref, t, **kw):
        self.ref = ref
        SelfTest.__init__(self, t, ref._emit, **kw)

    def ended(self, t):
        ref = self.ref
        ref.selftest_report = self.state()
        ref.test = None
        ref._update_special()
        ref._new_detector()  # the platform was pressed: start over on the present load
        ref._dirty_cues()


def _accel_part(ref):
    parts = getattr(ref, "parts", None) or {}
    part = parts.get("accel")
    why = parts.get("accel_why")
    if part is None:
        part = "mpu6050" if ref.accel or "accel" in ref.faults else "none"
    if why is None:
        for p in ref.problems:
            if p.startswith("accelerometer: "):
                why = p[15:]
    return part, why


def start(ref, t, wait_ms=WAIT_MS, led_ms=LED_MS, finger_g=FINGER_G):
    """Start the self-test on Referee ``ref``; ValueError with a sentence when it cannot."""
    g = ref.game
    if ref.test is not None and ref.test.step >= DONE:
        ref.test.cancel(t)  # only its report lights were showing: a new run replaces them
    if ref.test is not None:
        raise ValueError("a self-test is already running")
    if g is not None and not g.over:
        raise ValueError("a game is in play: finish it or start a new game before the "
                         "self-test")
    if ref.calib is not None:
        raise ValueError("calibration is running: cancel it first")
    part, why = _accel_part(ref)
    test = BoardTest(ref, t, sps=ref.sps, counts_per_gram=ref.cal.counts_per_gram,
                     accel=part, accel_why=why, wait_ms=wait_ms, led_ms=led_ms,
                     finger_g=finger_g)
    ref.test = test
    ref._menu_until = 0
    ref._update_special()
    ref._dirty_cues()
    return test


def press(ref, t, name):
    """A button while the self-test runs, or the menu's way in (menu open, SEAT 0 held)."""
    if ref.test is not None:
        ref.test.press(t, name)
        return
    ref._menu_until = 0
    ref._emit("menu", {"open": False, "chose": "selftest"})
    try:
        start(ref, t)
    except ValueError as err:
        ref._emit("warning", {"message": str(err)})
        ref._flash_cue(t, "warning", 255)
    ref._dirty_cues()
    ref._arm()


def command(ref, t, msg):
    """``{"cmd": "selftest"}`` and its options (docs/selftest.md) -> reply fields."""
    protocol.only(msg, ("cancel", "report", "wait_ms", "led_ms", "finger_g"))
    cancel = protocol.arg(msg, "cancel", protocol.BOOL, False)
    report = protocol.arg(msg, "report", protocol.BOOL, False)
    wait_ms = protocol.arg(msg, "wait_ms", protocol.INT, WAIT_MS, 1000, 120000)
    led_ms = protocol.arg(msg, "led_ms", protocol.INT, LED_MS, 50, 5000)
    finger_g = protocol.arg(msg, "finger_g", protocol.NUMBER, FINGER_G, 1, 1000)
    if cancel:
        test = ref.test
        if test is None:
            raise protocol.ProtocolError("no self-test is running")
        finished = test.step >= DONE
        test.cancel(t, "cancelled by the host")
        return {"stopped": True, "finished": finished, "passed": test.passed(),
                "checked": len(test.report)}
    if report:
        if ref.test is not None:  # running, or its report lights still show
            return {"running": ref.test.step < DONE, "selftest": ref.test.state()}
        last = getattr(ref, "selftest_report", None)
        if last is None:
            raise protocol.ProtocolError("no self-test has run since the board started")
        return {"running": False, "selftest": last}
    test = start(ref, t, wait_ms, led_ms, finger_g)
    return {"selftest": {"step": test.step_name(), "parts": test.parts(), "wait_ms": wait_ms,
                         "led_ms": led_ms, "finger_g": finger_g,
                         "seconds_at_most": (test.rest_ms + 15 * led_ms + wait_ms
                                             * (len(test.buttons) + 1) + RELEASE_MS) // 1000
                                            + 1}}
