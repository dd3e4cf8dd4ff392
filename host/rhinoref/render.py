"""The one live view of a game, shared by ``rhinoref sim`` and ``rhinoref monitor``.

Usage::

    from rhinoref.render import View, make_renderer
    view = View(title="rhinoref sim", players=4)
    renderer = make_renderer(plain=None)      # rich Live on a terminal, plain lines otherwise
    with renderer:
        view.apply_event({"ev": "turn", "t_ms": 1200, "seat": 2})   # a board event line
        view.set_leds(frame, leds_per_seat=6, order="GRB")          # the LED frame mirror
        renderer.event(view)     # print/scroll the events added since the last call
        renderer.draw(view)      # redraw the panel (rate-limited on a terminal)

A :class:`View` is plain data: what the board believes (turn, direction, hands, result, the
cue shown at each seat, the LED colours) plus a picture of the tower built from the placement
events, and a scrolling list of events. It is filled the same way in the simulator (from the
unchanged firmware's ``Referee.pop_events()`` and ``Referee.frame``) and in the monitor (from
the board's event lines), so both commands show the same thing.

Two renderers: :class:`LiveRenderer` (``rich.live.Live``: the five seat lights as coloured
blocks, each seat's cue name and pattern, hand, whose turn and which way play goes, the tower,
the latest events) and :class:`PlainRenderer` (one line per event, nothing else; used when
stdout is not a terminal or with ``--plain``; stable text that scripts and tests can read).
"""

import json
import sys
import time
from collections import deque

SEATS = 5

# How board events read in the event list. Unknown events are shown with their fields, so a
# newer firmware never breaks the view.
_SYMBOL_WORDS = {
    "none": "no symbol",
    "reverse": "reverse (direction flips)",
    "skip": "skip (next player loses a turn)",
    "draw": "draw (next player takes a card)",
    "double": "double (place a second roof)",
    "rhino": "Rhino Hero (next player moves him)",
}


def _seat_name(seat):
    return "seat %d" % seat if isinstance(seat, int) else "?"


def decode_frame(frame, leds_per_seat, order="GRB", seats=SEATS):
    """Split an LED frame (3 bytes per LED, ``order`` GRB or RGB) into per-seat RGB lists.

    The strip runs seat 0 first, clockwise, ``leds_per_seat`` LEDs each (the board's layout);
    LEDs beyond ``seats * leds_per_seat`` (if any) are ignored.
    """
    order = order.upper()
    ri, gi, bi = order.index("R"), order.index("G"), order.index("B")
    out = []
    n = len(frame) // 3
    for s in range(seats):
        leds = []
        for k in range(leds_per_seat):
            i = s * leds_per_seat + k
            if i >= n:
                leds.append((0, 0, 0))
                continue
            base = 3 * i
            leds.append((frame[base + ri], frame[base + gi], frame[base + bi]))
        out.append(leds)
    return out


def screen_colour(rgb):
    """A brightness-capped LED colour made visible on a screen: scaled so the brightest channel
    reaches full, with the hue kept. A dark LED stays dark (None)."""
    r, g, b = rgb
    top = max(r, g, b)
    if top < 2:
        return None
    scale = 255.0 / top
    return (int(r * scale), int(g * scale), int(b * scale))


