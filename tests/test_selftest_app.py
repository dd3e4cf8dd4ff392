"""The self-test inside the board's Referee: started by the protocol ({"cmd": "selftest"}) and
from the parent menu (hold MENU, then hold SEAT 0), progress as events, the lights, refusals,
and the referee back to normal afterwards.

CPython only: the Referee, its commands and the self-test compiled from source do not fit the
64-bit unix port's 192 KB heap together (its objects are twice a Pico's). On MicroPython the
same path runs deployed as .mpy on the virtual board (tests/test_selftest_cli.py).
"""

import json

from referee import cues
from referee.app import Referee


class Board:
    """A Referee fed like the board loop does, with a maker answering the prompts."""

    def __init__(self, accel=True, parts=None, broken=(), finger_g=120, problems=()):
        self.ref = Referee(root=None, sps=80, accel=accel)
        if parts is not None:
            self.ref.parts = parts
        for p in problems:
            self.ref.problems.append(p)
        self.t = 1000
        self.load_g = 0
        self.broken = broken
        self.finger_g = finger_g
        self.pending = []
        self.events = []
        self.frames = 0
        self.acc = (5, -10, 1002) if accel else (0, 0, 0)

    def cmd(self, msg):
        reply = json.loads(self.ref.command(self.t, json.dumps(msg)))
        self._events()
        return reply

    def press(self, name):
        self.ref.press(self.t, name)
        self._events()

    def _events(self):
        for line in self.ref.pop_events():
            ev = json.loads(line)
            self.events.append(ev)
            if ev["ev"] != "selftest":
                continue
            b = ev.get("button")
            if b is not None and "ask" in ev and b not in self.broken:
                self.pending.append((self.t + 300, b))
            if ev.get("step") == "finger" and "ask" in ev:
                self.load_g = self.finger_g if ev["ask"].startswith("press") else 0

    def run(self, ms, samples=True):
        end = self.t + ms
        ver = self.ref.frame_version
        while self.t < end:
            self.t += 12
            while self.pending and self.pending[0][0] <= self.t:
                self.ref.press(self.t, self.pending.pop(0)[1])
            if samples:
                raw = 50000 + int(self.load_g * 2147.5) + (self.t * 7) % 61 - 30
                self.ref.sample(self.t, raw, self.acc[0], self.acc[1], self.acc[2])
            else:
                self.ref.tick(self.t)
            self.ref.frame  # noqa: B018 (the board loop reads it every pass)
            if self.ref.frame_version != ver:
                ver = self.ref.frame_version
                self.frames += 1
            self._events()

    def selftest_events(self):
        return [e for e in self.events if e["ev"] == "selftest"]

    def done(self):
        for e in self.selftest_events():
            if e.get("state") in ("done", "cancelled"):
                return e
        return None


def test_protocol_start_progress_report():
    b = Board()
    r = b.cmd({"cmd": "selftest", "id": 4})
    assert r["ok"] and r["id"] == 4, r
    st = r["selftest"]
    assert st["step"] == "rest" and st["wait_ms"] == 10000 and len(st["parts"]) == 15
    assert st["parts"][0] == "HX711 load-cell amplifier" and st["parts"][-1] == \
        "load cell under a finger"
    assert st["seconds_at_most"] > 100
    b.run(40000)
    done = b.done()
    assert done is not None and done["state"] == "done" and done["passed"] is True, done
    assert done["checks"] == 15 and done["failed"] == [], done
    report = b.cmd({"cmd": "selftest", "report": True})["selftest"]["report"]
    assert len(report) == 15
    for part, ok, msg in report:
        assert ok, (part, msg)
    asks = [e["ask"] for e in b.selftest_events() if "ask" in e]
    assert "press the RHINO button (every seat blinks 5 yellow LEDs)" in asks
    assert "press the SEAT 4 button (its seat blinks white)" in asks
    for e in b.selftest_events():  # "ok" marks a reply: events never carry it (SPEC 3.3)
        assert "ok" not in e, e
    # the last report stays available
    r = b.cmd({"cmd": "selftest", "report": True})
    assert r["ok"] and r["running"] is False and r["selftest"]["passed"] is True, r
    # a new run may start while the last report still shows
    old = b.ref.test
    assert old is not None and old.step_name() == "done"
    r = b.cmd({"cmd": "selftest"})
    assert r["ok"] and b.ref.test is not old and b.ref.test.step_name() == "rest", r


