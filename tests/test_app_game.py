"""Whole games at SENSOR level through the board's Referee: the simulated table makes HX711 and
accelerometer samples, the firmware's detector turns them into pieces, buttons are pressed as a
family would, and every seat's cue is checked at the key moments. An ideal rules.Game fed the
ground truth must end in exactly the same state."""

import json

import pytest
from app_rig import Rig, play_turn, same_state, start

from referee import cues, gamelog, rules, storage


def test_lobby_join_leave_side_and_start(tmp_path):
    rig = Rig(tmp_path, seed=2)
    rig.run(1000)
    ref = rig.ref
    assert ref.phase() == "lobby"
    assert ref.seat_cues() == [["waiting"]] * 5
    rig.press("seat3")
    assert rig.cues(3) == ["joined"] and rig.cues(1) == ["waiting"]
    rig.press("menu")  # one seat cannot start
    assert ref.phase() == "lobby"
    assert any("2 seats" in e["message"] for e in rig.named("warning"))
    assert rig.cues(0) == ["warning"]  # the whole table blinks the warning
    rig.run(3500)
    rig.press("seat1")
    rig.press("seat4")
    rig.press("seat4")  # pressed again: leaves
    assert ref.joined == [3, 1]
    assert rig.cues(3) == ["joined", "turn_cw"]  # the first to join starts: the turn comet
    assert rig.cues(1) == ["joined"] and rig.cues(4) == ["waiting"]
    rig.press("reverse")  # the foundation card turned over
    assert ref.side == "expert"
    assert rig.cues(1) == ["joined_expert"]
    rig.press("menu")
    g = ref.game
    assert ref.phase() == "play" and ref.seats == [1, 3]
    assert g.players == 2 and g.first == 1 and g.side == "expert" and g.turn == 1
    assert rig.cues(3) == ["turn_cw"] and rig.cues(1) == [] and rig.cues(0) == []
    head = json.loads(open(tmp_path / "game.jsonl").readline())
    assert head["rhinoref"] == "game" and head["seats"] == [1, 3] and head["side"] == "expert"
    assert head["players"] == 2 and head["first"] == 1


def test_whole_game_to_an_emptied_hand_with_cues_at_every_seat(tmp_path):
    rig = Rig(tmp_path, seed=3)
    seats = start(rig, (2, 0, 4))
    ref = rig.ref
    ideal = rules.Game(3, first=1)
    assert rig.cues(2) == ["turn_cw"]
    script = ["none", "skip", "draw", "rhino", "none", "reverse", "double", "none", "rhino",
              "skip", "none", "none", "none", "none", "none"]
    seen = set()
    for symbol in script:
        before = ideal.turn
        play_turn(rig, ideal, symbol)
        ok, a, b = same_state(ref.game, ideal)
        assert ok, (symbol, a, b)
        if ideal.over:
            break
        turn = seats[ideal.turn]
        direction = "turn_cw" if ideal.direction > 0 else "turn_ccw"
        if symbol == "skip":
            skipped = seats[(before + ideal.direction) % 3]
            assert rig.cues(skipped) == ["skipped"]
            assert rig.cues(turn) == [direction]
            seen.add("skipped")
        elif symbol == "draw":
            assert rig.cues(turn) == ["draw", direction]
            seen.add("draw")
        elif symbol == "rhino":
            assert rig.cues(turn) == ["rhino_owed", direction]
            seen.add("rhino_owed")
        elif symbol == "double":
            assert ideal.turn == before and rig.cues(turn) == ["double", direction]
            seen.add("double")
        elif symbol == "reverse":
            assert direction == "turn_ccw" and rig.cues(turn) == ["turn_ccw"]
            seen.add("reverse")
        else:
            assert rig.cues(turn) == [direction]
        # whose turn is always visible, and only there
        for s in range(5):
            shown = rig.cues(s)
            assert (direction in shown) == (s == turn), (s, shown)
    assert seen == {"skipped", "draw", "rhino_owed", "double", "reverse"}
    assert ref.game.over and ref.game.result == "emptied_hand"
    winner = seats[ref.game.winners[0]]
    assert rig.cues(winner) == ["winner"]
    for s in range(5):
        if s != winner:
            assert rig.cues(s) == []
    assert len(rig.named("result")) == 1
    # the log on flash replays to the same game
    lines = list(storage.read_lines(str(tmp_path / "game.jsonl")))
    game, bad = gamelog.replay(lines)
    assert bad == [] and game.state() == ref.game.state()
    # Rhino Hero was moved by the detector's "rhino" events, not by a button
    assert sum(1 for e in rig.named("input") if e["in"] == "rhino") == 2


