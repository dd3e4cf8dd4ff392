"""Light cues: every cue told apart by pattern, frames filled in place, brightness and current caps.

Runs on CPython (pytest) and on MicroPython (tests/fw/run.py)."""

from mptest import raises
from referee import cues

N = 6  # LEDs per seat (hardware/pinmap.json)


def _frame():
    return bytearray(3 * 5 * N)


def _seat(frame, s):
    return bytes(frame[3 * N * s: 3 * N * (s + 1)])


def _film(name, seat=0, ms=3000, step=25, count=0):
    """The seat's LED bytes over time: a tuple of frames, one per step."""
    frame = _frame()
    lists = [[] for _ in range(5)]
    lists[seat] = [name]
    counts = bytearray(5)
    counts[seat] = count
    out = []
    for t in range(0, ms, step):
        cues.render(frame, t, lists, 255, counts)
        out.append(_seat(frame, seat))
    return tuple(out)


def _shape(film):
    """The pattern alone, colour removed: per frame and LED, the brightness in 5 steps relative
    to the brightest moment of the film."""
    top = 1
    for fr in film:
        for v in fr:
            if v > top:
                top = v
    out = bytearray()
    for fr in film:
        for i in range(N):
            out.append((max(fr[3 * i], fr[3 * i + 1], fr[3 * i + 2]) * 4 + top // 2) // top)
    return bytes(out)


def test_spec_cues_exist():
    for name in ("turn_cw", "turn_ccw", "skipped", "draw", "rhino_owed", "double", "handover",
                 "tiebreak", "warning", "error", "winner", "loser", "all_win", "calibrating",
                 "fault", "waiting", "joined", "menu"):
        assert name in cues.CUES, name
        assert cues.NAMES[cues.cue_id(name)] == name


def test_cue_rows_as_the_table_gives_them():
    assert cues.cue("turn_cw") == (cues.cue("turn_ccw")[0], (0, 255, 0), (0, 0, 0), 1)
    assert cues.cue("turn_ccw")[3] == -1 and cues.cue("draw")[3] == 0
    assert cues.cue("joined_expert")[1:3] == ((0, 200, 255), (255, 90, 0))
    table = cues.CUES  # made when asked for: the board never holds it
    assert sorted(table) == sorted(cues.NAMES) and table["draw"] == cues.cue("draw")
    assert getattr(cues, "TABLE", None) is None


def test_unknown_cue_is_refused():
    with raises(ValueError):
        cues.cue_id("fireworks")
    with raises(ValueError):
        cues.render(_frame(), 0, [["fireworks"], [], [], [], []], 100)


def test_every_cue_has_its_own_pattern():
    # Colour-blind children: no two cues may look alike with the colour taken away.
    seen = {}
    for name in cues.NAMES:
        if name == "off":
            continue
        shape = _shape(_film(name, ms=2400, step=50, count=2))
        assert shape not in seen, "%s looks like %s" % (name, seen.get(shape))
        seen[shape] = name


def test_cues_differ_in_colour_too():
    # Cues that can show at the same time on the table never share a colour.
    together = ("turn_cw", "skipped", "draw", "rhino_owed", "double", "handover", "warning",
                "error", "fault")
    colours = {}
    for name in together:
        col = cues.CUES[name][1]
        assert col not in colours, "%s and %s share a colour" % (name, colours.get(col))
        colours[col] = name


def test_chase_runs_the_way_play_goes():
    def heads(name):
        out = []
        for fr in _film(name, ms=1200, step=120):
            lv = [fr[3 * i] for i in range(N)]  # green channel
            out.append(lv.index(max(lv)))
        return out

    cw = heads("turn_cw")
    ccw = heads("turn_ccw")
    assert cw[1] == (cw[0] + 1) % N and cw[2] == (cw[1] + 1) % N
    assert ccw[1] == (ccw[0] - 1) % N and ccw[2] == (ccw[1] - 1) % N


def test_turn_comet_over_another_cue():
    frame = _frame()
    cues.render(frame, 130, [["draw", "turn_cw"], [], [], [], []], 255)
    seat = _seat(frame, 0)
    greens = [seat[3 * i] for i in range(N)]
    # the slow blink is on (blue) and exactly one LED carries the bright green comet
    assert sum(1 for g in greens if g >= 150) == 1
    assert seat[2] > 0 or seat[5] > 0
    plain = _frame()
    cues.render(plain, 130, [["draw"], [], [], [], []], 255)
    assert _seat(plain, 0) != seat


def test_only_the_seat_concerned_lights():
    frame = _frame()
    cues.render(frame, 0, [[], [], ["skipped"], [], []], 255)
    for s in (0, 1, 3, 4):
        assert _seat(frame, s) == bytes(3 * N)
    assert _seat(frame, 2) != bytes(3 * N)


def test_count_shows_the_number():
    frame = _frame()
    counts = bytearray(5)
    counts[1] = 3
    cues.render(frame, 400, [[], ["tiebreak"], [], [], []], 255, counts)
    seat = _seat(frame, 1)
    lit = [max(seat[3 * i:3 * i + 3]) for i in range(N)]
    assert lit[0] > 100 and lit[1] > 100 and lit[2] > 100
    assert lit[4] < 20 and lit[5] < 20


def test_grb_byte_order():
    frame = _frame()
    cues.render(frame, 0, [["loser"], [], [], [], []], 255)  # red dot in the middle
    i = 3 * (N // 2)
    assert frame[i] == 0 and frame[i + 1] > 0 and frame[i + 2] == 0  # G, R, B


def test_brightness_scales():
    lo = _frame()
    hi = _frame()
    cues.render(lo, 0, [["joined"]] * 5, 40)
    cues.render(hi, 0, [["joined"]] * 5, 160)
    assert 0 < sum(lo) < sum(hi)


def test_channel_cap_per_led():
    frame = _frame()
    cues.render(frame, 0, [["joined"]] * 5, 255)
    assert max(frame) <= cues.CHANNEL_MAX


def test_worst_frame_stays_in_the_usb_budget():
    # The brightest frame the table can make: every LED white at full brightness.
    frame = _frame()
    for i in range(len(frame)):
        frame[i] = 255
    total = cues.cap_current(frame)
    assert total <= cues.FRAME_SUM_MAX
    assert cues.current_ma(frame) <= cues.LED_BUDGET_MA
    # and every cue at full brightness at any time is within budget after render
    for name in cues.NAMES:
        for t in (0, 333, 777, 1500):
            f = _frame()
            cues.render(f, t, [[name, "turn_cw"]] * 5, 255, bytearray([9] * 5))
            assert cues.current_ma(f) <= cues.LED_BUDGET_MA, name


def test_budget_figure():
    # 500 mA USB - Pico/sensors/idle LEDs/margin = 350 mA for colours at 20 mA per channel.
    assert cues.LED_BUDGET_MA == 350
    assert cues.FRAME_SUM_MAX == 350 * 255 // 20


def test_static_cues_are_not_animated():
    assert not cues.is_animated(cues.cue_id("joined"))
    assert not cues.is_animated(cues.cue_id("loser"))
    assert cues.is_animated(cues.cue_id("turn_cw"))
    assert cues.is_animated(cues.cue_id("warning"))
    film = _film("joined", ms=2000, step=100)
    for fr in film:
        assert fr == film[0]


def test_render_ids_allocates_nothing_much():
    # The board renders with preallocated bytearrays; this is what it calls.
    frame = _frame()
    main = bytearray(5)
    over = bytearray(5)
    counts = bytearray(5)
    cues.split([["turn_ccw"], ["draw", "turn_cw"], [], ["winner"], ["fault"]], main, over)
    assert over[1] == 1 and main[1] == cues.cue_id("draw")
    total = cues.render_ids(frame, 1234, main, over, counts, 100)
    assert total == sum(frame) and total > 0


def test_describe_lists_the_table():
    rows = cues.describe()
    assert len(rows) == len(cues.NAMES)
    pats = [r["pattern"] for r in rows if r["name"] != "off"]
    assert len(pats) == len(set(pats)) + 1  # turn_cw and turn_ccw share "chase" (direction)