def test_lights_belong_to_the_test_then_come_back():
    b = Board()
    b.run(200)
    assert b.ref.seat_cues()[0] == ["waiting"]
    b.cmd({"cmd": "selftest", "led_ms": 100})
    frame = b.ref.frame
    assert len(frame) == 90
    b.run(2100)  # rest over: the sweep starts at seat 0, red
    frame = b.ref.frame
    assert frame[1] > 0 and frame[0] == 0 and frame[2] == 0  # GRB: red only
    assert bytes(frame[18:]) == bytes(72)  # every other seat dark
    b.run(15000)  # done; the report lights show for 30 s or until a button
    assert b.done()["passed"]
    assert b.frames > 15 + 11
    b.press("seat2")  # any button ends the report lights
    assert b.ref.test is None
    b.run(100)
    assert b.ref.seat_cues()[0] == ["waiting"]  # the lobby again
    # the press that dismissed the report did not join seat 2
    assert b.ref.joined == []


def test_menu_entry_hold_menu_then_seat0():
    b = Board()
    b.press("menu_long")
    menu = [e for e in b.events if e["ev"] == "menu"][-1]
    assert menu["open"] and menu["choices"]["seat0_long"] == "self-test"
    b.press("seat0_long")
    assert b.ref.test is not None
    assert b.selftest_events()[0]["step"] == "rest"
    b.run(40000)
    assert b.done()["passed"]
    # without the menu open, holding seat 0 is an ordinary seat press (joins the lobby)
    b.press("seat3")  # dismiss
    b.press("seat0_long")
    assert b.ref.test is None and b.ref.joined == [0]


def test_not_during_a_game():
    b = Board()
    b.cmd({"cmd": "new_game", "players": 2})
    r = b.cmd({"cmd": "selftest"})
    assert not r["ok"] and "a game is in play" in r["error"], r
    b.press("menu_long")
    b.press("seat0_long")
    assert b.ref.test is None
    assert "a game is in play" in [e for e in b.events if e["ev"] == "warning"][-1]["message"]
    assert b.ref.game is not None and not b.ref.game.over  # the game goes on


def test_other_commands_wait_for_the_test():
    b = Board()
    b.cmd({"cmd": "selftest"})
    for msg in ({"cmd": "new_game", "players": 2}, {"cmd": "tare"},
                {"cmd": "learn", "piece": "wall"}):
        r = b.cmd(msg)
        assert not r["ok"] and "a self-test is running" in r["error"], r
    assert b.ref.game is None and b.ref.calib is None
    r = b.cmd({"cmd": "selftest"})
    assert not r["ok"] and "already running" in r["error"]
    assert b.cmd({"cmd": "status"})["ok"]
    r = b.cmd({"cmd": "selftest", "report": True})
    assert r["running"] is True and r["selftest"]["step"] == "rest"


def test_bad_selftest_lines_change_nothing():
    b = Board()
    for msg in ({"cmd": "selftest", "wait_ms": 5}, {"cmd": "selftest", "wait_ms": "10"},
                {"cmd": "selftest", "led_ms": 10 ** 6}, {"cmd": "selftest", "finger_g": 0},
                {"cmd": "selftest", "bogus": 1}, {"cmd": "selftest", "cancel": 1}):
        r = b.cmd(msg)
        assert not r["ok"], (msg, r)
        assert b.ref.test is None
    r = b.cmd({"cmd": "selftest", "cancel": True})
    assert not r["ok"] and r["error"] == "no self-test is running"
    r = b.cmd({"cmd": "selftest", "report": True})
    assert not r["ok"] and "no self-test has run" in r["error"]


