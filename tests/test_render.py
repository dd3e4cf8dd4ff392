"""The shared live renderer: view model from board events, LED frame decoding, rich panel and
plain lines."""

import io
import json

from rich.console import Console

from rhinoref.render import (
    LiveRenderer,
    PlainRenderer,
    View,
    decode_frame,
    format_line,
    make_renderer,
    render_view,
    screen_colour,
)


def panel_text(view, width=120):
    console = Console(record=True, width=width, file=io.StringIO(), color_system="truecolor")
    console.print(render_view(view))
    return console.export_text(clear=False), console.export_html(inline_styles=True)


def test_decode_frame_grb_and_rgb_per_seat():
    leds = 2
    frame = bytearray(3 * 5 * leds)
    # seat 1, first LED: pure red in GRB order is (g=0, r=200, b=0)
    frame[3 * 2 + 1] = 200
    # seat 4, second LED: blue
    frame[3 * 9 + 2] = 90
    seats = decode_frame(frame, leds, "GRB")
    assert len(seats) == 5 and all(len(s) == leds for s in seats)
    assert seats[1][0] == (200, 0, 0)
    assert seats[4][1] == (0, 0, 90)
    assert seats[0] == [(0, 0, 0), (0, 0, 0)]
    rgb = decode_frame(frame, leds, "RGB")
    assert rgb[1][0] == (0, 200, 0)


def test_short_frame_pads_dark_leds():
    seats = decode_frame(bytes(6), 3)
    assert seats[0][2] == (0, 0, 0) and seats[4] == [(0, 0, 0)] * 3


def test_screen_colour_brightens_dim_leds_and_keeps_dark_dark():
    assert screen_colour((0, 0, 0)) is None
    assert screen_colour((20, 10, 0)) == (255, 127, 0)


def test_board_events_build_the_tower_and_state():
    # The board app's event lines (docs/board.md), as Referee.pop_events() gives them.
    v = View(players=3)
    lines = [
        '{"ev": "game", "players": 3, "first": 1, "side": "easy", "seats": [0, 1, 2], "grace_ms": 2000}',
        '{"ev": "turn", "seat": 1, "direction": "cw", "hands": [5, 5, 5], "pile": 16, "walls_left": 28, "owes_rhino": false}',
        '{"ev": "input", "t_ms": 900, "game_t_ms": 900, "in": "wall", "src": "sensor", "status": "ok"}',
        '{"ev": "input", "t_ms": 1900, "game_t_ms": 1900, "in": "wall", "src": "sensor", "status": "ok"}',
        '{"ev": "input", "t_ms": 2900, "game_t_ms": 2900, "in": "roof", "src": "sensor", "status": "ok"}',
        '{"ev": "input", "t_ms": 3500, "game_t_ms": 3500, "in": "symbol", "src": "button", "status": "ok", "symbol": "draw"}',
        '{"ev": "turn", "seat": 2, "direction": "cw", "hands": [5, 4, 6], "pile": 15, "walls_left": 26, "owes_rhino": false}',
        '{"ev": "input", "t_ms": 4000, "game_t_ms": 4000, "in": "wall", "src": "sensor", "status": "ok"}',
        '{"ev": "input", "t_ms": 5000, "game_t_ms": 5000, "in": "roof", "src": "sensor", "status": "warning", "warning": "roof placed before Rhino Hero was moved"}',
        '{"ev": "input", "t_ms": 6000, "game_t_ms": 6000, "in": "rhino", "src": "sensor", "status": "ok"}',
        '{"ev": "detect", "t_ms": 6500, "event": "bump"}',
    ]
    for line in lines:
        v.apply_event(line)
    assert v.turn == 2 and v.hands == [5, 4, 6] and v.pile == 15 and v.walls_left == 26
    assert v.floors == [[2, True], [1, True]]
    assert v.roof_count() == 2 and v.wall_count() == 3 and v.rhino_floor == 2
    v.apply_event('{"ev": "input", "t_ms": 7000, "game_t_ms": 7000, "in": "collapse", "src": "sensor", "status": "ok"}')
    v.apply_event('{"ev": "collapse", "t_ms": 7000, "game_t_ms": 7000, "loser": 2}')
    assert v.floors == [] and v.rhino_floor is None and v.loser == 2
    v.apply_event('{"ev": "input", "t_ms": 8000, "game_t_ms": 8000, "in": "undo_collapse", "src": "menu", "status": "ok"}')
    assert v.roof_count() == 2 and v.rhino_floor == 2
    texts = [t for _, t in v.events]
    assert texts[0] == "new game: 3 players, seat 1 starts, easy side"
    assert texts[1] == "seat 1's turn (clockwise)"
    assert "seat 1: symbol draw (next player takes a card)" in texts
    assert "seat 2's turn (clockwise), draws a card" in texts
    assert "seat 2: roof placed [warning: roof placed before Rhino Hero was moved]" in texts
    assert "(detector: table bump)" in texts
    assert "COLLAPSE: seat 2 loses" in texts
    assert "collapse undone (menu)" in texts
    assert [t for t, _ in v.events][2] == 900


