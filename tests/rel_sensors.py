"""Sensor faults during play (issue 8, part 4): the board loop with a faulty HX711 or
accelerometer, a game on the simulated table around the fault.

Usage::

    from rel_sensors import FAULTS, run_fault
    r = run_fault("hx_unplugged", seed=1)
    r.ok, r.problems, r.figures()

Each run (board time): the family sits down, a 2-player game starts (serial command), a wall
and a roof are placed and a symbol entered; then the fault begins and lasts ``fault_ms``; for
load-cell faults nobody touches the tower meanwhile; for accelerometer faults (degraded mode:
the load cell alone) and spikes (the good readings still come) play goes on. Then the part
comes back, and after a pause two more placements and a symbol. Checked:

* the fault cue at every seat and the sensor in status ``faults`` during the fault, a
  ``fault`` event on and then off;
* no false collapse or placement: the rules inputs the detector made are exactly the
  placements of the table's truth, in order, and the game state is the same before and after
  a load-cell fault;
* recovery: the cue goes, status has no fault, and the placements after the fault count.

Faults (``FAULTS``): ``hx_unplugged`` (no conversions: what the PIO driver sees with DOUT
floating high), ``hx_oserror`` (the driver raises), ``hx_stuck`` (the last reading again and
again), ``hx_stuck_zero`` (DOUT held low: every word 0), ``hx_saturated`` (0x7FFFFF),
``hx_spikes`` (bursts of 3 spike readings every half second), ``acc_gone`` (every read fails),
``acc_flaky`` (every 7th read fails).
"""

import json

from rel_boardloop import Loop

FAULTS = ("hx_unplugged", "hx_oserror", "hx_stuck", "hx_stuck_zero", "hx_saturated",
          "hx_spikes", "acc_gone", "acc_flaky")
_PLACEMENTS = ("wall", "roof", "rhino", "walls2")


class Result:
    def __init__(self, fault):
        self.fault = fault
        self.problems = []
        self.cue_ms = None  # fault onset -> fault cue at every seat
        self.recover_ms = None  # part back -> cue gone
        self.sensor_inputs = []
        self.truth = []
        self.restarts = 0

    @property
    def ok(self):
        return not self.problems

    def figures(self):
        return {"fault": self.fault, "ok": self.ok, "cue_ms": self.cue_ms,
                "recover_ms": self.recover_ms, "detected": len(self.sensor_inputs),
                "truth": len(self.truth), "hx_restarts": self.restarts,
                "problems": self.problems}


def _set_fault(loop, fault, on):
    hx, acc = loop.hx, loop.acc
    if fault.startswith("hx_"):
        kind = fault[3:]
        if kind == "stuck_zero":
            hx.stuck_value = 0
            kind = "stuck"
        elif kind == "stuck":
            hx.stuck_value = None
        hx.mode = kind if on else "ok"
    else:
        acc.mode = fault[4:] if on else "ok"


