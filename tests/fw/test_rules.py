"""Every rule of SPEC section 2 and its finer points, one named test each.

Runs under pytest (CPython) and on the MicroPython unix port (tests/fw/run.py).
"""

from mptest import raises

from referee import rules
from referee.rules import ERROR, OK, WARNING, Game


class Clock:
    """Inputs 3 s apart by default, so no grace window is open unless a test wants one."""

    def __init__(self):
        self.t = 0

    def __call__(self, step=3000):
        self.t += step
        return self.t


def play(g, clock, symbol="none", walls=1):
    """One ordinary turn: walls, a roof, its symbol. Returns the symbol's status."""
    for _ in range(walls):
        assert g.apply(clock(), "wall") == OK, g.message
    assert g.apply(clock(), "roof") == OK, g.message
    return g.apply(clock(), "symbol", symbol=symbol)


def names(g):
    return [e[0] for e in g.effects]


def core(g):
    """The game state without the last input's error/warning text."""
    s = g.state()
    s.pop("error", None)
    s.pop("warning", None)
    return s


# ---------------------------------------------------------------------- rule 1: setup

def test_setup_two_players_get_seven_cards():
    g = Game(2)
    assert g.hands == [7, 7]
    assert g.pile == 31 - 14


def test_setup_three_to_five_players_get_five_cards():
    for n in (3, 4, 5):
        g = Game(n)
        assert g.hands == [5] * n
        assert g.pile == 31 - 5 * n


def test_setup_28_walls_starting_seat_and_side():
    g = Game(4, first=2, side="expert")
    assert g.walls_left == 28
    assert g.turn == 2
    assert g.side == "expert"
    assert g.direction == 1
    assert not g.over and g.winners == [] and g.loser is None and g.result is None
    assert not g.rhino_on_tower and not g.owes_rhino


def test_setup_refuses_bad_players_first_side_grace():
    for args in ((1,), (6,), (True,), ("3",), (3, 3), (3, -1), (2, 0, "hard"), (3, 0, "easy", -5)):
        with raises(ValueError) as err:
            Game(*args)
        assert str(err.value), args


# ---------------------------------------------------------------------- rule 2: a turn

def test_turn_passes_clockwise_on_symbol():
    g, c = Game(3, first=1), Clock()
    assert play(g, c) == OK
    assert g.turn == 2
    assert ("turn", 2) in g.effects
    assert play(g, c, walls=2) == OK
    assert g.turn == 0
    assert g.hands == [5, 4, 4]
    assert g.walls_left == 25


def test_roof_waits_for_its_symbol_before_the_turn_passes():
    g, c = Game(3), Clock()
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    assert g.awaiting_symbol and g.turn == 0
    g.apply(c(), "symbol", symbol="none")
    assert not g.awaiting_symbol and g.turn == 1


def test_roof_on_no_wall_warns_and_counts():
    g, c = Game(3), Clock()
    assert g.apply(c(), "roof") == WARNING
    assert "no new wall" in g.message
    assert g.hands[0] == 4 and g.awaiting_symbol
    assert ("warning", 0) in g.effects


def test_three_walls_warn_and_count():
    g, c = Game(3), Clock()
    assert g.apply(c(), "wall") == OK
    assert g.apply(c(), "wall") == OK
    assert g.apply(c(), "wall") == WARNING
    assert "3 walls" in g.message
    assert g.walls_left == 25


def test_symbol_without_roof_is_refused():
    g, c = Game(3), Clock()
    before = core(g)
    assert g.apply(c(), "symbol", symbol="skip") == ERROR
    assert "no roof" in g.message
    assert core(g) == before
    assert names(g) == ["error"]


def test_unknown_input_and_symbol_are_refused():
    g, c = Game(3), Clock()
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    before = core(g)
    assert g.apply(c(), "jump") == ERROR
    assert g.apply(c(), "symbol", symbol="banana") == ERROR
    assert g.apply(c(), "symbol") == ERROR
    assert g.apply(1.5, "wall") == ERROR
    assert core(g) == before


# ---------------------------------------------------------------------- rule 3: reverse

def test_reverse_flips_direction():
    g, c = Game(4, first=1), Clock()
    play(g, c, "reverse")
    assert g.direction == -1 and g.turn == 0
    assert g.state()["direction"] == "ccw"
    play(g, c)
    assert g.turn == 3
    play(g, c, "reverse")
    assert g.direction == 1 and g.turn == 0