def test_simple_event_shapes_still_work():
    v = View(players=2)
    v.apply_event({"ev": "turn", "t_ms": 100, "seat": 1})
    for name in ("wall", "walls2", "roof", "rhino"):
        v.apply_event({"ev": name, "t_ms": 1000})
    assert v.floors == [[3, True]] and v.rhino_floor == 1


def test_state_fields_and_result_text():
    v = View()
    v.set_state({"turn": 2, "direction": "ccw", "hands": [3, 0, 4], "pile": 10, "walls_left": 20,
                 "over": True, "winners": [1], "loser": None, "result": "emptied_hand"})
    assert v.players == 3 and v.direction == "ccw"
    assert v.result_text() == "GAME OVER (emptied hand): winner seat 1"
    v.set_state({"winners": [0, 2], "loser": 1, "result": "collapse"})
    assert v.result_text() == "GAME OVER (collapse): winners seat 0, seat 2; seat 1 loses"


def test_unknown_and_bad_events_do_not_break_the_view():
    v = View()
    assert v.apply_event("not json") is None
    assert v.apply_event([1, 2]) is None
    text = v.apply_event({"ev": "mystery", "t_ms": 5, "x": 1})
    assert text == 'mystery {"x": 1}'


def test_frame_event_sets_leds_and_cues():
    v = View(players=2)
    frame = bytearray(3 * 30)
    frame[0:3] = bytes([0, 40, 0])   # seat 0 LED 0 red (GRB)
    v.apply_event({"ev": "frame", "t_ms": 10, "grb": frame.hex()})
    assert v.leds[0][0] == (40, 0, 0) and v.leds_per_seat == 6
    v.apply_event({"ev": "cues", "seats": [["turn_cw"], [], ["draw", "turn_ccw"], [], []],
                   "counts": [0, 0, 0, 0, 0]})
    assert v.seat_cues[0] == "turn_cw (chase)"
    assert v.seat_cues[2] == "draw (slow blink) + turn_ccw (chase)"
    assert v.cue_lists[0] == ["turn_cw"]
    assert not v.events  # neither a frame nor a cue change is an event line


def test_animate_renders_the_firmware_cues_at_wall_clock_time():
    v = View(players=3)
    v.set_seat_cues([["draw", "turn_cw"], ["loser"], [], [], []])
    assert v.seat_cues[0] == "draw (slow blink) + turn_cw (chase)"
    seen = set()
    for wall_ms in range(0, 2000, 100):
        assert v.animate(wall_ms)
        seen.add(tuple(v.leds[0]))
        # the loser cue is one steady red dot
        lit = [rgb for rgb in v.leds[1] if rgb != (0, 0, 0)]
        assert len(lit) == 1 and lit[0][0] > 0 and lit[0][1] == lit[0][2] == 0
        assert v.leds[2] == [(0, 0, 0)] * 6
    assert len(seen) > 2  # blinking + comet: seat 0 changes over time


