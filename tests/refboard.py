"""A fake board for the host commands' tests: the firmware's own ``Referee`` behind a pty.

Usage::

    board = RefBoard(tmp_path, source=ScaleSource(), speed=4.0, path=str(tmp_path / "ttyFAKE"))
    board.source.load_g = 100.0        # a 100 g weight on the platform
    ...  rhinoref monitor --port <board.path> ...
    board.unplug(); board = RefBoard(..., path=same)   # unplugged and plugged in again
    board.close()

A thread plays the board loop (what ``referee.board.run`` does on a Pico, without hardware):
simulated time runs ``speed`` times the wall clock; every HX711 sample of the source goes to
``Referee.sample``, button presses of the source to ``Referee.press``, every JSON command line
from the host to ``Referee.command`` (its one reply written back), events and replies written
to the pty as lines. The frame is read every pass, as the board loop does (which keeps cue
events flowing). Sources:

- :class:`ScaleSource`: a kitchen-scale model (``load_g`` set by the test, noise, a ``shaking``
  flag) for calibration and recording;
- :class:`GameSource`: the simulated table with bot players (``rhinoref.table`` +
  ``rhinoref.bots``), for a live game to monitor.
"""

import json
import os
import random
import select
import threading
import time

from boardfakes import open_pty
from rhinoref.firmware import fw


class ScaleSource:
    """A load cell with ``load_g`` grams on it: raw counts with HX711-like noise."""

    def __init__(self, sps=80, counts_per_gram=2100.0, offset=120000, seed=1):
        self.sps = sps
        self.cpg = counts_per_gram
        self.offset = offset
        self.load_g = 0.0
        self.shaking = False
        self.rng = random.Random(seed)
        self.t = 0.0
        self.presses = []

    def next_sample(self):
        self.t += 1000.0 / self.sps
        g = self.load_g
        if self.shaking:
            g += self.rng.uniform(-8.0, 8.0)
        raw = int(self.offset + self.cpg * g + self.rng.gauss(0, 45))
        inp = self.presses.pop(0) if self.presses else None
        return int(self.t), raw, 0, 0, 1000, inp

    def step(self, t_ms, ref):
        pass


class GameSource:
    """The simulated table with bots playing a game on the board."""

    def __init__(self, players=3, seed=5, sps=80):
        from rhinoref.bots import Bots
        from rhinoref.table import Table

        self.table = Table(seed=seed, sps=sps)
        self.cal = self.table.calibration()
        self.ref = None
        self.bots = Bots(self.table, players, seed=seed, game=lambda: self.ref.game if self.ref else None)

    def next_sample(self):
        return self.table.next_sample()

    def step(self, t_ms, ref):
        self.ref = ref
        if t_ms >= self.bots._wake:
            self.bots.step(t_ms)


def _button(column):
    from rhinoref.sim import button_name

    return button_name(column)


class RefBoard:
    """The board loop on a thread, the host side of a pty at ``path`` (a symlink if given)."""

    def __init__(self, root, source=None, speed=1.0, path=None, sps=80, calibration=None):
        app = fw("app")
        self.source = source if source is not None else ScaleSource(sps=sps)
        make_detector = None
        cal = calibration or getattr(self.source, "cal", None)
        if cal is not None:
            detector = fw("detector")

            def make_detector(_cal, sps, accel):
                return detector.Detector(cal, sps=sps, accel=accel)

        self.ref = app.Referee(root=str(root), sps=sps, make_detector=make_detector)
        self.speed = speed
        self.lines_in = []
        self.lines_out = []
        open_pty(self, path)
        self._buf = b""
        self._stop = False
        self._lock = threading.Lock()
        self.t_ms = 0
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    # -- the board loop ---------------------------------------------------------------------------
    def _loop(self):
        ref = self.ref
        src = self.source
        t_sim = 0.0
        last = time.monotonic()
        pending = None
        while not self._stop:
            now = time.monotonic()
            t_sim += (now - last) * 1000.0 * self.speed
            last = now
            with self._lock:
                while True:
                    if pending is None:
                        pending = src.next_sample()
                    t, raw, ax, ay, az, inp = pending
                    if t > t_sim:
                        break
                    pending = None
                    self.t_ms = t
                    if inp is not None:
                        ref.press(t, _button(inp))
                    ref.sample(t, raw, ax, ay, az)
                    src.step(t, ref)
                ref.frame  # noqa: B018  (the board loop writes the frame every pass)
                out = ref.pop_events()
            for line in out:
                self._write(line)
            try:
                ready, _, _ = select.select([self.master], [], [], 0.005)
            except (OSError, ValueError, TypeError):
                return
            if ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    time.sleep(0.005)
                    continue
                self._buf += data
                while b"\n" in self._buf:
                    line, self._buf = self._buf.split(b"\n", 1)
                    text = line.decode("utf-8", "replace").strip()
                    if not text:
                        continue
                    self.lines_in.append(text)
                    with self._lock:
                        reply = ref.command(self.t_ms, text)
                        out = ref.pop_events()
                    for ev in out:
                        self._write(ev)
                    self._write(reply)

    def _write(self, line):
        self.lines_out.append(line)
        if self.master is None:
            return
        try:
            os.write(self.master, (line + "\n").encode())
        except OSError:
            pass

    def commands(self):
        """The command dicts the host sent."""
        out = []
        for line in self.lines_in:
            try:
                out.append(json.loads(line))
            except ValueError:
                out.append(line)
        return out

    def press(self, name):
        with self._lock:
            self.ref.press(self.t_ms, name)

    def unplug(self):
        """Both ends closed: the host's next read fails as when the USB cable is pulled."""
        self._stop = True
        self.thread.join(timeout=2)
        for fd in (self.master, self.slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.master = self.slave = None

    close = unplug
