"""Finding a board and talking to it: the raw REPL for tools, JSON lines for the running app.

Usage::

    from rhinoref.boardlink import open_board, close_board, AppLink

    # Tools that run code on the board (deploy, selftest): mpremote's serial transport,
    # already in the raw REPL and known to be MicroPython.
    board = open_board()                  # or open_board("/dev/ttyACM0")
    print(board.eval("1 + 1"))            # -> 2
    close_board(board, run_main=True)     # leave the raw REPL, soft-reset, main.py starts

    # Commands that talk to the running referee app (monitor, calibrate, record): SPEC 3.3.
    with AppLink() as link:               # or AppLink("/dev/ttyACM0", reconnect=True)
        reply = link.command({"cmd": "status"}, timeout=2.0)   # exactly one reply dict
        for event in link.events(timeout=5.0):                 # {"ev": ...} dicts
            print(event)

Which USB serial ports count as a board (``find_ports``):

=========  ===========  ==============================================================
VID        PID          what it is
=========  ===========  ==============================================================
0x2E8A     0x0005       Raspberry Pi Pico / Pico W / Pico 2 running MicroPython (the
                        MicroPython rp2 port's default, used by the official UF2s)
0x2E8A     other        an RP2040/RP2350 board with its own PID (many vendors' boards
                        run MicroPython under their own PID), except the ids below
0xF055     any          MicroPython's own vendor id (pyboard and other ports)
=========  ===========  ==============================================================

Never a board: 0x2E8A:0x0003 and 0x000F (the RP2040 / RP2350 boot ROM in BOOTSEL mode: a
drive, no serial port; see ``rhinoref flash``), 0x0004 and 0x000C (debug probes), 0x000B
(CircuitPython). With no ``port`` given, the environment variable ``RHINOREF_PORT`` is used
if set (handy with the virtual board: ``export RHINOREF_PORT=$(...)``), else exactly one
matching port must be plugged in.

Every failure is a ``BoardError`` with a sentence: no board (listing the ports seen), port
busy (another program has it open), permission denied, not MicroPython (no raw REPL answer),
no reply within the timeout, board unplugged.
"""

import ast
import contextlib
import errno
import io
import json
import os
import select
import sys
import time
from collections import deque

import serial
import serial.tools.list_ports as list_ports

from .errors import BoardError, RhinorefError

VID_RASPBERRY_PI = 0x2E8A
VID_MICROPYTHON = 0xF055
PID_MICROPYTHON_RP2 = 0x0005
# Raspberry Pi PIDs that are never a MicroPython serial port.
NOT_A_BOARD_PIDS = {
    0x0003: "RP2040 boot ROM (BOOTSEL)",
    0x000F: "RP2350 boot ROM (BOOTSEL)",
    0x0004: "Picoprobe",
    0x000C: "Debug Probe",
    0x000B: "CircuitPython",
}
PORT_ENV = "RHINOREF_PORT"
BAUDRATE = 115200  # ignored by USB CDC, but pyserial wants one
RAW_REPL_TIMEOUT = 5.0  # seconds to get the raw REPL banner after Ctrl-C, Ctrl-A
IO_TIMEOUT = 5.0  # bound on any single read once connected (mpremote's are unbounded on a pty)
BUSY_WAIT = 1.0  # seconds a locked port is retried before it counts as busy


# --- finding ports ---------------------------------------------------------------------------


def _is_board(info) -> bool:
    vid, pid = getattr(info, "vid", None), getattr(info, "pid", None)
    if vid == VID_MICROPYTHON:
        return True
    return vid == VID_RASPBERRY_PI and pid not in NOT_A_BOARD_PIDS


def describe_port(info) -> str:
    """One line for a port: device, USB ids and description, as a person would want it."""
    vid, pid = getattr(info, "vid", None), getattr(info, "pid", None)
    ids = "%04X:%04X" % (vid, pid) if vid is not None and pid is not None else "no USB ids"
    text = getattr(info, "description", None) or getattr(info, "product", None) or ""
    if text and text != "n/a":
        return "%s (%s, %s)" % (info.device, ids, text)
    return "%s (%s)" % (info.device, ids)


