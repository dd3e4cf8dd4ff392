"""Bot players for the virtual board: the simulator's bots, seeing the game through the board.

Usage::

    bots = BoardBots(table, players=3, seed=7)
    vb = VirtualBoard(table=table, driver=bots, speed=0)
    bots.attach(vb)             # the board's event lines keep the bots' view of the game
    vb.start()

On the simulator the bots read the referee's rules state directly. Here the referee runs inside
MicroPython, so the host keeps a SHADOW of it: every ``game`` event starts a ``rules.Game`` with
the same setup, every ``input`` event (and ``refused`` one) is applied to it with the same game
time. The rules engine is deterministic, so the shadow is the board's state as of the last
event line read; the board prints before it asks for more samples, so the bots are never more
than one batch of samples behind, like a slow human.
"""

import json

from ..bots import Bots
from ..firmware import fw


class ShadowGame:
    """The board's rules state rebuilt from its serial event lines."""

    def __init__(self):
        self.rules = fw("rules")
        self.game = None
        self.events = []
        self.results = []

    def line(self, raw):
        if not raw.startswith(b'{"ev"'):
            return
        try:
            ev = json.loads(raw)
        except ValueError:
            return
        self.events.append(ev)
        kind = ev.get("ev")
        if kind == "game":
            self.game = self.rules.Game(ev["players"], first=ev["first"], side=ev["side"],
                                        grace_ms=ev.get("grace_ms", 2000))
        elif kind in ("input", "refused") and self.game is not None:
            self.game.apply(ev["game_t_ms"], ev["in"], ev.get("symbol"), ev.get("seat"),
                            ev.get("symbols"))
        elif kind == "result":
            self.results.append(ev)


class BoardBots:
    def __init__(self, table, players, seed, **kw):
        self.shadow = ShadowGame()
        self.bots = Bots(table, players, seed=seed, game=lambda: self.shadow.game, **kw)

    def attach(self, vb):
        prev = vb.on_line

        def on_line(line):
            self.shadow.line(line)
            if prev is not None:
                prev(line)

        vb.on_line = on_line

    def __call__(self, t_ms):
        self.bots.step(t_ms)

    @property
    def done(self):
        return self.bots.done
