"""Power cuts (issue 8, part 3): games played on a flash that loses power at random instants.

Usage::

    from rel_powercut import session
    report = session(cuts=1000, seed=1, mode="bytes")     # or mode="littlefs"
    report.failures == []; report.cuts >= 1000; report.sites (where the cuts landed)

One long session per call: families start games, build, place roofs, enter symbols, hit
collapses, undo them, enter tie-break counts, change the brightness from the menu and by
command, tare the scale and record traces, all through the Referee's own entry points
(``command``, ``press``, ``sample``) on the in-memory flash of ``rel_flash``. Before an action,
with probability ``p_cut``, the harness measures how many units (bytes written plus file
operations) the action will cost (a dry run on copies) and arms the flash to fail at a
uniformly chosen unit inside it: in the middle of a log append, between the temporary file
and its rename, in the archive of the last game, in a calibration save, in a trace chunk.
Now and then the reboot itself is cut too (it cleans up and may promote or set aside files).

After every cut the board boots again (a new Referee on what survived) and is checked:

* it boots (no exception) and answers status;
* the game is exactly the live game just before the action (its input was not durable) or
  just after it (the input's log line was complete on the flash) - which one is decided by
  reading the log independently; every earlier input is there;
* a cut while a new game starts may also come back to the lobby (the header never made it;
  when a torn header is set aside the board says so: a problem in status and the fault cue);
* options and calibration are the old or the new ones, never defaults after a torn write;
* problems (and the fault cue) appear only in that one case.

The session then goes on from the resumed board, so later cuts also hit the repairs a resume
makes (cutting a torn last line off the log through a temporary file and a rename).
"""

import copy
import json
import random

from app_rig import NoDetector
from rel_flash import Flash, PowerCut

from referee.app import Referee

ROOT = "/data"
GAME = ROOT + "/game.jsonl"


class Report:
    def __init__(self, mode):
        self.mode = mode
        self.cuts = 0
        self.boot_cuts = 0
        self.actions = 0
        self.inputs = 0
        self.games = 0
        self.outcomes = {}  # "resumed before" / "resumed after" / "lobby" / "set aside" / ...
        self.sites = {}
        self.failures = []

    def outcome(self, name):
        self.outcomes[name] = self.outcomes.get(name, 0) + 1

    def figures(self):
        return {"mode": self.mode, "cuts": self.cuts, "cuts_during_boot": self.boot_cuts,
                "actions": self.actions, "games": self.games, "outcomes": dict(self.outcomes),
                "sites": dict(sorted(self.sites.items())), "failures": len(self.failures)}


def _log_lines(flash):
    """Complete lines of the game log on the flash (what a resume can use)."""
    data = flash.read(GAME)
    if data is None:
        return None
    return data.count(b"\n")


def _observe(ref, flash):
    g = ref.game
    state = None
    if g is not None:
        state = g.state()
        state.pop("error", None)
        state.pop("warning", None)
    return {
        "obj": id(g),  # the same game object, or a new one (a game was started)
        "game": state,
        "seats": list(ref.seats) if g is not None else None,
        "lines": _log_lines(flash),
        "options": (ref.brightness, ref.grace_ms, ref.symbol_ms, ref.sps, ref.hw_watchdog),
        "cal": ref.cal.to_dict(),
    }


# -- actions: one thing a family (or a host) does --------------------------------------------

def _cmd(obj):
    line = json.dumps(obj)

    def act(ref, t, rng):
        ref.command(t, line)
    act.kind = obj.get("in") or obj["cmd"]
    return act


def _press(*names):
    def act(ref, t, rng):
        for i, n in enumerate(names):
            ref.press(t + 100 * i, n)
    act.kind = "menu " + names[-1] if len(names) > 1 else names[0]
    return act


def _quiet_samples(ref, t, n, rng, level=120000):
    for i in range(n):
        ref.sample(t + i * 12, level + rng.randint(-40, 40), 0, 0, 1000)


def _tare(ref, t, rng):
    ref.command(t, '{"cmd": "tare"}')
    i = 0
    while ref.calib is not None and i < 3000:
        _quiet_samples(ref, t + 12 * i, 40, rng)
        i += 40


_tare.kind = "tare"


def _trace(ref, t, rng):
    ref.command(t, '{"cmd": "trace", "to": "flash", "max_bytes": 4096}')
    _quiet_samples(ref, t, 100, rng)
    ref.command(t + 1300, '{"cmd": "trace", "to": "off"}')


_trace.kind = "trace"


