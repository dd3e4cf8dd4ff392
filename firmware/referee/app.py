"""The referee's deterministic core: time and inputs in, actions out (no machine, no clock).

Usage::

    from referee.app import Referee
    ref = Referee(root="/data")            # loads options + calibration, resumes a game
    ref.sample(t_ms, raw, ax, ay, az)      # every HX711 sample (hot path)
    ref.press(t_ms, "seat2")               # a button ("seat0".."seat4", "reverse", "skip",
                                           # "draw", "double", "rhino", "menu"; + "_long")
    ref.tick(t_ms)                         # timers and animation when no sample came
    reply = ref.command(t_ms, '{"cmd": "status"}')   # one serial line -> one reply line
    ref.frame                              # bytearray GRB frame, 3 bytes per LED
    ref.seat_cues()                        # [["turn_cw"], ["skipped"], [], [], []]
    for line in ref.pop_events():          # JSON event lines for the serial port
        print(line)
    ref.fault("hx711", True)               # a sensor stopped answering (or came back);
                                           # also "accel", "hx711_spikes" (referee.board)

The board loop (``referee.board``) and the host simulator drive the same object. ``t_ms`` is a
monotonic millisecond count the caller owns (the board: ms since boot). ``root`` is the folder
for files (``"/data"`` on the board, a temp dir on the host, ``None`` for no files at all).

Phases: lobby (seats join) -> play (the rules engine runs; tie-break counts are entered here
too) -> over (result shown) -> lobby. A parent menu (hold the menu button) and calibration
overlay any phase. docs/board.md has the family flow, the button table and the protocol.

Files under ``root``: ``options.json`` and ``calib.json`` (checksummed, atomic via
``referee.storage``), ``game.jsonl`` (the game log of SPEC 3.1, appended one input at a time,
replayed at boot to resume after a power cut), ``last.jsonl`` (the game before), and
``trace.csv`` when a trace is recorded to flash.
"""

import json

from referee import appcues, appstore, cues, gamelog, protocol, rules

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


VERSION = "1.0"
SEATS = const(5)
_NEVER = const(0x3FFFFFFF)  # largest small int on MicroPython: "no deadline"
_NO_SEAT = const(255)
_TILT = const(2)  # detector.TILT: a ball tilt switch (the detector is loaded only when made)

# Phases
LOBBY = "lobby"
PLAY = "play"
OVER = "over"

# Timing (ms). Options can change the symbol window and the grace window.
_SYMBOL_MS = const(5000)  # a roof with no symbol press within this is plain ("none")
_EARLY_MS = const(2500)  # a symbol pressed this long before its roof settles still counts
_TIEBREAK_MS = const(3000)  # a tie-break count is entered this long after the last press
_FLASH_MS = const(3000)  # warning / error cues
_DRAW_MS = const(8000)  # "take a card" shows at most this long (or until the first piece)
_MENU_MS = const(15000)  # the parent menu closes itself
FILE_FAULT_MS = const(10000)  # a damaged file shows the fault cue this long after boot
_MIRROR_MS = const(100)  # frame mirror events at most this often
_MAX_EVENTS = const(64)  # events kept when nobody pops them
BRIGHTNESS_LEVELS = (16, 40, 80, 140, 255)
_DEFAULT_BRIGHTNESS = const(80)

SYMBOL_BUTTONS = ("reverse", "skip", "draw", "double", "rhino")

# Cue ids (the order of referee.cues' table; tests/fw/test_app_core.py checks they agree).
_C_OFF = const(0)
_C_WARNING = const(12)
_C_ERROR = const(13)


def _default_detector(cal, sps, accel):
    from referee import detector

    return detector.Detector(cal, sps=sps, accel=accel)


