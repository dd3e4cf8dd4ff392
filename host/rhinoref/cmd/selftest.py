"""``rhinoref selftest``: check every LED, button and sensor of a board, in plain words.

The board runs the test itself (``referee.selftest`` in the firmware, started with the protocol's
``{"cmd": "selftest"}``; docs/selftest.md): it checks that the HX711 answers at the rate the
firmware expects and that the accelerometer sees 1 g, sweeps the LEDs seat by seat in red,
green and blue, asks for each button in turn, and asks for a finger on the platform. This
command relays the board's prompts as they come, shows each verdict with its progress, asks the
person whether the LEDs looked right (the board cannot see them; ``--yes`` skips the
questions), and prints the report.

Exit status: 0 everything passed, 1 something failed (or the test was stopped), 3 the board
cannot be reached or has no self-test, 130 Ctrl-C (the test on the board is stopped too).
"""

import json
import sys
import time

from ..errors import EXIT_FAILED, EXIT_OK, BoardError, RhinorefError

HELP = "check every LED, button and sensor of a board"
EXAMPLE = """\
rhinoref selftest                            # asks before it starts and about the LEDs after
rhinoref selftest --port /dev/ttyACM0 --yes  # no questions (scripts); LEDs not confirmed
rhinoref selftest --wait 20                  # 20 s for each button and for the finger
rhinoref selftest --yes --json               # only the report, as one JSON object
"""

MARGIN_S = 20.0  # on top of the board's own bound, before the host gives up
LED_HELP = ("a dark LED: check that seat pod's wires and its first dark LED; red and green "
            "swapped: the strip is RGB, set \"order\": \"RGB\" in hardware/pinmap.json, run "
            "gen_pins.py and deploy (hardware/README.md, troubleshooting)")


def add_arguments(parser):
    parser.add_argument("--port", help="serial port (default: $RHINOREF_PORT or the one board "
                                       "found)")
    parser.add_argument("--yes", action="store_true",
                        help="ask nothing: start at once, and take the LED sweep as seen")
    parser.add_argument("--wait", type=float, default=10.0, metavar="SECONDS",
                        help="how long the board waits for each button and for the finger "
                             "(1-120, default 10)")
    parser.add_argument("--json", action="store_true",
                        help="print only the report, as one JSON object")


def _open_link(port):
    from ..boardlink import AppLink

    return AppLink(port)


def _ask(prompt):
    """One answer from the person (tests replace this); None at end of input."""
    try:
        return input(prompt)
    except EOFError:
        return None