def choose(ref, rng):
    """The next action, plausible for the referee's present state (sometimes not)."""
    g = ref.game
    r = rng.random()
    if g is None or g.over:
        if r < 0.55:
            players = rng.randint(2, 5)
            return _cmd({"cmd": "new_game", "players": players,
                         "first": rng.randrange(players)})
        if r < 0.65:
            return _press("menu")  # over -> lobby
        if r < 0.75:
            return _cmd({"cmd": "options", "brightness": rng.randint(1, 255),
                         "symbol_ms": rng.choice((3000, 5000, 8000))})
        if r < 0.85:
            return _tare
        if r < 0.92:
            return _trace
        return _press("menu_long", "double")  # brightness from the menu
    if r < 0.04:
        return _press("menu_long", "double")
    if r < 0.06:
        return _cmd({"cmd": "options", "brightness": rng.randint(1, 255)})
    if g.tiebreak_seats:
        if r < 0.15:
            return _cmd({"cmd": "inject", "in": "undo_collapse"})
        return _cmd({"cmd": "inject", "in": "tiebreak", "seat": rng.choice(g.tied),
                     "symbols": rng.randint(0, 3)})
    if r < 0.08:
        return _cmd({"cmd": "inject", "in": "collapse"})
    if r < 0.10:
        return _cmd({"cmd": "inject", "in": "undo_collapse"})
    if g.awaiting_symbol:
        return _cmd({"cmd": "inject", "in": "symbol", "symbol": rng.choice(
            ("none", "none", "reverse", "skip", "draw", "double", "rhino"))})
    if g.owes_rhino and r < 0.8:
        return _cmd({"cmd": "inject", "in": "rhino"})
    if g.double_pending and r < 0.3:
        return _cmd({"cmd": "inject", "in": "neighbor"})
    if r < 0.6:
        return _cmd({"cmd": "inject", "in": "wall"})
    return _cmd({"cmd": "inject", "in": "roof"})


# -- the session ------------------------------------------------------------------------------

def _boot(t):
    return Referee(root=ROOT, t_ms=t, make_detector=NoDetector)


def _dry_ops(flash, fn):
    """The file operations ``fn()`` makes, as [(site, units)], measured on a copy of the
    flash (which is restored afterwards)."""
    files = dict(flash.files)
    dirs = set(flash.dirs)
    start = flash.units
    flash.trace = []
    try:
        fn()
    finally:
        ops = flash.trace
        flash.trace = None
        flash.files = files
        flash.dirs = dirs
        flash.units = start
        flash.open_files.clear()
    return [op for op in ops if op[1] > 0]


def _pick_cut(ops, rng, p_after=0.15):
    """A cut instant: every operation is as likely as any other (a rename as a long write),
    at a uniform byte inside it; sometimes right after the last one. None: no operations."""
    if not ops:
        return None, 0
    total = sum(n for _site, n in ops)
    if rng.random() < p_after:
        return total, total
    i = rng.randrange(len(ops))
    before = sum(n for _site, n in ops[:i])
    return before + rng.randrange(ops[i][1]), total


def _clone(ref):
    memo = {}
    if ref._cmds is not None:
        memo[id(ref._cmds)] = ref._cmds
    return copy.deepcopy(ref, memo)


def _check(rep, flash, act, pre, post, new):
    """The booted board against the live one just before (pre) and at the cut (post)."""
    got = _observe(new, flash)
    fails = []
    # a game start (by command, or by the menu button in the lobby)
    start = act.kind == "new_game" or (post["obj"] != pre["obj"] and post["game"] is not None)
    lines = got["lines"]
    if got["game"] is None:
        if not start and pre["game"] is not None:
            fails.append("game lost")
        elif not start and post["game"] is not None:
            fails.append("a game that was live is gone")
        elif new.problems:
            rep.outcome("new game not started: torn header set aside, fault cue")
        else:
            rep.outcome("lobby" if pre["game"] is None else "new game not started: lobby")
    elif post["game"] is None and pre["game"] is None:
        fails.append("a game came back that was not live (back to the lobby before the cut)")
    elif got["game"] == post["game"] and got["seats"] == post["seats"]:
        if not start and lines is not None and pre["lines"] is not None and \
                lines != pre["lines"] + 1 and post["game"] != pre["game"]:
            fails.append("resumed the new state from %s log lines (had %s)"
                         % (lines, pre["lines"]))
        rep.outcome("resumed after the input" if post["game"] != pre["game"]
                    else "resumed (nothing changed)")
    elif got["game"] == pre["game"] and got["seats"] == pre["seats"]:
        if not start and lines != pre["lines"]:
            fails.append("resumed the old state but the log has %s lines (had %s)"
                         % (lines, pre["lines"]))
        rep.outcome("resumed before the input")
    else:
        fails.append("resumed a state that never was: %s" % _diff(got["game"], post["game"]))
    if got["options"] not in (pre["options"], post["options"]):
        fails.append("options %s, neither old %s nor new %s" % (got["options"], pre["options"],
                                                                post["options"]))
    if got["cal"] not in (pre["cal"], post["cal"]):
        fails.append("calibration neither old nor new")
    if new.problems and not (start and got["game"] is None):
        fails.append("problems reported: %s" % new.problems)
    cues = new.seat_cues()
    if new.problems and not all(c and c[0] == "fault" for c in cues):
        fails.append("problems without the fault cue: %s" % cues)
    st = json.loads(new.command(0, '{"cmd": "status"}'))
    if not st.get("ok"):
        fails.append("status refused: %s" % st)
    if fails:
        rep.failures.append({"action": act.kind, "site": flash.last_cut, "why": fails})


