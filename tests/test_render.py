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


def test_events_build_the_tower_and_state():
    v = View(players=3)
    v.apply_event({"ev": "turn", "t_ms": 100, "seat": 1})
    v.apply_event(json.dumps({"ev": "wall", "t_ms": 900, "seat": 1}))
    v.apply_event({"ev": "walls2", "t_ms": 1900, "seat": 1})
    v.apply_event({"ev": "roof", "t_ms": 2900, "seat": 1})
    assert v.turn == 1
    assert v.floors == [[3, True]]
    v.apply_event({"ev": "wall", "t_ms": 4000})
    v.apply_event({"ev": "roof", "t_ms": 5000})
    v.apply_event({"ev": "rhino", "t_ms": 6000})
    assert v.roof_count() == 2 and v.wall_count() == 4 and v.rhino_floor == 2
    v.apply_event({"ev": "collapse", "t_ms": 7000, "seat": 2})
    assert v.floors == [] and v.rhino_floor is None
    v.apply_event({"ev": "undo_collapse", "t_ms": 8000})
    assert v.roof_count() == 2 and v.rhino_floor == 2
    texts = [t for _, t in v.events]
    assert texts[0].startswith("seat 1's turn")
    assert "COLLAPSE during seat 2's turn" in texts


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
    v.apply_event({"ev": "frame", "t_ms": 10, "frame": frame.hex(), "cues": ["turn_cw", "", "", "", ""]})
    assert v.leds[0][0] == (40, 0, 0)
    assert v.seat_cues[0] == "turn_cw"
    assert not v.events  # a frame is not an event line


def test_panel_shows_lights_turn_hands_tower_and_events():
    v = View(title="rhinoref sim", players=4)
    v.set_state({"turn": 2, "direction": "cw", "hands": [5, 4, 5, 3], "pile": 11, "walls_left": 25})
    frame = bytearray(3 * 30)
    for k in range(6):
        frame[3 * (12 + k) + 0] = 60  # seat 2 all green (GRB: g first)
    v.set_leds(frame, 6)
    v.set_seat_cues({2: "turn (chase cw)"})
    v.apply_event({"ev": "wall", "t_ms": 1000})
    v.apply_event({"ev": "roof", "t_ms": 2000})
    v.apply_event({"ev": "rhino", "t_ms": 3000})
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
