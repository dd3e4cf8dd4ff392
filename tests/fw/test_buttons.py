"""Button debounce and long press from raw levels, time as an argument (CPython + MicroPython)."""

from referee import buttons

UP = 1  # pull-up: released reads 1
DOWN = 0


def _run(b, script, i=0, step=5):
    """script: list of (level, ms). Returns [(t, event)]."""
    out = []
    t = 0
    for level, ms in script:
        end = t + ms
        while t < end:
            ev = b.update(t, i, level)
            if ev is not None:
                out.append((t, ev))
            t += step
    return out


def test_short_press_reported_on_release():
    b = buttons.Buttons(("seat0",))
    evs = _run(b, [(UP, 50), (DOWN, 200), (UP, 100)])
    assert [e for _, e in evs] == ["seat0"]
    assert 250 <= evs[0][0] <= 300


def test_bounce_is_ignored():
    b = buttons.Buttons(("skip",))
    script = [(UP, 50)]
    for _ in range(4):  # contact bounce: 5 ms flickers
        script += [(DOWN, 5), (UP, 5)]
    script += [(DOWN, 150)]
    for _ in range(3):
        script += [(UP, 5), (DOWN, 5)]
    script += [(UP, 100)]
    evs = _run(b, script)
    assert [e for _, e in evs] == ["skip"]


def test_glitch_shorter_than_debounce_is_no_press():
    b = buttons.Buttons(("menu",))
    evs = _run(b, [(UP, 50), (DOWN, 15), (UP, 100)])
    assert evs == []


def test_long_press_fires_while_held_and_release_is_silent():
    b = buttons.Buttons(("menu",), long_ms=1000)
    evs = _run(b, [(UP, 20), (DOWN, 1500), (UP, 200)])
    assert [e for _, e in evs] == ["menu_long"]
    assert 1000 <= evs[0][0] <= 1060


def test_two_presses_in_a_row():
    b = buttons.Buttons(("seat3",))
    evs = _run(b, [(UP, 20), (DOWN, 100), (UP, 100), (DOWN, 100), (UP, 100)])
    assert [e for _, e in evs] == ["seat3", "seat3"]


def test_buttons_are_independent():
    b = buttons.Buttons(("seat0", "seat1"))
    out = []
    for t in range(0, 400, 5):
        l0 = DOWN if 50 <= t < 150 else UP
        l1 = DOWN if 100 <= t < 300 else UP
        for i, lv in ((0, l0), (1, l1)):
            ev = b.update(t, i, lv)
            if ev:
                out.append(ev)
    assert out == ["seat0", "seat1"]
    assert not b.held(0) and not b.held(1)


def test_active_high():
    b = buttons.Buttons(("x",), active_low=False)
    evs = _run(b, [(0, 50), (1, 100), (0, 100)])
    assert [e for _, e in evs] == ["x"]


def test_irq_handler_only_sets_a_bit():
    b = buttons.Buttons(("a", "b", "c"))
    h = b.irq(2)
    h(None)
    assert b.pending == 4
    b.irq(0)(None)
    assert b.pending == 5
    b.reset()
    assert b.pending == 0