def test_reverse_has_no_effect_with_two_players():
    g, c = Game(2), Clock()
    play(g, c, "reverse")
    assert g.direction == 1 and g.turn == 1
    assert g.state()["direction"] == "cw"


# ---------------------------------------------------------------------- rule 4: skip

def test_skip_next_player_loses_a_turn():
    g, c = Game(4), Clock()
    play(g, c, "skip")
    assert g.turn == 2
    assert ("skipped", 1) in g.effects


def test_skip_after_reverse_goes_counter_clockwise():
    g, c = Game(5), Clock()
    play(g, c, "reverse")       # seat 0 -> turn 4
    play(g, c, "skip")          # seat 4 skips 3 -> turn 2
    assert g.turn == 2
    assert ("skipped", 3) in g.effects


def test_skip_with_two_players_current_player_goes_again():
    g, c = Game(2, first=1), Clock()
    play(g, c, "skip")
    assert g.turn == 1
    assert ("skipped", 0) in g.effects
    assert g.hands == [7, 6]


# ---------------------------------------------------------------------- rule 5: draw

def test_draw_next_player_draws_when_turn_passes():
    g, c = Game(3), Clock()
    play(g, c, "draw")
    assert g.turn == 1
    assert g.hands == [4, 6, 5]
    assert g.pile == 15
    assert ("draw", 1) in g.effects


def test_draw_goes_to_next_player_after_reverse():
    g, c = Game(3), Clock()
    play(g, c, "reverse")       # turn 2, ccw
    play(g, c, "draw")          # seat 2 plays draw: seat 1 draws
    assert g.turn == 1 and g.hands == [4, 6, 4]


def test_draw_with_two_players():
    g, c = Game(2), Clock()
    play(g, c, "draw")
    assert g.turn == 1 and g.hands == [6, 8] and g.pile == 16


def test_draw_from_empty_pile_does_nothing():
    g, c = Game(5), Clock()     # pile 6
    for _ in range(6):
        play(g, c, "draw")
    assert g.pile == 0
    hands = g.hands[:]
    assert play(g, c, "draw") == OK
    assert g.pile == 0
    hands[g.turn - 1] -= 1      # the player's roof; no card drawn by the next one
    assert g.hands == hands
    assert "draw" not in names(g)


# ---------------------------------------------------------------------- rule 6: double

def test_double_same_player_builds_walls_and_second_roof():
    g, c = Game(3), Clock()
    assert play(g, c, "double") == OK
    assert g.turn == 0 and g.double_pending
    assert ("double", 0) in g.effects
    assert g.apply(c(), "wall") == OK        # the second floor needs its own walls
    assert g.apply(c(), "roof") == OK
    assert not g.double_pending
    assert g.apply(c(), "symbol", symbol="none") == OK
    assert g.turn == 1 and g.hands == [3, 5, 5] and g.walls_left == 26


def test_double_second_roof_symbol_takes_effect():
    g, c = Game(3), Clock()
    play(g, c, "double")
    play(g, c, "skip")
    assert g.turn == 2 and g.hands == [3, 5, 5]


def test_no_double_on_double_is_refused():
    g, c = Game(3), Clock()
    play(g, c, "double")
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    before = core(g)
    assert g.apply(c(), "symbol", symbol="double") == ERROR
    assert "double" in g.message
    assert names(g) == ["error"]
    assert core(g) == before and g.awaiting_symbol
    assert g.apply(c(), "symbol", symbol="none") == OK
    assert g.turn == 1


def test_double_after_a_double_turn_is_fine_again():
    g, c = Game(3), Clock()
    play(g, c, "double")
    play(g, c, "none")
    assert play(g, c, "double") == OK        # seat 1's own first roof
    assert g.double_pending and g.turn == 1


def test_neighbor_card_leaves_left_neighbour_hand():
    g, c = Game(3, first=1), Clock()
    play(g, c, "double")
    g.apply(c(), "wall")
    assert g.apply(c(), "neighbor") == OK
    assert ("handover", 2) in g.effects
    assert g.hands == [5, 4, 4] and g.state()["handed_over"] == 1
    g.apply(c(), "roof")
    assert g.hands == [5, 4, 4] and g.state()["handed_over"] == 0
    assert g.roofs_placed == 2