def test_symbol_window_makes_a_plain_roof(tmp_path):
    rig = Rig(tmp_path, seed=4)
    start(rig, (0, 1))
    ref = rig.ref
    rig.table.place_wall()
    rig.run(600)
    rig.table.place_roof()
    rig.run(800)
    assert ref.game.awaiting_symbol and ref.game.turn == 0
    rig.run(ref.symbol_ms - 1500)  # still inside the window: the turn has not passed
    assert ref.game.awaiting_symbol and ref.game.turn == 0
    rig.run(2000)
    assert not ref.game.awaiting_symbol and ref.game.turn == 1
    sym = [e for e in rig.named("input") if e["in"] == "symbol"]
    assert sym[-1]["symbol"] == "none" and sym[-1]["src"] == "timeout"
    assert rig.cues(1) == ["turn_cw"] and rig.cues(0) == []


def test_wall_before_the_owed_rhino_warns_at_that_seat(tmp_path):
    rig = Rig(tmp_path, seed=5)
    seats = start(rig, (1, 3, 4))
    ideal = rules.Game(3, first=0)
    play_turn(rig, ideal, "rhino")
    turn = seats[ideal.turn]
    assert rig.cues(turn) == ["rhino_owed", "turn_cw"]
    rig.table.place_wall()  # forgot Rhino Hero
    rig.run(600)
    assert rig.named("input")[-1]["status"] == "warning"
    assert rig.cues(turn) == ["warning", "turn_cw"]
    rig.run(3500)  # the warning blinks 3 s, the move is still owed
    assert rig.cues(turn) == ["rhino_owed", "turn_cw"]
    rig.table.move_rhino()
    rig.run(800)
    assert rig.cues(turn) == ["turn_cw"]
    assert not rig.ref.game.owes_rhino


def test_collapse_loser_and_tiebreak_counted_with_seat_buttons(tmp_path):
    rig = Rig(tmp_path, seed=6)
    seats = start(rig, (0, 2, 3))
    ref = rig.ref
    rig.table.place_wall()
    rig.run(600)
    rig.table.collapse("total")
    rig.run(1500)
    g = ref.game
    assert g.loser == 0 and g.result == "collapse" and not g.over
    assert g.tiebreak_seats == [1, 2]
    assert rig.cues(0) == ["loser"]
    assert rig.cues(2) == ["tiebreak"] and rig.cues(3) == ["tiebreak"]
    assert rig.named("tiebreak")[-1]["seats"] == [1, 2]
    # seat 2 (game seat 1) has two special cards: two presses, then the count goes in by itself
    rig.press("seat2")
    rig.run(200)
    rig.press("seat2")
    assert ref.seat_counts()[2] == 2
    rig.run(3500)
    assert g.tiebreak_seats == [2]
    # seat 3 counts three, then confirms at once with a long press
    for _ in range(3):
        rig.press("seat3")
        rig.run(150)
    assert ref.seat_counts()[3] == 3
    rig.press("seat3_long")
    assert g.over and g.winners == [2]
    assert rig.cues(3) == ["winner"] and rig.cues(0) == ["loser"] and rig.cues(2) == []
    assert rig.named("result")[-1]["winners"] == [2]
    # more rubble falling after the end changes nothing
    rig.table.knock()
    rig.run(1000)
    assert g.winners == [2]
    tb = [e for e in rig.named("input") if e["in"] == "tiebreak"]
    assert [(e["seat"], e["symbols"]) for e in tb] == [(1, 2), (2, 3)]
    assert seats == [0, 2, 3]


def test_collapse_in_the_grace_window_is_charged_to_the_roof_placer(tmp_path):
    rig = Rig(tmp_path, seed=7)
    start(rig, (1, 2))
    ref = rig.ref
    rig.table.place_wall()
    rig.run(600)
    rig.table.place_roof()
    rig.run(800)
    rig.press("reverse")  # the symbol goes in at once; the turn passes
    assert ref.game.turn == 1
    rig.table.collapse("partial")
    rig.run(1500)
    g = ref.game
    assert g.result == "collapse" and g.loser == 0  # seat 1 placed that roof
    assert g.over and g.winners == [1]
    assert rig.cues(1) == ["loser"] and rig.cues(2) == ["winner"]