class View:
    """Everything the live panel shows; updated from board events and the LED frame."""

    def __init__(self, title="rhinoref", players=None, side=None, max_events=200):
        self.title = title
        self.subtitle = ""
        self.players = players
        self.side = side
        self.t_ms = 0
        self.turn = None
        self.direction = "cw"
        self.hands = []
        self.pile = None
        self.walls_left = None
        self.owes_rhino = False
        self.awaiting_symbol = False
        self.double_pending = False
        self.tiebreak_seats = []
        self.over = False
        self.winners = []
        self.loser = None
        self.result = None
        self.joined = []
        # Physical seat of each game seat (a 3-player game may sit at seats 0, 2 and 4); the
        # rules state counts game seats, the lights and the event texts use physical ones.
        self.seats = None
        self.seat_cues = [""] * SEATS
        # Per seat, the list of cue names as the firmware's cues.render takes them; when set,
        # the live renderer animates the lights itself at wall-clock time with the firmware's
        # own cue table, so blink and chase patterns look right at any simulation speed.
        self.cue_lists = None
        self.cue_counts = None
        self.leds_per_seat = 6
        self.leds = [[] for _ in range(SEATS)]
        # Tower as the board believes it: one [walls, roof_placed] per floor, Rhino Hero's floor.
        self.floors = []
        self.rhino_floor = None
        self._undo_tower = None
        self.fallen = None        # floors the tower had when it last collapsed
        self.events = deque(maxlen=max_events)
        self._hands_before = None
        self.connected = True
        self.status = ""
        self._new = 0  # events not yet handed to a renderer

    # -- events -------------------------------------------------------------------------------
    def add_event(self, t_ms, text):
        self.events.append((t_ms, text))
        self._new += 1

    def take_new_events(self):
        """The events added since the last call (for the plain renderer)."""
        n = min(self._new, len(self.events))
        self._new = 0
        if n == 0:
            return []
        return list(self.events)[-n:]

    # -- state ----------------------------------------------------------------------------------
    def phys(self, gs):
        """The physical seat (0-4 around the table) of game seat ``gs``."""
        if isinstance(gs, int) and self.seats and 0 <= gs < len(self.seats):
            return self.seats[gs]
        return gs

    def game_seat(self, phys):
        if self.seats:
            return self.seats.index(phys) if phys in self.seats else None
        players = self.players or 0
        return phys if phys < players else None

    def set_state(self, state):
        """Take the referee's state dict (SPEC 3.1 replay fields, plus what else is there)."""
        for key in ("turn", "hands", "pile", "walls_left", "owes_rhino", "over", "winners",
                    "loser", "result", "awaiting_symbol", "double_pending", "tiebreak_seats",
                    "players", "side"):
            if key in state:
                setattr(self, key, state[key])
        direction = state.get("direction")
        if direction in (1, "cw"):
            self.direction = "cw"
        elif direction in (-1, "ccw"):
            self.direction = "ccw"
        if self.players is None and self.hands:
            self.players = len(self.hands)

    def set_leds(self, frame, leds_per_seat, order="GRB"):
        self.leds = decode_frame(frame, leds_per_seat, order)

    def set_seat_cues(self, cues, counts=None):
        """Per seat, the cue(s) shown: a list of 5 (each a name or a list of names, as the
        firmware's ``seat_cues()`` gives them) or a dict seat -> name(s)."""
        names = [""] * SEATS
        lists = [[] for _ in range(SEATS)]
        items = cues.items() if isinstance(cues, dict) else enumerate(list(cues)[:SEATS])
        for seat, name in items:
            try:
                seat = int(seat)
            except (TypeError, ValueError):
                continue
            if 0 <= seat < SEATS:
                names[seat] = _cue_text(name)
                lists[seat] = _cue_list(name)
        self.seat_cues = names
        self.cue_lists = lists
        if counts is not None:
            self.cue_counts = bytes(max(0, min(255, int(c or 0))) for c in list(counts)[:SEATS])

    def animate(self, wall_ms, brightness=255):
        """Render the LED colours from ``cue_lists`` with the firmware's cue table at
        ``wall_ms``; no-op (keeps the mirrored frame) when there are no cue lists."""
        if self.cue_lists is None:
            return False
        cues = _cues_module()
        if cues is None:
            return False
        frame = bytearray(3 * SEATS * self.leds_per_seat)
        try:
            cues.render(frame, int(wall_ms), self.cue_lists, brightness, self.cue_counts)
        except (ValueError, IndexError, TypeError):
            return False
        self.leds = decode_frame(frame, self.leds_per_seat, "GRB")
        return True

    # -- tower -----------------------------------------------------------------------------------
    def _top_open_floor(self):
        """The floor being built (walls placed, no roof yet), creating it if needed."""
        if not self.floors or self.floors[-1][1]:
            self.floors.append([0, False])
        return self.floors[-1]

    def tower_walls(self, n=1):
        self._top_open_floor()[0] += n

    def tower_roof(self):
        floor = self._top_open_floor()
        floor[1] = True

    def tower_rhino(self):
        roofs = self.roof_count()
        self.rhino_floor = roofs if roofs else None

    def tower_collapse(self):
        self._undo_tower = ([list(f) for f in self.floors], self.rhino_floor)
        self.fallen = self.roof_count()
        self.floors = []
        self.rhino_floor = None

    def tower_undo(self):
        if self._undo_tower is not None:
            self.floors, self.rhino_floor = self._undo_tower
            self._undo_tower = None
            self.fallen = None

    def tower_reset(self):
        self.floors = []
        self.rhino_floor = None
        self._undo_tower = None
        self.fallen = None

    def roof_count(self):
        return sum(1 for f in self.floors if f[1])

    def wall_count(self):
        return sum(f[0] for f in self.floors)

    # -- board event lines -----------------------------------------------------------------------
    def apply_event(self, ev):
        """Update the view from one board event (a dict or a JSON line) and list it.

        Returns the text added to the event list, or None when the event only updates state
        (LED frame mirror, sample stream).
        """
        if isinstance(ev, (str, bytes)):
            try:
                ev = json.loads(ev)
            except ValueError:
                return None
        if not isinstance(ev, dict):
            return None
        name = ev.get("ev")
        t_ms = ev.get("t_ms", self.t_ms)
        if isinstance(t_ms, (int, float)):
            self.t_ms = t_ms
        self._hands_before = list(self.hands)
        state = ev.get("state")
        if isinstance(state, dict):
            self.set_state(state)
        for key in ("turn", "hands", "pile", "walls_left", "owes_rhino", "winners", "loser",
                    "result", "direction", "over"):
            if key in ev and name not in ("frame", "sample"):
                self.set_state({key: ev[key]})
        text = self._describe(name, ev)
        if text is not None:
            self.add_event(t_ms, text)
        return text

    def _describe(self, name, ev):
        """The event list's text for one board event (docs/board.md lists them), or None."""
        seat = ev.get("seat")
        if name in ("frame", "leds"):
            data = ev.get("grb") or ev.get("frame") or ev.get("data")
            if isinstance(data, str):
                try:
                    order = "GRB" if "grb" in ev else ev.get("order", "GRB")
                    frame = bytes.fromhex(data)
                    self.leds_per_seat = max(1, len(frame) // (3 * SEATS))
                    self.set_leds(frame, self.leds_per_seat, order)
                except ValueError:
                    pass
            return None
        if name == "cues":
            self.set_seat_cues(ev.get("seats") or ev.get("cues") or [], ev.get("counts"))
            return None
        if name in ("sample", "samples", "boot", "options", "trace", "calib", "ignored"):
            return None
        if name == "lobby":
            self.joined = list(ev.get("joined") or [])
            self.side = ev.get("side", self.side)
            self.players = None
            self.turn = None
            self.over = False
            if not self.joined:
                return "waiting for players"
            return "joined: %s (%s side; seat %s starts)" % (
                ", ".join(map(str, self.joined)), self.side, ev.get("first"))
        if name in ("game", "new_game", "start"):
            self.tower_reset()
            self.over = False
            self.winners = []
            self.loser = None
            self.result = None
            self.tiebreak_seats = []
            if "players" in ev:
                self.players = ev["players"]
            if "side" in ev:
                self.side = ev["side"]
            if isinstance(ev.get("seats"), list):
                self.seats = list(ev["seats"])
            bits = []
            if "players" in ev:
                bits.append("%s players" % ev["players"])
            if "first" in ev:
                bits.append("seat %s starts" % self.phys(ev["first"]))
            if "side" in ev:
                bits.append("%s side" % ev["side"])
            return "new game" + (": " + ", ".join(bits) if bits else "")
        if name == "resumed":
            return "game resumed after a restart (%s inputs replayed)" % ev.get("inputs", "?")
        if name == "turn":
            if seat is not None:
                self.turn = seat
            drew = (self._hands_before is not None and isinstance(seat, int)
                    and seat < len(self.hands) and seat < len(self._hands_before)
                    and self.hands[seat] > self._hands_before[seat])
            way = self.direction
            text = "seat %s's turn (%s)" % (self.phys(self.turn), "clockwise" if way == "cw" else "counter-clockwise")
            if drew:
                text += ", draws a card"
            if ev.get("owes_rhino"):
                text += ", Rhino Hero must move first"
            return text
        if name == "input":
            return self._input(ev)
        if name == "refused":
            return "refused %s: %s" % (ev.get("in", "input"), ev.get("error", ""))
        if name == "detect":
            what = ev.get("event")
            if what in ("wall", "walls2", "roof", "rhino", "collapse"):
                return None  # shown as the referee's input (or ignored outside a game)
            return "(detector: %s)" % {"bump": "table bump", "rhino_lift": "Rhino Hero lifted",
                                       "removed": "piece taken away", "shift": "load shifted"}.get(what, what)
        if name == "collapse":
            loser = ev.get("loser")
            return "COLLAPSE" + ("" if loser is None else ": seat %s loses" % self.phys(loser))
        if name == "tiebreak":
            seats = ev.get("seats")
            if isinstance(seats, list):
                self.tiebreak_seats = seats
                return "tie-break: seats %s press their seat button once per special card" % (
                    ", ".join(str(self.phys(x)) for x in seats))
            return _with_seat("tie-break count %s" % ev.get("symbols", "?"), self.phys(seat))
        if name in ("result", "end", "over"):
            self.over = True
            self.tiebreak_seats = []
            return self.result_text()
        if name == "menu":
            if ev.get("open"):
                return "parent menu open"
            if ev.get("chose"):
                return "parent menu: %s" % ev["chose"]
            return None
        if name in ("warning", "error"):
            return "%s: %s" % (name, ev.get("message") or ev.get("text") or ev.get("error") or "")
        if name == "fault":
            if "sensor" in ev:
                return "sensor fault: %s %s" % (ev["sensor"], "on" if ev.get("on", True) else "cleared")
            return "fault: %s %s" % (ev.get("file", ""), ev.get("message", ""))
        # The simple shapes (also what the simulator's ideal mode emits).
        if name in ("wall", "walls2", "roof", "rhino"):
            return self._input({"in": name, "seat": seat, "warning": ev.get("warning")})
        if name == "symbol":
            return self._input({"in": "symbol", "symbol": ev.get("symbol"), "seat": seat,
                                "warning": ev.get("warning")})
        if name in ("undo", "undo_collapse"):
            self.tower_undo()
            return "collapse undone"
        if name == "join":
            if seat is not None and seat not in self.joined:
                self.joined.append(seat)
            return "%s joins" % _seat_name(seat)
        rest = {k: v for k, v in ev.items() if k not in ("ev", "t_ms")}
        return "%s %s" % (name, json.dumps(rest, sort_keys=True)) if rest else str(name)

    def _input(self, ev):
        """A referee input the board accepted (``ev: input``): update the tower and describe."""
        kind = ev.get("in")
        who = self.phys(ev.get("seat") if kind == "tiebreak" else self.turn)
        by = "" if who is None else "seat %s: " % who
        src = ev.get("src")
        if kind == "wall":
            self.tower_walls(1)
            text = by + "wall placed"
        elif kind == "walls2":
            self.tower_walls(2)
            text = by + "two walls placed"
        elif kind == "roof":
            self.tower_roof()
            text = by + "roof placed"
        elif kind == "rhino":
            self.tower_rhino()
            text = by + "Rhino Hero set down"
        elif kind == "symbol":
            sym = ev.get("symbol", "none")
            if src == "timeout":
                text = by + "no symbol pressed: a plain card"
            else:
                text = by + "symbol " + _SYMBOL_WORDS.get(sym, str(sym))
        elif kind == "neighbor":
            text = "left neighbour hands %s a card" % ("seat %s" % who if who is not None else "over")
        elif kind == "collapse":
            self.tower_collapse()
            return "collapse %s" % ("declared from the menu" if src == "menu" else "detected") + _status_suffix(ev)
        elif kind == "undo_collapse":
            self.tower_undo()
            text = "collapse undone"
        elif kind == "tiebreak":
            text = by + "tie-break count %s" % ev.get("symbols", "?")
        else:
            text = by + str(kind)
        if src in ("menu", "host"):
            text += " (%s)" % src
        return text + _status_suffix(ev)

    def result_text(self):
        if self.result is None and not self.winners:
            if self.tiebreak_seats:
                return "tie-break: seats %s enter their counts" % ", ".join(
                    str(self.phys(x)) for x in self.tiebreak_seats)
            return "game over"
        how = {"emptied_hand": "emptied hand", "collapse": "collapse",
               "walls_used": "all walls used"}.get(self.result, str(self.result))
        win = ", ".join(_seat_name(self.phys(s)) for s in self.winners) or "nobody yet"
        text = "GAME OVER (%s): winner %s" % (how, win)
        if len(self.winners) > 1:
            text = "GAME OVER (%s): winners %s" % (how, win)
        if self.loser is not None:
            text += "; %s loses" % _seat_name(self.phys(self.loser))
        return text


def _cues_module():
    try:
        from .firmware import fw

        return fw("cues")
    except ImportError:
        return None


def _cue_list(name):
    if not name:
        return []
    if isinstance(name, (list, tuple)):
        return [str(n) for n in name if n]
    if isinstance(name, dict):
        n = name.get("cue") or name.get("name")
        return [str(n)] if n else []
    return [str(name)]


def cue_words(name):
    """``turn_cw`` -> ``turn_cw (chase)``: a cue name with its pattern from the firmware's table."""
    cues = _cues_module()
    table = getattr(cues, "CUES", None) if cues is not None else None
    if table and name in table:
        pattern = table[name][0]
        names = getattr(cues, "PATTERN_NAMES", ())
        if 0 <= pattern < len(names) and name != "off":
            return "%s (%s)" % (name, names[pattern])
    return name


def _cue_text(name):
    return " + ".join(cue_words(n) for n in _cue_list(name) if n != "off")


def _with_seat(words, seat):
    return words if seat is None else "%s: %s" % (_seat_name(seat), words)


def _status_suffix(ev):
    msg = ev.get("warning") or ev.get("error") or ev.get("message")
    if not msg:
        return ""
    kind = "error" if ev.get("error") else "warning"
    return " [%s: %s]" % (kind, msg)


# -- renderers ------------------------------------------------------------------------------------

class PlainRenderer:
    """One line per event on ``file``; ``draw`` does nothing (no terminal to redraw)."""

    live = False

    def __init__(self, file=None):
        self.file = file if file is not None else sys.stdout

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        pass

    def stop(self):
        try:
            self.file.flush()
        except (OSError, ValueError):
            pass

    def event(self, view):
        for t_ms, text in view.take_new_events():
            self.file.write(format_line(t_ms, text) + "\n")

    def draw(self, view, force=False):
        pass

    def line(self, text):
        """A line outside the event list (summary, status)."""
        self.file.write(text + "\n")


def format_line(t_ms, text):
    """``  12.345 s  seat 2: roof placed`` — the plain output's line format."""
    return "%9.3f s  %s" % ((t_ms or 0) / 1000.0, text)


class LiveRenderer:
    """The panel on a terminal with ``rich.live.Live``, redrawn at most ``fps`` times a second."""

    live = True

    def __init__(self, console=None, fps=12.0, events_shown=12):
        from rich.console import Console

        self.console = console if console is not None else Console()
        self.min_interval = 1.0 / fps
        self.events_shown = events_shown
        self._live = None
        self._last = 0.0

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        from rich.live import Live

        self._live = Live(console=self.console, auto_refresh=False, transient=False,
                          redirect_stdout=False, redirect_stderr=False)
        self._live.start()

    def stop(self, view=None):
        if self._live is not None:
            self._live.stop()
            self._live = None

    def event(self, view):
        view.take_new_events()  # the panel shows the list itself

    def draw(self, view, force=False):
        now = time.monotonic()
        if not force and now - self._last < self.min_interval:
            return
        self._last = now
        view.animate(now * 1000.0)
        if self._live is not None:
            self._live.update(render_view(view, self.events_shown), refresh=True)

    def line(self, text):
        self.console.print(text)


def make_renderer(plain=None, file=None, console=None):
    """``plain=None``: rich Live when ``file`` (stdout) is a terminal, plain lines otherwise."""
    out = file if file is not None else sys.stdout
    if plain is None:
        try:
            plain = not out.isatty()
        except (AttributeError, ValueError):
            plain = True
    if plain:
        return PlainRenderer(out)
    return LiveRenderer(console=console)


# -- the rich panel ---------------------------------------------------------------------------------

_ARROW = {"cw": "↻ clockwise", "ccw": "↺ counter-clockwise"}


def _lights(leds):
    from rich.text import Text

    text = Text()
    if not leds:
        text.append("○ ○ ○ ○ ○ ○", style="grey30")
        return text
    for i, rgb in enumerate(leds):
        colour = screen_colour(rgb)
        if i:
            text.append(" ")
        if colour is None:
            text.append("○", style="grey30")
        else:
            text.append("●", style="bold rgb(%d,%d,%d)" % colour)
    return text


def seats_table(view):
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False, expand=False)
    table.add_column("seat")
    table.add_column("lights", no_wrap=True)
    table.add_column("cue", no_wrap=True, max_width=34)
    table.add_column("hand", justify="right")
    table.add_column("", no_wrap=True)
    for seat in range(SEATS):
        gs = view.game_seat(seat)
        in_play = gs is not None if view.players else (seat in view.joined)
        label = Text("%d" % seat, style="bold" if in_play else "grey50")
        hand = ""
        if gs is not None and gs < len(view.hands):
            hand = "%d" % view.hands[gs]
        marks = []
        if gs is not None:
            if gs == view.turn and not view.over and not view.tiebreak_seats and view.loser is None:
                marks.append(("◀ turn", "bold yellow"))
            if gs in (view.winners or []):
                marks.append(("★ wins", "bold green"))
            if view.loser == gs:
                marks.append(("✗ loses", "bold red"))
            if gs in (view.tiebreak_seats or []):
                marks.append(("# count", "bold magenta"))
        mark = Text()
        for i, (words, style) in enumerate(marks):
            if i:
                mark.append(" ")
            mark.append(words, style=style)
        table.add_row(label, _lights(view.leds[seat] if seat < len(view.leds) else []),
                      Text(view.seat_cues[seat] or ("" if in_play else "-"), style="cyan"),
                      hand, mark)
    return table


