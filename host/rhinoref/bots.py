"""Bot players that act on the simulated table like people at a real one.

Usage::

    from rhinoref.bots import Bots
    bots = Bots(table, players=4, seed=7, game=lambda: referee.game)
    while not bots.done:
        t_ms, raw, ax, ay, az, pressed = table.next_sample()
        ...                                   # feed the referee, route ``pressed`` to it
        bots.step(t_ms)                       # bots look at the referee and act

The bots never touch the referee directly: they place pieces on the table (``Table.place_wall``,
``place_roof``, ``move_rhino``, ...; the table makes the samples, with hand pressure and
ringing) and press buttons through ``Table.press`` (the press lands in the trace's input column
and the simulator hands it to ``Referee.press``). They read what a family reads from the seat
lights: whose turn it is, a Rhino Hero move owed, a symbol awaited, a second roof owed after a
double, a tie-break count owed. That is the referee's rules state (``referee.game``).

The model (documented with its numbers in docs/simulator.md):

* The bots hold a shuffled deck of the 31 roof cards with an assumed symbol mix
  (:data:`DECK_MIX`; the real mix is not published) and deal it as the rules engine did
  (7 cards each with 2 players, else 5). Each card also carries the wall marks (1 or 2) that the
  next floor must follow. A card is held physically: played from a hand, drawn from the pile
  when the referee shows a draw, handed over by the left neighbour after a double.
* Timing: think 3-9 s before a turn, 2.5-5.5 s to fold and set each wall, 1.5-4 s to choose
  and lay the roof, the symbol pressed 0.6-2.5 s after the roof settles; per-seat personality
  (speed x0.7-1.4 and steadiness).
* Mistakes, rare: forgetting to move Rhino Hero until the warning cue (then moving him),
  building 0 or 3 walls, pressing a symbol late, a piece taken back mid-placement.
* Accidents that are not collapses: a table bump, a knock, leaning on the table.
* Collapses: each piece placed (and each Rhino Hero move) topples the tower with a probability
  that grows geometrically with the tower's height and with Rhino Hero's height, less for
  steady hands. Kind: total, partial, cards landing on the platform, or a roof sliding off; some
  roof collapses happen a moment after the roof settled (the grace window of rule 10).
* Family corrections: a false collapse shown by the board is undone from the menu, a missed one
  declared from the menu.
"""

import random

SYMBOLS = ("none", "reverse", "skip", "draw", "double", "rhino")
SPECIALS = ("reverse", "skip", "draw", "double", "rhino")

# The assumed mix of the 31 roof cards (HABA does not publish it). Plain cards are the largest
# group; Rhino Hero appears often enough to climb several times a game.
DECK_MIX = (("none", 12), ("reverse", 4), ("skip", 3), ("draw", 3), ("double", 3), ("rhino", 6))
ROOF_CARDS = 31
WALLS = 28

# Collapse model: probability per piece = base * GROWTH ** floors * (1 + RHINO_HIGH * rhino
# floor / floors) * (1.6 - steadiness). See docs/simulator.md for what this gives per height.
COLLAPSE_BASE = {"wall": 0.0022, "walls2": 0.0035, "roof": 0.0030, "rhino": 0.0050}
GROWTH = 1.22
RHINO_HIGH = 1.0
COLLAPSE_KINDS = (("total", 45), ("partial", 25), ("on_platform", 15), ("roof_slide", 15))
LATE_COLLAPSE_SHARE = 0.3     # of roof collapses: a moment after the roof settled

# Mistakes and accidents, per turn.
P_FORGET_RHINO = 0.08
P_NO_WALL = 0.006
P_THREE_WALLS = 0.006
P_TWO_AT_ONCE = 0.2
P_LATE_SYMBOL = 0.015
P_TAKE_BACK = 0.02
P_BUMP = 0.04
P_KNOCK = 0.015
P_LEAN = 0.02
P_FALSE_UNDO = 1.0            # a family always undoes a false collapse it sees


def make_deck(rng):
    """The 31 roof cards as (symbol, walls_marked) tuples, shuffled with ``rng``."""
    deck = []
    for symbol, count in DECK_MIX:
        for _ in range(count):
            deck.append((symbol, 1 if rng.random() < 0.45 else 2))
    assert len(deck) == ROOF_CARDS
    rng.shuffle(deck)
    return deck


def collapse_probability(piece, floors, rhino_floor, steadiness):
    """Chance that placing ``piece`` on a tower of ``floors`` roofs topples it."""
    p = COLLAPSE_BASE[piece] * GROWTH ** floors
    if rhino_floor:
        p *= 1.0 + RHINO_HIGH * rhino_floor / max(floors, 1)
    p *= 1.6 - steadiness
    return min(p, 0.9)