def run_fault(fault, seed=1, fault_ms=8000, sps=80):
    from referee import detector
    from rhinoref.table import Table

    table = Table(seed=seed, sps=sps, accel=True)
    cal = table.calibration()

    def make(_cal, s, accel):
        return detector.Detector(cal, sps=s, accel=accel)

    loop = Loop(None, table, make_detector=make, sps=sps)
    res = Result(fault)
    acc_fault = fault.startswith("acc_")
    play_on = acc_fault or fault == "hx_spikes"  # the load cell still measures: play goes on
    t_on = 20000
    t_off = t_on + fault_ms
    marks = {}

    def cmd(obj):
        loop.send((json.dumps(obj) + "\n").encode())

    def mark(name):
        def f():
            marks[name] = loop.ref.game.state() if loop.ref.game is not None else None
        return f

    # before: settle, start, one turn
    loop.at(6000, lambda: cmd({"cmd": "new_game", "players": 2}))
    loop.at(9000, table.place_wall)
    loop.at(11500, table.place_roof)
    loop.at(14500, lambda: loop.press("reverse"))
    loop.at(t_on - 100, mark("before"))
    loop.at(t_on, lambda: _set_fault(loop, fault, True))
    watch = {"cue_at": None, "off_at": None, "status": None}
    if play_on:  # play goes on (with the load cell alone, or between the spikes)
        loop.at(t_on + 1500, table.place_wall)
        loop.at(t_on + 4000, table.place_roof)
        loop.at(t_on + 6500, lambda: loop.press("reverse"))
    loop.at(t_on + fault_ms // 2, lambda: cmd({"cmd": "status"}))
    loop.at(t_off, lambda: _set_fault(loop, fault, False))
    loop.at(t_off - 100, mark("during"))
    # after: the part is back; the detector starts over on the present load
    t_play = t_off + (12000 if play_on else 4000)
    loop.at(t_play - 100, mark("after_fault"))
    loop.at(t_play, table.place_wall)
    loop.at(t_play + 2500, table.place_roof)
    loop.at(t_play + 5000, lambda: loop.press("skip"))
    end = t_play + 8000

    def hook(lp):
        t = lp.now()
        cues = lp.ref.seat_cues()
        all_fault = all(c and c[0] == "fault" for c in cues)
        if t >= t_on and watch["cue_at"] is None and all_fault:
            watch["cue_at"] = t
        if t >= t_off and watch["cue_at"] is not None and watch["off_at"] is None \
                and not all_fault:
            watch["off_at"] = t

    loop.run_until(end, hook=hook)
    if loop.exited != "stop":
        res.problems.append("the loop ended: %s" % loop.exited)
    res.restarts = loop.hx.restarts
    ev = loop.events()
    sensor = "hx711" if fault.startswith("hx_") else "accel"
    if fault == "hx_spikes":
        sensor = "hx711_spikes"  # the converter still answers: a fault of its own
    ons = [e for e in ev if e["ev"] == "fault" and e.get("sensor") == sensor and e.get("on")]
    offs = [e for e in ev if e["ev"] == "fault" and e.get("sensor") == sensor
            and e.get("on") is False]
    if not ons:
        res.problems.append("no fault event")
    if not offs:
        res.problems.append("the fault never ended")
    if watch["cue_at"] is None:
        res.problems.append("no fault cue at every seat")
    else:
        res.cue_ms = watch["cue_at"] - t_on
    if watch["off_at"] is None:
        res.problems.append("the fault cue stayed after the part came back")
    else:
        res.recover_ms = watch["off_at"] - t_off
    st = [r for r in loop.replies if "faults" in r]
    if not st or sensor not in st[-1]["faults"]:
        res.problems.append("status during the fault: %s" % (st[-1]["faults"] if st else None))
    final = [e for e in ev if e["ev"] == "fault"]
    if loop.ref.faults:
        res.problems.append("still at fault at the end: %s" % loop.ref.faults)
    # no false events: the detector's inputs are the table's placements
    res.sensor_inputs = [e["in"] for e in ev if e["ev"] == "input" and e.get("src") == "sensor"]
    res.truth = []
    for _t, name in table.truth:
        if name in ("wall", "roof", "rhino"):
            res.truth.append(name)
        elif name == "walls2":
            res.truth += ["wall", "wall"]
    if res.sensor_inputs != res.truth:
        res.problems.append("detected %s, truth %s" % (res.sensor_inputs, res.truth))
    if not play_on and marks.get("before") != marks.get("after_fault"):
        res.problems.append("the game changed during the fault")
    collapses = [e for e in ev if e["ev"] == "detect" and e["event"] == "collapse"]
    if collapses:
        res.problems.append("false collapse at %s" % [e["t_ms"] for e in collapses])
    g = loop.ref.game
    if g is None or g.roofs_placed != (3 if play_on else 2):
        res.problems.append("game after: %s" % (g.state() if g else None))
    res.loop = loop
    res.events = final
    return res
