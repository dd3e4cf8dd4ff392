"""``rhinoref calibrate``: guided calibration of a board's scale and the game's piece masses.

The board does the measuring (``referee.calibration.Calibrator`` in the firmware, driven by the
protocol's ``tare``, ``calibrate`` and ``learn`` commands); this command tells the person at the
table what to put on the platform and when, shows the board's prompts and progress as they come
(``calib`` events), refuses clearly when the platform keeps moving, and offers to try a step
again. The board saves the calibration itself (``calib.json``, atomic and checksummed) after
every step that succeeds.

``--adc check`` finds out how the board's HX711 filters (``rhinoref.adccheck``: a finger's
press let go at once, in streamed samples) and records it; ``--adc sinc1|sinc4|unknown``
records what the maker found another way. A whole calibration of a board at 10 SPS whose
filter is not known yet ends with that check (skip it with 's'; it stays unknown).
"""

import io
import sys
import time

from ..errors import BoardError, InputError, RhinorefError

HELP = "guided calibration: tare, known mass, piece masses"
EXAMPLE = """\
rhinoref calibrate                           # every step, a 100 g known mass
rhinoref calibrate --mass 50 --port /dev/ttyACM0
rhinoref calibrate --steps wall,roof,rhino   # only learn the pieces again
rhinoref calibrate --adc check               # find out how the HX711 filters, and record it
rhinoref calibrate --adc sinc1               # record what the HX711's filter was found to be
"""

STEPS = ("tare", "scale", "wall", "roof", "rhino")
STEP_TIMEOUT_S = 120.0   # the board gives up on a step after 60 s itself; this is the backstop
MOVING_SAY_S = 1.5       # tell the person about motion that lasts longer than this

# What the person does before each step (the board's own prompts follow while it measures).
INTRO = {
    "tare": "Put the foundation card on the platform, nothing else on it, and keep the table "
            "still.",
    "scale": "Have a known mass ready: a {mass:g} g kitchen weight, or coins of a known total "
             "(e.g. ten 1-euro coins = 75 g; then use --mass 75). Do not put it on yet.",
    "wall": "Have {count} walls ready. Place them on the platform one at a time when asked "
            "(leave each one or take it off again, as you like).",
    "roof": "Have {count} roof cards ready. Place them one at a time when asked.",
    "rhino": "Have Rhino Hero ready. Set him down {count} times when asked (lift him off in "
             "between or put him back on the card).",
}
NAMES = {"tare": "empty platform (tare)", "scale": "known mass", "wall": "wall", "roof": "roof card",
         "rhino": "Rhino Hero"}
CHECK_S = 20.0           # samples streamed for the converter check
CHECK_INTRO = ("Checking how the HX711 filters (hardware/README.md). The foundation card alone "
               "on the platform: press its middle firmly with one fingertip, hold it a second, "
               "then snap the finger away. Five times, two seconds apart, within %g s.")


def add_arguments(parser):
    parser.add_argument("--port", help="serial port (default: $RHINOREF_PORT or the one board found)")
    parser.add_argument("--mass", type=float, default=100.0, metavar="GRAMS",
                        help="the known mass for the scale step (default 100 g)")
    parser.add_argument("--count", type=int, default=3, metavar="N",
                        help="placements per piece (1-9, default 3; the median is kept)")
    parser.add_argument("--steps", default=",".join(STEPS), metavar="LIST",
                        help="steps to run, in order (default: %s)" % ",".join(STEPS))
    parser.add_argument("--yes", action="store_true",
                        help="do not wait for Enter before each step (for scripts)")
    from ..firmware import fw

    parser.add_argument("--adc", choices=("check",) + fw("calibration").ADC_FILTERS,
                        help="only the HX711's filter: 'check' finds it out from a finger "
                             "pressing the platform (at 10 SPS) and records it; sinc1, sinc4 or "
                             "unknown records what you found (hardware/README.md)")


def _open_link(port):
    from ..boardlink import AppLink

    return AppLink(port)


def _steps(text):
    steps = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in steps if s not in STEPS]
    if bad or not steps:
        raise InputError("--steps takes a list of %s, not %r" % (", ".join(STEPS), text))
    return steps