def tower_text(view, max_floors=16):
    """The tower as the board believes it, one line per floor, top floor first: the roof drawn
    over its walls (``█`` a wall, ``▀`` the roof card), Rhino Hero marked on his roof."""
    from rich.text import Text

    text = Text()
    floors = view.floors
    shown = floors[-max_floors:]
    hidden = len(floors) - len(shown)
    for index in range(len(floors) - 1, hidden - 1, -1):
        walls, roof = floors[index]
        number = index + 1
        text.append("%2d " % number, style="grey50")
        if walls >= 3:
            body = ["█", "▀", "▀", "▀", "█", "▀", "▀", "▀", "█"]
        elif walls == 2:
            body = ["█", "▀", "▀", "▀", "▀", "▀", "▀", "▀", "█"]
        elif walls == 1:
            body = ["▀", "▀", "▀", "▀", "█", "▀", "▀", "▀", "▀"]
        else:
            body = ["▀"] * 9
        for ch in body:
            if ch == "█":
                text.append(ch, style="yellow")
            elif roof:
                text.append(ch, style="bold red")
            else:
                text.append(" ")
        if walls > 2:
            text.append(" %d walls" % walls, style="grey50")
        if not roof:
            text.append(" building", style="grey50")
        if view.rhino_floor == number and roof:
            text.append(" ◆ Rhino Hero", style="bold bright_white")
        text.append("\n")
    if hidden:
        text.append("   ... %d floors below\n" % hidden, style="grey50")
    if not floors and view.fallen is not None:
        text.append("   ▚▞▚▞▚▞▚▞▚", style="bold red")
        text.append(" the tower fell (%d floor%s)\n" % (view.fallen, "" if view.fallen == 1 else "s"),
                    style="bold red")
    text.append("   ═════════", style="bold white")
    text.append(" foundation%s" % (" (%s)" % view.side if view.side else ""), style="grey50")
    roofs = view.roof_count()
    text.append("\n   %d floor%s, %d wall%s" % (roofs, "" if roofs == 1 else "s",
                                               view.wall_count(), "" if view.wall_count() == 1 else "s"))
    if view.walls_left is not None:
        text.append(", %d walls left" % view.walls_left)
    return text


