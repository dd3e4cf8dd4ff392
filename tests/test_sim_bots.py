"""The bot players on their own: against a tiny scripted table and an ideal referee that sees
every piece exactly (no detector), so the bots' behaviour is tested apart from detection."""

import random
from collections import Counter

import pytest

from referee import rules
from rhinoref import bots as botsmod
from rhinoref.bots import DECK_MIX, ROOF_CARDS, Bots, collapse_probability, make_deck

SYMBOL_WINDOW_MS = 4000

# How long each table action keeps the table busy (ms), and when its piece settles.
DURATIONS = {"wall": 900, "walls2": 1100, "roof": 1000, "rhino": 1400, "remove": 800,
             "bump": 300, "knock": 300, "lean": 1000, "collapse": 600}


class IdealTable:
    """Stands in for rhinoref.table.Table: records actions, keeps time, is busy while acting."""

    def __init__(self):
        self.now_ms = 0
        self.queue = []          # (end_ms, name)
        self.truth = []
        self.log = []
        self._press = None
        self.tower_walls = 0
        self.tower_roofs = 0
        self.rhino_on_tower = False

    def busy(self):
        return bool(self.queue)

    def _act(self, name, ms=None):
        end = max([self.now_ms] + [q[0] for q in self.queue]) + (ms or DURATIONS[name])
        self.queue.append((end, name))
        self.log.append((self.now_ms, name))

    def place_wall(self):
        self._act("wall")

    def place_walls2(self):
        self._act("walls2")

    def place_roof(self):
        self._act("roof")

    def move_rhino(self):
        self._act("rhino")

    def remove_piece(self):
        self._act("remove")

    def bump(self):
        self._act("bump")

    def knock(self):
        self._act("knock")

    def lean(self, ms):
        self._act("lean", ms)

    def collapse(self, kind):
        self.truth.append((self.now_ms, "collapse"))
        self._act("collapse")

    def press(self, name):
        self._press = name

    def next_sample(self):
        self.now_ms += 12
        done = None
        if self.queue and self.queue[0][0] <= self.now_ms:
            done = self.queue.pop(0)[1]
        pressed, self._press = self._press, None
        return self.now_ms, done, pressed


class IdealReferee:
    """The rules engine fed with the truth, buttons interpreted as bots.Flow enters them."""

    def __init__(self, players):
        self.players = players
        self.game = None
        self.joined = []
        self.count = {}
        self.roof_at = None
        self.collapses = 0

    def piece(self, t, name):
        g = self.game
        if g is None:
            return
        if name in ("wall", "roof", "rhino"):
            g.apply(t, name)
        elif name == "walls2":
            g.apply(t, "wall")
            g.apply(t, "wall")
        elif name == "collapse":
            g.apply(t, "collapse")
            self.collapses += 1
        if g.awaiting_symbol and self.roof_at is None:
            self.roof_at = t
        if not g.awaiting_symbol:
            self.roof_at = None

    def press(self, t, name):
        g = self.game
        if g is None:
            if name.startswith("seat") and not name.endswith("_long"):
                seat = int(name[4:])
                if seat not in self.joined:
                    self.joined.append(seat)
            elif name == "menu" and len(self.joined) >= 2:
                self.game = rules.Game(len(self.joined), first=self.joined[0])
            return
        if name in rules.SYMBOLS:
            g.apply(t, "symbol", symbol=name)
        elif name.startswith("seat"):
            seat = int(name[4:].split("_")[0])
            if g.tiebreak_seats or g.tied and not g.over:
                if name.endswith("_long"):
                    g.apply(t, "tiebreak", seat=seat, symbols=self.count.pop(seat, 0))
                else:
                    self.count[seat] = self.count.get(seat, 0) + 1
            elif g.double_pending and seat == (g.turn + 1) % g.players:
                g.apply(t, "neighbor")
        elif name == "menu_long":
            if g.loser is not None:
                g.apply(t, "undo_collapse")
            else:
                g.apply(t, "collapse")
        if not g.awaiting_symbol:
            self.roof_at = None

    def tick(self, t):
        g = self.game
        if g is not None and g.awaiting_symbol and self.roof_at is not None:
            if t - self.roof_at >= SYMBOL_WINDOW_MS:
                g.apply(t, "symbol", symbol="none")
                self.roof_at = None