def test_neighbor_is_next_seat_clockwise_even_when_reversed():
    g, c = Game(4), Clock()
    play(g, c, "reverse")                    # turn 3, ccw
    play(g, c, "double")
    assert g.apply(c(), "neighbor") == OK
    assert ("handover", 0) in g.effects      # clockwise from 3 is 0, not 2
    assert g.hands[0] == 3


def test_neighbor_outside_double_is_refused():
    g, c = Game(3), Clock()
    before = core(g)
    assert g.apply(c(), "neighbor") == ERROR
    assert core(g) == before
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    assert g.apply(c(), "neighbor") == ERROR  # symbol double not entered yet


def test_neighbor_twice_is_refused():
    g, c = Game(3), Clock()
    play(g, c, "double")
    g.apply(c(), "neighbor")
    before = core(g)
    assert g.apply(c(), "neighbor") == ERROR
    assert core(g) == before


def test_neighbor_emptied_by_handover_wins_when_roof_settles():
    g, c = Game(3), Clock()
    for _ in range(3):
        for _ in range(3):
            play(g, c, "none")
    play(g, c)
    play(g, c)
    play(g, c, "draw")                       # seat 2 plays draw: seat 0 draws
    assert g.hands == [2, 1, 1] and g.turn == 0
    play(g, c, "double")                     # seat 0's other card is a double too
    assert g.hands == [1, 1, 1] and g.double_pending
    g.apply(c(), "wall")
    assert g.apply(c(), "neighbor") == OK
    assert g.hands == [1, 0, 1] and not g.over    # the win comes when the card is on the tower
    assert g.apply(c(), "roof") == OK
    assert g.over and g.result == "emptied_hand" and g.winners == [1]
    assert ("winner", 1) in g.effects
    assert g.hands == [1, 0, 1] and g.roofs_placed == 14


# ---------------------------------------------------------------------- rule 7: double as last card

def _down_to_last_card(players=3):
    g, c = Game(players), Clock()
    for _ in range(4):
        for _ in range(players):
            play(g, c, "none")
    assert g.hands == [1] * players and g.turn == 0
    return g, c


def test_double_as_last_card_wins_when_roof_settles():
    g, c = _down_to_last_card()
    g.apply(c(), "wall")
    assert g.apply(c(), "roof") == OK
    assert g.over and g.result == "emptied_hand" and g.winners == [0]
    assert ("winner", 0) in g.effects


def test_double_as_last_card_symbol_shows_courtesy_handover():
    g, c = _down_to_last_card()
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    before = core(g)
    assert g.apply(c(), "symbol", symbol="double") == OK
    assert g.effects == [("handover", 1)]
    assert core(g) == before                 # nothing after the win changes the result
    assert g.apply(c(), "neighbor") == ERROR
    assert g.apply(c(), "wall") == ERROR
    assert core(g) == before


# ---------------------------------------------------------------------- rule 8: Rhino Hero

def test_rhino_first_move_puts_it_on_the_tower():
    g, c = Game(3), Clock()
    play(g, c, "rhino")
    assert g.turn == 1 and g.owes_rhino and ("rhino_owed", 1) in g.effects
    assert g.state()["owes_rhino"] is True
    assert g.apply(c(), "rhino") == OK
    assert g.rhino_on_tower and not g.owes_rhino
    assert play(g, c) == OK
    assert g.turn == 2


def test_rhino_later_moves():
    g, c = Game(3), Clock()
    play(g, c, "rhino")
    g.apply(c(), "rhino")
    play(g, c, "rhino")
    assert g.turn == 2 and g.owes_rhino and g.rhino_on_tower
    assert g.apply(c(), "rhino") == OK
    assert not g.owes_rhino


def test_wall_before_owed_rhino_counts_with_warning_and_move_stays_owed():
    g, c = Game(3), Clock()
    play(g, c, "rhino")
    assert g.apply(c(), "wall") == WARNING
    assert "Rhino Hero" in g.message and ("warning", 1) in g.effects
    assert g.walls_left == 26 and g.owes_rhino
    assert g.apply(c(), "rhino") == OK       # moved late: fine, no longer owed
    assert not g.owes_rhino


def test_roof_before_owed_rhino_counts_with_warning_and_clears_the_move():
    g, c = Game(3), Clock()
    play(g, c, "rhino")
    g.apply(c(), "wall")
    assert g.owes_rhino
    assert g.apply(c(), "roof") == WARNING
    assert "Rhino Hero" in g.message
    assert not g.owes_rhino and g.hands[1] == 4 and not g.rhino_on_tower