def test_cancel_from_the_host_and_from_the_menu():
    b = Board()
    b.cmd({"cmd": "selftest"})
    b.run(2500)
    r = b.cmd({"cmd": "selftest", "cancel": True})
    assert r["ok"] and r["stopped"] and not r["finished"] and not r["passed"], r
    assert r["checked"] == 2
    assert b.ref.selftest_report["report"][1][0] == "accelerometer"
    assert b.ref.test is None and b.done()["state"] == "cancelled"
    b.events = []
    b.cmd({"cmd": "selftest"})
    b.run(500)
    b.press("menu_long")
    assert b.ref.test is None and b.done()["why"] == "stopped with the MENU button"
    assert not [e for e in b.events if e["ev"] == "menu" and e.get("open")]  # no menu opened


def test_missing_accelerometer_and_broken_button_reported():
    b = Board(accel=False, broken=("double",),
              problems=["accelerometer: no device answers on I2C (check SDA/SCL wiring and "
                        "power)"])
    b.cmd({"cmd": "selftest", "wait_ms": 2000})
    b.run(40000)
    done = b.done()
    assert done["passed"] is False
    assert done["failed"] == ["accelerometer", "button DOUBLE (GP14)"], done
    bad = [(e["part"], e["message"]) for e in b.selftest_events()
           if "part" in e and not e["passed"]]
    assert len(bad) == 2, bad
    assert bad[0][0] == "accelerometer"
    assert bad[0][1].startswith("missing: no device answers on I2C (check SDA/SCL wiring and "
                                "power) - check SDA to GP4"), bad[0][1]
    assert bad[1][0] == "button DOUBLE (GP14)" and "not pressed within 2 s" in bad[1][1]


def test_board_parts_name_the_tilt_switch(monkeypatch):
    from referee import pins

    monkeypatch.setattr(pins, "TILT_SWITCH", 18)  # fitted (the default pin map has none)
    b = Board(parts={"accel": "tilt", "accel_why": "no device answers on I2C"})
    b.cmd({"cmd": "selftest"})
    b.run(2500)
    ev = [e for e in b.selftest_events() if e.get("part") == "accelerometer"][0]
    assert not ev["passed"] and "tilt switch on GP18 stands in" in ev["message"]


def test_dead_hx711_with_ticks_only():
    b = Board()
    b.cmd({"cmd": "selftest", "wait_ms": 1000})
    b.run(30000, samples=False)
    done = b.done()
    assert done["passed"] is False
    rep = dict((e["part"], (e["passed"], e["message"])) for e in b.selftest_events()
               if "part" in e)
    assert rep["HX711 load-cell amplifier"][1].startswith("no reading within 2 s")
    assert rep["load cell under a finger"][1].startswith("not checked")
    assert rep["button MENU (GP16)"][0]  # buttons still tested


def test_detector_starts_over_after_the_test():
    b = Board()
    b.run(3000)
    det = b.ref.det
    assert det.stable and det._nseen > 0
    b.cmd({"cmd": "selftest"})
    b.run(40000)
    b.press("menu")
    # started over in place (the same object: no new attribute table to find room for)
    assert b.ref.test is None and b.ref.det is det and det._nseen == 0 and not det.stable
    assert not b.ref._special
    assert cues.NAMES  # the cue table is still there for the referee's own lights


def test_the_heap_is_collected_before_a_test_starts_and_only_then(monkeypatch):
    """The modules and the test's tables are among the largest allocations after boot: a
    start, from the host or from the menu, collects first (docs/heap.md, "The self-test's
    start"); the buttons and commands of a running test do not (a collection takes
    milliseconds)."""
    import gc

    calls = []
    monkeypatch.setattr(gc, "collect", lambda: calls.append(1))
    b = Board()
    b.cmd({"cmd": "status"})  # the first command loads referee.commands (collecting on its own)
    calls.clear()
    b.cmd({"cmd": "selftest"})
    assert len(calls) == 1 and b.ref.test is not None
    b.run(2500)
    b.press("seat1")
    b.cmd({"cmd": "selftest", "report": True})
    assert len(calls) == 1
    b.cmd({"cmd": "selftest", "cancel": True})
    b.press("menu_long")
    b.press("seat0_long")  # the menu's way in
    assert len(calls) == 2 and b.ref.test is not None
