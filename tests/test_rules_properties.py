"""Properties of the rules engine over random legal games and random arbitrary input sequences.

Invariants (SPEC 2, issue 2 part 5): cards in hands + pile + placed + handed over = 31; walls
placed + walls left = 28; the turn is a seat in play; a finished game has winners (or, not yet
finished, a pending tie-break) and changes no more; a refused input changes nothing; replaying
the game log rebuilds exactly the same game.
"""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import gamelog, rules
from referee.rules import ERROR, OK, WARNING

EFFECTS = {"turn", "skipped", "draw", "rhino_owed", "double", "handover", "warning", "error",
           "winner", "loser", "all_win", "tiebreak", "collapse", "undo"}
SETTINGS = settings(max_examples=250, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def core(g):
    s = g.state()
    s.pop("error", None)
    s.pop("warning", None)
    return s


class Table:
    """Applies inputs to a game, checks every invariant after each, and keeps the log."""

    def __init__(self, players, first, side, grace_ms):
        self.g = rules.Game(players, first, side, grace_ms)
        self.log = [gamelog.header(players, first, side, grace_ms)]
        self.t = 0
        self.walls_built = 0

    def apply(self, dt, kind, symbol=None, seat=None, symbols=None):
        g = self.g
        self.t += dt
        before = core(g)
        was_over = g.over
        status = g.apply(self.t, kind, symbol, seat, symbols)
        try:
            self.log.append(gamelog.encode(self.t, kind, symbol, seat, symbols))
        except ValueError:  # not something a log can hold: the raw line, replay flags it
            self.log.append(json.dumps({"t_ms": self.t, "in": kind, "symbol": symbol,
                                        "seat": seat, "symbols": symbols}))
        assert status in (OK, WARNING, ERROR)
        assert (g.message == "") == (status == OK), (status, g.message)
        for name, where in g.effects:
            assert name in EFFECTS, name
            assert where is None or 0 <= where < g.players
        if status == ERROR:
            assert core(g) == before, "a refused input changed the game"
            assert g.effects == [("error", g.turn)]
        if was_over and kind != "undo_collapse":
            assert core(g) == before, "a finished game changed"
        if kind == "wall" and status != ERROR:
            self.walls_built += 1
        self.check()
        return status

    def check(self):
        g = self.g
        s = g.state()
        assert sum(s["hands"]) + s["pile"] + s["roofs_placed"] + s["handed_over"] == 31
        assert min(s["hands"]) >= 0 and s["pile"] >= 0 and s["handed_over"] in (0, 1)
        assert s["walls_left"] + self.walls_built == 28 and s["walls_left"] >= 0
        assert 0 <= s["turn"] < g.players
        assert s["direction"] in ("cw", "ccw")
        if s["over"]:
            assert s["winners"] and s["tiebreak_seats"] == []
            assert s["result"] in rules.RESULTS
            assert not s["awaiting_symbol"] and not s["double_pending"]
            assert s["loser"] not in s["winners"]
        elif s["result"] is not None:
            assert s["result"] == "collapse" and s["loser"] is not None
            assert s["tiebreak_seats"] and s["winners"] == []
        else:
            assert s["loser"] is None and s["winners"] == [] and s["tiebreak_seats"] == []
        if s["result"] == "emptied_hand":
            assert all(s["hands"][w] == 0 for w in s["winners"])
        if s["result"] == "walls_used":
            assert s["walls_left"] == 0 and s["winners"] == list(range(g.players))

    def check_replay(self):
        g = self.g
        again, bad = gamelog.replay(self.log)
        assert core(again) == core(g)
        assert again._snapshot() == g._snapshot()
        twice, _ = gamelog.replay(self.log)
        assert twice._snapshot() == again._snapshot()
        return bad


setups = st.tuples(st.integers(2, 5), st.integers(0, 4), st.sampled_from(rules.SIDES),
                   st.sampled_from([0, 500, 2000, 4000])).map(
                       lambda s: (s[0], s[1] % s[0], s[2], s[3]))


# ---------------------------------------------------------------------- random legal games

def play_legal(data, table):
    """A family that follows the rules, with the odd collapse, false alarm and hand-over."""
    g = table.g
    gap = st.integers(200, 7000)
    undos = corrections = 0     # bounded, so that every game ends
    for _ in range(400):
        if g.over:
            return
        if g.tiebreak_seats:
            if undos < 2 and data.draw(st.integers(0, 9)) == 0:
                undos += 1
                assert table.apply(data.draw(gap), "undo_collapse") == OK
                continue
            if corrections < 2 and data.draw(st.integers(0, 4)) == 0:
                corrections += 1    # a seat recounts (it may have counted already)
                seat = data.draw(st.sampled_from(g.tied))
            else:
                seat = data.draw(st.sampled_from(g.tiebreak_seats))
            assert table.apply(data.draw(gap), "tiebreak", seat=seat,
                               symbols=data.draw(st.integers(0, g.hands[seat]))) == OK
            continue
        if data.draw(st.integers(0, 40)) == 0:
            table.apply(data.draw(gap), "collapse")
            if undos < 2 and data.draw(st.booleans()):   # a false alarm, undone
                undos += 1
                assert table.apply(data.draw(gap), "undo_collapse") == OK
            continue
        if g.owes_rhino:
            assert table.apply(data.draw(gap), "rhino") == OK
        for _ in range(data.draw(st.integers(1, 2))):
            if g.walls_left:
                assert table.apply(data.draw(gap), "wall") == OK
        if g.double_pending and data.draw(st.integers(0, 3)) == 0:
            left = (g.turn + 1) % g.players
            assert table.apply(data.draw(gap), "neighbor") == OK
            assert ("handover", left) in g.effects
        status = table.apply(data.draw(gap), "roof")
        assert status in (OK, WARNING)
        choices = [s for s in rules.SYMBOLS if not (g.second_roof and s == "double")]
        table.apply(data.draw(gap), "symbol", symbol=data.draw(st.sampled_from(choices)))
    raise AssertionError("a legal game did not end")


@SETTINGS
@given(setup=setups, data=st.data())
def test_random_legal_games_keep_the_invariants_and_end(setup, data):
    table = Table(*setup)
    play_legal(data, table)
    g = table.g
    assert g.over and g.winners
    assert table.check_replay() == []
    # After the end nothing changes (only an undo of a collapse may reopen the game).
    for kind in ("wall", "roof", "rhino", "neighbor", "collapse", "tiebreak", "symbol"):
        table.apply(1000, kind, symbol="none", seat=0, symbols=0)
    assert g.over


@SETTINGS
@given(setup=setups, data=st.data())
def test_legal_games_never_warn(setup, data):
    table = Table(*setup)
    warnings = []
    apply = table.apply

    def spy(*args, **kwargs):
        status = apply(*args, **kwargs)
        if status == WARNING:
            warnings.append(table.g.message)
        return status

    table.apply = spy
    play_legal(data, table)
    assert warnings == []


# ---------------------------------------------------------------------- arbitrary inputs

inputs = st.tuples(
    st.integers(0, 4000),
    st.sampled_from(rules.INPUTS + ("jump",)),
    st.sampled_from(rules.SYMBOLS + (None, "banana")),
    st.sampled_from([None, -1, 0, 1, 2, 3, 4, 5]),
    st.sampled_from([None, -1, 0, 1, 2, 3, 7]),
)


@SETTINGS
@given(setup=setups, seq=st.lists(inputs, max_size=120))
def test_arbitrary_input_sequences_keep_the_invariants(setup, seq):
    table = Table(*setup)
    for dt, kind, symbol, seat, symbols in seq:
        table.apply(dt, kind, symbol, seat, symbols)
    table.check_replay()


# A biased mix: mostly pieces and symbols, so games get deep before they end.
weighted = st.tuples(
    st.integers(0, 3000),
    st.sampled_from(["wall"] * 6 + ["roof"] * 4 + ["symbol"] * 5 + ["rhino", "neighbor",
                    "collapse", "tiebreak", "undo_collapse"]),
    st.sampled_from(rules.SYMBOLS),
    st.integers(0, 4),
    st.integers(0, 5),
)


@SETTINGS
@given(setup=setups, seq=st.lists(weighted, max_size=200))
def test_arbitrary_deep_games_keep_the_invariants_and_replay(setup, seq):
    table = Table(*setup)
    for dt, kind, symbol, seat, symbols in seq:
        table.apply(dt, kind, symbol, seat, symbols)
    assert table.check_replay() == [] or any(s >= table.g.players for _, _, _, s, _ in seq)


@SETTINGS
@given(setup=setups, seq=st.lists(weighted, min_size=1, max_size=80), cut=st.integers(0, 200),
       keep=st.integers(1, 30))
def test_resume_after_a_torn_write_matches_the_game_so_far(setup, seq, cut, keep):
    table = Table(*setup)
    for dt, kind, symbol, seat, symbols in seq:
        table.apply(dt, kind, symbol, seat, symbols)
    cut = 1 + cut % len(seq)                      # header + cut input lines survive
    lines = table.log[:cut]
    expected, _ = gamelog.replay(lines)
    torn = table.log[cut][:keep] if cut < len(table.log) else ""
    if torn and not torn.endswith("}"):
        lines = lines + [torn]
    game, reports = gamelog.resume(lines)
    assert game._snapshot() == expected._snapshot()
    assert all(r.startswith("line ") for r in reports)
