"""The Rhino Hero rules as a small state machine (SPEC section 2), shared by the board and the host.

Usage::

    from referee import rules
    g = rules.Game(3, first=0, side="easy")     # seats 0..2, seat 0 starts
    g.apply(0, "wall")                         # -> rules.OK
    g.apply(800, "roof")                       # seat 0 now holds 4 cards
    g.apply(1500, "symbol", symbol="skip")     # seat 1 is skipped
    g.turn                                     # 2
    g.effects                                  # [("skipped", 1), ("turn", 2)]
    g.state()["hands"]                         # [4, 5, 5]

Every input returns ``OK``, ``WARNING`` (counted as what it physically is, but out of order: rule
12) or ``ERROR`` (refused: nothing changed). ``g.message`` says why, ``g.effects`` lists the light
cues the input calls for as ``(name, seat)`` pairs. The state depends only on the inputs, so
replaying a game log (``referee.gamelog``) rebuilds it exactly: that is how the board resumes a
game after a power cut and how ``rhinoref replay`` works.

Each rule lives in one place, marked with its SPEC rule number ("rule 6"); "finer points" are the
SPEC's paragraph of that name. Seats are numbered clockwise; the left neighbour is the next seat
clockwise whatever the direction of play.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# Status of one input.
OK = const(0)
WARNING = const(1)
ERROR = const(2)

SYMBOLS = ("none", "reverse", "skip", "draw", "double", "rhino")
INPUTS = ("wall", "roof", "symbol", "rhino", "neighbor", "collapse", "tiebreak", "undo_collapse")
RESULTS = ("emptied_hand", "collapse", "walls_used")

ROOF_CARDS = const(31)
WALLS = const(28)
GRACE_MS = const(2000)
SIDES = ("easy", "expert")

# Everything that an undo must restore (rule 12): the whole game state, nothing else.
_STATE = (
    "turn", "direction", "hands", "pile", "walls_left", "roofs_placed", "handed", "floor_walls",
    "awaiting_symbol", "double_pending", "second_roof", "owes_rhino", "rhino_on_tower",
    "over", "winners", "loser", "result", "tied", "tiebreak_seats", "counts", "final_symbol",
    "roof_seat", "roof_t_ms", "grace_open",
)


def _whole(x):
    # bool is not an int on MicroPython but is on CPython: refuse it on both.
    return type(x) is int and x >= 0


class Game:
    """One game of Rhino Hero as the referee sees it. Attributes are read-only for callers."""

    def __init__(self, players, first=0, side="easy", grace_ms=GRACE_MS):
        if type(players) is not int or not 2 <= players <= 5:
            raise ValueError("players must be a whole number from 2 to 5, not %r" % (players,))
        if type(first) is not int or not 0 <= first < players:
            raise ValueError("first must be a seat from 0 to %d, not %r" % (players - 1, first))
        if side not in SIDES:
            raise ValueError("side must be 'easy' or 'expert', not %r" % (side,))
        if not _whole(grace_ms):
            raise ValueError("grace_ms must be a whole number of milliseconds >= 0, not %r"
                             % (grace_ms,))
        self.players = players
        self.first = first
        self.side = side
        self.grace_ms = grace_ms
        # Rule 1: setup. 7 cards each with 2 players, else 5; the rest of the 31 is the pile.
        cards = 7 if players == 2 else 5
        self.hands = [cards] * players
        self.pile = ROOF_CARDS - cards * players
        self.walls_left = WALLS
        self.turn = first
        self.direction = 1          # 1 clockwise, -1 counter-clockwise
        self.roofs_placed = 0       # roof cards on the tower, own or handed over
        self.handed = 0             # a card handed over by the left neighbour, not yet placed
        self.floor_walls = 0        # walls built since the last roof
        self.awaiting_symbol = False
        self.double_pending = False  # rule 6: the player must build a second floor
        self.second_roof = False    # the roof awaiting its symbol is the second of a double
        self.owes_rhino = False     # the player whose turn it is must move Rhino Hero
        self.rhino_on_tower = False
        self.over = False
        self.winners = []
        self.loser = None
        self.result = None
        self.tied = []              # seats in a collapse tie-break (rule 10)
        self.tiebreak_seats = []    # tied seats that still owe their count
        self.counts = []            # per seat: the symbol count entered, or None
        self.final_symbol = False   # the roof that ended the game may still get its symbol
        self.roof_seat = None       # who placed the last roof, and when (grace window)
        self.roof_t_ms = 0
        self.grace_open = False
        self._undo = None           # the state just before the last collapse
        self.status = OK
        self.message = ""
        self.effects = []

    # ------------------------------------------------------------------ the one entry point

    def apply(self, t_ms, kind, symbol=None, seat=None, symbols=None):
        """Apply one referee input at ``t_ms`` (ms since the game began); return its status."""
        self.status = OK
        self.message = ""
        self.effects = []
        if type(t_ms) is not int:
            return self._refuse("t_ms must be a whole number of milliseconds, not %r" % (t_ms,))
        if kind not in INPUTS:
            return self._refuse("unknown input %r" % (kind,))
        if kind == "undo_collapse":
            return self._undo_collapse()
        # Finer points: while tie-break counts are owed, only counts (and undo) are accepted.
        if self.tiebreak_seats:
            if kind == "tiebreak":
                return self._tiebreak(seat, symbols)
            return self._refuse("tie-break counts are owed by seats %s: %s refused"
                                % (_seats(self.tiebreak_seats), kind))
        # Finer points: after the end only the symbol of the roof that ended the game counts.
        if self.over:
            if kind == "symbol" and self.final_symbol:
                return self._final_symbol_entry(symbol)
            return self._refuse("game over: %s refused" % kind)
        if kind == "tiebreak":
            return self._refuse("no tie-break count is owed")
        if kind == "symbol":
            return self._symbol(symbol)
        if kind == "neighbor":
            return self._neighbor()
        if kind == "collapse":
            return self._collapse(t_ms)
        # A piece set down: wall, roof or Rhino Hero.
        if kind == "wall" and self.walls_left == 0:
            return self._refuse("no walls left: all %d are built" % WALLS)
        if self.awaiting_symbol:
            # Finer points: a piece while a symbol is awaited means the symbol was none; the
            # turn passes first and the piece counts for the new player.
            self._warn("no symbol entered for seat %d's roof: taken as none" % self.turn)
            self._pass_turn("none")
        # Rule 10: any new piece on the tower closes the previous roof's grace window.
        self.grace_open = False
        if kind == "wall":
            self._wall()
        elif kind == "roof":
            self._roof(t_ms)
        else:
            self._rhino()
        return self._done()

    # ------------------------------------------------------------------ rules 2-11

    def _wall(self):
        # Rule 2: 1 or 2 walls per floor; more is counted with a warning (0 warns at the roof).
        self.walls_left -= 1
        self.floor_walls += 1
        if self.floor_walls > 2:
            self._warn("%d walls on one floor: the marks ask for 1 or 2" % self.floor_walls)
        # Rule 8: a wall before the owed Rhino Hero move counts, with a warning.
        if self.owes_rhino:
            self._warn("wall built before Rhino Hero was moved")

    def _rhino(self):
        # Rule 8: the owed move (the first time Rhino Hero goes onto the tower).
        self.rhino_on_tower = True
        if self.owes_rhino:
            self.owes_rhino = False
        else:
            self._warn("Rhino Hero set down but no move was owed")

    def _roof(self, t_ms):
        seat = self.turn
        if self.floor_walls == 0:
            self._warn("roof placed with no new wall under it")
        if self.owes_rhino:
            # Rule 8: counted with a warning; the move is no longer owed once the roof lands.
            self._warn("roof placed before Rhino Hero was moved")
            self.owes_rhino = False
        if self.handed:
            self.handed = 0         # rule 6: the card came from the left neighbour's hand
        else:
            self.hands[seat] -= 1
        self.roofs_placed += 1
        self.floor_walls = 0
        self.second_roof = self.double_pending
        self.double_pending = False
        self.awaiting_symbol = True
        self.roof_seat = seat       # rule 10: this roof opens a grace window
        self.roof_t_ms = t_ms
        self.grace_open = True
        # Rule 9 before rule 11. Rule 9: an emptied hand wins at once when the roof settles;
        # that is the player's own (also rule 7: a double as the last card), or the left
        # neighbour's whose last card was handed over (rule 6).
        emptied = [s for s in range(self.players) if self.hands[s] == 0]
        if emptied:
            self._end("emptied_hand", emptied)
            self.final_symbol = True
        elif self.walls_left == 0:
            # Rule 11: all 28 walls built and the roof is on: everyone wins together.
            self._end("walls_used", list(range(self.players)))
            self.final_symbol = True

    def _symbol(self, symbol):
        if symbol not in SYMBOLS:
            return self._refuse("unknown symbol %r" % (symbol,))
        if not self.awaiting_symbol:
            return self._refuse("no roof is waiting for a symbol")
        if symbol == "double":
            if self.second_roof:
                # Rule 6: no double on a double.
                return self._refuse("a double roof may not go on a double roof")
            # Rule 6: the same player builds walls again and places a second roof card.
            self.awaiting_symbol = False
            self.double_pending = True
            self.effects.append(("double", self.turn))
            return self._done()
        self._pass_turn(symbol)
        return self._done()

    def _pass_turn(self, symbol):
        """The symbol of the roof just placed takes effect and the turn passes (rules 3-5, 8)."""
        n = self.players
        steps = 1
        if symbol == "reverse" and n > 2:
            self.direction = -self.direction        # rule 3 (no effect with 2 players)
        elif symbol == "skip":
            # Rule 4: the next player loses a turn; with 2 players two steps come back round
            # to the current player, who goes again.
            self.effects.append(("skipped", (self.turn + self.direction) % n))
            steps = 2
        self.turn = (self.turn + steps * self.direction) % n
        self.awaiting_symbol = False
        self.second_roof = False
        self.double_pending = False
        self.floor_walls = 0
        self.effects.append(("turn", self.turn))
        if symbol == "draw" and self.pile > 0:
            # Rule 5: the next player draws as the turn passes to them; nothing once the pile
            # is empty.
            self.pile -= 1
            self.hands[self.turn] += 1
            self.effects.append(("draw", self.turn))
        # Rule 8: the next player must first move Rhino Hero.
        self.owes_rhino = symbol == "rhino"
        if self.owes_rhino:
            self.effects.append(("rhino_owed", self.turn))

    def _neighbor(self):
        # Rule 6: for the second roof of a double the left neighbour hands a card over; it
        # leaves the neighbour's hand now, and lands on the tower with the next roof.
        if not self.double_pending:
            return self._refuse("a neighbour hands a card over only for a double's second roof")
        if self.handed:
            return self._refuse("the left neighbour has already handed a card over")
        left = (self.turn + 1) % self.players
        if self.hands[left] == 0:
            return self._refuse("the left neighbour has no card to hand over")
        self.hands[left] -= 1
        self.handed = 1
        self.effects.append(("handover", left))
        return self._done()

    def _collapse(self, t_ms):
        self._undo = self._snapshot()
        # Rule 10: the player whose turn it is loses, unless the tower fell within the grace
        # window after the previous roof settled and before any new piece touched it: then the
        # player who placed that roof loses.
        loser = self.turn
        if self.grace_open and 0 <= t_ms - self.roof_t_ms <= self.grace_ms:
            loser = self.roof_seat
        self.loser = loser
        self.result = "collapse"
        self.awaiting_symbol = False
        self.double_pending = False
        self.owes_rhino = False
        self.grace_open = False
        self.effects.append(("collapse", loser))
        self.effects.append(("loser", loser))
        # Among the others, fewest cards wins; a tie goes to the symbol count (_tiebreak).
        others = [s for s in range(self.players) if s != loser]
        fewest = min([self.hands[s] for s in others])
        tied = [s for s in others if self.hands[s] == fewest]
        if len(tied) == 1:
            self._end("collapse", tied)
        else:
            self.tied = tied
            self.tiebreak_seats = tied[:]
            self.counts = [None] * self.players
            for s in tied:
                self.effects.append(("tiebreak", s))
        return self._done()

    def _tiebreak(self, seat, symbols):
        # Rule 10: tied players enter the special symbols on the cards left in their hands;
        # the most wins, a remaining tie is a shared win. A seat may correct its count until
        # the last count is in.
        if type(seat) is not int or seat not in self.tied:
            return self._refuse("seat %r is not in the tie-break (tied: %s)"
                                % (seat, _seats(self.tied)))
        if not _whole(symbols):
            return self._refuse("a tie-break count must be a whole number >= 0, not %r"
                                % (symbols,))
        if symbols > self.hands[seat]:
            self._warn("seat %d counted %d symbols on %d cards" % (seat, symbols, self.hands[seat]))
        self.counts[seat] = symbols
        self.tiebreak_seats = [s for s in self.tied if self.counts[s] is None]
        if self.tiebreak_seats:
            for s in self.tiebreak_seats:
                self.effects.append(("tiebreak", s))
        else:
            most = max([self.counts[s] for s in self.tied])
            self._end("collapse", [s for s in self.tied if self.counts[s] == most])
        return self._done()

    def _undo_collapse(self):
        # Rule 12: a false collapse is undone; the state before it comes back exactly.
        if self._undo is None:
            return self._refuse("no collapse to undo")
        self._restore(self._undo)
        self._undo = None
        self.effects.append(("undo", None))
        self.effects.append(("turn", self.turn))
        return self._done()

    def _final_symbol_entry(self, symbol):
        # Finer points + rule 7: the symbol of the roof that ended the game is accepted and
        # changes nothing; a double shows the left neighbour's courtesy hand-over cue.
        if symbol not in SYMBOLS:
            return self._refuse("unknown symbol %r" % (symbol,))
        if symbol == "double" and self.second_roof:
            return self._refuse("a double roof may not go on a double roof")
        self.final_symbol = False
        if symbol == "double" and self.result == "emptied_hand":
            self.effects.append(("handover", (self.roof_seat + 1) % self.players))
        return self._done()

    def _end(self, result, winners):
        self.over = True
        self.result = result
        self.winners = winners
        self.awaiting_symbol = False
        self.double_pending = False
        self.owes_rhino = False
        self.tiebreak_seats = []
        if result == "walls_used":
            self.effects.append(("all_win", None))
        else:
            for s in winners:
                self.effects.append(("winner", s))

    # ------------------------------------------------------------------ bookkeeping

    def _warn(self, text):
        self.status = WARNING
        self.message = text if not self.message else self.message + "; " + text

    def _refuse(self, text):
        self.status = ERROR
        self.message = text
        self.effects = [("error", self.turn)]
        return ERROR

    def _done(self):
        if self.status == WARNING:
            self.effects.append(("warning", self.turn))
        return self.status

    def _snapshot(self):
        return [(v[:] if type(v) is list else v) for v in [getattr(self, k) for k in _STATE]]

    def _restore(self, snap):
        for i in range(len(_STATE)):
            v = snap[i]
            setattr(self, _STATE[i], v[:] if type(v) is list else v)

    def state(self):
        """The SPEC 3.1 replay fields (and a few more) as a plain dict, ready for JSON."""
        s = {
            "turn": self.turn,
            "direction": "cw" if self.direction > 0 else "ccw",
            "hands": self.hands[:],
            "pile": self.pile,
            "walls_left": self.walls_left,
            "owes_rhino": self.owes_rhino,
            "over": self.over,
            "winners": self.winners[:],
            "loser": self.loser,
            "result": self.result,
            "awaiting_symbol": self.awaiting_symbol,
            "double_pending": self.double_pending,
            "handed_over": self.handed,
            "walls_on_floor": self.floor_walls,
            "roofs_placed": self.roofs_placed,
            "rhino_on_tower": self.rhino_on_tower,
            "tiebreak_seats": self.tiebreak_seats[:],
        }
        if self.tied:
            s["tiebreak_counts"] = [self.counts[t] for t in self.tied]
            s["tied"] = self.tied[:]
        if self.status == ERROR:
            s["error"] = self.message
        elif self.status == WARNING:
            s["warning"] = self.message
        return s


def _seats(seats):
    return ", ".join([str(s) for s in seats])
