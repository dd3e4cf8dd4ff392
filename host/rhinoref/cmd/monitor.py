"""``rhinoref monitor``: a live view of a board (real or virtual) with the simulator's renderer:
seat lights, tower, hands, whose turn, events. Survives the board being unplugged."""

import time

from ..errors import BoardError, InputError

HELP = "live view of a board: seat lights, tower, hands, events"
EXAMPLE = """\
rhinoref monitor                          # the one board plugged in
rhinoref monitor --port /dev/ttyACM0
rhinoref monitor --plain --seconds 60     # one line per event for a minute (for logs)
rhinoref monitor --mirror                 # show the board's own LED frames
"""

STATUS_TIMEOUT = 3.0


def add_arguments(parser):
    parser.add_argument("--port", help="serial port (default: $RHINOREF_PORT or the one board found)")
    parser.add_argument("--plain", action="store_true",
                        help="plain lines, one per event, even on a terminal")
    parser.add_argument("--seconds", type=float, default=None, metavar="N",
                        help="stop after N seconds (default: until Ctrl-C)")
    parser.add_argument("--mirror", action="store_true",
                        help="ask the board for its LED frames (the 'mirror' option) instead of "
                             "drawing the seat lights from its cue names")
    parser.add_argument("--no-reconnect", action="store_true",
                        help="stop with an error when the board goes away")


def _open_link(port, reconnect):
    from ..boardlink import AppLink

    return AppLink(port, reconnect=reconnect)


class Monitor:
    """Keeps a View in step with a board over an AppLink (also used by tests)."""

    def __init__(self, link, view, renderer, mirror=False):
        self.link = link
        self.view = view
        self.renderer = renderer
        self.mirror = mirror
        self.board_t0 = None      # board t_ms at wall-clock wall0
        self.wall0 = None
        self.synced = False

    def sync(self):
        """Ask the board for its whole state (on start and after every reconnect)."""
        st = self.link.command({"cmd": "status"}, timeout=STATUS_TIMEOUT)
        if not st.get("ok"):
            raise BoardError("the board refused 'status': %s" % st.get("error", "no reason given"))
        v = self.view
        self.board_t0 = st.get("t_ms") or 0
        self.wall0 = time.monotonic()
        v.t_ms = self.board_t0
        v.joined = list(st.get("joined") or [])
        v.side = st.get("side", v.side)
        seats = st.get("seats") or []
        game = st.get("game")
        if isinstance(game, dict):
            v.seats = list(seats) if seats else None
            v.players = len(game.get("hands") or []) or v.players
            v.set_state(game)
        else:
            v.players = None
            v.seats = None
            v.turn = None
        cues = st.get("cues")
        if cues is not None:
            v.set_seat_cues(cues)
        try:
            c = self.link.command({"cmd": "cues"}, timeout=STATUS_TIMEOUT)
            if c.get("ok"):
                v.leds_per_seat = int(c.get("leds_per_seat") or v.leds_per_seat)
                v.set_seat_cues(c.get("seats") or [], c.get("counts"))
        except BoardError:
            pass
        if self.mirror:
            self.link.command({"cmd": "options", "mirror": True}, timeout=STATUS_TIMEOUT)
        phase = st.get("phase", "?")
        v.status = "board %s (firmware %s), %s" % (self.link.port, st.get("version", "?"), phase)
        if st.get("faults"):
            v.add_event(v.t_ms, "sensor faults: " + ", ".join(st["faults"]))
        if st.get("problems"):
            v.add_event(v.t_ms, "board problems: " + "; ".join(st["problems"]))
        v.connected = True
        self.synced = True
        return st

    def board_time(self):
        if self.wall0 is None:
            return self.view.t_ms
        return int(self.board_t0 + (time.monotonic() - self.wall0) * 1000)

    def handle(self, ev):
        v = self.view
        if ev.get("ev") == "link":
            if ev.get("up"):
                v.add_event(v.t_ms, "board is back on %s" % ev.get("port", self.link.port))
                v.connected = True
                self.synced = False
            else:
                v.add_event(v.t_ms, "board disconnected (%s): waiting for it..." % (ev.get("error") or "gone"))
                v.connected = False
            return
        if ev.get("ev") == "boot" and self.synced:
            v.add_event(v.t_ms, "the board restarted")
            self.synced = False  # its state and clock start over: ask again
        if ev.get("ev") == "frame":
            v.cue_lists = None    # draw the board's own frames, not our animation
        v.apply_event(ev)

    def run(self, seconds=None):
        deadline = None if seconds is None else time.monotonic() + seconds
        self.renderer.event(self.view)
        self.renderer.draw(self.view, force=True)
        while deadline is None or time.monotonic() < deadline:
            if not self.synced and self.link.connected:
                try:
                    self.sync()
                except BoardError as err:
                    # Plugged back in but not answering yet (booting): try again shortly.
                    self.view.status = str(err)
                    time.sleep(0.3)
            step = 0.1 if deadline is None else max(0.0, min(0.1, deadline - time.monotonic()))
            for ev in self.link.events(timeout=step):
                self.handle(ev)
            if self.view.connected:
                self.view.t_ms = max(self.view.t_ms, self.board_time()) if self.synced else self.view.t_ms
            self.renderer.event(self.view)
            self.renderer.draw(self.view)
        self.renderer.draw(self.view, force=True)

    def close(self):
        if self.mirror and self.link.connected:
            try:
                self.link.command({"cmd": "options", "mirror": False}, timeout=1.0)
            except BoardError:
                pass


def run(args):
    from ..render import View, make_renderer

    if args.seconds is not None and args.seconds <= 0:
        raise InputError("--seconds must be above 0")
    link = _open_link(args.port, not args.no_reconnect)
    view = View(title="rhinoref monitor")
    renderer = make_renderer(plain=True if args.plain else None)
    mon = Monitor(link, view, renderer, mirror=args.mirror)
    try:
        mon.sync()
        if not renderer.live:
            renderer.line("# rhinoref monitor: %s" % view.status)
        with renderer:
            try:
                mon.run(args.seconds)
            except KeyboardInterrupt:
                pass  # Ctrl-C is how a monitor ends
    finally:
        mon.close()
        link.close()
    return 0