def test_double_then_the_left_neighbour_hands_a_card_over(tmp_path):
    rig = Rig(tmp_path, seed=8)
    seats = start(rig, (0, 1, 2))
    ref = rig.ref
    ideal = rules.Game(3, first=0)
    play_turn(rig, ideal, "double")
    assert rig.cues(0) == ["double", "turn_cw"]
    rig.press("seat1")  # the left neighbour: "my card goes on the tower"
    ideal.apply(0, "neighbor")
    assert rig.cues(1) == ["handover"]
    assert ref.game.hands[1] == 4
    play_turn(rig, ideal, "none")
    ok, a, b = same_state(ref.game, ideal)
    assert ok, (a, b)
    assert ref.game.turn == 1 and rig.cues(1) == ["turn_cw"]
    assert ref.game.hands == [4, 4, 5]  # seat 0's second roof was seat 1's card
    assert seats == [0, 1, 2]


def test_seat_button_of_someone_else_does_nothing(tmp_path):
    rig = Rig(tmp_path, seed=9)
    start(rig, (0, 1, 2))
    before = rig.ref.game.state()
    rig.press("seat2")
    rig.press("seat4")  # not playing
    assert rig.ref.game.state() == before
    assert len(rig.named("ignored")) == 1


def test_refused_symbol_shows_error_and_changes_nothing(tmp_path):
    rig = Rig(tmp_path, seed=10)
    start(rig, (0, 4))
    ref = rig.ref
    before = ref.game.state()
    rig.press("draw")  # no roof waiting for a symbol: held a moment in case one is settling
    assert rig.named("held")[-1]["symbol"] == "draw"
    assert ref.game.state() == before
    rig.run(3000)  # no roof came
    after = ref.game.state()
    assert after.pop("error") == "no roof is waiting for a symbol"
    assert after == before
    assert rig.named("refused")[-1]["in"] == "symbol"
    assert rig.cues(0) == ["error", "turn_cw"]
    lines = list(storage.read_lines(str(tmp_path / "game.jsonl")))
    assert len(lines) == 1  # refused inputs are not logged: the header only


def test_symbol_pressed_before_the_roof_settles_counts_for_that_roof(tmp_path):
    rig = Rig(tmp_path, seed=19)
    start(rig, (1, 2, 3))
    ref = rig.ref
    rig.table.place_wall()
    rig.run(600)
    rig.table.place_roof()
    rig.step(rig.table.truth[-1][0] - rig.table.now_ms + 50)  # the hand has just let go
    rig.press("skip")  # at once, before the tower stopped ringing
    assert not any(e["in"] == "roof" for e in rig.named("input"))
    rig.run(1000)
    ins = [(e["in"], e.get("symbol")) for e in rig.named("input")]
    assert ins[-2:] == [("roof", None), ("symbol", "skip")]
    assert ref.game.turn == 2 and rig.cues(2) == ["skipped"]
    assert not rig.named("refused")


def test_menu_undo_false_collapse_and_declare_missed_collapse(tmp_path):
    rig = Rig(tmp_path, seed=11)
    start(rig, (0, 1, 3))
    ref = rig.ref
    ideal = rules.Game(3, first=0)
    play_turn(rig, ideal, "skip")
    rig.run(2500)  # later than the grace window of the last roof
    snapshot = ref.game.state()
    rig.press("menu_long")
    assert rig.cues(2) == ["menu"]
    rig.press("skip")  # declare a missed collapse
    assert ref.game.result == "collapse" and ref.game.over
    assert ref.game.loser == ideal.turn
    assert ref.seat_cues()[3] == ["loser"]
    rig.press("menu_long")
    rig.press("reverse")  # undo: it was a false alarm
    assert ref.game.state() == snapshot
    assert rig.cues(3) == ["turn_cw"]
    srcs = [e["src"] for e in rig.named("input")][-2:]
    assert srcs == ["menu", "menu"]
    # the menu closes itself when left alone
    rig.press("menu_long")
    rig.run(16000)
    assert rig.cues(0) != ["menu"]
    assert rig.named("menu")[-1].get("timeout") is True


def test_menu_brightness_and_new_game(tmp_path):
    rig = Rig(tmp_path, seed=12)
    start(rig, (0, 2))
    ref = rig.ref
    b0 = ref.brightness
    rig.press("menu_long")
    rig.press("double")
    rig.press("double")
    assert ref.brightness != b0
    counts = ref.seat_counts()
    assert counts[0] >= 1 and rig.cues(0) == ["menu"]  # the bar shows the level
    saved = json.loads(storage.read_checked(str(tmp_path / "options.json")))
    assert saved["brightness"] == ref.brightness
    rig.press("rhino")  # new game: back to the lobby with the same seats
    assert ref.phase() == "lobby" and ref.joined == [0, 2]
    rig.press("menu")
    assert ref.phase() == "play"
    assert (tmp_path / "last.jsonl").exists()


