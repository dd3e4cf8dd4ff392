"""Buttons: debounce and long press from raw pin levels, with time as an argument (pure).

Usage::

    from referee import buttons
    b = buttons.Buttons(("seat0", "seat1", "menu"))      # active low (pull-up, pressed = 0)
    name = b.update(t_ms, 2, pin.value())                 # -> None, "menu" or "menu_long"

A press is reported when the button is RELEASED after being held (debounced) for less than
``long_ms``; holding it reaches ``long_ms`` and reports ``name + "_long"`` at once (while still
held), and the release that follows reports nothing. A level must stay unchanged for
``debounce_ms`` before it counts, so contact bounce and short glitches are ignored.

The board loop polls every button each pass (a few hundred times a second). ``irq(i)`` returns
an interrupt handler that only sets bit i of ``pending`` (nothing allocated in the handler);
a loop may use ``pending`` to poll only buttons that moved, but polling all is fine too.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


DEBOUNCE_MS = const(25)
LONG_MS = const(1000)

# Per-button state bits.
_DOWN = const(1)  # debounced level: pressed
_LONG_SENT = const(2)  # the long press was reported for this hold


class Buttons:
    debounce_ms = DEBOUNCE_MS
    long_ms = LONG_MS

    def __init__(self, names, active_low=True, debounce_ms=None, long_ms=None):
        self.names = tuple(names)
        self.long_names = tuple(n + "_long" for n in self.names)
        n = len(self.names)
        self.active = 0 if active_low else 1
        if debounce_ms is not None:
            self.debounce_ms = debounce_ms
        if long_ms is not None:
            self.long_ms = long_ms
        self._state = bytearray(n)
        self._raw = bytearray(n)  # last raw "pressed" reading, 0/1
        self._since = [0] * n  # t_ms when the raw reading last changed
        self._down_at = [0] * n  # t_ms when the debounced press began
        self.pending = 0

    def update(self, t_ms, i, level):
        """Feed button i's raw pin level at ``t_ms``; returns an event name or None."""
        pressed = 1 if level == self.active else 0
        if pressed != self._raw[i]:
            self._raw[i] = pressed
            self._since[i] = t_ms
            return None
        st = self._state[i]
        down = st & _DOWN
        if pressed != down:
            if t_ms - self._since[i] < self.debounce_ms:
                return None
            if pressed:
                self._state[i] = _DOWN
                self._down_at[i] = self._since[i]
                return None
            self._state[i] = 0
            if st & _LONG_SENT:
                return None
            return self.names[i]
        if down and not st & _LONG_SENT and t_ms - self._down_at[i] >= self.long_ms:
            self._state[i] = _DOWN | _LONG_SENT
            return self.long_names[i]
        return None

    def held(self, i):
        """True while button i is (debounced) pressed."""
        return bool(self._state[i] & _DOWN)

    def reset(self):
        for i in range(len(self.names)):
            self._state[i] = 0
            self._raw[i] = 0
        self.pending = 0

    def irq(self, i):
        """An IRQ handler for button i that only records that it moved."""
        bit = 1 << i

        def handler(_pin):
            self.pending |= bit

        return handler