def events_text(view, shown=12):
    from rich.text import Text

    text = Text()
    items = list(view.events)[-shown:]
    for i, (t_ms, line) in enumerate(items):
        if i:
            text.append("\n")
        text.append("%8.1f s " % ((t_ms or 0) / 1000.0), style="grey50")
        style = None
        if line.startswith("COLLAPSE") or line.startswith("GAME OVER"):
            style = "bold red" if line.startswith("COLLAPSE") else "bold green"
        elif "warning" in line or line.startswith("error"):
            style = "yellow"
        text.append(line, style=style)
    if not items:
        text.append("(no events yet)", style="grey50")
    return text


def render_view(view, events_shown=12):
    """The whole panel as one rich renderable (also used by tests via a recording Console)."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    head = Text()
    head.append(view.title, style="bold")
    if view.subtitle:
        head.append("  " + view.subtitle, style="grey62")
    head.append("   t = %s" % _clock(view.t_ms))
    if not view.connected:
        head.append("   board disconnected, waiting for it...", style="bold red")
    play = Text()
    if view.over:
        play.append(view.result_text(), style="bold green")
    elif view.tiebreak_seats:
        play.append(view.result_text(), style="bold magenta")
    elif view.turn is not None:
        play.append("seat %s to play, %s" % (view.phys(view.turn), _ARROW.get(view.direction, view.direction)),
                    style="bold yellow")
        extras = []
        if view.owes_rhino:
            extras.append("must move Rhino Hero")
        if view.awaiting_symbol:
            extras.append("symbol awaited")
        if view.double_pending:
            extras.append("double: second roof")
        if extras:
            play.append("  (" + ", ".join(extras) + ")", style="yellow")
    else:
        play.append("waiting for players", style="grey62")
    if view.pile is not None:
        play.append("   pile %s" % view.pile, style="grey62")
    if view.status:
        play.append("   " + view.status, style="grey62")

    grid = Table.grid(padding=(0, 3))
    grid.add_column()
    grid.add_column()
    grid.add_row(Panel(seats_table(view), title="seat lights", border_style="grey42"),
                 Panel(tower_text(view), title="tower", border_style="grey42"))
    return Group(head, play, grid,
                 Panel(events_text(view, events_shown), title="events", border_style="grey42"))


def _clock(t_ms):
    t = int((t_ms or 0) // 100)
    minutes, tenths = divmod(t, 600)
    return "%02d:%04.1f" % (minutes, tenths / 10.0)