def test_new_game_after_the_result_with_menu(tmp_path):
    rig = Rig(tmp_path, seed=13)
    start(rig, (1, 2))
    ideal = rules.Game(2, first=0)
    play_turn(rig, ideal, "none")
    rig.table.place_wall()
    rig.run(600)
    rig.table.collapse("total")
    rig.run(1500)
    assert rig.ref.phase() == "over"
    rig.press("menu")
    assert rig.ref.phase() == "lobby"
    assert rig.cues(1) == ["joined", "turn_cw"]


def test_hx711_fault_shows_and_never_makes_a_false_collapse(tmp_path):
    rig = Rig(tmp_path, seed=14)
    start(rig, (0, 1))
    ref = rig.ref
    ideal = rules.Game(2, first=0)
    play_turn(rig, ideal, "none")
    ref.fault("hx711", True)
    assert all(c[0] == "fault" for c in ref.seat_cues())
    assert "turn_cw" in rig.cues(1)  # the turn stays visible over the fault cue
    # while the sensor is lost the board feeds nothing; the tower changes meanwhile
    t = rig.table
    t.place_wall()
    t.place_wall()
    while t.busy():
        t.next_sample()
    ref.fault("hx711", False)
    rig.run(3000)
    assert rig.named("fault")[-1] == {"ev": "fault", "sensor": "hx711", "on": False}
    assert ref.game.result is None
    assert not any(e["event"] == "collapse" for e in rig.named("detect"))
    assert rig.cues(1) == ["turn_cw"]
    # and the game goes on with the next piece
    t.place_wall()
    rig.run(800)
    assert rig.named("input")[-1]["in"] == "wall"


def test_degraded_mode_without_accelerometer(tmp_path):
    rig = Rig(tmp_path, seed=15, accel=False)
    seats = start(rig, (3, 4))
    ideal = rules.Game(2, first=0)
    for symbol in ("none", "skip", "draw"):
        play_turn(rig, ideal, symbol)
        ok, a, b = same_state(rig.ref.game, ideal)
        assert ok, (symbol, a, b)
    rig.run(2500)  # past the grace window of the last roof
    rig.table.place_wall()
    rig.run(600)
    rig.table.collapse("total")
    rig.run(1500)
    assert rig.ref.game.result == "collapse"
    assert rig.ref.game.loser == ideal.turn
    assert seats == [3, 4]


def test_ten_samples_per_second(tmp_path):
    rig = Rig(tmp_path, seed=16, sps=10)
    start(rig, (0, 2, 4))
    ideal = rules.Game(3, first=0)
    for symbol in ("none", "reverse", "rhino", "none"):
        play_turn(rig, ideal, symbol, gap_ms=1200)
        ok, a, b = same_state(rig.ref.game, ideal)
        assert ok, (symbol, a, b)


def test_calibration_from_the_menu(tmp_path):
    rig = Rig(tmp_path, seed=17)
    rig.run(10000)
    ref = rig.ref
    rig.press("menu_long")
    rig.press("draw")
    assert ref.seat_cues() == [["calibrating"]] * 5
    placed = 0
    for _ in range(60):  # a parent follows the prompts (rhinoref calibrate shows them)
        rig.run(500)
        prompt = rig.named("calib")[-1]["prompt"]
        if prompt.startswith("place a wall (%d of 3)" % (placed + 1)):
            rig.table.place_wall()
            placed += 1
        if prompt.startswith("wall learned"):
            break
    assert placed == 3
    done = [e for e in rig.named("calib") if e["state"] == "done"]
    assert [e["step"] for e in done] == ["tare", "wall"]
    walls = done[1]["result"]["grams"]
    assert abs(walls - rig.table.masses["wall"]) < 0.3
    assert ref.cal.wall_g == walls
    saved = json.loads(storage.read_checked(str(tmp_path / "calib.json")))
    assert saved["wall_g"] == pytest.approx(walls, abs=0.001)
    # a short menu press cancels the rest; the table is back to the lobby
    rig.press("menu")
    assert ref.calib is None and ref.seat_cues()[0] == ["waiting"]


def test_frames_are_rendered_only_when_needed(tmp_path):
    rig = Rig(tmp_path, seed=18)
    rig.run(500)
    ref = rig.ref
    t = rig.table

    def samples(n):
        for _ in range(n):
            ref.sample(*t.next_sample()[:5])
            ref.frame  # the board reads it every pass

    # the open menu is static everywhere: one render, then none for 2 s of samples
    rig.press("menu_long")
    samples(2)
    v = ref.frame_version
    samples(160)
    assert ref.frame_version == v
    # animated cues (waiting: a pulse) re-render at most once per animation step
    rig.press("menu")
    samples(160)
    frames = ref.frame_version - v
    assert 0 < frames <= 2000 // cues.STEP_MS + 2
    assert len(ref.frame) == 3 * 5 * 6
