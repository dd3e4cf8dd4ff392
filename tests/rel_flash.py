"""An in-memory flash for the firmware's file API that can lose power at any byte.

Usage::

    from rel_flash import Flash, PowerCut
    flash = Flash(mode="bytes")        # or "littlefs"
    with flash.installed():            # referee.storage / appstore / commands now use it
        flash.arm(120)                 # power fails after 120 more units (bytes or operations)
        try:
            ref = Referee(root="/data", ...)
            ...
        except PowerCut:
            ...                        # what is on the flash now is what survived
    flash.files["/data/game.jsonl"]    # bytes (committed content)

What the firmware calls (``open`` with modes r/rb/w/wb/a/ab, ``read``, ``readline``,
``readinto``, ``seek``, ``write``, ``flush``, ``close``; ``os.stat``, ``remove``, ``rename``,
``mkdir``, ``listdir``) is served here. Every written byte costs one unit and every
metadata operation (create, truncate, rename, remove, mkdir, commit) one unit; when the armed
budget runs out, the operation in progress stops there and ``PowerCut`` (a BaseException, so
no ``except OSError`` in the firmware can swallow it) is raised. Two models of what survives:

* ``"bytes"``: every byte is on the flash as soon as it is written (a torn write leaves exactly
  the bytes written so far) - the pessimistic model, a superset of what LittleFS can leave;
* ``"littlefs"``: as the Pico's LittleFS: what a file gained since it was opened is committed
  by ``flush()`` or ``close()``; until then the file keeps its last committed content (a new
  file exists, empty, from its creation). Renames and removes are atomic in both.

``full_at`` (bytes) makes the flash full: a write beyond it raises OSError(ENOSPC).
``sites`` records, per write site, how many cuts landed in it (the coverage figure).
"""

import errno
from contextlib import contextmanager


class PowerCut(BaseException):
    """The power failed (raised from inside a file operation)."""


def _enoent(path):
    return OSError(errno.ENOENT, "no such file: %s" % path)


class _File:
    def __init__(self, flash, path, mode):
        self.flash = flash
        self.path = path
        self.mode = mode
        self.binary = "b" in mode
        self.writing = mode[0] in "wa"
        self.pos = 0
        self.closed = False
        if self.writing:
            # The content this handle builds (committed on flush/close in littlefs mode).
            self.buf = bytearray(flash.files.get(path, b"")) if mode[0] == "a" else bytearray()
            self.pos = len(self.buf)
        else:
            self.buf = flash.files[path]

    # -- reading -------------------------------------------------------------------------------
    def _out(self, data):
        return bytes(data) if self.binary else bytes(data).decode()

    def read(self, n=-1):
        data = self.buf[self.pos:] if n is None or n < 0 else self.buf[self.pos:self.pos + n]
        self.pos += len(data)
        return self._out(data)

    def readline(self):
        i = self.buf.find(b"\n", self.pos)
        end = len(self.buf) if i < 0 else i + 1
        data = self.buf[self.pos:end]
        self.pos = end
        return self._out(data)

    def readinto(self, buf):
        data = self.buf[self.pos:self.pos + len(buf)]
        buf[:len(data)] = data
        self.pos += len(data)
        return len(data)

    def seek(self, pos, whence=0):
        self.pos = pos if whence == 0 else (self.pos + pos if whence == 1 else len(self.buf) + pos)
        return self.pos

    def tell(self):
        return self.pos

    def __iter__(self):
        while True:
            line = self.readline()
            if not line:
                return
            yield line

    # -- writing -------------------------------------------------------------------------------
    def write(self, data):
        if not self.writing:
            raise OSError(errno.EBADF, "not open for writing")
        if isinstance(data, str):
            data = data.encode()
        data = bytes(data)
        fl = self.flash
        if fl.full_at is not None:
            room = fl.full_at - (fl.used() - len(fl.files.get(self.path, b"")) + len(self.buf))
            if len(data) > room:
                raise OSError(errno.ENOSPC, "no space left on device")
        n = fl.spend(len(data), self.path, "write")
        self.buf[self.pos:self.pos + n] = data[:n]
        self.pos += n
        if fl.mode == "bytes":
            fl.files[self.path] = bytes(self.buf)
        if n < len(data):
            raise PowerCut()
        return n

    def flush(self):
        if self.writing and self.flash.mode == "littlefs":
            self.flash.spend_op(self.path, "commit")
            self.flash.files[self.path] = bytes(self.buf)

    def close(self):
        if self.closed or self.flash.dead:
            self.closed = True
            return
        if self.writing and self.flash.mode == "littlefs" and \
                self.flash.files.get(self.path) != bytes(self.buf):
            self.flash.spend_op(self.path, "commit")
            self.flash.files[self.path] = bytes(self.buf)
        self.closed = True
        self.flash.open_files.discard(self)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is PowerCut:
            self.closed = True  # nothing more reaches the flash
            self.flash.open_files.discard(self)
            return False
        self.close()
        return False