def test_rhino_not_owed_warns():
    g, c = Game(3), Clock()
    assert g.apply(c(), "rhino") == WARNING
    assert "no move was owed" in g.message
    assert g.rhino_on_tower


# ---------------------------------------------------------------------- finer points: symbol awaited

def test_wall_while_symbol_awaited_means_none():
    g, c = Game(3), Clock()
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    assert g.apply(c(), "wall") == WARNING
    assert "taken as none" in g.message
    assert g.turn == 1 and g.state()["walls_on_floor"] == 1
    assert ("turn", 1) in g.effects and ("warning", 1) in g.effects


def test_roof_while_symbol_awaited_counts_for_new_player():
    g, c = Game(3), Clock()
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    assert g.apply(c(), "roof") == WARNING
    assert g.turn == 1 and g.hands == [4, 4, 5] and g.awaiting_symbol


def test_rhino_while_symbol_awaited_means_none():
    g, c = Game(3), Clock()
    play(g, c, "rhino")
    g.apply(c(), "rhino")
    g.apply(c(), "wall")
    g.apply(c(), "roof")                     # seat 1's roof, symbol not entered
    assert g.apply(c(), "rhino") == WARNING  # none assumed; seat 2 owes nothing
    assert g.turn == 2 and not g.owes_rhino


# ---------------------------------------------------------------------- rule 9: emptied hand

def test_emptied_hand_wins_at_once():
    g, c = _down_to_last_card(4)
    g.apply(c(), "wall")
    assert g.apply(c(), "roof") == OK
    assert g.over and g.winners == [0] and g.result == "emptied_hand" and g.loser is None
    assert g.hands == [0, 1, 1, 1]


def test_final_symbol_accepted_once_and_changes_nothing():
    g, c = _down_to_last_card()
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    before = core(g)
    assert g.apply(c(), "symbol", symbol="skip") == OK
    assert g.effects == []
    assert core(g) == before
    assert g.apply(c(), "symbol", symbol="none") == ERROR
    assert "game over" in g.message


def test_inputs_after_the_end_are_refused():
    g, c = _down_to_last_card()
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    before = core(g)
    for kind in ("wall", "roof", "rhino", "neighbor", "collapse", "tiebreak", "undo_collapse"):
        assert g.apply(c(), kind, seat=1, symbols=0) == ERROR, kind
        assert core(g) == before, kind


# ---------------------------------------------------------------------- rule 10: collapse

def test_collapse_current_player_loses_fewest_cards_wins():
    g, c = Game(3), Clock()
    play(g, c)          # seat 0: 4
    play(g, c)          # seat 1: 4
    play(g, c, "draw")  # seat 2: 4, seat 0 draws: 5
    play(g, c)          # seat 0: 4
    play(g, c)          # seat 1: 3
    g.apply(c(), "wall")
    assert g.apply(c(), "collapse") == OK
    assert g.over and g.result == "collapse"
    assert g.loser == 2 and g.winners == [1]
    assert ("loser", 2) in g.effects and ("winner", 1) in g.effects


def test_collapse_in_grace_window_is_charged_to_previous_roof_placer():
    g, c = Game(3), Clock()
    play(g, c)
    g.apply(c(), "wall")
    g.apply(c(), "roof")                     # seat 1's roof at t
    t = c.t
    g.apply(t + 500, "symbol", symbol="none")  # turn passes to seat 2
    assert g.apply(t + 2000, "collapse") == OK
    assert g.loser == 1 and 1 not in g.winners


def test_collapse_after_grace_window_is_charged_to_current_player():
    g, c = Game(3), Clock()
    play(g, c)
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    t = c.t
    g.apply(t + 500, "symbol", symbol="none")
    g.apply(t + 2001, "collapse")
    assert g.loser == 2


def test_grace_window_closed_by_a_new_piece():
    g, c = Game(3), Clock()
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    t = c.t
    g.apply(t + 300, "symbol", symbol="none")
    g.apply(t + 600, "wall")                 # seat 1 touches the tower with a new piece
    g.apply(t + 900, "collapse")
    assert g.loser == 1


def test_grace_window_not_closed_by_a_symbol():
    g, c = Game(3), Clock()
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    t = c.t
    g.apply(t + 1900, "symbol", symbol="skip")
    g.apply(t + 1950, "collapse")
    assert g.turn == 2 and g.loser == 0


