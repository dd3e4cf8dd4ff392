"""Damaged files and a full flash (issue 8, part 2): the board boots, says what is wrong, keeps
what is good.

Usage::

    from rel_files import damage_cases, boot_case, full_flash_session
    for case in damage_cases(seed=1, per_file=20):
        r = boot_case(case)          # r.problems (list of sentences) == [] when all is well
    r = full_flash_session(seed=1)

A good flash is made first by a real session (options and calibration saved, a game played
for a while, an earlier game archived, a trace recorded). Then one file at a time is damaged:
emptied, truncated at a random byte, a random byte flipped or overwritten, random garbage,
a newer format version, a huge file, or replaced by a stale temporary file. The board boots
on that flash (``rel_flash``, so nothing touches the disk) and is checked:

* the boot does not raise and ``status`` answers;
* a damaged calibration, options or game log is named in ``problems`` (status and the boot
  event) with a sentence, and the fault cue shows at every seat - unless the damage is one the
  firmware repairs silently by design (a torn last log line, a stale ``.tmp``);
* what is good is kept: the other files' settings are in force, a log damaged after its
  header still resumes the game from the lines that are whole, files nobody reads at boot
  (last game, trace) never stop it;
* a game can be started and played afterwards, and its inputs reach the log.

``full_flash_session``: the flash fills up in the middle of a game (then of an options save,
a calibration, a trace, a new game's archive): every write that fails gives a fault event,
the fault cue and a sentence in status, play goes on in memory, nothing already on the flash
is lost, and when space comes back the log is written again.
"""

import json
import random

from app_rig import NoDetector
from rel_flash import Flash

from referee.app import Referee

ROOT = "/data"
READ_AT_BOOT = ("calib.json", "options.json", "game.jsonl")


def _boot(t=0):
    return Referee(root=ROOT, t_ms=t, make_detector=NoDetector)


def good_flash(seed=1):
    """A flash as a family leaves it: settings, calibration, a finished and a running game,
    a recorded trace. Returns (flash, live state facts)."""
    rng = random.Random(seed)
    flash = Flash("bytes")
    with flash.installed():
        ref = _boot()
        ref.command(0, json.dumps({"cmd": "options", "brightness": 33, "symbol_ms": 7000,
                                   "grace_ms": 1500}))
        ref.command(10, '{"cmd": "tare"}')
        t = 20
        while ref.calib is not None and t < 60000:
            ref.sample(t, 130000 + rng.randint(-40, 40), 0, 0, 1000)
            t += 12
        ref.command(t, '{"cmd": "trace", "to": "flash", "max_bytes": 2048}')
        for i in range(60):
            ref.sample(t + 12 * i, 130000 + rng.randint(-40, 40), 0, 0, 1000)
        ref.command(t + 800, '{"cmd": "trace", "to": "off"}')
        ref.command(t + 900, '{"cmd": "new_game", "players": 2}')
        ref.command(t + 950, '{"cmd": "inject", "in": "collapse"}')
        ref.command(t + 1000, '{"cmd": "new_game", "seats": [1, 3, 4], "first": 1}')
        for i, inp in enumerate(("wall", "roof", "symbol", "wall", "wall", "roof", "symbol",
                                 "rhino", "wall", "roof")):
            obj = {"cmd": "inject", "in": inp}
            if inp == "symbol":
                obj["symbol"] = rng.choice(("skip", "rhino", "none", "draw"))
            ref.command(t + 1100 + 300 * i, json.dumps(obj))
        facts = {"brightness": ref.brightness, "symbol_ms": ref.symbol_ms,
                 "offset": ref.cal.offset, "game": ref.game.state(), "seats": ref.seats[:]}
    facts["game"].pop("warning", None)
    facts["game"].pop("error", None)
    return flash, facts


def _damages(rng, name, data):
    """(kind, new bytes or None to delete) for one file."""
    out = [("empty", b"")]
    n = len(data)
    if n > 1:
        out.append(("truncated", data[:rng.randrange(1, n)]))
        i = rng.randrange(n)
        out.append(("bit flip", data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) +
                    data[i + 1:]))
        i = rng.randrange(n)
        out.append(("byte overwritten", data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]))
    out.append(("garbage", bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))))
    out.append(("huge", data + b"x" * 40000 + b"\n"))
    if name.endswith(".json"):
        out.append(("newer version", data.replace(b"rhinoref-file 1 ", b"rhinoref-file 2 ")))
        out.append(("valid file, wrong content", b"rhinoref-file 1 len=2 crc32=%08x\n[]"
                    % _crc(b"[]")))
    if name == "game.jsonl":
        out.append(("newer log version", data.replace(b'"version": 1', b'"version": 7', 1)))
        out.append(("torn last line", data + b'{"t_ms": 99999, "in": "ro'))
        out.append(("no header", data.split(b"\n", 1)[1]))
    return out