class _Os:
    """The part of ``os`` the firmware uses, on the fake flash."""

    def __init__(self, flash):
        self.flash = flash

    def stat(self, path):
        fl = self.flash
        if fl.dead:
            raise PowerCut()
        path = fl.norm(path)
        if path in fl.files:
            return (0x8000, 0, 0, 0, 0, 0, len(fl.files[path]), 0, 0, 0)
        if path in fl.dirs:
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        raise _enoent(path)

    def remove(self, path):
        fl = self.flash
        path = fl.norm(path)
        if path not in fl.files:
            raise _enoent(path)
        fl.spend_op(path, "remove")
        del fl.files[path]

    def rename(self, src, dst):
        fl = self.flash
        src = fl.norm(src)
        dst = fl.norm(dst)
        if src not in fl.files:
            raise _enoent(src)
        fl.spend_op(src, "rename")
        fl.files[dst] = fl.files.pop(src)  # atomic, replaces dst (LittleFS does)

    def mkdir(self, path):
        fl = self.flash
        path = fl.norm(path)
        if path in fl.dirs or path in fl.files:
            raise OSError(errno.EEXIST, "exists: %s" % path)
        fl.spend_op(path, "mkdir")
        fl.dirs.add(path)

    def listdir(self, path="/"):
        fl = self.flash
        if fl.dead:
            raise PowerCut()
        path = fl.norm(path)
        if path not in fl.dirs:
            raise _enoent(path)
        pre = path.rstrip("/") + "/"
        names = set()
        for p in list(fl.files) + list(fl.dirs):
            if p.startswith(pre) and p != path:
                names.add(p[len(pre):].split("/")[0])
        return sorted(names)


def _site(path, what):
    name = path.rpartition("/")[2]
    if name.endswith(".tmp"):
        name = name[:-4] + " (temp)"
    return "%s %s" % (what, name)


class Flash:
    def __init__(self, mode="bytes", full_at=None):
        assert mode in ("bytes", "littlefs")
        self.mode = mode
        self.full_at = full_at
        self.files = {}
        self.dirs = {"/"}
        self.open_files = set()
        self.budget = None  # units left before the power fails; None: never
        self.units = 0  # units spent in all
        self.sites = {}  # write site -> cuts that landed in it
        self.ops = {}  # write site -> units spent there (what could have been cut)
        self.last_cut = None
        self.dead = False
        self.cuts = 0
        self.trace = None  # a list: every (site, units) spent is recorded there

    def revive(self):
        """The power is back."""
        self.dead = False
        self.budget = None

    # -- the power -----------------------------------------------------------------------------
    def arm(self, units):
        """The power fails after ``units`` more units (0: at the next one)."""
        self.budget = units

    def disarm(self):
        self.budget = None

    def spend(self, n, path, what):
        """Spend up to ``n`` units; returns how many were spent before a cut (then the caller
        raises PowerCut after doing that much)."""
        if self.dead:
            raise PowerCut()
        site = _site(path, what)
        self.ops[site] = self.ops.get(site, 0) + n
        if self.trace is not None:
            self.trace.append((site, n))
        if self.budget is None or n < self.budget or (n == self.budget and n > 0):
            if self.budget is not None:
                self.budget -= n
            self.units += n
            return n
        done = self.budget
        self.units += done
        self.budget = None
        self.dead = True  # nothing reaches the flash any more until revive()
        self.cuts += 1
        self.sites[site] = self.sites.get(site, 0) + 1
        self.last_cut = site
        self.open_files.clear()  # in littlefs mode their buffers never reach self.files
        return done

    def spend_op(self, path, what):
        if self.spend(1, path, what) < 1:
            raise PowerCut()

    # -- helpers -------------------------------------------------------------------------------
    @staticmethod
    def norm(path):
        if not path.startswith("/"):
            path = "/" + path
        return path.rstrip("/") or "/"

    def used(self):
        return sum(len(v) for v in self.files.values())

    def open(self, path, mode="r", *args, **kw):
        if self.dead:
            raise PowerCut()
        path = self.norm(path)
        if mode[0] == "r":
            if path not in self.files:
                raise _enoent(path)
        else:
            parent = path.rpartition("/")[0] or "/"
            if parent not in self.dirs:
                raise _enoent(parent)
            if path not in self.files:
                self.spend_op(path, "create")
                self.files[path] = b""
            elif mode[0] == "w":
                self.spend_op(path, "truncate")
                if self.mode == "bytes":
                    self.files[path] = b""
        f = _File(self, path, mode)
        if f.writing:
            self.open_files.add(f)
        return f

    def read(self, path):
        return self.files.get(self.norm(path))

    def write(self, path, data):
        """Put a file on the flash directly (setting up a test), no cut."""
        path = self.norm(path)
        d = path.rpartition("/")[0] or "/"
        self.dirs.add(d)
        self.files[path] = bytes(data)

    @contextmanager
    def installed(self):
        """Let the firmware's file modules use this flash for the duration."""
        from referee import appstore, commands, storage

        fake_os = _Os(self)
        saved = []
        for mod, names in ((storage, ("open", "os")), (appstore, ("os",)),
                           (commands, ("open",))):
            for name in names:
                saved.append((mod, name, mod.__dict__.get(name, _MISSING)))
                setattr(mod, name, self.open if name == "open" else fake_os)
        try:
            yield self
        finally:
            for mod, name, old in reversed(saved):
                if old is _MISSING:
                    delattr(mod, name)
                else:
                    setattr(mod, name, old)


_MISSING = object()
