"""The referee's files and calibration steps (``Referee``'s other half, split off so that each
module compiles within a Pico's heap even from source).

Usage (the Referee calls these; nothing else needs to)::

    from referee import appstore
    appstore.boot_files(ref)          # folder, leftover .tmp files, options.json
    ref.cal = appstore.load_calibration(ref)
    appstore.resume(ref)              # replay game.jsonl after a power cut
    appstore.log(ref, line)           # append one game-log line
    appstore.start_calib(ref, t, "wall", 3)

Files under ``ref.root`` (docs/board.md, "Files on flash"): ``options.json`` and ``calib.json``
(checksummed, written atomically by ``referee.storage``), ``game.jsonl`` (the SPEC 3.1 game log,
one line appended per accepted input; its header carries the physical ``seats``), ``last.jsonl``
(the game before), ``game.jsonl.bad`` (a log that could not be read, set aside). A damaged file
is reported in ``ref.problems`` (status, boot event, fault cue for 10 s) and ignored.
"""

import json
import os

from referee import gamelog, protocol, rules, storage
from referee.calibration import Calibration

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_SEATS = const(5)
_NO_SEAT = const(255)
_NEVER = const(0x3FFFFFFF)
_FAULT_MS = const(10000)  # the fault cue after a failed write (as app.FILE_FAULT_MS at boot)
# The guided calibration from the board's menu: tare, then 3 of each piece.
BOARD_CALIB = (("tare", 0), ("wall", 3), ("roof", 3), ("rhino", 3))


def _join(root, name):
    if root is None:
        return None
    return root.rstrip("/") + "/" + name


def start_calib(ref, t, step, arg):
    """Start one calibration step ("tare", "scale" with grams, or a piece with a count); a
    step still running is cancelled first (its "failed: cancelled" event says so)."""
    from referee.calibrator import Calibrator  # only while calibrating (not a game's heap)

    cb = Calibrator(ref.cal, sps=ref.sps)
    if step == "tare":
        cb.tare()
    elif step == "scale":
        cb.known_mass(arg)  # a bad argument raises here, before anything has changed
    else:
        cb.learn(step, arg)
    if ref.calib is not None:
        seq = ref._calib_seq
        calib_cancel(ref)
        ref._calib_seq = seq
    ref.calib = cb
    ref._calib_step = step
    ref._special = True
    ref._emit("calib", calib_fields(ref))
    ref._dirty_cues()


def calib_fields(ref):
    cb = ref.calib
    f = {"step": ref._calib_step, "state": cb.state, "prompt": cb.prompt,
         "progress": list(cb.progress), "moving": cb.moving}
    if cb.note:
        f["note"] = cb.note
    if cb.error:
        f["error"] = cb.error
    if cb.result is not None:
        f["result"] = cb.result
    return f


def next_board_calib(ref, t):
    seq = ref._calib_seq
    if not seq:
        ref._calib_seq = None
        return
    step, count = seq.pop(0)
    start_calib(ref, t, step, count)


def calib_sample(ref, t, raw):
    cb = ref.calib
    if not cb.feed(t, raw):
        return
    ref._emit("calib", calib_fields(ref))
    if cb.state == "busy":
        return
    ref.calib = None
    ref._update_special()
    if cb.state == "done":
        ref.cal.sps = ref.sps
        save_calibration(ref)
        ref._new_detector()
        if ref._calib_seq:
            next_board_calib(ref, t)
    else:
        ref._calib_seq = None
        ref._flash_cue(t, "warning", _NO_SEAT)
    ref._dirty_cues()


def calib_cancel(ref):
    ref.calib.cancel()
    ref._emit("calib", calib_fields(ref))
    ref.calib = None
    ref._calib_seq = None
    ref._update_special()
    ref._dirty_cues()


def save_calibration(ref):
    path = _join(ref.root, "calib.json")
    if path is None:
        return
    try:
        ref.cal.save(path)
    except OSError as err:
        write_failed(ref, "calib.json", err)


def write_failed(ref, name, err):
    """A write to the flash failed (full, worn out): a fault event, the fault cue for a while
    and a sentence in ``problems`` (status), so the family and the host both see it. Play
    goes on in memory."""
    ref._emit("fault", {"file": name, "message": str(err)})
    text = str(err)
    if name not in text:
        text = "%s: %s" % (name, text)
    if text not in ref.problems:
        ref.problems.append(text)
    ref._fault_until = ref._now + _FAULT_MS
    ref._arm()
    ref._dirty_cues()


def boot_files(ref):
    root = ref.root
    try:
        if root not in ("", "/"):
            storage.ensure_dir(root)
        storage.cleanup(root)
    except storage.FlashFull as err:
        ref.problems.append(str(err))
    except OSError as err:
        ref.problems.append("flash folder %s: %s" % (root, err))
    load_options(ref)


def load_options(ref):
    path = _join(ref.root, "options.json")
    try:
        d = json.loads(storage.read_checked(path).decode())
        if type(d) is not dict or d.get("rhinoref") != "options":
            raise ValueError("not an options file")
        apply_options(ref, d)
    except OSError as err:
        if not storage.is_missing(err):
            ref.problems.append("options.json: %s" % err)
    except (ValueError, UnicodeError, protocol.ProtocolError) as err:
        ref.problems.append("options.json: %s (defaults used)" % err)