class Guide:
    """Runs the steps against a board link; ``say`` prints, ``ask`` waits for the person."""

    def __init__(self, link, say=print, ask=None, mass=100.0, count=3):
        self.link = link
        self.say = say
        self.ask = ask
        self.mass = mass
        self.count = count
        self._note = self._prompt = None
        self._moving_since = None
        self._said_moving = False

    def _command(self, step):
        if step == "tare":
            return {"cmd": "tare"}
        if step == "scale":
            return {"cmd": "calibrate", "grams": self.mass}
        return {"cmd": "learn", "piece": step, "count": self.count}

    def run_step(self, step):
        """One step; returns the board's final calib fields (``state`` done or failed)."""
        reply = self.link.command(self._command(step), timeout=3.0)
        if not reply.get("ok"):
            raise RhinorefError("the board refused to calibrate: %s" % reply.get("error", "no reason given"))
        self._prompt = self._note = None
        self._moving_since = None
        self._said_moving = False
        self._show(reply.get("calibrating") or {})
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while time.monotonic() < deadline:
            for ev in self.link.events(timeout=0.3):
                if ev.get("ev") != "calib":
                    continue
                self._show(ev)
                if ev.get("state") in ("done", "failed"):
                    return ev
            self._moving_check()
        # The board did not finish the step: cancel it so it is not left half-way.
        try:
            self.link.command({"cmd": "calibrate", "cancel": True}, timeout=2.0)
        except BoardError:
            pass
        return {"state": "failed", "error": "no answer from the board for %d s" % STEP_TIMEOUT_S}

    def _moving_check(self):
        # A hand placing a piece moves the platform for a moment: only motion that lasts is
        # worth telling (it is what makes the board refuse).
        if self._moving_since is not None and not self._said_moving and \
                time.monotonic() - self._moving_since > MOVING_SAY_S:
            self.say("    ... the platform keeps moving: waiting for it to be still")
            self._said_moving = True

    def _show(self, ev):
        state = ev.get("state")
        if ev.get("moving") and state == "busy":
            if self._moving_since is None:
                self._moving_since = time.monotonic()
            self._moving_check()
        else:
            if self._said_moving and state == "busy":
                self.say("    ... still again")
            self._moving_since = None
            self._said_moving = False
        note = ev.get("note")
        key = (note, tuple(ev.get("progress") or ()))
        if note and key != self._note:
            self.say("    " + note)
        self._note = key
        prompt = ev.get("prompt")
        if prompt and prompt != self._prompt and state == "busy":
            self.say("  -> %s" % prompt)
        self._prompt = prompt

    def run(self, steps):
        results = {}
        for i, step in enumerate(steps):
            self.say("")
            self.say("step %d of %d: %s" % (i + 1, len(steps), NAMES[step]))
            self.say("  " + INTRO[step].format(mass=self.mass, count=self.count))
            while True:
                if self.ask is not None:
                    if not self.ask("  press Enter when ready (or type s to skip, q to quit): ",
                                    step):
                        return results
                    if getattr(self.ask, "skip", False):
                        break
                ev = self.run_step(step)
                if ev.get("state") == "done":
                    results[step] = ev.get("result")
                    self.say("  done: %s" % (ev.get("prompt") or _describe(step, ev.get("result"))))
                    break
                reason = ev.get("error") or ev.get("prompt") or "failed"
                self.say("  not done: %s" % reason)
                if self.ask is None:
                    raise RhinorefError("calibration step '%s' failed: %s" % (step, reason))
        return results


def _describe(step, result):
    if not isinstance(result, dict):
        return "ok"
    if step == "tare":
        return "zero at %s counts" % result.get("offset")
    if step == "scale":
        return "%s counts per gram" % result.get("counts_per_gram", "?")
    grams = result.get("grams", result.get(step + "_g"))
    return "%s g" % grams if grams is not None else ", ".join("%s=%s" % kv for kv in sorted(result.items()))


def _num(x):
    return "%.2f" % x if isinstance(x, float) else str(x)


class _Asker:
    """Enter to go on, 's' to skip the step, 'q' to stop."""

    def __init__(self, read=input):
        self.read = read
        self.skip = False

    def __call__(self, prompt, step):
        self.skip = False
        try:
            answer = self.read(prompt).strip().lower()
        except EOFError:
            return False
        if answer.startswith("q"):
            return False
        if answer.startswith("s"):
            self.skip = True
        return True