def test_grace_window_is_configurable():
    g = Game(3, grace_ms=500)
    g.apply(0, "wall")
    g.apply(1000, "roof")
    g.apply(1200, "symbol", symbol="none")
    g.apply(1600, "collapse")
    assert g.loser == 1
    g = Game(3, grace_ms=5000)
    g.apply(0, "wall")
    g.apply(1000, "roof")
    g.apply(1200, "symbol", symbol="none")
    g.apply(5900, "collapse")
    assert g.loser == 0


def test_collapse_while_placing_a_double_second_roof():
    g, c = Game(3, first=2), Clock()
    play(g, c, "double")
    g.apply(c(), "wall")
    g.apply(c(), "collapse")
    assert g.loser == 2 and not g.double_pending


# ---------------------------------------------------------------------- rule 10: tie-break

def _tied_collapse():
    g, c = Game(4), Clock()
    g.apply(c(), "wall")
    g.apply(c(), "collapse")                 # seat 0 loses; seats 1-3 all hold 5
    return g, c


def test_tiebreak_entered_by_tied_seats():
    g, _ = _tied_collapse()
    assert g.loser == 0 and g.result == "collapse"
    assert not g.over and g.winners == []
    assert g.tiebreak_seats == [1, 2, 3]
    assert [e for e in g.effects if e[0] == "tiebreak"] == [("tiebreak", 1), ("tiebreak", 2),
                                                            ("tiebreak", 3)]
    assert g.apply(40000, "tiebreak", seat=2, symbols=1) == OK
    assert g.tiebreak_seats == [1, 3]
    assert g.apply(40100, "tiebreak", seat=1, symbols=3) == OK
    assert g.apply(40200, "tiebreak", seat=3, symbols=2) == OK
    assert g.over and g.winners == [1] and g.tiebreak_seats == []
    assert ("winner", 1) in g.effects


def test_tiebreak_count_can_be_corrected():
    g, _ = _tied_collapse()
    g.apply(40000, "tiebreak", seat=1, symbols=3)
    assert g.apply(40100, "tiebreak", seat=1, symbols=0) == OK   # corrected
    assert g.tiebreak_seats == [2, 3]
    g.apply(40200, "tiebreak", seat=2, symbols=1)
    g.apply(40300, "tiebreak", seat=3, symbols=0)
    assert g.winners == [2]


def test_tiebreak_remaining_tie_is_a_shared_win():
    g, _ = _tied_collapse()
    g.apply(40000, "tiebreak", seat=1, symbols=2)
    g.apply(40100, "tiebreak", seat=2, symbols=1)
    g.apply(40200, "tiebreak", seat=3, symbols=2)
    assert g.over and g.winners == [1, 3]


def test_tiebreak_refuses_untied_seat_and_bad_counts():
    g, _ = _tied_collapse()
    before = core(g)
    assert g.apply(40000, "tiebreak", seat=0, symbols=1) == ERROR   # the loser
    assert "not in the tie-break" in g.message
    assert g.apply(40000, "tiebreak", seat=7, symbols=1) == ERROR
    assert g.apply(40000, "tiebreak", seat=True, symbols=1) == ERROR
    assert g.apply(40000, "tiebreak", seat=1, symbols=-1) == ERROR
    assert g.apply(40000, "tiebreak", seat=1, symbols=True) == ERROR
    assert g.apply(40000, "tiebreak", seat=1) == ERROR
    assert core(g) == before


def test_tiebreak_count_above_hand_warns():
    g, _ = _tied_collapse()
    assert g.apply(40000, "tiebreak", seat=1, symbols=9) == WARNING
    assert g.tiebreak_seats == [2, 3]


def test_only_tiebreak_and_undo_accepted_while_counts_owed():
    g, _ = _tied_collapse()
    before = core(g)
    for kind in ("wall", "roof", "rhino", "neighbor", "collapse", "symbol"):
        assert g.apply(40000, kind, symbol="none") == ERROR, kind
        assert "tie-break" in g.message
    assert core(g) == before
    assert g.apply(40000, "undo_collapse") == OK
    assert g.loser is None and g.tiebreak_seats == []


def test_tiebreak_when_none_owed_is_refused():
    g, c = Game(3), Clock()
    assert g.apply(c(), "tiebreak", seat=1, symbols=2) == ERROR
    assert "no tie-break" in g.message


# ---------------------------------------------------------------------- rule 11: all walls