def apply_options(ref, d):
    """Check every option first, then set them all (nothing changes on an error)."""
    b = protocol.arg(d, "brightness", protocol.INT, ref.brightness, 1, 255)
    gr = protocol.arg(d, "grace_ms", protocol.INT, ref.grace_ms, 0, 60000)
    sy = protocol.arg(d, "symbol_ms", protocol.INT, ref.symbol_ms, 0, 600000)
    sps = protocol.arg(d, "sps", protocol.INT, ref.sps, choices=(10, 80))
    mi = protocol.arg(d, "mirror", protocol.BOOL, ref.mirror)
    hw = protocol.arg(d, "hw_watchdog", protocol.BOOL, ref.hw_watchdog)
    ref.brightness = b
    ref.grace_ms = gr
    ref.symbol_ms = sy
    ref.mirror = mi
    ref.hw_watchdog = hw
    if sps != ref.sps:
        ref.sps = sps
        if getattr(ref, "det", None) is not None:  # not while booting
            ref._new_detector()


def save_options(ref):
    path = _join(ref.root, "options.json")
    if path is None:
        return
    d = ref._options()
    del d["mirror"]  # a monitor's session setting: not kept over a power cut
    d["rhinoref"] = "options"
    d["version"] = 1
    try:
        storage.write_atomic(path, json.dumps(d))
    except OSError as err:
        write_failed(ref, "options.json", err)


def load_calibration(ref):
    path = _join(ref.root, "calib.json")
    if path is None:
        return Calibration()
    try:
        cal = Calibration.load(path)
    except (OSError, ValueError) as err:  # storage.CorruptFile is a ValueError
        ref.problems.append("%s (defaults used)" % err)
        return Calibration()
    return cal


def log(ref, line):
    if ref.log_lines is not None:
        ref.log_lines.append(line)
        return
    try:
        storage.append_line(_join(ref.root, "game.jsonl"), line)
    except OSError as err:
        write_failed(ref, "game.jsonl", err)


def archive_log(ref):
    """A new game begins: the previous game's log becomes last.jsonl."""
    if ref.log_lines is not None:
        if ref.log_lines:  # (already archived when the lobby came first)
            ref.last_lines = ref.log_lines
            ref.log_lines = []
        return
    path = _join(ref.root, "game.jsonl")
    if storage.exists(path):
        last = _join(ref.root, "last.jsonl")
        try:
            storage.remove(last)
            os.rename(path, last)
        except OSError as err:
            write_failed(ref, "game.jsonl", err)
            storage.remove(path)


def resume(ref):
    """Rebuild an unfinished game from game.jsonl (power cut), or show a finished one."""
    path = _join(ref.root, "game.jsonl")
    if not storage.exists(path):
        return
    r = gamelog.Replay()
    seats = None
    last_t = 0
    try:
        for text in storage.read_lines(path, True):  # damaged bytes are reported, not lost
            status = r.feed(text)
            if seats is None and r.game is not None:
                seats = _header_seats(text, r.game)  # the header line just read
            if status == gamelog.BAD:
                ref.problems.append("game.jsonl line %d skipped: %s" % (r.line, r.message))
            elif r.input is not None:
                last_t = r.input[0]
                if status != rules.ERROR:
                    # the lasting cues come back as they were (skipped, draw, hand-over)
                    ref.game = r.game
                    ref._track_effects(ref._now, r.input[1], r.game.effects)
    except gamelog.LogError as err:
        ref.problems.append("game.jsonl: %s (not resumed)" % err)
        set_aside(ref, path)
        ref.game = None
        return
    except OSError as err:
        ref.problems.append("game.jsonl: %s (not resumed)" % err)
        ref.game = None
        ref._reset_game_cues()
        return
    g = r.game
    if g is None:
        ref.problems.append("game.jsonl: no header (not resumed)")
        set_aside(ref, path)
        return
    ref.game = g
    ref.seats = seats
    ref.side = g.side
    ref.joined = [seats[g.first]] + [s for s in seats if s != seats[g.first]]
    ref._gt0 = ref._now - last_t
    ref._last_turn = (g.turn, g.direction, g.over)
    if g.awaiting_symbol and ref.symbol_ms:
        ref._sym_deadline = ref._now + ref.symbol_ms
    ref.det.expect_rhino(bool(g.owes_rhino and not g.over))
    ref._emit("resumed", {"players": g.players, "seats": seats[:], "inputs": r.line - 1,
                          "state": g.state()})


def set_aside(ref, path):
    try:
        storage.remove(path + ".bad")
        os.rename(path, path + ".bad")
    except OSError:
        pass


def _header_seats(text, game):
    """Physical seats from a game log header's extra "seats" field (else 0..players-1)."""
    n = game.players
    try:
        d = json.loads(text)
        seats = d.get("seats")
        if type(seats) is list and len(seats) == n:
            ok = True
            for i in range(n):
                s = seats[i]
                if type(s) is not int or not 0 <= s < _SEATS or (i and s <= seats[i - 1]):
                    ok = False
            if ok:
                return seats
    except ValueError:
        pass
    return list(range(n))