def _crc(b):
    from referee import storage

    return storage.crc32(b)


class Case:
    def __init__(self, name, kind, flash, facts):
        self.name = name
        self.kind = kind
        self.flash = flash
        self.facts = facts


def damage_cases(seed=1, rounds=3):
    """Every damage of every file, ``rounds`` times with different random bytes."""
    rng = random.Random(seed)
    base, facts = good_flash(seed)
    names = sorted(p.rpartition("/")[2] for p in base.files)
    cases = []
    for _ in range(rounds):
        for name in names:
            data = base.files[ROOT + "/" + name]
            for kind, blob in _damages(rng, name, data):
                fl = _copy(base)
                fl.files[ROOT + "/" + name] = blob
                case = Case(name, kind, fl, facts)
                case.blob = blob  # as damaged (the boot may repair the file)
                cases.append(case)
        # a stale temporary file beside each checked file, and one left for a missing target
        for name in ("calib.json", "options.json"):
            fl = _copy(base)
            fl.files[ROOT + "/" + name + ".tmp"] = b"rhinoref-file 1 len=9 crc32=0\nhalf-writ"
            cases.append(Case(name, "stale .tmp", fl, facts))
            fl = _copy(base)
            fl.files[ROOT + "/" + name + ".tmp"] = fl.files.pop(ROOT + "/" + name)
            cases.append(Case(name, "only a complete .tmp (FAT rename cut)", fl, facts))
    return cases


def _copy(flash):
    fl = Flash(flash.mode)
    fl.files = dict(flash.files)
    fl.dirs = set(flash.dirs)
    return fl


SILENT = {  # damage the firmware repairs by design, with nothing to report
    ("game.jsonl", "torn last line"), ("game.jsonl", "truncated"),
    ("calib.json", "stale .tmp"), ("options.json", "stale .tmp"),
    ("calib.json", "only a complete .tmp (FAT rename cut)"),
    ("options.json", "only a complete .tmp (FAT rename cut)"),
}


def boot_case(case):
    """Boot on the damaged flash and check it; returns (referee, [problem sentences])."""
    out = []
    fl = case.flash
    with fl.installed():
        try:
            ref = _boot(5000)
        except Exception as err:  # noqa: BLE001 - the one thing that must never happen
            return None, ["boot raised %r" % err]
        boot_ev = [json.loads(e) for e in ref.pop_events() if e.startswith('{"ev": "boot"')]
        st = json.loads(ref.command(5001, '{"cmd": "status"}'))
        if not st.get("ok"):
            out.append("status refused: %s" % st)
        name, kind = case.name, case.kind
        reported = [p for p in ref.problems if name.split(".")[0] in p]
        silent = (name, kind) in SILENT
        if name == "game.jsonl" and kind == "truncated" and \
                b"\n" not in getattr(case, "blob", b"\n"):
            silent = False  # cut inside the header: nothing to resume, and it says so
        must_report = name in READ_AT_BOOT and not silent
        if name == "game.jsonl" and kind in ("huge",):
            must_report = True
        if must_report and not reported and _damaged_for_real(case):
            out.append("%s (%s) not reported: problems %s" % (name, kind, ref.problems))
        if ref.problems:
            if not boot_ev or boot_ev[0]["problems"] != ref.problems:
                out.append("boot event without the problems")
            if st.get("problems") != ref.problems:
                out.append("status without the problems")
            if not all(c and c[0] == "fault" for c in ref.seat_cues()):
                out.append("no fault cue: %s" % ref.seat_cues())
            for p in ref.problems:
                if len(p) < 12:
                    out.append("unclear problem %r" % p)
        if silent and ref.problems:
            out.append("repairable damage reported as a problem: %s" % ref.problems)
        _kept(case, ref, out)
        # play on: a new game, inputs logged
        r = json.loads(ref.command(6000, '{"cmd": "new_game", "players": 3}'))
        r2 = json.loads(ref.command(6100, '{"cmd": "inject", "in": "wall"}'))
        if not (r.get("ok") and r2.get("ok")):
            out.append("cannot play after boot: %s %s" % (r, r2))
        log = fl.read(ROOT + "/game.jsonl") or b""
        if not log.rstrip(b"\n").endswith(b'"in": "wall", "src": "host"}'):
            out.append("the new game's input is not in the log: %r" % log[-80:])
    return ref, out