def find_ports():
    """Serial ports that look like a MicroPython board (table in the module docstring).

    Returns pyserial ``ListPortInfo`` objects, Raspberry Pi Pico MicroPython ports first.
    """
    found = [p for p in list_ports.comports() if _is_board(p)]
    found.sort(key=lambda p: (not (p.vid == VID_RASPBERRY_PI and p.pid == PID_MICROPYTHON_RP2),
                              p.device))
    return found


def choose_port(port=None) -> str:
    """The port to use: ``port``, else ``$RHINOREF_PORT``, else the one board plugged in."""
    if port:
        return port
    if os.environ.get(PORT_ENV):
        return os.environ[PORT_ENV]
    boards = find_ports()
    if len(boards) == 1:
        return boards[0].device
    if len(boards) > 1:
        raise BoardError(
            "%d boards found: %s; choose one with --port"
            % (len(boards), ", ".join(describe_port(p) for p in boards))
        )
    seen = [describe_port(p) for p in list_ports.comports()]
    message = "no board found: no MicroPython USB serial port (Raspberry Pi 2E8A:0005 or similar)"
    message += "; ports seen: " + ", ".join(seen) if seen else "; no serial ports at all"
    drives = _bootsel_drives()
    if drives:
        message += (
            "; a Pico in BOOTSEL mode is mounted at %s: put MicroPython on it first with "
            "'rhinoref flash FIRMWARE.uf2'" % drives[0]
        )
    else:
        message += ". Plug the Pico in by USB (a data cable, not a charge-only one) or pass --port"
    raise BoardError(message)


def _bootsel_drives():
    try:
        from .cmd.flash import find_bootsel_drives
    except ImportError:
        return []
    try:
        return [str(d.path) for d in find_bootsel_drives()]
    except OSError:
        return []


# --- opening a port --------------------------------------------------------------------------


def _explain_open_error(port, err) -> str:
    """Turn pyserial's open failure into a sentence that says what to do."""
    text = str(err)
    code = getattr(err, "errno", None)
    if "exclusively lock" in text or code in (errno.EBUSY, errno.EAGAIN):
        return ("%s is busy: another program (a terminal, Thonny, mpremote, rhinoref) has it "
                "open; close it and retry" % port)
    if code == errno.ENOENT or "No such file" in text or "FileNotFoundError" in text:
        return ("%s does not exist: the board is not plugged in, or the name is wrong "
                "(see 'rhinoref deploy --help')" % port)
    if os.name == "nt" and "Access is denied" in text:
        return ("%s is busy: another program has it open (Windows says 'access denied'); "
                "close it and retry" % port)
    if code in (errno.EACCES, errno.EPERM) or "Permission denied" in text:
        return (
            "%s: permission denied; on Linux add yourself to the serial group "
            "('sudo usermod -aG dialout $USER', then log in again)" % port
        )
    return "cannot open %s: %s" % (port, text)


def _lock_refused(err):
    code = getattr(err, "errno", None)
    return "exclusively lock" in str(err) or code in (errno.EBUSY, errno.EAGAIN)