class Referee:
    """The whole referee except the hardware (see the module docstring)."""

    def __init__(self, root="/data", sps=80, accel=True, t_ms=0, leds_per_seat=6,
                 make_detector=None):
        self.root = root
        # The detector's motion sensing: True (an accelerometer), False (none) or
        # detector.TILT (a ball tilt switch); _motion is what is fitted, accel what works now.
        self._motion = _TILT if accel == _TILT else bool(accel)
        self.accel = self._motion
        self._make_detector = make_detector or _default_detector
        self._now = t_ms
        self._events = []
        self.dropped_events = 0
        self.problems = []  # damaged files found at boot (also in status)
        self.faults = []  # sensors at fault now: "hx711", "accel"
        # options (options.json)
        self.brightness = _DEFAULT_BRIGHTNESS
        self.grace_ms = rules.GRACE_MS
        self.symbol_ms = _SYMBOL_MS
        self.sps = sps
        self.mirror = False
        self.hw_watchdog = False  # the board's hardware WDT (referee.board explains)
        # lobby
        self.joined = []  # physical seats in the order they joined; the first starts
        self.side = "easy"
        # game
        self.game = None
        self.seats = []  # game seat -> physical seat (clockwise order)
        self._gt0 = t_ms  # board time at game time 0
        self.log_lines = [] if root is None else None  # in-memory log when there are no files
        self._sym_deadline = _NEVER
        self._early = None  # a symbol pressed before its roof settled
        self._early_until = 0
        self._tb_count = bytearray(SEATS)  # tie-break presses not yet entered, per phys seat
        self._tb_deadline = [_NEVER] * SEATS
        self._skipped = _NO_SEAT  # game seat shown "skipped" until the turn passes again
        self._draw_seat = _NO_SEAT
        self._draw_until = 0
        self._handover = _NO_SEAT
        self._flash = _C_OFF  # transient warning/error cue
        self._flash_seat = _NO_SEAT
        self._flash_until = 0
        self._fault_until = 0
        self._menu_until = 0
        self._last_turn = None
        # calibration
        self.calib = None  # a Calibrator while one runs
        self._calib_seq = None  # remaining board-menu steps
        self._calib_step = 0
        self.test = None  # a referee.selftestapp.BoardTest while the self-test runs
        # streaming / trace
        self.streaming = False
        self._input_col = ""  # a press to record in the next trace row
        self._trace_path = None
        self._trace_rows = []
        self._trace_bytes = 0
        self._trace_max = 0
        self._cmds = None  # referee.commands, imported with the first command
        self._special = False  # calibration, streaming or tracing: the slow sample path
        self._deadline = _NEVER
        # lights
        n = leds_per_seat * SEATS
        self._frame = bytearray(3 * n)
        self._main = bytearray(SEATS)
        self._over = bytearray(SEATS)
        self._counts = bytearray(SEATS)
        self._cue_names = None
        self._dirty = True
        self._animated = False
        self._step = -1
        self.frame_version = 0
        self._mirror_at = 0
        # boot: files, calibration, detector, game
        if root is not None:
            appstore.boot_files(self)
        self.cal = appstore.load_calibration(self)
        self.det = None
        self._ev_names = ()
        self._new_detector()
        if root is not None:
            appstore.resume(self)
        if self.problems:
            self._fault_until = t_ms + FILE_FAULT_MS
        self._emit("boot", {"version": VERSION, "phase": self.phase(), "problems": self.problems})
        appcues.update_cues(self)
        self._arm()

    # ------------------------------------------------------------------ inputs

    def sample(self, t_ms, raw, ax, ay, az):
        """One HX711 sample (and the accelerometer's reading at that time)."""
        self._now = t_ms
        if self._special:
            if self._slow_sample(t_ms, raw, ax, ay, az):
                return
        ev = self.det.feed(t_ms, raw, ax, ay, az)
        if ev:
            self._detected(ev)
        if t_ms >= self._deadline:
            self._timers(t_ms)

    def tick(self, t_ms):
        """Let time pass without a sample (timers, animation)."""
        self._now = t_ms
        if self.test is not None:
            self.test.tick(t_ms)
        if t_ms >= self._deadline:
            self._timers(t_ms)

    def press(self, t_ms, name):
        """A button event from ``referee.buttons`` (``name`` or ``name + "_long"``)."""
        self._now = t_ms
        long = name.endswith("_long")
        base = name[:-5] if long else name
        if self.streaming or self._trace_path:
            self._input_col = _input_column(base, long)
        if self.test is not None or (self._menu_until and name == "seat0_long"):
            if self.test is None:  # the menu's way in: a self-test starts
                import gc

                gc.collect()  # see referee.commands._selftest
            from referee import selftestapp

            selftestapp.press(self, t_ms, name)
            return
        if base == "menu":
            self._menu_button(t_ms, long)
        elif self._menu_until:
            self._menu_choice(t_ms, base)
        elif self.calib is not None:
            pass  # buttons other than menu do nothing while calibrating
        elif base.startswith("seat") and len(base) == 5 and "0" <= base[4] <= "4":
            self._seat_button(t_ms, ord(base[4]) - 48, long)
        elif base in SYMBOL_BUTTONS:
            self._symbol_button(t_ms, base)
        else:
            self._emit("warning", {"message": "unknown button %r" % name})
        if t_ms >= self._deadline:
            self._timers(t_ms)
        self._arm()

    def fault(self, name, on):
        """A sensor fault began (on=True) or ended. Names: "hx711", "accel"."""
        if on and name not in self.faults:
            self.faults.append(name)
        elif not on and name in self.faults:
            self.faults.remove(name)
        else:
            return
        self._emit("fault", {"sensor": name, "on": bool(on)})
        if name == "accel":
            # Degraded mode: the detector works from the load cell alone (docs/detector.md)
            # until the part answers again.
            self.accel = False if on else self._motion
            self._new_detector()
        elif not on and name == "hx711":
            # The HX711 is back. The tower may have changed while nothing was measured: start
            # the detector over on the present load instead of calling that a placement.
            self._new_detector()
        self._dirty_cues()

    # ------------------------------------------------------------------ outputs

    def phase(self):
        if self.game is None:
            return LOBBY
        return OVER if self.game.over else PLAY

    def _get_frame(self):
        t = self._now
        if self.test is not None:  # the self-test owns the lights while it runs
            if self.test.render(self._frame, t, self.brightness):
                self.frame_version += 1
            return self._frame
        if self._dirty or (self._animated and t // cues.STEP_MS != self._step):
            if self._dirty:
                appcues.update_cues(self)
            self._step = t // cues.STEP_MS
            cues.render_ids(self._frame, t, self._main, self._over, self._counts,
                            self.brightness)
            self.frame_version += 1
            if self.mirror and t - self._mirror_at >= _MIRROR_MS:
                self._mirror_at = t
                self._emit("frame", {"t_ms": t, "grb": _hex(self._frame)})
        return self._frame

    frame = property(_get_frame)

    def seat_cues(self):
        """Per physical seat, the cue names shown: ``[["turn_cw"], ["draw", "turn_ccw"], ...]``.

        The first name fills the seat; a ``turn_*`` after it is the turn comet drawn over it.
        """
        if self._dirty:
            appcues.update_cues(self)
        return appcues.names(self)

    def brightness_level(self):
        """Index of the menu's brightness step at or below the present brightness (0-4)."""
        i = 0
        for k in range(len(BRIGHTNESS_LEVELS)):
            if BRIGHTNESS_LEVELS[k] <= self.brightness:
                i = k
        return i

    def seat_counts(self):
        """Per physical seat, the number a count cue shows (tie-break count, menu level)."""
        if self._dirty:
            appcues.update_cues(self)
        return list(self._counts)

    def pop_events(self):
        """The event lines (JSON, no newline) produced since the last call."""
        ev = self._events
        if not ev:
            return ev
        self._events = []
        return ev

    def game_seat(self, phys):
        """Game seat of a physical seat, or None."""
        if phys in self.seats:
            return self.seats.index(phys)
        return None

    # ------------------------------------------------------------------ detector -> rules

    def _detected(self, ev):
        name = self._ev_names[ev]
        t = self.det.event_t_ms
        self._emit("detect", {"t_ms": t, "event": name})
        g = self.game
        if g is None or g.over or g.result is not None:
            return  # lobby, result shown, or tie-break counts owed: pieces are not inputs
        if name == "wall" or name == "roof" or name == "rhino":
            self._input(t, name, src="sensor")
        elif name == "walls2":
            self._input(t, "wall", src="sensor")
            self._input(t, "wall", src="sensor")
        elif name == "collapse":
            self._input(t, "collapse", src="sensor")

    def _input(self, t, kind, symbol=None, seat=None, symbols=None, src="button"):
        """Apply one rules input at board time ``t``; log it unless refused. Returns status."""
        g = self.game
        gt = t - self._gt0
        if gt < 0:
            gt = 0
        was_over = g.over
        status = g.apply(gt, kind, symbol, seat, symbols)
        fields = {"t_ms": t, "game_t_ms": gt, "in": kind, "src": src}
        if symbol is not None:
            fields["symbol"] = symbol
        if seat is not None:
            fields["seat"] = seat
            fields["symbols"] = symbols
        if status == rules.ERROR:
            fields["error"] = g.message
            self._emit("refused", fields)
            self._flash_cue(t, "error", self._effect_seat(g.effects, "error"))
            self._dirty_cues()
            return status
        line = gamelog.encode(gt, kind, symbol=symbol, seat=seat, symbols=symbols)
        appstore.log(self, line[:-1] + ', "src": "%s"}' % src)
        fields["status"] = "warning" if status == rules.WARNING else "ok"
        if status == rules.WARNING:
            fields["warning"] = g.message
        self._emit("input", fields)
        self._after_input(t, kind, was_over)
        return status

    def _after_input(self, t, kind, was_over):
        g = self.game
        turn_changed = self._track_effects(t, kind, g.effects)
        for name, seat in g.effects:
            if name == "warning":
                self._flash_cue(t, "warning", g.turn if seat is None else seat)
            elif name == "collapse":
                self._emit("collapse", {"t_ms": t, "game_t_ms": t - self._gt0,
                                        "loser": g.loser})
        # the symbol window
        if g.awaiting_symbol and kind == "roof" and self.symbol_ms:
            self._sym_deadline = t + self.symbol_ms
        elif not g.awaiting_symbol:
            self._sym_deadline = _NEVER
        if g.result is not None:
            self._sym_deadline = _NEVER
        if g.tiebreak_seats and kind == "collapse":
            self._emit("tiebreak", {"seats": g.tiebreak_seats[:]})
        if not g.tied:
            for s in range(SEATS):
                self._tb_count[s] = 0
                self._tb_deadline[s] = _NEVER
        key = (g.turn, g.direction, g.over)
        if turn_changed or key != self._last_turn:
            self._last_turn = key
            if not g.over:
                self._emit("turn", {"seat": g.turn, "direction": "cw" if g.direction > 0 else "ccw",
                                    "hands": g.hands[:], "pile": g.pile,
                                    "walls_left": g.walls_left, "owes_rhino": g.owes_rhino})
        if g.over and not was_over:
            self._emit("result", {"result": g.result, "winners": g.winners[:],
                                  "loser": g.loser, "hands": g.hands[:]})
        self.det.expect_rhino(bool(g.owes_rhino))
        self._dirty_cues()
        if self._early is not None:
            if kind == "roof" and (g.awaiting_symbol or getattr(g, "final_symbol", False)):
                self._early_symbol(self._now if self._now > t else t)  # the held press
            elif kind == "collapse":
                self._early = None  # the tower fell: that press belonged to nothing
        self._arm()

    def _track_effects(self, t, kind, effects):
        """Cues that last beyond one input: skipped (until the turn passes again), take a card
        (until the first piece, or _DRAW_MS), hand-over (until the next roof). Used live and
        when a log is replayed at boot, so a resumed game shows the same. True: turn passed."""
        g = self.game
        turn_changed = False
        for name, seat in effects:
            if name == "turn":
                turn_changed = True
        if turn_changed:
            self._skipped = _NO_SEAT
            self._draw_seat = _NO_SEAT
            self._handover = _NO_SEAT
        if kind == "wall" or kind == "roof" or kind == "rhino":
            if g.turn == self._draw_seat and not turn_changed:
                self._draw_seat = _NO_SEAT
            if kind == "roof" and not g.over:
                self._handover = _NO_SEAT
        for name, seat in effects:
            if name == "skipped":
                self._skipped = seat
            elif name == "draw":
                self._draw_seat = seat
                self._draw_until = t + _DRAW_MS
            elif name == "handover":
                self._handover = seat
        return turn_changed

    def _effect_seat(self, effects, name):
        for n, seat in effects:
            if n == name and seat is not None:
                return seat
        return self.game.turn if self.game is not None else _NO_SEAT

    # ------------------------------------------------------------------ buttons

    def _seat_button(self, t, phys, long):
        g = self.game
        if g is None:
            self._lobby_seat(phys)
            return
        gs = self.game_seat(phys)
        if gs is None:
            return  # not playing: nothing to do
        if g.tiebreak_seats and gs in g.tied:
            if long:
                self._tb_commit(t, phys)
            else:
                if self._tb_count[phys] < 99:
                    self._tb_count[phys] += 1
                self._tb_deadline[phys] = t + _TIEBREAK_MS
                self._dirty_cues()
            return
        if g.over:
            return
        if g.double_pending and gs == (g.turn + 1) % g.players:
            # Rule 6: the left neighbour says "my card goes on the tower" with their button.
            self._input(t, "neighbor", src="button")
            return
        self._emit("ignored", {"button": "seat%d" % phys, "why": "nothing to do for this seat now"})

    def _tb_commit(self, t, phys):
        g = self.game
        gs = self.game_seat(phys)
        count = self._tb_count[phys]
        self._tb_count[phys] = 0
        self._tb_deadline[phys] = _NEVER
        if g is None or gs is None or not g.tiebreak_seats:
            return
        self._input(t, "tiebreak", seat=gs, symbols=count, src="button")

    def _symbol_button(self, t, symbol):
        g = self.game
        if g is None:
            if symbol == "reverse":
                # Lobby: "reverse" turns the foundation card over: easy <-> expert.
                self.side = "expert" if self.side == "easy" else "easy"
                self._emit("lobby", self._lobby_fields())
                self._dirty_cues()
            return
        if not g.awaiting_symbol and not g.over and g.result is None and not g.double_pending:
            # Pressed before the roof has settled (children press at once; the detector needs
            # a moment of stillness): keep the press for _EARLY_MS and apply it to that roof.
            self._early = symbol
            self._early_until = t + _EARLY_MS
            self._emit("held", {"symbol": symbol, "until_ms": self._early_until})
            return
        self._input(t, "symbol", symbol=symbol, src="button")

    def _early_symbol(self, t):
        """Apply a symbol pressed just before its roof settled (or let the rules refuse it)."""
        symbol = self._early
        self._early = None
        if symbol is not None and self.game is not None:
            self._input(t, "symbol", symbol=symbol, src="button")

    def _lobby_seat(self, phys):
        if phys in self.joined:
            self.joined.remove(phys)
        else:
            self.joined.append(phys)
        self._emit("lobby", self._lobby_fields())
        self._dirty_cues()

    def _lobby_fields(self):
        return {"joined": self.joined[:], "side": self.side,
                "first": self.joined[0] if self.joined else None}

    def _menu_button(self, t, long):
        if self._menu_until:
            self._menu_until = 0  # any menu press closes the open menu
            self._emit("menu", {"open": False})
        elif long:
            self._menu_until = t + _MENU_MS
            self._emit("menu", {"open": True, "choices": {
                "reverse": "undo a false collapse", "skip": "declare a missed collapse",
                "draw": "calibrate", "double": "brightness", "rhino": "new game",
                "seat0_long": "self-test"}})
        elif self.calib is not None:
            appstore.calib_cancel(self)
        elif self.game is None:
            if len(self.joined) >= 2:
                self._start_from_lobby(t)
            else:
                self._flash_cue(t, "warning", _NO_SEAT)
                self._emit("warning", {"message": "at least 2 seats must join before the start"})
        elif self.game.over:
            self._to_lobby()
        self._dirty_cues()

    def _menu_choice(self, t, name):
        g = self.game
        if name == "double":
            i = self.brightness_level()
            self.brightness = BRIGHTNESS_LEVELS[(i + 1) % len(BRIGHTNESS_LEVELS)]
            appstore.save_options(self)
            self._menu_until = t + _MENU_MS  # stays open for the next step
            self._emit("options", self._options())
            self._dirty_cues()
            return
        self._menu_until = 0
        self._emit("menu", {"open": False, "chose": name})
        if name == "reverse":
            if g is None:
                self._emit("warning", {"message": "no game: nothing to undo"})
            else:
                self._input(t, "undo_collapse", src="menu")
        elif name == "skip":
            if g is None or g.over:
                self._emit("warning", {"message": "no game in play: no collapse to declare"})
            else:
                self._input(t, "collapse", src="menu")
        elif name == "draw":
            if g is not None and not g.over:
                self._emit("warning", {"message": "finish or abandon the game before calibrating"})
            else:
                self._calib_seq = list(appstore.BOARD_CALIB)
                appstore.next_board_calib(self, t)
        elif name == "rhino":
            self._to_lobby()
        self._dirty_cues()

    # ------------------------------------------------------------------ game start / end

    def _start_from_lobby(self, t):
        seats = sorted(self.joined)
        first = seats.index(self.joined[0])
        self.start_game(t, seats, first, self.side)

    def start_game(self, t, seats, first=0, side="easy"):
        """Start a game now for physical ``seats`` (clockwise); ``first`` is a game seat."""
        g = rules.Game(len(seats), first, side, self.grace_ms)  # ValueError for a bad setup
        head = gamelog.header(len(seats), first, side, self.grace_ms)
        head = head[:-1] + ', "seats": %s}' % json.dumps(list(seats))
        appstore.archive_log(self)
        self.game = g
        self.seats = list(seats)
        self.joined = [seats[first]] + [s for s in seats if s != seats[first]]
        self.side = side
        self._gt0 = t
        appstore.log(self, head)
        self._reset_game_cues()
        self.det.expect_rhino(False)
        retare = getattr(self.det, "retare", None)
        if retare is not None:
            retare()
        self._emit("game", {"players": g.players, "first": first, "side": side,
                            "seats": self.seats[:], "grace_ms": self.grace_ms})
        self._after_input(t, "start", False)

    def _reset_game_cues(self):
        self._sym_deadline = _NEVER
        self._early = None
        self._skipped = self._draw_seat = self._handover = _NO_SEAT
        self._flash = _C_OFF
        self._last_turn = None
        for s in range(SEATS):
            self._tb_count[s] = 0
            self._tb_deadline[s] = _NEVER

    def _to_lobby(self):
        """Back to the lobby (new game): the seats of the last game stay joined."""
        if self.game is not None:
            # The game log becomes last.jsonl now, so that a power cut in the lobby comes
            # back to the lobby, not to the game the family has just left.
            appstore.archive_log(self)
        self.game = None
        self._reset_game_cues()
        self._emit("lobby", self._lobby_fields())
        self._dirty_cues()

    # ------------------------------------------------------------------ timers

    def _timers(self, t):
        g = self.game
        if self._early is not None and self._early_until <= t:
            self._early_symbol(t)  # no roof came: the rules refuse it (error cue)
        if self._sym_deadline <= t:
            self._sym_deadline = _NEVER
            if g is not None and g.awaiting_symbol and not g.over:
                self._input(t, "symbol", symbol="none", src="timeout")
        for s in range(SEATS):
            if self._tb_deadline[s] <= t:
                self._tb_commit(t, s)
        if self._flash != _C_OFF and self._flash_until <= t:
            self._flash = _C_OFF
            self._dirty_cues()
        if self._draw_seat != _NO_SEAT and self._draw_until <= t:
            self._draw_seat = _NO_SEAT
            self._dirty_cues()
        if self._menu_until and self._menu_until <= t:
            self._menu_until = 0
            self._emit("menu", {"open": False, "timeout": True})
            self._dirty_cues()
        if self._fault_until and self._fault_until <= t:
            self._fault_until = 0
            self._dirty_cues()
        self._arm()

    def _arm(self):
        d = self._sym_deadline
        if self._early is not None and self._early_until < d:
            d = self._early_until
        for s in range(SEATS):
            if self._tb_deadline[s] < d:
                d = self._tb_deadline[s]
        if self._flash != _C_OFF and self._flash_until < d:
            d = self._flash_until
        if self._draw_seat != _NO_SEAT and self._draw_until < d:
            d = self._draw_until
        if self._menu_until and self._menu_until < d:
            d = self._menu_until
        if self._fault_until and self._fault_until < d:
            d = self._fault_until
        self._deadline = d

    def _flash_cue(self, t, name, seat):
        self._flash = _C_WARNING if name == "warning" else _C_ERROR
        self._flash_seat = seat
        self._flash_until = t + _FLASH_MS
        self._arm()
        self._dirty_cues()

    # ------------------------------------------------------------------ cues

    def _dirty_cues(self):
        self._dirty = True

    # ------------------------------------------------------------------ slow sample path

    def _update_special(self):
        self._special = bool(self.calib is not None or self.streaming or self._trace_path
                             or self.test is not None)

    def _slow_sample(self, t, raw, ax, ay, az):
        """Calibration, streaming and trace recording. True when the detector must not run."""
        if self.streaming or self._trace_path:
            row = "%d,%d,%s,%s,%s,%s" % (t, raw, ax, ay, az, self._input_col) if self.accel \
                else "%d,%d,,,,%s" % (t, raw, self._input_col)
            self._input_col = ""
            if self.streaming:
                self._emit("sample", {"row": row})
            if self._trace_path:
                self._cmds.trace_row(self, row)
        if self.test is not None:
            self.test.sample(t, raw, ax, ay, az)
            return True
        if self.calib is not None:
            appstore.calib_sample(self, t, raw)
            if t >= self._deadline:
                self._timers(t)
            return True
        return False

    def _options(self):
        return {"brightness": self.brightness, "grace_ms": self.grace_ms,
                "symbol_ms": self.symbol_ms, "sps": self.sps, "mirror": self.mirror,
                "hw_watchdog": self.hw_watchdog}

    def _new_detector(self):
        det = self.det
        if det is not None and self._make_detector is _default_detector:
            # The board's detector starts over in place. Its attribute table is full-size
            # already (3.5 KB on the 64-bit port); a new detector needs blocks that large
            # while the old one still holds its own (the virtual board ran out of memory so
            # at the end of a calibration: 18 KB free, no run over 640 bytes; docs/heap.md).
            det.__init__(self.cal, sps=self.sps, accel=self.accel)
        else:
            self.det = self._make_detector(self.cal, self.sps, self.accel)
        names = getattr(self.det, "EVENT_NAMES", None)
        if names is None:
            from referee import detector

            names = detector.EVENT_NAMES
        self._ev_names = names
        g = self.game
        if g is not None and not g.over:
            self.det.expect_rhino(bool(g.owes_rhino))

    # ------------------------------------------------------------------ commands

    def command(self, t_ms, line):
        """One serial command line in, exactly one reply line out (no newline)."""
        if self._cmds is None:
            commands = None
            for _ in range(2):
                try:
                    from referee import commands  # first command: load the host side now
                    break
                except MemoryError:
                    pass
                import gc

                # Outside the except block: there the failed attempt is still referenced and
                # a collect frees nothing (the retry failed every time on the virtual board).
                gc.collect()
            if commands is None:
                return protocol.error("out of memory: the board cannot load its commands")
            self._cmds = commands
        return self._cmds.command(self, t_ms, line)

    # ------------------------------------------------------------------ events

    def _emit(self, name, fields):
        ev = self._events
        if len(ev) >= _MAX_EVENTS:
            ev.pop(0)
            self.dropped_events += 1
        ev.append(protocol.event(name, fields))


def _input_column(base, long):
    """The trace's input column for a button (SPEC 3.2: ``seat:2``, ``symbol:skip``, ``menu``)."""
    if base.startswith("seat"):
        col = "seat:" + base[4:]
    elif base in SYMBOL_BUTTONS:
        col = "symbol:" + base
    else:
        col = base
    return col + ":long" if long else col


def _hex(buf):
    import binascii

    return binascii.hexlify(buf).decode()