def test_all_28_walls_everyone_wins():
    g, c = Game(5), Clock()                  # 25 cards: enough for 14 floors
    for _ in range(13):
        play(g, c, walls=2)
    assert g.walls_left == 2 and not g.over
    g.apply(c(), "wall")
    g.apply(c(), "wall")
    assert g.walls_left == 0 and not g.over  # the roof on top ends the game
    assert g.apply(c(), "roof") == OK
    assert g.over and g.result == "walls_used" and g.winners == [0, 1, 2, 3, 4]
    assert ("all_win", None) in g.effects
    assert g.loser is None


def test_wall_with_no_walls_left_is_refused():
    g, c = Game(3), Clock()
    for _ in range(27):
        g.apply(c(), "wall")
    assert g.apply(c(), "wall") == WARNING
    assert g.walls_left == 0
    assert g.apply(c(), "wall") == ERROR
    assert g.walls_left == 0


def test_rule_9_before_rule_11():
    g, c = Game(2), Clock()
    for _ in range(12):
        play(g, c, walls=2)
    assert g.hands == [1, 1] and g.walls_left == 4 and g.turn == 0
    for _ in range(4):
        g.apply(c(), "wall")
    assert g.walls_left == 0
    assert g.apply(c(), "roof") == OK        # seat 0's last card on the last walls
    assert g.result == "emptied_hand" and g.winners == [0]
    assert "all_win" not in names(g)


# ---------------------------------------------------------------------- rule 12: undo

def test_undo_collapse_restores_exactly():
    g, c = Game(3), Clock()
    play(g, c, "rhino")
    g.apply(c(), "wall")
    g.apply(c(), "roof")                     # seat 1 owed the rhino: warned, cleared
    before = g._snapshot()
    state = core(g)
    g.apply(c(), "collapse")
    assert g.over
    assert g.apply(c(), "undo_collapse") == OK
    assert g._snapshot() == before and core(g) == state
    assert ("undo", None) in g.effects
    assert g.apply(c(), "symbol", symbol="skip") == OK   # play goes on
    assert g.turn == 0


def test_undo_after_tiebreak_counts_restores_exactly():
    g, c = Game(4), Clock()
    g.apply(c(), "wall")
    before = g._snapshot()
    g.apply(c(), "collapse")
    g.apply(c(), "tiebreak", seat=1, symbols=2)
    assert g.apply(c(), "undo_collapse") == OK
    assert g._snapshot() == before


def test_undo_with_nothing_to_undo_is_refused():
    g, c = Game(3), Clock()
    assert g.apply(c(), "undo_collapse") == ERROR
    assert "no collapse" in g.message
    g.apply(c(), "collapse")
    assert g.apply(c(), "undo_collapse") == OK
    assert g.apply(c(), "undo_collapse") == ERROR


def test_undo_of_a_game_won_by_emptied_hand_is_refused():
    g, c = _down_to_last_card()
    g.apply(c(), "wall")
    g.apply(c(), "roof")
    assert g.over
    assert g.apply(c(), "undo_collapse") == ERROR


def test_missed_collapse_declared_after_undo_counts():
    g, c = Game(3), Clock()
    g.apply(c(), "collapse")
    g.apply(c(), "undo_collapse")
    play(g, c)
    assert g.apply(c(), "collapse") == OK
    assert g.loser == 1 and g.over


# ---------------------------------------------------------------------- the contract

def test_contract_names():
    assert rules.SYMBOLS == ("none", "reverse", "skip", "draw", "double", "rhino")
    assert rules.INPUTS == ("wall", "roof", "symbol", "rhino", "neighbor", "collapse",
                            "tiebreak", "undo_collapse")
    assert len(set((OK, WARNING, ERROR))) == 3


def test_state_has_the_replay_fields():
    s = Game(3).state()
    for key in ("turn", "direction", "hands", "pile", "walls_left", "owes_rhino", "over",
                "winners", "loser", "result"):
        assert key in s, key
    assert "error" not in s and "warning" not in s


def test_state_carries_error_and_warning_text():
    g, c = Game(3), Clock()
    g.apply(c(), "symbol", symbol="none")
    assert g.state()["error"] == g.message != ""
    g.apply(c(), "roof")
    assert g.state()["warning"] == g.message != ""
    g.apply(c(), "symbol", symbol="none")
    assert "warning" not in g.state() and g.message == ""