def play(players, seed, limit_ms=3_600_000, **kw):
    table = IdealTable()
    ref = IdealReferee(players)
    b = Bots(table, players, seed=seed, game=lambda: ref.game, **kw)
    while not b.done and table.now_ms < limit_ms:
        t, done, pressed = table.next_sample()
        if done:
            ref.piece(t, done)
        if pressed:
            ref.press(t, pressed)
        ref.tick(t)
        b.step(t)
    return table, ref, b


def test_deck_has_31_cards_with_the_documented_mix():
    deck = make_deck(random.Random(3))
    assert len(deck) == ROOF_CARDS == 31
    counts = Counter(symbol for symbol, _ in deck)
    assert counts == Counter(dict(DECK_MIX))
    assert {walls for _, walls in deck} == {1, 2}


def test_collapse_probability_grows_with_height_and_rhino():
    low = collapse_probability("roof", 2, 0, 0.6)
    high = collapse_probability("roof", 12, 0, 0.6)
    rhino_top = collapse_probability("roof", 12, 12, 0.6)
    assert 0 < low < high < rhino_top <= 0.9
    assert collapse_probability("roof", 8, 0, 0.95) < collapse_probability("roof", 8, 0, 0.35)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_bots_play_a_whole_game_to_an_ending(players):
    table, ref, b = play(players, seed=players)
    g = ref.game
    assert b.done
    assert g is not None and g.players == players
    assert g.over, g.state()
    assert g.result in ("emptied_hand", "collapse", "walls_used")
    assert g.winners
    # Every card the bots hold is accounted for against the engine's counts.
    held = sum(len(s.hand) for s in b.seats)
    assert held + len(b.pile) + b.floors >= ROOF_CARDS - 1


def test_same_seed_same_game_other_seed_other_game():
    a = play(4, seed=11)[0].log
    b = play(4, seed=11)[0].log
    c = play(4, seed=12)[0].log
    assert a == b
    assert a != c


def test_without_collapses_a_game_ends_by_an_emptied_hand_or_walls():
    for seed in range(6):
        table, ref, b = play(3, seed=seed, collapses=False, mistakes=False)
        assert ref.game.over
        assert ref.game.result in ("emptied_hand", "walls_used")
        assert not table.truth
        names = {n for _, n in table.log}
        assert not names & {"bump", "knock", "lean", "remove", "collapse"}


def test_bots_follow_the_referee_rhino_and_symbols():
    # Across a few games: Rhino Hero gets moved, symbols get pressed, doubles get a second roof.
    moved = pressed = doubles = 0
    for seed in range(8):
        table, ref, b = play(4, seed=seed, collapses=False, mistakes=False)
        names = [n for _, n in table.log]
        moved += names.count("rhino")
        pressed += sum(1 for _, p in b.presses if p in rules.SYMBOLS)
        doubles += sum(1 for _, p in b.presses if p == "double")
        # With no mistakes the engine never had to warn about an owed rhino at the end.
        assert not ref.game.owes_rhino
    assert moved > 0 and pressed > 0 and doubles > 0


def test_collapse_rate_grows_with_the_tower():
    # Over many games, collapses happen, and more of them when the tower is tall.
    heights = []
    endings = Counter()
    for seed in range(60):
        table, ref, b = play(4, seed=seed)
        endings[ref.game.result] += 1
        if b.collapse_floors is not None:
            heights.append(b.collapse_floors)
    assert endings["collapse"] >= 10
    assert endings["emptied_hand"] >= 5
    assert sum(heights) / len(heights) > 3


def test_tiebreak_counts_are_entered_by_the_tied_seats():
    seen = 0
    for seed in range(80):
        table, ref, b = play(5, seed=seed)
        g = ref.game
        if g.tied:
            seen += 1
            assert g.over and not g.tiebreak_seats
            for s in g.tied:
                assert g.counts[s] == b.seats[s].specials()
    assert seen > 0


def test_bots_reject_bad_player_counts():
    with pytest.raises(ValueError):
        Bots(IdealTable(), 1)
    with pytest.raises(ValueError):
        Bots(IdealTable(), 6)


def test_mistake_rates_are_small(monkeypatch):
    assert botsmod.P_NO_WALL + botsmod.P_THREE_WALLS < 0.05