def _diff(a, b):
    if a is None or b is None:
        return "%r vs %r" % (a, b)
    return {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}


def session(cuts=100, seed=1, mode="bytes", p_cut=0.35, p_boot_cut=0.1, max_actions=None):
    """Play until ``cuts`` power cuts have happened; returns a Report (see module doc)."""
    rng = random.Random(seed)
    flash = Flash(mode)
    rep = Report(mode)
    max_actions = max_actions or cuts * 40
    with flash.installed():
        t = 1000
        ref = _reboot(rep, flash, t, rng, 1.0)  # the very first boot may be cut too (mkdir)
        while rep.cuts < cuts and rep.actions < max_actions:
            act = choose(ref, rng)
            rep.actions += 1
            if act.kind == "new_game":
                rep.games += 1
            pre = _observe(ref, flash)
            cut_at = units = None
            arm_rng = rng
            if rng.random() < p_cut:
                seed_a = rng.random()
                ops = _dry_ops(flash, lambda: act(_clone(ref), t, random.Random(seed_a)))
                arm_rng = random.Random(seed_a)
                cut_at, units = _pick_cut(ops, rng)
            if cut_at is not None and cut_at < units:
                flash.arm(cut_at)
            try:
                act(ref, t, arm_rng)
                flash.disarm()
                if cut_at is not None and cut_at == units:
                    # The power fails right after the action's last write: what it wrote
                    # must all be there.
                    flash.last_cut = "after the last write"
                    flash.sites[flash.last_cut] = flash.sites.get(flash.last_cut, 0) + 1
                    raise PowerCut()
            except PowerCut:
                rep.cuts += 1
                post = _observe(ref, flash)
                t += rng.choice((200, 3000, 60000))  # the power is off for a while
                flash.revive()
                ref = _reboot(rep, flash, t, rng, p_boot_cut)
                _check(rep, flash, act, pre, post, ref)
            except Exception as err:  # noqa: BLE001 - an error out of the referee is a failure
                rep.failures.append({"action": act.kind, "why": ["raised %r" % err]})
                flash.disarm()
            ref.pop_events()
            t += rng.choice((50, 400, 900, 2500))
            ref.tick(t)
        rep.sites = dict(flash.sites)
        rep.ops = dict(flash.ops)
        _final_replay(rep, flash, ref)
    return rep


def _reboot(rep, flash, t, rng, p_boot_cut):
    if rng.random() < p_boot_cut:
        cut_at, units = _pick_cut(_dry_ops(flash, lambda: _boot(t)), rng, p_after=0)
        if cut_at is not None:
            flash.arm(cut_at)
            try:
                _boot(t)
                flash.disarm()
            except PowerCut:
                rep.boot_cuts += 1
                rep.cuts += 1
                flash.revive()
            except Exception as err:  # noqa: BLE001
                rep.failures.append({"action": "boot", "why": ["raised %r" % err]})
                flash.disarm()
    try:
        return _boot(t)
    except Exception as err:  # noqa: BLE001
        rep.failures.append({"action": "boot", "why": ["raised %r" % err]})
        flash.files.pop(GAME, None)
        return _boot(t)


def _final_replay(rep, flash, ref):
    """The log on the flash replays to exactly the live game at the end."""
    from referee import gamelog

    data = flash.read(GAME)
    if ref.game is None or data is None:
        return
    lines = [x for x in data.decode().split("\n")[:-1]]
    game, bad = gamelog.replay(lines)
    a = game.state()
    b = ref.game.state()
    for d in (a, b):
        d.pop("error", None)
        d.pop("warning", None)
    if a != b or bad:
        rep.failures.append({"action": "final replay", "why": [_diff(a, b), bad]})
