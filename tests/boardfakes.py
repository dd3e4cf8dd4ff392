"""Fake boards for the host-tool tests: no hardware, no MicroPython needed.

- ``FakeFS``: a Pico's flash in memory, with MicroPython-like ``os`` and ``open``, a capacity
  (ENOSPC when full) and a power cut after N filesystem operations (a write cut half way
  leaves half the bytes, as FAT would); optionally a ROMFS partition (``FakeRom``) behind
  ``vfs.rom_ioctl``, whose erases and writes are operations too.
- ``BoardEnv``: runs code strings "on the board" against a FakeFS, the way MicroPython's raw
  REPL would: persistent globals, ``import os``/``sys`` resolve to the fakes, output captured,
  errors formatted like a MicroPython traceback.
- ``FakeTransport``: mpremote's ``Transport`` with ``exec``/``eval`` backed by a BoardEnv, plus
  the few serial bits ``close_board`` uses. The connection can be cut after N execs.
- ``PtyApp``: a pseudo-terminal whose far end a thread plays as the referee app (JSON lines).
- ``PtyRawRepl``: a pseudo-terminal whose far end speaks MicroPython's raw REPL (Ctrl-A, Ctrl-D,
  ``OK``/output/``\\x04``) backed by a BoardEnv, so mpremote's real ``SerialTransport`` works.

Usage::

    fs = FakeFS({"main.py": b"print(1)"})
    t = FakeTransport(fs)
    t.exec("import os\\nprint(os.listdir('/'))")      # -> b"['main.py']\\r\\n"
"""

import builtins
import errno
import io
import json
import os
import select
import threading
import time
import traceback
import types

from mpremote.transport import Transport, TransportError, TransportExecError

BLOCK = 4096


class PowerCut(BaseException):
    """The board lost power mid-operation (BaseException: board code cannot catch it)."""