def test_panel_shows_lights_turn_hands_tower_and_events():
    v = View(title="rhinoref sim", players=4)
    v.set_state({"turn": 2, "direction": "cw", "hands": [5, 4, 5, 3], "pile": 11, "walls_left": 25})
    frame = bytearray(3 * 30)
    for k in range(6):
        frame[3 * (12 + k) + 0] = 60  # seat 2 all green (GRB: g first)
    v.set_leds(frame, 6)
    v.set_seat_cues({2: "turn (chase cw)"})
    v.apply_event({"ev": "input", "t_ms": 1000, "in": "wall"})
    v.apply_event({"ev": "input", "t_ms": 2000, "in": "roof"})
    v.apply_event({"ev": "input", "t_ms": 3000, "in": "rhino"})
    text, html = panel_text(v)
    assert "seat 2 to play" in text and "clockwise" in text
    assert "turn (chase cw)" in text
    assert "Rhino Hero" in text
    assert "1 floor, 1 wall, 25 walls left" in text
    assert "roof placed" in text
    # seat 2's lights are drawn green (brightened for the screen), others dark
    assert "#00ff00" in html.lower()
    lines = [ln for ln in text.splitlines() if "◀ turn" in ln]
    assert len(lines) == 1 and "●" in lines[0]


def test_plain_renderer_prints_one_line_per_event_once():
    out = io.StringIO()
    v = View()
    r = PlainRenderer(out)
    with r:
        v.add_event(1234, "seat 0: wall placed")
        v.add_event(2500, "seat 0: roof placed")
        r.event(v)
        r.draw(v)
        r.event(v)  # nothing new
        v.add_event(60000, "GAME OVER")
        r.event(v)
    lines = out.getvalue().splitlines()
    assert lines == [format_line(1234, "seat 0: wall placed"), format_line(2500, "seat 0: roof placed"),
                     format_line(60000, "GAME OVER")]
    assert lines[0] == "    1.234 s  seat 0: wall placed"


def test_make_renderer_picks_plain_without_a_terminal():
    assert isinstance(make_renderer(None, file=io.StringIO()), PlainRenderer)
    assert isinstance(make_renderer(True), PlainRenderer)

    class Tty(io.StringIO):
        def isatty(self):
            return True

    assert isinstance(make_renderer(None, file=Tty(), console=Console(file=io.StringIO())), LiveRenderer)


def test_live_renderer_draws_to_its_console():
    buf = io.StringIO()
    console = Console(file=buf, width=110, force_terminal=True, color_system="truecolor")
    v = View(title="live test", players=2)
    v.add_event(500, "seat 1: wall placed")
    r = LiveRenderer(console=console, fps=1000)
    with r:
        r.event(v)
        r.draw(v, force=True)
    assert "live test" in buf.getvalue() and "wall placed" in buf.getvalue()


def test_game_seats_are_shown_at_their_physical_seats():
    # Three players sitting at seats 0, 2 and 4: the rules count game seats 0, 1, 2.
    v = View()
    v.apply_event({"ev": "game", "players": 3, "first": 1, "side": "expert", "seats": [0, 2, 4]})
    v.apply_event({"ev": "turn", "seat": 1, "direction": "cw", "hands": [5, 4, 3], "pile": 16})
    v.apply_event({"ev": "input", "t_ms": 5, "in": "roof"})
    v.apply_event({"ev": "result", "result": "collapse", "winners": [2], "loser": 1})
    texts = [t for _, t in v.events]
    assert texts[0] == "new game: 3 players, seat 2 starts, expert side"
    assert texts[1] == "seat 2's turn (clockwise)"
    assert texts[2] == "seat 2: roof placed"
    assert texts[3] == "GAME OVER (collapse): winner seat 4; seat 2 loses"
    text, _ = panel_text(v)
    rows = {ln.split()[1]: ln for ln in text.splitlines() if ln.startswith("│ ") and ln.split()[1].isdigit()}
    assert "3" in rows["4"] and "★ wins" in rows["4"]
    assert "4" in rows["2"] and "✗ loses" in rows["2"]
    assert "★" not in rows["1"] and "✗" not in rows["1"]