def _damaged_for_real(case):
    """A byte flip inside a JSON string of the log may still be a valid line; a truncation of
    a checked file always shows. Only report-worthy damage is asked to be reported."""
    if case.name != "game.jsonl":
        return True
    from referee import gamelog

    data = case.flash.files.get(ROOT + "/game.jsonl", b"")
    lines = data.split(b"\n")[:-1]  # complete lines only
    try:
        _game, bad = gamelog.replay(lines)
    except gamelog.LogError:
        return True
    except UnicodeError:
        return True
    return bool(bad) or len(data) > 32768


def _kept(case, ref, out):
    f = case.facts
    name = case.name
    if name != "options.json" and (ref.brightness, ref.symbol_ms) != (f["brightness"],
                                                                       f["symbol_ms"]):
        out.append("options lost although options.json was fine")
    if name != "calib.json" and ref.cal.offset != f["offset"]:
        out.append("calibration lost although calib.json was fine")
    if name in ("calib.json", "options.json") and "only a complete .tmp" in case.kind:
        if name == "calib.json" and ref.cal.offset != f["offset"]:
            out.append("complete .tmp of calib.json not promoted")
        if name == "options.json" and ref.brightness != f["brightness"]:
            out.append("complete .tmp of options.json not promoted")
    if name != "game.jsonl":
        g = ref.game.state() if ref.game is not None else None
        if g is not None:
            g.pop("warning", None)
            g.pop("error", None)
        if g != f["game"] or ref.seats != f["seats"]:
            out.append("the running game was not resumed although its log was fine")
    elif case.kind in ("torn last line",):
        if ref.game is None or ref.game.state().get("walls_left") != f["game"]["walls_left"]:
            out.append("a torn last line lost the game")


# -- a full flash ------------------------------------------------------------------------------

def full_flash_session(seed=1):
    """Fill the flash in the middle of things; returns a list of problem sentences."""
    out = []
    rng = random.Random(seed)
    flash, facts = good_flash(seed)
    with flash.installed():
        ref = _boot(10000)
        ref.pop_events()
        before = dict(flash.files)
        flash.full_at = flash.used() + rng.randrange(0, 60)  # a few bytes left at most
        t = 10000
        accepted = 0
        for i in range(12):
            t += 400
            inp = "wall" if i % 3 else "roof"
            if ref.game.awaiting_symbol:
                r = json.loads(ref.command(t, '{"cmd": "inject", "in": "symbol", '
                                              '"symbol": "none"}'))
            else:
                r = json.loads(ref.command(t, json.dumps({"cmd": "inject", "in": inp})))
            accepted += bool(r.get("ok"))
        evs = [json.loads(e) for e in ref.pop_events()]
        faults = [e for e in evs if e["ev"] == "fault" and "file" in e]
        if accepted < 12:
            out.append("inputs refused with a full flash: %d of 12 accepted" % accepted)
        if not faults or "full" not in faults[-1].get("message", ""):
            out.append("no fault event saying the flash is full: %s" % faults[-1:])
        st = json.loads(ref.command(t, '{"cmd": "status"}'))
        if not any("full" in p for p in st.get("problems", [])):
            out.append("status does not say the flash is full: %s" % st.get("problems"))
        if not all(c and c[0] == "fault" for c in ref.seat_cues()):
            out.append("no fault cue with a full flash: %s" % ref.seat_cues())
        # the other writes fail cleanly too
        for line in ('{"cmd": "options", "brightness": 200}',
                     '{"cmd": "trace", "to": "flash"}'):
            r = json.loads(ref.command(t, line))
            if not r.get("ok") and "full" not in r.get("error", "") and \
                    "space" not in r.get("error", ""):
                out.append("unclear error for %s: %s" % (line, r))
        ref.command(t, '{"cmd": "trace", "to": "off"}')
        for name in ("/data/calib.json", "/data/options.json", "/data/last.jsonl"):
            if flash.files.get(name) != before.get(name):
                out.append("%s changed by a failed write" % name)
        # a reboot with the flash still full keeps the game up to the last line written
        ref2 = _boot(t + 100)
        if ref2.game is None:
            out.append("the game was lost on reboot with a full flash")
        # space comes back: the log is written again
        flash.full_at = None
        r = json.loads(ref2.command(t + 200, '{"cmd": "inject", "in": "wall"}'))
        log = flash.files.get("/data/game.jsonl", b"")
        if not r.get("ok") or not log.endswith(b'"src": "host"}\n'):
            out.append("the log is not written after space came back")
    return out
