"""Light cues: a table of named cues, each told apart by PATTERN as well as colour.

Usage::

    from referee import cues
    frame = bytearray(3 * 30)                       # 5 seats x 6 LEDs, GRB bytes
    cues.render(frame, t_ms, [["turn_cw"], ["skipped"], [], ["draw", "turn_cw"], []], 128)
    cues.cue("draw")                                # (pattern, colour, colour2, param)
    cues.CUES                                       # {name: cue(name)}: made when asked for

Each seat owns ``len(frame) // 15`` consecutive LEDs (seat 0 first, the strip runs clockwise,
and inside a seat LED 0 -> LED n-1 also runs clockwise). A seat shows a list of cue names: the
first fills the seat's LEDs; a ``turn_cw``/``turn_ccw`` later in the list is drawn as a green
comet running over it, so whose turn it is and which way play goes stay visible whatever else
the seat must show. ``tiebreak`` and ``menu`` show a count (``counts[seat]``) as lit LEDs.

Frames are GRB byte order (what a WS2812B wants; ``neopixel.NeoPixel.buf`` has the same layout),
3 bytes per LED. Brightness is applied in three steps, all integer:
1. the family's brightness (1-255) scales every colour,
2. no channel exceeds ``CHANNEL_MAX`` (per-LED cap),
3. the whole frame's estimated current stays under ``LED_BUDGET_MA`` (see below): when a frame
   would draw more, all bytes are scaled down together.

Current budget (docs/board.md): a USB 2.0 port gives 500 mA. The Pico takes ~25-50 mA, the HX711
with its 1 kg cell ~6 mA, the MPU-6050 ~4 mA, and each WS2812B draws ~1 mA even when dark
(30 mA for 30 LEDs). With a 60 mA margin that leaves 350 mA for the LED colours. A WS2812B
channel at 255 draws ~20 mA, so a frame may hold at most 350 * 255 / 20 = 4462 in its byte sum.

Pure: no machine import, no clock of its own (time comes in as ``t_ms``); rendering a frame
allocates nothing.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_SEATS = const(5)
# One animation step: frames are re-rendered at most every STEP_MS while something moves.
STEP_MS = const(50)
CHANNEL_MAX = const(200)
LED_BUDGET_MA = const(350)
_MA_PER_CHANNEL_FULL = const(20)
# Largest sum of all frame bytes that keeps the estimate under LED_BUDGET_MA.
FRAME_SUM_MAX = LED_BUDGET_MA * 255 // _MA_PER_CHANNEL_FULL

# Patterns (ints so the renderer branches cheaply).
_OFF = const(0)
_SOLID = const(1)  # steady
_SPLIT = const(2)  # steady, two colours: first half, a dark LED, second colour
_PULSE = const(3)  # breathing, 2 s
_CHASE = const(4)  # a comet running clockwise (param 1) or counter-clockwise (param -1)
_HALVES = const(5)  # first half and second half blink in turn, 2.5 Hz
_BLINK_SLOW = const(6)  # all on/off, 1 Hz
_BLINK_FAST = const(7)  # all on/off, 4 Hz
_DOUBLE = const(8)  # two short flashes, pause (1.2 s)
_TRIPLE = const(9)  # three short flashes, pause (1.6 s)
_CHECKER = const(10)  # odd and even LEDs swap, 3.3 Hz
_BOUNCE = const(11)  # one dot running up and back (climbing)
_WIPE = const(12)  # LEDs fill one by one clockwise, then clear
_RAINBOW = const(13)  # moving rainbow (ignores colour)
_TWINKLE = const(14)  # dim colour with one bright LED hopping
_DOT = const(15)  # only the middle LED, steady
_COUNT = const(16)  # `count` LEDs steady, the next one blinking (a cursor)
_SPIN = const(17)  # one comet around the WHOLE table
_BAR = const(18)  # `count` LEDs steady, the rest dim

PATTERN_NAMES = (
    "off", "solid", "split", "pulse", "chase", "alternating halves", "slow blink", "fast blink",
    "double flash", "triple flash", "checker", "bounce", "wipe", "rainbow", "twinkle", "dot",
    "count", "spin", "bar",
)

_WHITE = (255, 255, 255)
_WARM = (255, 170, 90)
_GREEN = (0, 255, 0)
_CYAN = (0, 200, 255)
_BLUE = (0, 40, 255)
_RED = (255, 0, 0)
_ORANGE = (255, 90, 0)
_YELLOW = (255, 220, 0)
_PURPLE = (150, 0, 255)
_PINK = (255, 40, 140)
_GOLD = (255, 150, 0)
_BLACK = (0, 0, 0)

# THE CUE TABLE: name, pattern, colour, second colour (split only). The order gives each cue its
# id; turn_ccw's comet runs counter-clockwise (param -1 in cue(), turn_cw 1, others 0).
# Meanings for people are in docs/board.md.
_TABLE = (
    ("off", _OFF, _BLACK, _BLACK),  # nothing
    ("waiting", _PULSE, _WHITE, _BLACK),  # waiting for players: press your seat button to join
    ("joined", _SOLID, _CYAN, _BLACK),  # seat joined the next game (easy side)
    ("joined_expert", _SPLIT, _CYAN, _ORANGE),  # seat joined the next game (expert side)
    ("turn_cw", _CHASE, _GREEN, _BLACK),  # your turn; play goes clockwise
    ("turn_ccw", _CHASE, _GREEN, _BLACK),  # your turn; play goes counter-clockwise
    ("skipped", _HALVES, _RED, _BLACK),  # you are skipped this round
    ("draw", _BLINK_SLOW, _BLUE, _BLACK),  # take a card from the pile
    ("rhino_owed", _BOUNCE, _ORANGE, _BLACK),  # move Rhino Hero first
    ("double", _DOUBLE, _PURPLE, _BLACK),  # double: build again and place a second roof
    ("handover", _WIPE, _PINK, _BLACK),  # hand one of your cards to your right-hand neighbour
    ("tiebreak", _COUNT, _WARM, _BLACK),  # tie: press your seat button once per special card
    ("warning", _BLINK_FAST, _YELLOW, _BLACK),  # out of order: counted, but not as the rules say
    ("error", _CHECKER, _WHITE, _BLACK),  # refused: that input means nothing now
    ("winner", _RAINBOW, _WHITE, _BLACK),  # you won
    ("loser", _DOT, _RED, _BLACK),  # you lost
    ("all_win", _TWINKLE, _GOLD, _BLACK),  # everyone wins
    ("calibrating", _SPIN, _BLUE, _BLACK),  # calibration in progress: keep the table still
    ("fault", _TRIPLE, _CYAN, _BLACK),  # sensor fault: see the status
    ("menu", _BAR, _PURPLE, _BLACK),  # parent menu open (bar = brightness level)
)

NAMES = tuple(row[0] for row in _TABLE)
# Flat byte tables indexed by cue id: all the board keeps of the table (a few hundred bytes).
_PAT = bytes(row[1] for row in _TABLE)
_RGB = bytes(c for row in _TABLE for c in row[2])
_RGB2 = bytes(c for row in _TABLE for c in row[3])
del _TABLE

ID_OFF = const(0)
ID_TURN_CW = const(4)
ID_TURN_CCW = const(5)
# Patterns that never change over time: a frame made only of these is rendered once.
_STATIC = (_OFF, _SOLID, _SPLIT, _DOT, _BAR)


def cue_id(name):
    """The id of a cue name; ValueError with a sentence for an unknown name."""
    try:
        return NAMES.index(name)
    except ValueError:
        raise ValueError("unknown cue %r" % (name,))


def cue(name):
    """(pattern, colour, colour2, param) of a cue name, as in the table (host tools, docs)."""
    i = cue_id(name)
    j = 3 * i
    param = 1 if i == ID_TURN_CW else (-1 if i == ID_TURN_CCW else 0)
    return (_PAT[i], tuple(_RGB[j:j + 3]), tuple(_RGB2[j:j + 3]), param)


def __getattr__(name):
    """``cues.CUES``, {name: cue(name)} for host tools, made when asked for: held on the board
    it would cost 2 KB of heap that the renderer never reads."""
    if name != "CUES":
        raise AttributeError(name)
    return {n: cue(n) for n in NAMES}


def is_animated(cue):
    """True when cue id ``cue`` changes over time."""
    return _PAT[cue] not in _STATIC


def _tri(t, period):
    """Triangle wave 0..255 over ``period`` ms."""
    p = t % period
    half = period >> 1
    if p < half:
        return p * 255 // half
    return (period - p) * 255 // half


def _wheel(pos):
    """Colour wheel 0..255 -> (r, g, b) without floats."""
    pos &= 255
    if pos < 85:
        return 255 - pos * 3, pos * 3, 0
    if pos < 170:
        pos -= 85
        return 0, 255 - pos * 3, pos * 3
    pos -= 170
    return pos * 3, 0, 255 - pos * 3


def _put(frame, i, r, g, b, level):
    """Set LED i (GRB) to colour scaled by level (0..255), capped per channel."""
    j = 3 * i
    g = g * level >> 8
    r = r * level >> 8
    b = b * level >> 8
    frame[j] = g if g < CHANNEL_MAX else CHANNEL_MAX
    frame[j + 1] = r if r < CHANNEL_MAX else CHANNEL_MAX
    frame[j + 2] = b if b < CHANNEL_MAX else CHANNEL_MAX


def _seat(frame, seat, n, cue, t, level, count):
    """Fill seat ``seat``'s ``n`` LEDs with cue id ``cue`` at time ``t``."""
    base = seat * n
    pat = _PAT[cue]
    j = 3 * cue
    r = _RGB[j]
    g = _RGB[j + 1]
    b = _RGB[j + 2]
    if pat == _OFF:
        for i in range(base, base + n):
            _put(frame, i, 0, 0, 0, 0)
        return
    for k in range(n):
        lv = 0  # 0..255 intensity of this LED
        if pat == _SOLID:
            lv = 255
        elif pat == _SPLIT:
            if k > n >> 1:
                _put(frame, base + k, _RGB2[j], _RGB2[j + 1], _RGB2[j + 2], level)
                continue
            lv = 0 if k == n >> 1 else 255  # a dark gap between the two colours
        elif pat == _PULSE:
            lv = 20 + _tri(t, 2000) * 235 // 255
        elif pat == _CHASE:
            head = (t // 120) % n
            if cue == ID_TURN_CCW:  # the one cue that runs counter-clockwise
                head = n - 1 - head
                d = (k - head) % n  # how far behind the head
            else:
                d = (head - k) % n
            lv = 255 if d == 0 else (70 if d == 1 else (20 if d == 2 else 0))
        elif pat == _HALVES:
            first = (t // 400) & 1
            lv = 255 if (k < n >> 1) == (first == 0) else 0
        elif pat == _BLINK_SLOW:
            lv = 255 if t % 1000 < 500 else 0
        elif pat == _BLINK_FAST:
            lv = 255 if t % 250 < 125 else 0
        elif pat == _DOUBLE:
            p = t % 1200
            lv = 255 if p < 120 or 240 <= p < 360 else 0
        elif pat == _TRIPLE:
            p = t % 1600
            lv = 255 if p < 120 or 240 <= p < 360 or 480 <= p < 600 else 0
        elif pat == _CHECKER:
            lv = 255 if (k + t // 300) & 1 else 0
        elif pat == _BOUNCE:
            span = 2 * n - 2 if n > 1 else 1
            p = (t // 100) % span
            pos = p if p < n else span - p
            lv = 255 if k == pos else 12
        elif pat == _WIPE:
            p = (t // 150) % (n + 3)
            lv = 255 if k < p and p <= n else 0
        elif pat == _RAINBOW:
            r, g, b = _wheel(k * 256 // n + t // 8)
            lv = 255
        elif pat == _TWINKLE:
            hop = ((t // 150) * 7 + seat * 3) % n
            lv = 255 if k == hop else 40
        elif pat == _DOT:
            lv = 255 if k == n >> 1 else 0
        elif pat == _COUNT:
            if k < count:
                lv = 255
            elif k == count or (count >= n and k == n - 1):
                lv = 255 if t % 600 < 300 else 0
            else:
                lv = 8
        elif pat == _SPIN:
            total = n * _SEATS
            head = (t // 40) % total
            d = (head - (base + k)) % total
            lv = 255 if d == 0 else (80 if d == 1 else (25 if d == 2 else 6))
        elif pat == _BAR:
            lv = 255 if k < count else 16
        _put(frame, base + k, r, g, b, level * lv >> 8)


def _comet(frame, seat, n, direction, t, level):
    """The turn comet drawn over another cue: one bright green LED running with the play."""
    head = (t // 120) % n
    if direction < 0:
        head = n - 1 - head
    _put(frame, seat * n + head, 0, 255, 0, level)


def cap_current(frame):
    """Scale the whole frame down when its current estimate is over budget. Returns the sum."""
    total = sum(frame)
    if total > FRAME_SUM_MAX:
        # Fixed point: keep the product under 2**30 (small ints, no heap on MicroPython).
        scale = FRAME_SUM_MAX * 1024 // total
        for i in range(len(frame)):
            frame[i] = frame[i] * scale >> 10
        total = sum(frame)
    return total


def current_ma(frame):
    """Estimated LED colour current of a frame in mA (dark-LED idle current not included)."""
    return sum(frame) * _MA_PER_CHANNEL_FULL // 255


def render_ids(frame, t_ms, main, overlay, counts, brightness):
    """Render cue ids: ``main[s]`` fills seat s, ``overlay[s]`` is 0, 1 (comet cw) or 2 (ccw).

    ``main``/``overlay``/``counts`` are sequences of 5 small ints (bytearrays on the board).
    """
    n = len(frame) // (3 * _SEATS)
    level = brightness if brightness < 255 else 255
    if level < 1:
        level = 1
    for s in range(_SEATS):
        _seat(frame, s, n, main[s], t_ms, level, counts[s])
        o = overlay[s]
        if o:
            _comet(frame, s, n, 1 if o == 1 else -1, t_ms, level)
    return cap_current(frame)


def split(seat_cues, main, overlay):
    """Turn per-seat lists of names into ids in ``main`` and ``overlay`` (bytearrays of 5)."""
    for s in range(_SEATS):
        names = seat_cues[s] if s < len(seat_cues) else ()
        main[s] = cue_id(names[0]) if names else ID_OFF
        overlay[s] = 0
        for name in names[1:]:
            c = cue_id(name)
            if c == ID_TURN_CW:
                overlay[s] = 1
            elif c == ID_TURN_CCW:
                overlay[s] = 2


def render(frame, t_ms, seat_cues, brightness, counts=None):
    """Fill ``frame`` for per-seat lists of cue names (host tools and tests use this form).

    Returns the byte sum of the frame after the current cap.
    """
    main = bytearray(_SEATS)
    overlay = bytearray(_SEATS)
    split(seat_cues, main, overlay)
    return render_ids(frame, t_ms, main, overlay, counts or bytes(_SEATS), brightness)


def describe():
    """The cue table as plain data: list of dicts (docs, host renderers)."""
    out = []
    for name in NAMES:
        pat, col, col2, param = cue(name)
        out.append({"name": name, "pattern": PATTERN_NAMES[pat], "colour": list(col),
                    "colour2": list(col2), "param": param})
    return out