class Run:
    """Starts the test on the board behind ``link`` and follows it to its report."""

    def __init__(self, link, say=print, wait_s=10.0):
        self.link = link
        self.say = say
        self.wait_s = wait_s
        self.parts = []
        self.report = []
        self.passed = False
        self.state = None

    def start(self):
        self.link.poll_events()  # what the board said before the test is not about it
        reply = self.link.command({"cmd": "selftest", "wait_ms": int(self.wait_s * 1000)},
                                  timeout=3.0)
        if not reply.get("ok"):
            err = reply.get("error", "no reason given")
            if err.startswith("unknown command"):
                raise BoardError("the board's firmware has no self-test: update it with "
                                 "'rhinoref deploy' (%s)" % err)
            raise RhinorefError("the board cannot start the self-test: %s" % err)
        info = reply.get("selftest") or {}
        self.parts = list(info.get("parts") or [])
        return info

    def follow(self, seconds):
        """Relay the board's events until its report (or ``seconds`` pass)."""
        n = len(self.parts) or "?"
        deadline = time.monotonic() + seconds
        started = False  # a boot line before the test's first event is an old one
        while time.monotonic() < deadline:
            for ev in self.link.events(timeout=0.3):
                kind = ev.get("ev")
                if kind in ("boot", "hello") and started:
                    raise RhinorefError(
                        "the board restarted during the self-test (a weak USB port or cable "
                        "browning out when the LEDs light? see hardware/README.md, "
                        "troubleshooting)")
                if kind != "selftest":
                    continue
                started = True
                if "ask" in ev:
                    self.say("  -> %s" % ev["ask"])
                elif "part" in ev:
                    self.report.append([ev["part"], bool(ev.get("passed")),
                                        ev.get("message", "")])
                    done = (ev.get("progress") or [len(self.report)])[0]
                    self.say("  %-4s [%s/%s] %s: %s" % ("ok" if ev.get("passed") else "FAIL", done,
                                                       n, ev["part"], ev.get("message", "")))
                if ev.get("state") in ("done", "cancelled"):
                    self.state = ev["state"]
                    self.passed = bool(ev.get("passed")) and self.state == "done"
                    if self.state == "done" and len(self.report) < ev.get("checks", 0):
                        self._fetch_report()
                    if self.state == "cancelled":
                        self.say("  the self-test was stopped on the board (%s)"
                                 % ev.get("why", "no reason given"))
                    return self.report
        self.cancel()
        raise BoardError("the board stopped reporting during the self-test (no report within "
                         "%d s)" % seconds)

    def _fetch_report(self):
        """A verdict went missing on the way: ask the board for the whole report."""
        try:
            reply = self.link.command({"cmd": "selftest", "report": True}, timeout=3.0)
        except BoardError:
            reply = {}
        rows = (reply.get("selftest") or {}).get("report")
        if reply.get("ok") and rows:
            self.report = [list(r) for r in rows]
        else:
            self.passed = False
            self.report.append(["report", False, "some verdicts did not reach the host (%s)"
                                % reply.get("error", "no answer")])

    def cancel(self):
        try:
            self.link.command({"cmd": "selftest", "cancel": True}, timeout=2.0)
        except BoardError:
            pass

    def confirm_leds(self, ask):
        """The person judges the LED sweep; the LEDs' line says what they answered."""
        for row in self.report:
            if row[0] != "LEDs" or not row[1]:
                continue
            answer = ask("Did every LED light red, then green, then blue at each seat, none "
                         "dark and none in a wrong colour? [Y/n] ")
            if answer is None:
                row[2] = "not confirmed (no answer): " + row[2]
            elif answer.strip().lower().startswith("n"):
                row[1] = False
                row[2] = "you saw a dark LED or a wrong colour - " + LED_HELP
                self.passed = False
            else:
                row[2] = "every LED lit in the right colours (you confirmed)"


def print_report(report, say=print):
    failed = [r for r in report if not r[1]]
    say("")
    say("Report:")
    for part, ok, msg in report:
        say("  %-6s %s: %s" % ("[ok]" if ok else "[FAIL]", part, msg))
    say("")
    if failed:
        say("%d of %d checks passed; %d failed: %s" % (len(report) - len(failed), len(report),
                                                      len(failed),
                                                      ", ".join(r[0] for r in failed)))
    else:
        say("all %d checks passed" % len(report))


def run(args):
    if not 1 <= args.wait <= 120:
        from ..errors import InputError

        raise InputError("--wait must be 1 to 120 seconds")
    quiet = args.json
    say = (lambda *a: None) if quiet else print
    link = _open_link(args.port)
    try:
        st = link.idle_status("the self-test")
        say("Self-test of the board on %s. Put it on a still table with nothing on the "
            "platform; have a finger free for the platform and every button within reach."
            % link.port)
        if not args.yes and not quiet:
            if _ask("Press Enter to start (Ctrl-C stops): ") is None:
                say("")
        job = Run(link, say=say, wait_s=args.wait)
        try:
            info = job.start()
            say("%d checks, at most about %d s." % (len(job.parts), info.get("seconds_at_most", 0)))
            job.follow(info.get("seconds_at_most", 180) + MARGIN_S)
        except KeyboardInterrupt:
            job.cancel()
            raise
    finally:
        link.close()
    if not args.yes and not quiet and job.state == "done":
        job.confirm_leds(_ask)
    if quiet:
        print(json.dumps({"passed": job.passed, "state": job.state, "report": job.report}))
    else:
        print_report(job.report, say)
    sys.stdout.flush()
    return EXIT_OK if job.passed else EXIT_FAILED