def _weighted(rng, pairs):
    total = sum(w for _, w in pairs)
    x = rng.random() * total
    for item, w in pairs:
        x -= w
        if x < 0:
            return item
    return pairs[-1][0]


class Seat:
    """One bot player: a hand of cards and a personality."""

    def __init__(self, seat, rng):
        self.seat = seat
        self.hand = []
        self.speed = rng.uniform(0.7, 1.4)        # > 1: slower
        self.steadiness = rng.uniform(0.35, 0.95)  # 1: steady hands

    def specials(self):
        return sum(1 for card in self.hand if card[0] in SPECIALS)


class Flow:
    """How the board wants things entered with its buttons (the board app's flow, see
    docs/board.md): each method returns a list of (delay_ms, button) steps. Kept in one place so
    a change of the board's button scheme changes one class.
    """

    def join(self, seats, side="easy"):
        # Each player presses their seat button; the first to join starts. "reverse" in the
        # lobby turns the foundation card over (expert); a menu press starts the game.
        steps = [(600, "seat%d" % s) for s in seats]
        if side == "expert":
            steps.append((500, "reverse"))
        steps.append((800, "menu"))
        return steps

    def tiebreak(self, seat, count):
        # Press the seat button once per special card, then hold it to enter the count.
        steps = [(350, "seat%d" % seat) for _ in range(count)]
        steps.append((600, "seat%d_long" % seat))
        return steps

    def neighbor(self, giver):
        # The left neighbour presses their seat button while the double is pending.
        return [(700, "seat%d" % giver)]

    def undo_collapse(self):
        # Hold menu (the parent menu opens), then "reverse": undo a false collapse.
        return [(1500, "menu_long"), (900, "reverse")]

    def declare_collapse(self):
        # Hold menu, then "skip": declare a collapse the board missed.
        return [(1500, "menu_long"), (900, "skip")]