def open_serial(port, timeout=0, busy_wait=BUSY_WAIT):
    """Open ``port`` with pyserial, exclusively, raising ``BoardError`` with the reason.

    A port that is locked is retried for ``busy_wait`` seconds: a tool that just closed it
    may still hold the lock for a moment (a child process forked at that instant shares it).
    """
    deadline = time.monotonic() + busy_wait
    while True:
        try:
            return serial.serial_for_url(port, baudrate=BAUDRATE, timeout=timeout, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as err:
            if _lock_refused(err) and time.monotonic() < deadline:
                time.sleep(0.05)
                continue
            raise BoardError(_explain_open_error(port, err)) from None


def open_board(port=None, soft_reset=True, timeout=RAW_REPL_TIMEOUT):
    """Open the board's port with mpremote's ``SerialTransport`` and enter the raw REPL.

    ``soft_reset`` (default) stops the running app and restarts MicroPython's heap without
    running ``main.py``, so tools start from a clean, quiet board. The returned transport has
    ``exec``, ``eval``, ``fs_*`` and an extra attribute ``port``. Close with ``close_board``.
    """
    from mpremote.transport import TransportError
    from mpremote.transport_serial import SerialTransport

    port = choose_port(port)
    deadline = time.monotonic() + BUSY_WAIT
    while True:
        try:
            transport = SerialTransport(port, baudrate=BAUDRATE)
            break
        except TransportError:
            # mpremote hides why; pyserial says it. A lock that is just being released (see
            # open_serial) is waited out; anything else is reported at once.
            try:
                open_serial(port, busy_wait=0).close()
            except BoardError:
                if " is busy" not in str(sys.exc_info()[1]) or time.monotonic() >= deadline:
                    raise
            else:
                if time.monotonic() >= deadline:
                    raise BoardError("cannot open %s" % port) from None
            time.sleep(0.05)
    transport.port = port
    said = io.StringIO()
    try:
        # mpremote reads a pseudo-terminal (the virtual board) with blocking one-byte reads and
        # no timeout: give every read a bound so a silent port cannot hang us.
        transport.serial.timeout = min(0.5, timeout)
        # One Ctrl-C can be lost (it may land while the board is between a soft reset and
        # main.py, when nothing turns it into a KeyboardInterrupt): retry every second.
        deadline = time.monotonic() + timeout
        while True:
            try:
                with contextlib.redirect_stdout(said):  # mpremote prints what it got on failure
                    transport.enter_raw_repl(soft_reset=soft_reset,
                                             timeout_overall=min(1.0, timeout))
                break
            except TransportError:
                if time.monotonic() >= deadline:
                    raise
        transport.serial.timeout = IO_TIMEOUT
    except (TransportError, serial.SerialException, OSError) as err:
        _close_quietly(transport)
        got = _printed_bytes(said.getvalue())
        if isinstance(err, TransportError):
            why = "no raw REPL prompt within %g s after Ctrl-C, Ctrl-A" % timeout
        else:
            why = "the port failed (%s)" % err
        raise BoardError(
            "%s does not answer like MicroPython: %s; it sent %s. Is it a Pico running "
            "MicroPython? A program that ignores Ctrl-C needs the reset button; a blank Pico "
            "needs 'rhinoref flash' first"
            % (port, why, repr(got[-120:]) if got else "nothing")
        ) from None
    return transport


def _printed_bytes(text):
    """What mpremote printed on failures (``print(data)`` of bytes, once per try) as text."""
    parts = []
    for line in text.splitlines():
        try:
            value = ast.literal_eval(line.strip())
        except (ValueError, SyntaxError):
            value = line
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        parts.append(str(value))
    return "".join(parts).strip()


def close_board(transport, run_main=False, timeout=5.0):
    """Leave the raw REPL and close the port; ``run_main`` soft-resets so ``main.py`` starts.

    A soft reset from the friendly REPL (Ctrl-D) runs ``boot.py`` and ``main.py`` as at power-on;
    one from the raw REPL would not, which is why this leaves the raw REPL first.
    """
    from mpremote.transport import TransportError

    port = getattr(transport, "port", "the board")
    try:
        transport.exit_raw_repl()
        if run_main:
            transport.serial.write(b"\x04")
            got = transport.read_until(1, b"soft reboot\r\n", timeout=timeout,
                                       timeout_overall=timeout)
            if not got.endswith(b"soft reboot\r\n"):
                raise BoardError("%s did not soft-reboot within %g s of Ctrl-D" % (port, timeout))
    except (TransportError, serial.SerialException, OSError) as err:
        raise BoardError("lost the board on %s while leaving the raw REPL: %s"
                         % (port, err)) from None
    finally:
        _close_quietly(transport)


def _close_quietly(transport):
    try:
        transport.close()
    except Exception:  # closing a port that is already gone must not hide the real error
        pass


# --- the running app: JSON lines (SPEC 3.3) --------------------------------------------------

MAX_LINE = 64 * 1024  # a longer line is not one of ours (noise); dropped, never buffered


def _is_reply(obj):
    """A reply has ``ok`` and no ``ev``; an event line may carry an ``ok`` field of its own."""
    return "ok" in obj and "ev" not in obj


class AppLink:
    """A JSON-lines client for the referee app running on the board (SPEC 3.3).

    ``command(msg)`` sends one ``{"cmd": ...}`` line and returns the one reply (``{"ok": ...}``),
    keeping every ``{"ev": ...}`` line that arrives meanwhile for ``events()``. Lines that are
    neither (REPL output, a traceback, prints) go to ``noise`` (the last 50), which error
    messages quote. Every wait is bounded.

    ``reconnect=True``: when the port vanishes (board unplugged), ``events()`` yields
    ``{"ev": "link", "up": False, "error": ...}``, retries every ``retry`` seconds, and yields
    ``{"ev": "link", "up": True, "port": ...}`` when the board is back (same path, or, when no
    port was given, whichever board ``find_ports`` sees). ``command`` never waits for a
    reconnect: while unplugged it raises ``BoardError`` at once.
    """

    def __init__(self, port=None, reconnect=False, retry=0.5, serial_port=None):
        self.reconnect = reconnect
        self.retry = retry
        self.noise = deque(maxlen=50)
        self._events = deque()
        self._buf = bytearray()
        self._skip_line = False
        self._late = 0  # replies still owed to commands that timed out: drop them
        self._lost = None  # error text while the board is gone
        if serial_port is not None:
            self.port = getattr(serial_port, "port", None) or "<serial>"
            self._ser = serial_port
            self._fixed = self.port
        else:
            # A port named by the caller or $RHINOREF_PORT is reopened by name; a found one is
            # looked for again (it may come back under another name).
            self._fixed = port or os.environ.get(PORT_ENV) or None
            self.port = choose_port(port)
            self._ser = open_serial(self.port)

    # context manager
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self._ser is not None:
            try:
                self._ser.close()
            except Exception:
                pass
            self._ser = None

    @property
    def connected(self) -> bool:
        return self._ser is not None

    # --- sending and receiving --------------------------------------------------------------

    def send(self, msg) -> None:
        """Write one command line without waiting for the reply (rarely what you want)."""
        if self._ser is None:
            raise BoardError(self._gone())
        line = json.dumps(msg, separators=(",", ":")) + "\n"
        try:
            self._ser.write(line.encode())
            self._ser.flush()
        except (serial.SerialException, OSError) as err:
            self._drop(err)
            raise BoardError("lost the board on %s while sending: %s" % (self.port, err)) from None

    def command(self, msg, timeout=2.0, check=False) -> dict:
        """Send ``msg`` (a dict with ``cmd``) and return its one reply dict.

        ``check=True`` raises ``BoardError`` when the reply is ``{"ok": false, ...}``.
        Raises ``BoardError`` when no reply comes within ``timeout`` seconds.
        """
        if not isinstance(msg, dict) or "cmd" not in msg:
            raise ValueError("a command is a dict with a 'cmd' key, got %r" % (msg,))
        self.send(msg)
        deadline = time.monotonic() + timeout
        while True:
            for obj in self._read_objects(deadline - time.monotonic()):
                if _is_reply(obj):
                    if self._late:
                        self._late -= 1  # the late reply of an earlier, timed-out command
                        continue
                    if check and not obj.get("ok"):
                        raise BoardError(
                            "the board refused %r: %s"
                            % (msg.get("cmd"), obj.get("error", "no reason given"))
                        )
                    return obj
                self._events.append(obj)
            if time.monotonic() >= deadline:
                self._late += 1
                raise BoardError(self._no_reply(msg.get("cmd"), timeout))

    def idle_status(self, purpose: str) -> dict:
        """The board's status, refused while a game is in play: ``purpose`` (calibrating, the
        self-test) would disturb it."""
        st = self.command({"cmd": "status"}, timeout=3.0)
        if not st.get("ok"):
            raise BoardError("the board refused 'status': %s" % st.get("error", "no reason given"))
        if st.get("phase") == "play":
            raise RhinorefError("a game is in play on the board: finish it (or start a new game "
                                "from the menu) before %s" % purpose)
        return st

    def _no_reply(self, cmd, timeout) -> str:
        text = "the board on %s did not reply to %r within %g s" % (self.port, cmd, timeout)
        last = [n for n in self.noise if n.strip()]
        partial = bytes(self._buf[-200:]).decode("utf-8", "replace")
        prompt = any(n.rstrip().endswith(">>>") or n.startswith(">>>") for n in last[-3:])
        if prompt or ">>> " in partial:
            return text + (": it is at the MicroPython prompt, not running the referee "
                           "(run 'rhinoref deploy' or press reset)")
        if last:
            return text + "; it last printed: " + last[-1][:200]
        return text + " and printed nothing: is the referee app running?"

    def events(self, timeout=None):
        """Yield event dicts (``{"ev": ...}``) as they arrive.

        Ends after ``timeout`` seconds (None: never; Ctrl-C stops it). Events that arrived
        during ``command`` calls come first.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            while self._events:
                yield self._events.popleft()
            remaining = 0.2 if deadline is None else min(0.2, deadline - time.monotonic())
            if deadline is not None and remaining <= 0:
                return
            if self._ser is None:
                if not self.reconnect:
                    raise BoardError(self._gone())
                if self._try_reopen():
                    yield {"ev": "link", "up": True, "port": self.port}
                else:
                    time.sleep(max(0.0, min(self.retry, remaining)))
                continue
            for obj in self._read_objects(remaining):
                if _is_reply(obj):
                    if self._late:
                        self._late -= 1
                    else:
                        self.noise.append(json.dumps(obj))  # a reply nobody asked for
                    continue
                yield obj
            if self._ser is None and self.reconnect:
                yield {"ev": "link", "up": False, "error": self._lost}

    def poll_events(self):
        """The events that have arrived so far, without waiting."""
        out = list(self._events)
        self._events.clear()
        for obj in self._read_objects(0):
            if not _is_reply(obj):
                out.append(obj)
        return out

    # --- internals --------------------------------------------------------------------------

    def _read_objects(self, timeout):
        """Read what arrives within ``timeout`` s (at least one non-blocking look) and return
        the complete JSON object lines; other lines go to ``noise``."""
        out = []
        if self._ser is None:
            raise BoardError(self._gone())
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            try:
                data = self._read_some(max(0.0, deadline - time.monotonic()))
            except (serial.SerialException, OSError) as err:
                self._drop(err)
                if self.reconnect:
                    return out
                raise BoardError("lost the board on %s: %s" % (self.port, err)) from None
            if data:
                self._feed(data, out)
            if out or time.monotonic() >= deadline:
                return out

    def _read_some(self, timeout):
        ser = self._ser
        fd = None
        try:
            fd = ser.fileno()
        except Exception:
            fd = None
        if fd is not None:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                return b""
            n = ser.in_waiting
            data = ser.read(max(1, n))
            if not data:
                # select said readable but nothing came: the device is gone (pyserial raises
                # too, but not every back end does).
                raise serial.SerialException("device disconnected")
            return data
        # back ends without a file descriptor (loop://, socket:// on some systems)
        ser.timeout = timeout
        first = ser.read(1)
        if not first:
            return b""
        return first + ser.read(ser.in_waiting)

    def _feed(self, data, out):
        self._buf += data
        while True:
            nl = self._buf.find(b"\n")
            if nl < 0:
                if len(self._buf) > MAX_LINE:
                    self.noise.append("<a line longer than %d bytes, dropped>" % MAX_LINE)
                    self._buf.clear()
                    self._skip_line = True
                return
            raw = bytes(self._buf[:nl])
            del self._buf[: nl + 1]
            if self._skip_line or nl > MAX_LINE:
                if not self._skip_line:
                    self.noise.append("<a line longer than %d bytes, dropped>" % MAX_LINE)
                self._skip_line = False
                continue
            text = raw.decode("utf-8", "replace").strip("\r\x04")
            obj = None
            if text.startswith("{"):
                try:
                    obj = json.loads(text)
                except ValueError:
                    obj = None
            if isinstance(obj, dict) and ("ok" in obj or "ev" in obj):
                out.append(obj)
            elif text:
                self.noise.append(text)

    def _gone(self):
        return "the board on %s is disconnected (%s)" % (self.port, self._lost or "closed")

    def _drop(self, err):
        self._lost = str(err) or err.__class__.__name__
        self.close()
        self._buf.clear()
        self._late = 0

    def _try_reopen(self) -> bool:
        port = self._fixed
        try:
            if port is None:
                boards = find_ports()
                if len(boards) != 1:
                    return False
                port = boards[0].device
            self._ser = serial.serial_for_url(port, baudrate=BAUDRATE, timeout=0, exclusive=True)
        except (serial.SerialException, OSError, ValueError):
            return False
        self.port = port
        self._lost = None
        return True