class FakeRom(bytearray):
    """A ROMFS partition as NOR flash: erased bytes are 0xff, programming only clears bits.

    ``block_device``: ``vfs.rom_ioctl(2, 0)`` hands out this object with ``ioctl`` and
    ``writeblocks``, as the rp2 port's ``rp2.Flash``; otherwise a memoryview, written through
    ``rom_ioctl`` 3/4/5 (both forms are in MicroPython's vfs docs).
    """

    def __init__(self, fs, size, block_device=False):
        super().__init__(b"\xff" * size)
        self.fs = fs
        self.block_device = block_device

    def erase(self, offset, length):
        for at in range(offset, offset + length, BLOCK):
            if self.fs._tick():
                raise PowerCut("power cut in a ROMFS erase")
            self[at:at + BLOCK] = b"\xff" * BLOCK

    def program(self, offset, data):
        data = bytes(data)
        if offset < 0 or offset + len(data) > len(self):
            raise OSError(errno.EINVAL, "EINVAL")
        torn = self.fs._tick()
        for i, b in enumerate(data[: len(data) // 2] if torn else data):
            self[offset + i] &= b
        if torn:
            raise PowerCut("power cut in a ROMFS write")

    # rp2.Flash's block protocol (extended interface)
    def ioctl(self, op, arg):
        if op == 4:
            return len(self) // BLOCK
        if op == 5:
            return BLOCK
        if op == 6:
            self.erase(arg * BLOCK, BLOCK)
        return 0

    def writeblocks(self, block, buf, offset=0):
        self.program(block * BLOCK + offset, buf)


class FakeFS:
    """An in-memory flash: paths relative to the root, directories implied or explicit."""

    def __init__(self, files=None, capacity=1024 * 1024, rom_size=0, rom_device=False):
        self.files = {}
        self.dirs = {""}
        self.capacity = capacity
        self.ops_left = None  # power cut after this many mutating operations
        self.cut = False
        self.mutations = 0
        self.rom = FakeRom(self, rom_size, rom_device) if rom_size else None
        for path, data in (files or {}).items():
            self._mkdirs(path.rpartition("/")[0])
            self.files[path] = bytearray(data)

    # --- helpers ---
    @staticmethod
    def norm(path):
        path = path.replace("//", "/")
        parts = [p for p in path.split("/") if p not in ("", ".")]
        return "/".join(parts)

    def _mkdirs(self, d):
        parts = d.split("/") if d else []
        for i in range(1, len(parts) + 1):
            self.dirs.add("/".join(parts[:i]))

    def used(self):
        return sum(max(1, -(-len(d) // BLOCK)) * BLOCK for d in self.files.values())

    def free(self):
        return max(0, self.capacity - self.used())

    def _tick(self):
        """Count one mutating operation; True when the power goes now."""
        if self.cut:
            raise PowerCut("power already cut")
        self.mutations += 1
        if self.ops_left is not None:
            self.ops_left -= 1
            if self.ops_left < 0:
                self.cut = True
                return True
        return False

    def snapshot(self):
        return {p: bytes(d) for p, d in self.files.items()}

    # --- the os module ---
    def make_os(self):
        fs = self

        def enoent():
            return OSError(errno.ENOENT, "ENOENT")

        def stat(path):
            p = fs.norm(path)
            if p in fs.dirs:
                return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            if p in fs.files:
                return (0x8000, 0, 0, 0, 0, 0, len(fs.files[p]), 0, 0, 0)
            raise enoent()

        def ilistdir(path=""):
            p = fs.norm(path)
            if p not in fs.dirs:
                raise enoent()
            prefix = p + "/" if p else ""
            names = set()
            for d in fs.dirs:
                if d.startswith(prefix) and d != p and "/" not in d[len(prefix):]:
                    names.add((d[len(prefix):], 0x4000, 0, 0))
            for f, data in fs.files.items():
                if f.startswith(prefix) and "/" not in f[len(prefix):]:
                    names.add((f[len(prefix):], 0x8000, 0, len(data)))
            return iter(sorted(names))

        def listdir(path=""):
            return [e[0] for e in ilistdir(path)]

        def mkdir(path):
            p = fs.norm(path)
            if p in fs.dirs or p in fs.files:
                raise OSError(errno.EEXIST, "EEXIST")
            if p.rpartition("/")[0] not in fs.dirs:
                raise enoent()
            if fs._tick():
                raise PowerCut("power cut in mkdir")
            fs.dirs.add(p)

        def remove(path):
            p = fs.norm(path)
            if p not in fs.files:
                raise enoent()
            if fs._tick():
                raise PowerCut("power cut in remove")
            del fs.files[p]

        def rmdir(path):
            p = fs.norm(path)
            if p not in fs.dirs:
                raise enoent()
            if any(f.startswith(p + "/") for f in list(fs.files) + list(fs.dirs)):
                raise OSError(errno.ENOTEMPTY, "ENOTEMPTY")
            if fs._tick():
                raise PowerCut("power cut in rmdir")
            fs.dirs.discard(p)

        def rename(old, new):
            o, n = fs.norm(old), fs.norm(new)
            if o not in fs.files and o not in fs.dirs:
                raise enoent()
            if n.rpartition("/")[0] not in fs.dirs:
                raise enoent()
            if o in fs.dirs and (n in fs.dirs or n in fs.files):
                raise OSError(errno.EEXIST, "EEXIST")
            if fs._tick():
                raise PowerCut("power cut in rename")
            if o in fs.files:
                # LittleFS replaces an existing target atomically.
                fs.files[n] = fs.files.pop(o)
                return
            # A folder moves whole, in one step, as on LittleFS.
            def moved(p):
                return n + p[len(o):] if p == o or p.startswith(o + "/") else p

            fs.dirs = {moved(d) for d in fs.dirs}
            fs.files = {moved(f): d for f, d in fs.files.items()}

        def statvfs(path):
            total = fs.capacity // BLOCK
            free = fs.free() // BLOCK
            return (BLOCK, BLOCK, total, free, free, 0, 0, 0, 0, 255)

        mod = types.ModuleType("os")
        for fn in (stat, ilistdir, listdir, mkdir, remove, rmdir, rename, statvfs):
            setattr(mod, fn.__name__, fn)
        mod.unlink = remove
        mod.sep = "/"
        mod.getcwd = lambda: "/"
        return mod

    def make_vfs(self):
        """``vfs``: ``umount`` and, with a ROMFS partition, ``rom_ioctl``."""
        fs = self
        mod = types.ModuleType("vfs")

        def umount(path):
            if fs.norm(path) != "rom" or fs.rom is None:
                raise OSError(errno.EINVAL, "EINVAL")

        def rom_ioctl(op, *args):
            rom = fs.rom
            if op == 1:
                return 1
            if not args or args[0] != 0:
                return -errno.EINVAL
            if op == 2:
                return rom if rom.block_device else memoryview(rom)
            if op == 3:
                offset, length = args[1:] if len(args) == 3 else (0, args[1])
                rom.erase(offset, -(-length // BLOCK) * BLOCK)
                return 256
            if op == 4:
                rom.program(args[1], args[2])
                return 0
            if op == 5:
                return 0
            if op == 6:
                return BLOCK
            return -errno.EINVAL

        mod.umount = umount
        if fs.rom is not None:
            mod.rom_ioctl = rom_ioctl
        return mod

    def open(self, path, mode="r"):
        p = self.norm(path)
        if "w" in mode or "a" in mode:
            if p.rpartition("/")[0] not in self.dirs or p in self.dirs:
                raise OSError(errno.ENOENT, "ENOENT")
            if self._tick():
                raise PowerCut("power cut in open")
            if "w" in mode or p not in self.files:
                self.files[p] = bytearray()
            return _FakeFile(self, p, mode, writing=True)
        if p not in self.files:
            raise OSError(errno.ENOENT, "ENOENT")
        return _FakeFile(self, p, mode, writing=False)


class _FakeFile:
    def __init__(self, fs, path, mode, writing):
        self.fs, self.path, self.text, self.writing = fs, path, "b" not in mode, writing
        self.pos = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        pass

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        data = bytes(data)
        buf = self.fs.files[self.path]
        room = self.fs.free() + (-len(buf) % BLOCK if buf else 0)
        if self.fs._tick():
            buf.extend(data[: len(data) // 2])  # torn write
            raise PowerCut("power cut in write")
        if len(data) > room:
            buf.extend(data[:room])
            raise OSError(errno.ENOSPC, "ENOSPC")
        buf.extend(data)
        return len(data)

    def read(self, n=-1):
        data = self.fs.files[self.path]
        end = len(data) if n is None or n < 0 else min(len(data), self.pos + n)
        out = bytes(data[self.pos:end])
        self.pos = end
        return out.decode() if self.text else out

    def readinto(self, buf):
        chunk = self.read(len(buf))
        if self.text:
            chunk = chunk.encode()
        buf[: len(chunk)] = chunk
        return len(chunk)


class BoardEnv:
    """Executes code as the board's raw REPL would, against a FakeFS."""

    def __init__(self, fs, mpy=0x1306, version=(1, 24, 1), platform="rp2", hashlib_ok=True,
                 modules=None):
        self.fs = fs
        self.modules = dict(modules or {})  # extra board modules, e.g. a fake ``machine``
        self.fake_os = fs.make_os()
        self.fake_vfs = fs.make_vfs()
        self.fake_sys = types.ModuleType("sys")
        self.fake_sys.implementation = types.SimpleNamespace(
            name="micropython", version=version + ("",), _mpy=mpy,
            _machine="Raspberry Pi Pico with RP2040")
        self.fake_sys.platform = platform
        self.fake_sys.version = "3.4.0; MicroPython v%d.%d.%d" % version
        self.hashlib_ok = hashlib_ok
        self.out = io.StringIO()
        self.reset()

    def reset(self):
        """A soft reset: fresh globals (the files stay)."""
        env = self

        def fake_import(name, globals=None, locals=None, fromlist=(), level=0):
            if name in ("os", "uos"):
                return env.fake_os
            if name in ("sys", "usys"):
                return env.fake_sys
            if name == "vfs":
                return env.fake_vfs
            if name in env.modules:
                return env.modules[name]
            if name in ("hashlib", "uhashlib") and not env.hashlib_ok:
                raise ImportError("no module named 'hashlib'")
            if name == "micropython":
                raise ImportError("no module named 'micropython'")
            return builtins.__import__(name, globals, locals, fromlist, level)

        def fake_print(*args, sep=" ", end="\n", file=None):
            env.out.write(sep.join(str(a) for a in args) + end)

        b = dict(vars(builtins))
        b.update(__import__=fake_import, open=self.fs.open, print=fake_print)
        self.globals = {"__builtins__": b, "__name__": "__main__"}

    def run(self, code):
        """Run ``code``; return (stdout bytes, error text) like the raw REPL's two parts."""
        if isinstance(code, bytes):
            code = code.decode()
        self.out = io.StringIO()
        err = ""
        try:
            exec(compile(code, "<stdin>", "exec"), self.globals)
        except PowerCut:
            raise
        except Exception as e:  # formatted the way MicroPython prints it
            name = "OSError" if isinstance(e, OSError) else type(e).__name__
            if isinstance(e, OSError) and e.errno is not None:
                msg = "[Errno %d] %s" % (e.errno, errno.errorcode.get(e.errno, ""))
                if e.strerror and e.strerror != errno.errorcode.get(e.errno):
                    msg = e.strerror if not e.strerror.startswith("[") else msg
            else:
                msg = str(e)
            frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == "<stdin>"]
            line = frames[-1].lineno if frames else 1
            err = ('Traceback (most recent call last):\r\n  File "<stdin>", line %d, in <module>'
                   '\r\n%s: %s\r\n' % (line, name, msg))
        return self.out.getvalue().replace("\n", "\r\n").encode(), err


class _FakeSerial:
    def __init__(self, transport):
        self.t = transport
        self.written = bytearray()

    def write(self, data):
        self.t._check_alive()
        self.written += data
        if data == b"\x04" and not self.t.in_raw_repl:
            self.t.soft_resets_to_main += 1
            self.t.env.reset()
        return len(data)

    def inWaiting(self):
        return 0

    def read(self, n=1):
        return b""

    def close(self):
        pass


class FakeTransport(Transport):
    """mpremote's Transport over a BoardEnv; ``cut_after`` execs the cable is pulled."""

    def __init__(self, fs_or_env, port="fake:0", cut_after=None):
        self.env = fs_or_env if isinstance(fs_or_env, BoardEnv) else BoardEnv(fs_or_env)
        self.port = port
        self.execs = 0
        self.cut_after = cut_after
        self.in_raw_repl = True
        self.closed = False
        self.soft_resets_to_main = 0
        self.serial = _FakeSerial(self)

    def _check_alive(self):
        if self.env.fs.cut or (self.cut_after is not None and self.execs >= self.cut_after):
            raise TransportError("fake cable cut")

    def exec_raw(self, command, timeout=10, data_consumer=None):
        self._check_alive()
        self.execs += 1
        try:
            out, err = self.env.run(command)
        except PowerCut:
            raise TransportError("fake power cut") from None
        if data_consumer is not None and out:
            data_consumer(out)
        return out, err.encode()

    def exec(self, command, data_consumer=None):
        out, err = self.exec_raw(command, data_consumer=data_consumer)
        if err:
            raise TransportExecError(out, err.decode())
        return out

    def eval(self, expression, parse=True):
        import ast

        code = "print(repr({}))" if parse else "print({})"
        ret = self.exec(code.format(expression))
        ret = ret.strip()
        return ast.literal_eval(ret.decode()) if parse else ret

    def enter_raw_repl(self, soft_reset=True, timeout_overall=10):
        self._check_alive()
        self.in_raw_repl = True
        if soft_reset:
            self.env.reset()

    def exit_raw_repl(self):
        self._check_alive()
        self.in_raw_repl = False

    def read_until(self, min_num_bytes, ending, timeout=10, data_consumer=None,
                   timeout_overall=None):
        return b"MPY: soft reboot\r\n" if ending == b"soft reboot\r\n" else ending

    def close(self):
        self.closed = True


# --- pseudo-terminal boards -------------------------------------------------------------------


def open_pty(fake, path=None):
    """Give ``fake`` a raw pseudo-terminal: ``master`` (the board's end), ``slave``,
    ``pty_path``, and ``path``, the port the host opens (``path`` as a symlink to the pty when
    given, so a test can unplug and replug the "board" under one name)."""
    import tty

    fake.master, fake.slave = os.openpty()
    tty.setraw(fake.slave)
    fake.pty_path = os.ttyname(fake.slave)
    fake.path = path or fake.pty_path
    if path:
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(fake.pty_path, path)


class _PtyBase:
    def __init__(self, path=None):
        open_pty(self, path)
        self._stop = False
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def write(self, data):
        if isinstance(data, str):
            data = data.encode()
        with self._lock:
            if self.master is not None:
                try:
                    os.write(self.master, data)
                except OSError:
                    pass

    def _loop(self):
        while not self._stop:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.02)
            except (OSError, ValueError, TypeError):
                return
            if not ready:
                self.idle()
                continue
            try:
                data = os.read(self.master, 4096)
            except OSError:
                time.sleep(0.01)  # nobody has the other end open yet
                continue
            if data:
                self.received(data)

    def idle(self):
        pass

    def received(self, data):
        raise NotImplementedError

    def unplug(self):
        """Close both ends: the host's next read fails as when a USB cable is pulled."""
        self._stop = True
        self.thread.join(timeout=2)
        with self._lock:
            for fd in (self.master, self.slave):
                if fd is None:
                    continue
                try:
                    os.close(fd)
                except OSError:
                    pass
            self.master = self.slave = None

    close = unplug


class PtyApp(_PtyBase):
    """Plays the referee app: each JSON command line goes to ``handler(cmd) -> reply or None``.

    ``handler`` returns a dict (sent as the one reply line), a list of lines/dicts to send as
    they are (events, noise, then the reply), or None (no reply: a hung board).
    """

    def __init__(self, handler=None, path=None):
        self.handler = handler or (lambda cmd: {"ok": True})
        self.commands = []
        self._buf = b""
        super().__init__(path)

    def emit(self, obj):
        self.write((json.dumps(obj) if isinstance(obj, dict) else obj) + "\n")

    def received(self, data):
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            try:
                cmd = json.loads(line)
            except ValueError:
                self.emit({"ok": False, "error": "not JSON"})
                continue
            self.commands.append(cmd)
            out = self.handler(cmd)
            if out is None:
                continue
            for item in out if isinstance(out, list) else [out]:
                self.emit(item)


class PtyRawRepl(_PtyBase):
    """MicroPython's REPL protocol on a pty, backed by a BoardEnv (no raw-paste: mpremote falls
    back to the plain raw REPL). ``silent=True`` never answers; ``garbage`` is sent instead."""

    BANNER = (b"MicroPython v1.24.1 on 2024-11-29; Raspberry Pi Pico with RP2040\r\n"
              b"Type \"help()\" for more information.\r\n>>> ")

    def __init__(self, env=None, silent=False, garbage=None, path=None):
        self.env = env or BoardEnv(FakeFS())
        self.silent = silent
        self.garbage = garbage
        self.raw = False
        self.code = bytearray()
        self.main_runs = 0
        super().__init__(path)

    def received(self, data):
        if self.silent:
            return
        if self.garbage is not None:
            self.write(self.garbage)
            return
        for b in data:
            c = bytes([b])
            if not self.raw:
                if c == b"\x01":
                    self.raw = True
                    self.code = bytearray()
                    self.write(b"\r\nraw REPL; CTRL-B to exit\r\n>")
                elif c == b"\x03":
                    self.write(b"\r\n>>> ")
                elif c == b"\x04":
                    self.env.reset()
                    self.main_runs += 1
                    self.write(b"MPY: soft reboot\r\n" + self.BANNER)
                continue
            if c == b"\x05":
                self.code = bytearray(b"\x05")
            elif self.code == b"\x05" and c == b"A":
                self.code += c
            elif self.code == b"\x05A" and c == b"\x01":
                self.code = bytearray()
                self.write(b"R\x00")  # raw-paste understood, not supported
            elif c == b"\x02":
                self.raw = False
                self.write(b"\r\n" + self.BANNER)
            elif c == b"\x03":
                self.code = bytearray()
            elif c == b"\x01":
                self.code = bytearray()
                self.write(b"\r\nraw REPL; CTRL-B to exit\r\n>")
            elif c == b"\x04":
                if not self.code:
                    self.env.reset()
                    self.write(b"OK\r\nMPY: soft reboot\r\nraw REPL; CTRL-B to exit\r\n>")
                    continue
                self.write(b"OK")
                try:
                    out, err = self.env.run(bytes(self.code))
                except PowerCut:
                    self.silent = True  # a board without power answers nothing
                    return
                self.code = bytearray()
                self.write(out + b"\x04" + err.encode() + b"\x04>")
            else:
                self.code += c