class Bots:
    """All the bot players at the table, driven by :meth:`step` with the simulated time.

    ``table``: B's ``Table``; ``game``: a callable returning the referee's rules state (the
    object with ``turn``, ``hands``, ``owes_rhino``, ``awaiting_symbol``, ...), or None before a
    game started; ``press``: a callable taking a button name (defaults to ``table.press``).
    """

    def __init__(self, table, players, seed=0, game=None, press=None, first=None, side="easy",
                 flow=None, collapses=True, mistakes=True):
        if not 2 <= players <= 5:
            raise ValueError("players must be 2..5, got %r" % (players,))
        self.table = table
        self.players = players
        self.rng = random.Random(seed * 7919 + 17)
        self.game = game if game is not None else (lambda: None)
        self._press = press if press is not None else table.press
        self.first = first if first is not None else self.rng.randrange(players)
        self.side = side
        self.flow = flow if flow is not None else Flow()
        self.collapses = collapses
        self.mistakes = mistakes
        self.seats = [Seat(s, self.rng) for s in range(players)]
        self.deck = make_deck(self.rng)
        self.pile = []
        self.dealt = False
        # What physically happened (the truth the detector is compared with).
        self.floors = 0           # roofs on the tower
        self.walls = 0            # walls on the tower
        self.rhino_floor = 0      # 0 = not on the tower yet
        self.top_walls = 2 if side == "easy" else 1   # marks on the foundation / top roof
        self.collapsed = False    # the tower really fell
        self.collapse_floors = None
        self.turns = 0
        self.presses = []         # (t_ms, button)
        self.last_card = {}       # seat -> the roof card it played last
        self._progress = None     # the turn under way: what is built already
        self.notes = []           # (t_ms, text): mistakes and accidents, for the event list
        self.done = False
        self._wake = 0
        self._pause = 0           # a pause planned while the table still acts (see step)
        self._script = self._play()
        self._until = None

    # -- plumbing --------------------------------------------------------------------------------
    def _table_busy(self):
        busy = getattr(self.table, "busy", None)
        if busy is None:
            return False
        return busy() if callable(busy) else bool(busy)

    def press(self, button):
        self.presses.append((self.table.now_ms, button))
        self._press(button)

    def note(self, text):
        self.notes.append((self.table.now_ms, text))

    def step(self, now_ms):
        """Give the bots a chance to act at simulated time ``now_ms`` (call every sample)."""
        if now_ms < self._wake or self.done:
            return
        if self._table_busy():
            self._wake = now_ms + 20
            return
        if self._pause:
            # A pause counts from the end of the table's last action, not from when the action
            # was planned: a hand that has just taken a card back needs a moment before it
            # brings the next one (without this the next piece touched the tower 50 ms later).
            self._wake, self._pause = now_ms + self._pause, 0
            return
        if self._until is not None:
            cond, deadline = self._until
            if not cond() and now_ms < deadline:
                self._wake = now_ms + 50
                return
            self._until = None
        try:
            what = next(self._script)
        except StopIteration:
            self.done = True
            return
        if isinstance(what, tuple):          # ("until", condition, timeout_ms)
            self._until = (what[1], now_ms + what[2])
            self._wake = now_ms + 50
        elif self._table_busy():             # a pause in ms after the table's last action
            self._pause = int(what)
            self._wake = now_ms + 20
        else:
            self._wake = now_ms + int(what)

    def _ms(self, seat, lo, hi):
        """A human pause for ``seat``, scaled by its speed."""
        return int(self.rng.uniform(lo, hi) * (self.seats[seat].speed if seat is not None else 1.0))

    # -- the whole game --------------------------------------------------------------------------
    def _play(self):
        yield self.rng.randint(800, 2000)
        # Join: the first seat to press starts (the board's flow).
        order = [self.first] + [s for s in range(self.players) if s != self.first]
        for delay, button in self.flow.join(order, self.side):
            yield delay + self.rng.randint(0, 400)
            self.press(button)
        yield ("until", lambda: self.game() is not None and getattr(self.game(), "turn", None) is not None, 5000)
        yield 300
        self._deal()
        idle_checks = 0
        undos = 0
        waited = 0
        while True:
            g = self.game()
            if g is None:
                # No game on the board (it never started, or went back to the lobby).
                waited += 1
                if waited > 40:
                    self.note("no game on the board: the bots give up")
                    return
                yield 500
                continue
            if self.collapsed:
                yield from self._after_collapse()
                return
            if g.result == "collapse" or g.loser is not None:
                # The board shows a collapse but the tower stands: a false alarm, undone from
                # the parent menu (up to 3 times a game; then the family accepts the result).
                if undos < 3 and not self.collapsed:
                    undos += 1
                    yield from self._undo_false_collapse()
                    continue
            if g.over:
                yield from self._after_result()
                return
            if getattr(g, "tiebreak_seats", None):
                yield from self._tiebreak()
                continue
            if getattr(g, "awaiting_symbol", False):
                # Someone's roof waits for its symbol (plain card: the window runs out).
                idle_checks += 1
                if idle_checks <= 2:
                    yield ("until", lambda: not self.game().awaiting_symbol or self.game().over, 8000)
                    continue
                # Still waiting (e.g. after an undo): the player presses their card's symbol
                # again, or, for a plain card, the next player just starts building.
                card = self.last_card.get(g.turn)
                if card is not None and card[0] != "none" and idle_checks == 3:
                    self.press(card[0])
                    yield 1500
                    continue
                nxt = (g.turn + g.direction) % self.players
                idle_checks = 0
                yield from self._turn(nxt)
                self.turns += 1
                continue
            idle_checks = 0
            yield from self._turn(g.turn)
            self.turns += 1

    def _deal(self):
        g = self.game()
        hands = list(getattr(g, "hands", [])) or [7 if self.players == 2 else 5] * self.players
        deck = list(self.deck)
        for s, n in enumerate(hands[: self.players]):
            self.seats[s].hand = [deck.pop() for _ in range(n)]
        self.pile = deck
        self.dealt = True

    def _sync_draws(self, seat):
        """Take the cards the referee says ``seat`` drew (a draw shows in its hand count)."""
        g = self.game()
        want = g.hands[seat] if seat < len(g.hands) else len(self.seats[seat].hand)
        while len(self.seats[seat].hand) < want and self.pile:
            self.seats[seat].hand.append(self.pile.pop())

    # -- one turn --------------------------------------------------------------------------------
    def _halted(self):
        """Stop placing: the tower fell, or the board shows a collapse or the end (a family
        stops and looks; after an undo the turn carries on where it stopped)."""
        if self.collapsed:
            return True
        g = self.game()
        return g is None or g.over or g.loser is not None or bool(getattr(g, "tiebreak_seats", None))

    def _turn(self, seat):
        self._sync_draws(seat)
        g = self.game()
        double = bool(getattr(g, "double_pending", False))
        p = self._progress
        if p is None or p["seat"] != seat or p["double"] != double:
            # A new turn: decide what to build (walls per the marks on the top roof).
            n = self.top_walls
            if self.mistakes:
                r = self.rng.random()
                if r < P_NO_WALL:
                    n = 0
                    self.note("seat %d builds no wall" % seat)
                elif r < P_NO_WALL + P_THREE_WALLS:
                    n = 3
                    self.note("seat %d builds three walls" % seat)
            p = self._progress = {"seat": seat, "double": double, "walls": n, "built": 0,
                                  "rhino": False, "card": None, "roof": False}
            yield self._ms(seat, 3000, 9000) if not double else self._ms(seat, 1000, 2500)
            yield from self._accidents(seat)
        else:
            yield self._ms(seat, 1000, 2500)   # carrying on after an undo
        if self._halted():
            return
        forgot = False
        if self.game().owes_rhino and not p["rhino"]:
            if self.mistakes and self.rng.random() < P_FORGET_RHINO:
                forgot = True
                self.note("seat %d forgets to move Rhino Hero" % seat)
            else:
                yield from self._move_rhino(seat)
                p["rhino"] = True
                if self._halted():
                    return
        yield from self._walls(seat, p)
        if self._halted():
            return
        if forgot:
            # The warning cue reminds them: Rhino Hero moves before the roof.
            yield self._ms(seat, 800, 2000)
            yield from self._move_rhino(seat)
            p["rhino"] = True
            if self._halted():
                return
        # The roof: the card from the hand, or from the left neighbour after a double.
        if p["card"] is None:
            card, giver = self._choose_card(seat, double)
            p["card"] = card
            self.last_card[seat] = card
            if giver is not None:
                for delay, button in self.flow.neighbor(giver):
                    yield delay
                    self.press(button)
                self.note("seat %d hands seat %d a card" % (giver, seat))
        card = p["card"]
        if not p["roof"]:
            yield self._ms(seat, 1500, 4000)
            if self._halted():
                return
            yield from self._place(seat, "roof")
            p["roof"] = True
            self.top_walls = card[1]
            if self._halted():
                return
        # The symbol: pressed a moment after the roof settled; none for a plain card.
        symbol = card[0]
        if symbol != "none":
            yield ("until", lambda: self.game().awaiting_symbol or self._halted(), 3000)
            late = self.mistakes and self.rng.random() < P_LATE_SYMBOL
            yield self._ms(seat, 5500, 8000) if late else self._ms(seat, 600, 2500)
            if self._halted():
                return
            if late:
                self.note("seat %d presses the symbol late" % seat)
            self.press(symbol)
        self._progress = None
        if self.collapses and self._late_collapse is not None:
            kind, delay = self._late_collapse
            self._late_collapse = None
            yield delay
            self._collapse(kind, "roof")
            return
        # Wait until the referee moved on (the light leaves the seat, or the double is owed).
        yield ("until", lambda: self._moved_on(seat), 9000)

    _late_collapse = None

    def _moved_on(self, seat):
        g = self.game()
        if g is None or g.over or getattr(g, "tiebreak_seats", None) or g.loser is not None:
            return True
        if getattr(g, "awaiting_symbol", False):
            return False
        return g.turn != seat or getattr(g, "double_pending", False)

    def _choose_card(self, seat, double):
        me = self.seats[seat]
        hand = me.hand
        allowed = [c for c in hand if not (double and c[0] == "double")]
        if not allowed:
            # No card to use for the second roof: the left neighbour hands one over (rule 6).
            giver = (seat + 1) % self.players
            their = self.seats[giver].hand
            if their:
                pick = [c for c in their if c[0] != "double"] or their
                card = self.rng.choice(pick)
                their.remove(card)
                return card, giver
            return ("none", 2), None
        # Children's strategy: keep a double for the second-to-last card when they can.
        pool = allowed
        if len(hand) > 2 and any(c[0] != "double" for c in allowed):
            pool = [c for c in allowed if c[0] != "double"] or allowed
        card = self.rng.choice(pool)
        hand.remove(card)
        return card, None

    # -- pieces ------------------------------------------------------------------------------------
    def _walls(self, seat, p):
        """Build the walls still owed this turn (``p``: the turn's progress)."""
        left = p["walls"] - p["built"]
        if left == 2 and self.rng.random() < P_TWO_AT_ONCE:
            yield self._ms(seat, 3000, 6000)
            if self._halted():
                return
            yield from self._place(seat, "walls2")
            p["built"] += 2
            return
        for _ in range(left):
            yield self._ms(seat, 2500, 5500)
            if self._halted():
                return
            yield from self._place(seat, "wall")
            p["built"] += 1
            if self._halted():
                return

    def _place(self, seat, piece):
        """Place a piece, maybe taking it back first, maybe toppling the tower."""
        t = self.table
        if self.mistakes and self.rng.random() < P_TAKE_BACK:
            t.remove_piece()
            self.note("seat %d takes a piece back" % seat)
            yield self._ms(seat, 800, 2000)
        # Before the first roof only walls stand on the foundation: one that falls over is set
        # up again (a wall alone falling is no collapse, docs/detector.md), so the tower can
        # first fall with the first roof, once that is set down.
        if self.collapses and (self.floors or piece == "roof"):
            p = collapse_probability(piece, self.floors, self.rhino_floor, self.seats[seat].steadiness)
            if self.rng.random() < p:
                kind = _weighted(self.rng, COLLAPSE_KINDS)
                if piece == "roof" and self.rng.random() < LATE_COLLAPSE_SHARE:
                    # The roof settles, then the tower gives way a moment later.
                    self._late_collapse = (kind, self.rng.randint(200, 1800))
                else:
                    # Knocked while reaching in (once a floor stands to be knocked).
                    if self.rng.random() < 0.5 and self.floors:
                        self._collapse(kind, piece)
                        return
                    self._do_piece(piece)
                    yield self.rng.randint(50, 400)
                    self._collapse(kind, piece)
                    return
        self._do_piece(piece)
        yield 0

    def _do_piece(self, piece):
        t = self.table
        if piece == "wall":
            t.place_wall()
            self.walls += 1
        elif piece == "walls2":
            t.place_walls2()
            self.walls += 2
        elif piece == "roof":
            t.place_roof()
            self.floors += 1
        elif piece == "rhino":
            t.move_rhino()
            self.rhino_floor = self.floors

    def _move_rhino(self, seat):
        yield self._ms(seat, 1500, 3500)
        yield from self._place(seat, "rhino")

    def _collapse(self, kind, piece):
        self.table.collapse(kind)
        self.collapsed = True
        self.collapse_floors = self.floors
        what = {"wall": "a wall", "walls2": "two walls", "roof": "a roof card",
                "rhino": "Rhino Hero"}.get(piece, piece)
        how = {"total": "all of it", "partial": "the top floors", "on_platform":
               "cards land on the platform", "roof_slide": "a roof slides off"}.get(kind, kind)
        self.note("the tower falls: %s, while placing %s" % (how, what))

    def _accidents(self, seat):
        if not self.mistakes:
            return
        t = self.table
        r = self.rng.random()
        if r < P_BUMP:
            t.bump()
            self.note("someone bumps the table")
            yield self.rng.randint(300, 1200)
        elif r < P_BUMP + P_KNOCK:
            t.knock()
            self.note("someone knocks on the table")
            yield self.rng.randint(300, 1200)
        elif r < P_BUMP + P_KNOCK + P_LEAN:
            t.lean(self.rng.randint(800, 3000))
            self.note("someone leans on the table")
            yield self.rng.randint(300, 1200)

    # -- endings -------------------------------------------------------------------------------------
    def _tiebreak(self):
        g = self.game()
        for seat in list(g.tiebreak_seats):
            count = self.seats[seat].specials() if seat < self.players else 0
            yield self._ms(seat, 1000, 2500)
            for delay, button in self.flow.tiebreak(seat, count):
                yield delay
                self.press(button)
        yield ("until", lambda: not self.game().tiebreak_seats or self.game().over, 8000)

    def _after_collapse(self):
        # The board should show the result; if it missed the collapse, declare it from the menu.
        yield ("until", lambda: self.game().over or bool(self.game().tiebreak_seats)
               or self.game().loser is not None, 4000)
        g = self.game()
        if not (g.over or g.tiebreak_seats or g.loser is not None):
            self.note("the board missed the collapse: declared from the menu")
            for delay, button in self.flow.declare_collapse():
                yield delay
                self.press(button)
            yield ("until", lambda: self.game().over or bool(self.game().tiebreak_seats), 4000)
        for _ in range(3):
            g = self.game()
            if g.tiebreak_seats:
                yield from self._tiebreak()
        yield 3000

    def _after_result(self):
        yield 3000

    def _undo_false_collapse(self):
        self.note("the board shows a collapse but the tower stands: undo from the menu")
        for delay, button in self.flow.undo_collapse():
            yield delay
            self.press(button)
        yield ("until", lambda: self.game().loser is None, 4000)
