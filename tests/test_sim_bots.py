"""The bot players on their own: against the simulator's ideal table and referee (the rules
engine sees every piece exactly, no detector), so the bots' behaviour is tested apart from
detection."""

import random
from collections import Counter

import pytest

from referee import rules
from rhinoref import bots as botsmod
from rhinoref.bots import DECK_MIX, ROOF_CARDS, Bots, collapse_probability, make_deck
from rhinoref.sim import _IdealReferee as IdealReferee
from rhinoref.sim import _IdealTable as IdealTable

def play(players, seed, limit_ms=3_600_000, **kw):
    table = IdealTable()
    ref = IdealReferee()
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
        assert not [e for e in table.truth if e[1] == "collapse"]
        names = {n.split(":")[0] for _, n in table.log}
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


def test_a_pause_counts_from_the_end_of_the_tables_last_action():
    # A take-back with the hand letting go lasts up to 3.5 s on the table; the bot's pause of
    # 0.8-2 s after it must follow it, not overlap it (the next piece touched the tower 50 ms
    # after the lift, which the detector rightly took for a fall).
    class Table:
        now_ms = 0
        end_ms = 0

        def busy(self):
            return self.now_ms < self.end_ms

        def press(self, button):
            pass

    table = Table()
    acted = []

    def script():
        acted.append(table.now_ms)
        table.end_ms = table.now_ms + 3000      # an action the table plays out for 3 s
        yield 1000
        acted.append(table.now_ms)
        yield 500                               # the table is idle: the pause starts now
        acted.append(table.now_ms)

    b = Bots(table, 2, seed=1, game=lambda: None)
    b._script = script()
    for t in range(0, 8000, 10):
        table.now_ms = t
        b.step(t)
    assert acted[0] == 0
    assert 4000 <= acted[1] <= 4040
    assert acted[2] - acted[1] in range(500, 520)


def test_nothing_falls_before_the_first_roof(monkeypatch):
    # Every piece topples the tower, half of them while the hand reaches in; but walls alone on
    # the foundation are set up again when they fall over, so the first collapse comes with
    # the first roof, once it is set down.
    monkeypatch.setattr(botsmod, "collapse_probability", lambda *a: 1.0)
    for seed in range(1, 21):
        table, ref, b = play(3, seed, limit_ms=600_000)
        kinds = [name for _, name in table.truth]
        assert "collapse" in kinds, seed
        assert "roof" in kinds[:kinds.index("collapse")], (seed, kinds)
        assert b.collapse_floors >= 1, seed