def check_converter(link, status, say, ask=None, seconds=CHECK_S):
    """Stream ``seconds`` of samples while the person presses the platform and lets go; the
    filter the releases show ("sinc1", "sinc4"), or None after saying why not."""
    from ..adccheck import MIN_RELEASES, verdict
    from ..trace import parse_trace
    from .record import record

    sps = (status.get("options") or {}).get("sps", 80)
    if sps > 20:
        say("At %d samples/s a finger lets go as fast as one conversion lasts, so the check "
            "cannot tell the filters apart, and the referee does not depend on it at this rate: "
            "nothing to record." % sps)
        return None
    say(CHECK_INTRO % seconds)
    if ask is not None:
        if not ask("Press Enter, then start pressing ('s' skips, 'q' stops) ", "adc"):
            return None
        if getattr(ask, "skip", False):
            say("Skipped.")
            return None
    buf = io.StringIO()
    rec = record(link, buf, seconds=seconds)
    if rec.lost:
        raise BoardError("the board went away during the check: %s" % rec.lost)
    tr = parse_trace(buf.getvalue().splitlines(), "the check's samples")
    cpg, offset = tr.meta["counts_per_gram"], tr.meta["offset"]
    adc, spreads = verdict([(row[1] - offset) / cpg for row in tr.rows], sps)
    if adc is None:
        if len(spreads) < MIN_RELEASES:
            say("Could not tell: %d release%s seen, %d or more are needed (press firmly, at "
                "least 20 g, and take the finger away at once, the platform then left alone)."
                % (len(spreads), "" if len(spreads) == 1 else "s", MIN_RELEASES))
        else:
            say("Could not tell: the releases disagree (%s readings partway); try again, "
                "taking the finger away as fast as you can." % ", ".join(str(p) for p in spreads))
        return None
    say("The releases reached the readings with %s of them partway: %s."
        % (", ".join(str(p) for p in spreads),
           "one conversion's mean (sinc1)" if adc == "sinc1"
           else "spread over four conversions (sinc4)"))
    return adc


def _save_adc(link, adc, say):
    reply = link.command({"cmd": "calibrate", "adc": adc}, timeout=3.0, check=True)
    say("saved on the board: the HX711's filter is %s" % reply["adc"])


def _offer_check(link, status, say, ask):
    """After a whole calibration of a board at 10 SPS that does not know its HX711's filter:
    the converter check, which some of the detector's rules at that rate depend on
    (docs/detector.md, "The converter's filter"). Skipped, or not told apart: it stays
    unknown, which is safe, and the calibration stands."""
    sps = (status.get("options") or {}).get("sps", 80)
    if sps > 20 or (status.get("calibration") or {}).get("adc", "unknown") != "unknown":
        return
    say("")
    say("At %d samples/s the referee finds falls best when it knows how the board's HX711 "
        "filters, and nobody has told it yet." % sps)
    adc = check_converter(link, status, say, ask, CHECK_S)
    if adc is None:
        say("The HX711's filter stays unknown ('rhinoref calibrate --adc check' checks it "
            "later).")
        return
    _save_adc(link, adc, say)


def run(args):
    steps = _steps(args.steps)
    if not 1 <= args.mass <= 5000:
        raise InputError("--mass must be 1 to 5000 grams")
    if not 1 <= args.count <= 9:
        raise InputError("--count must be 1 to 9")
    link = _open_link(args.port)
    try:
        st = link.idle_status("calibrating")
        if args.adc:
            adc = args.adc
            if adc == "check":
                adc = check_converter(link, st, print, None if args.yes else _Asker(), CHECK_S)
                if adc is None:
                    return 1
            _save_adc(link, adc, print)
            return 0
        say = print
        say("Calibrating the board on %s. Keep the table still while it measures; the seat "
            "lights show the calibration cue." % link.port)
        done = (st.get("calibration") or {}).get("done") or []
        if "scale" not in steps and "scale" not in done and set(steps) & {"wall", "roof", "rhino"}:
            say("note: this board's scale (counts per gram) was never calibrated with a known "
                "mass, so piece masses will be off (or come out negative on a load cell mounted "
                "the other way up); add the 'scale' step.")
        ask = None if args.yes else _Asker()
        guide = Guide(link, say=say, ask=ask, mass=args.mass, count=args.count)
        try:
            results = guide.run(steps)
        except KeyboardInterrupt:
            try:
                link.command({"cmd": "calibrate", "cancel": True}, timeout=2.0)
            except BoardError:
                pass
            raise
        st = link.command({"cmd": "status"}, timeout=3.0)
        cal = st.get("calibration") or {}
        say("")
        say("saved on the board: %s counts per gram, offset %s, wall %s g, roof %s g, Rhino Hero %s g"
            % (_num(cal.get("counts_per_gram")), cal.get("offset"), _num(cal.get("wall_g")),
               _num(cal.get("roof_g")), _num(cal.get("rhino_g"))))
        missing = [s for s in steps if s not in results]
        if missing:
            say("not calibrated this time: %s" % ", ".join(NAMES[s] for s in missing))
            return 1
        if steps == list(STEPS):
            _offer_check(link, st, say, ask)
    finally:
        link.close()
    sys.stdout.flush()
    return 0
