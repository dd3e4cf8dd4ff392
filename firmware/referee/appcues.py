"""What every seat shows: the referee's state turned into cue ids (``Referee``'s third part,
split off so that each module compiles within a Pico's heap even from source).

Usage (the Referee calls these when its cues are marked dirty; nothing else needs to)::

    from referee import appcues
    appcues.update_cues(ref)     # fills ref._main / ref._over / ref._counts, emits "cues"
    appcues.names(ref)           # [["turn_cw"], [], ["skipped"], ["draw", "turn_ccw"], []]

Per physical seat: ``_main[s]`` is the cue filling the seat, ``_over[s]`` the turn comet drawn
over it (0 none, 1 clockwise, 2 counter-clockwise), ``_counts[s]`` the number a count cue shows.
Priorities (docs/board.md, section 3): the parent menu, then calibration, then the lobby or the
game; a sensor fault covers every seat (the turn comet stays); a warning/error blinks over the
seat it concerns (or the whole table) for 3 s.
"""

from referee import cues

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# Cue ids (the order of referee.cues' table; tests/fw/test_app_core.py checks they agree).
_C_OFF = const(0)
_C_WAITING = const(1)
_C_JOINED = const(2)
_C_JOINED_EXPERT = const(3)
_C_TURN_CW = const(4)
_C_TURN_CCW = const(5)
_C_SKIPPED = const(6)
_C_DRAW = const(7)
_C_RHINO_OWED = const(8)
_C_DOUBLE = const(9)
_C_HANDOVER = const(10)
_C_TIEBREAK = const(11)
_C_WARNING = const(12)
_C_ERROR = const(13)
_C_WINNER = const(14)
_C_LOSER = const(15)
_C_ALL_WIN = const(16)
_C_CALIBRATING = const(17)
_C_FAULT = const(18)
_C_MENU = const(19)
_NO_SEAT = const(255)
_NEVER = const(0x3FFFFFFF)
_SEATS = const(5)


def update_cues(ref):
    """Work out what every seat shows now (ids into the cue table)."""
    ref._dirty = False
    main = ref._main
    over = ref._over
    counts = ref._counts
    for s in range(_SEATS):
        main[s] = _C_OFF
        over[s] = 0
        counts[s] = 0
    g = ref.game
    if ref._menu_until:
        level = ref.brightness_level() + 1
        for s in range(_SEATS):
            main[s] = _C_MENU
            counts[s] = level
    elif ref.calib is not None:
        for s in range(_SEATS):
            main[s] = _C_CALIBRATING
    elif g is None:
        lobby_cues(ref)
    else:
        game_cues(ref, g)
    if ref.faults or ref._fault_until:
        turn = turn_phys(ref)
        for s in range(_SEATS):
            if s == turn and main[s] in (_C_TURN_CW, _C_TURN_CCW):
                over[s] = 1 if main[s] == _C_TURN_CW else 2
            main[s] = _C_FAULT
    if ref._flash != _C_OFF and not ref._menu_until:
        if ref._flash_seat == _NO_SEAT:
            for s in range(_SEATS):
                main[s] = ref._flash
        else:
            p = phys(ref, ref._flash_seat)
            if p != _NO_SEAT:
                if main[p] == _C_TURN_CW:
                    over[p] = 1
                elif main[p] == _C_TURN_CCW:
                    over[p] = 2
                main[p] = ref._flash
    animated = False
    for s in range(_SEATS):
        if over[s] or cues.is_animated(main[s]):
            animated = True
    ref._animated = animated
    shown = names(ref)
    key = (shown, bytes(counts))
    if key != ref._cue_names:
        ref._cue_names = key
        ref._emit("cues", {"seats": shown, "counts": list(counts)})


def names(ref):
    """Per physical seat, the cue names shown (the Referee's ``seat_cues()``)."""
    out = []
    for s in range(_SEATS):
        shown = [cues.NAMES[ref._main[s]]] if ref._main[s] != _C_OFF else []
        if ref._over[s]:
            shown.append("turn_cw" if ref._over[s] == 1 else "turn_ccw")
        out.append(shown)
    return out


def phys(ref, gs):
    if gs is None or gs >= len(ref.seats):
        return _NO_SEAT
    return ref.seats[gs]


def turn_phys(ref):
    g = ref.game
    if g is None or g.over or g.result is not None:
        return _NO_SEAT
    return phys(ref, g.turn)


def lobby_cues(ref):
    joined_cue = _C_JOINED if ref.side == "easy" else _C_JOINED_EXPERT
    for s in range(_SEATS):
        ref._main[s] = joined_cue if s in ref.joined else _C_WAITING
    if len(ref.joined) >= 2:
        ref._over[ref.joined[0]] = 1  # the starter: the turn comet, clockwise


def game_cues(ref, g):
    main = ref._main
    over = ref._over
    counts = ref._counts
    if g.result is not None:
        # Collapse (perhaps with tie-break counts owed), emptied hand or all walls used.
        if g.result == "walls_used":
            for gs in range(g.players):
                main[ref.seats[gs]] = _C_ALL_WIN
            return
        for gs in g.winners:
            main[ref.seats[gs]] = _C_WINNER
        if g.loser is not None:
            main[ref.seats[g.loser]] = _C_LOSER
        if g.tiebreak_seats:
            for gs in g.tied:
                p = ref.seats[gs]
                main[p] = _C_TIEBREAK
                c = ref._tb_count[p]
                if not c and g.counts[gs] is not None and ref._tb_deadline[p] == _NEVER:
                    c = g.counts[gs]
                counts[p] = c if c < 255 else 255
        if ref._handover != _NO_SEAT and g.over:
            main[ref.seats[ref._handover]] = _C_HANDOVER  # rule 7 courtesy
        return
    turn = ref.seats[g.turn]
    tc = _C_TURN_CW if g.direction > 0 else _C_TURN_CCW
    task = _C_OFF
    if g.double_pending:
        task = _C_DOUBLE
    elif g.owes_rhino:
        task = _C_RHINO_OWED
    elif ref._draw_seat == g.turn:
        task = _C_DRAW
    if task != _C_OFF:
        main[turn] = task
        over[turn] = 1 if g.direction > 0 else 2
    else:
        main[turn] = tc
    if ref._skipped != _NO_SEAT and ref._skipped != g.turn:
        main[ref.seats[ref._skipped]] = _C_SKIPPED
    if ref._handover != _NO_SEAT:
        main[ref.seats[ref._handover]] = _C_HANDOVER
