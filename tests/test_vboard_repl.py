"""The virtual board behind its serial port, driven by the real mpremote and by raw bytes:
exec, fs ls/cp/cat/sha256/mkdir/rm, raw-paste, Ctrl-C, soft and hard reset, confinement,
simulated time, the simulated hardware."""

import os
import select
import subprocess
import sys
import termios
import time
import tty
from pathlib import Path

import pytest

from rhinoref.mpy import MICROPYTHON_MISSING, micropython_binary

pytestmark = pytest.mark.skipif(micropython_binary() is None, reason=MICROPYTHON_MISSING)

MPREMOTE = str(Path(sys.executable).parent / "mpremote")
TINY_MAIN = b"print('main.py ran')\n"


@pytest.fixture(scope="module")
def vb(tmp_path_factory):
    from rhinoref.vboard import VirtualBoard

    board = VirtualBoard(flash_dir=tmp_path_factory.mktemp("flash"), speed=1.0).start()
    board.wait_output(b">>> ", timeout=20)
    yield board
    board.stop()


def mp(vb, *args, timeout=60, check=True):
    r = subprocess.run([MPREMOTE, "connect", vb.port, *args], capture_output=True,
                       timeout=timeout)
    if check:
        assert r.returncode == 0, (r.stdout, r.stderr)
    return r


class Port:
    """The port opened as a terminal program would: raw mode, bytes in and out."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        termios.tcflush(self.fd, termios.TCIFLUSH)
        self.seen = b""

    def write(self, data):
        os.write(self.fd, data)

    def read_until(self, needle, timeout=10):
        deadline = time.monotonic() + timeout
        while needle not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, "no %r in %r" % (needle, self.seen[-400:])
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                self.seen += os.read(self.fd, 4096)
        i = self.seen.index(needle) + len(needle)
        out, self.seen = self.seen[:i], self.seen[i:]
        return out

    def close(self):
        os.close(self.fd)


def friendly(port):
    # Whatever runs: stop it, then an empty friendly prompt.
    port.write(b"\r\x03\x03")
    time.sleep(0.3)
    port.write(b"\x02")
    port.read_until(b">>> ")
    time.sleep(0.2)
    termios.tcflush(port.fd, termios.TCIFLUSH)
    port.seen = b""


def test_mpremote_exec_prints(vb):
    assert mp(vb, "exec", "print(1)").stdout.strip() == b"1"
    assert mp(vb, "exec", "print(6 * 7)").stdout.strip() == b"42"


def test_exec_error_is_reported_with_traceback(vb):
    r = mp(vb, "exec", "1/0", check=False)
    assert r.returncode == 1
    assert b"ZeroDivisionError" in r.stdout + r.stderr
    assert b"vb_" not in r.stdout + r.stderr  # the board's own frames are hidden, as C on a Pico


def test_fs_cp_ls_cat_hash_mkdir_rm(vb, tmp_path):
    src = tmp_path / "hello.txt"
    data = ("rhinoref %d\n" % 12345) * 300  # several raw-paste windows of writes
    src.write_text(data)
    mp(vb, "fs", "mkdir", ":d")
    mp(vb, "fs", "cp", str(src), ":d/hello.txt")
    ls = mp(vb, "fs", "ls", ":d").stdout
    assert b"hello.txt" in ls and str(len(data)).encode() in ls
    assert mp(vb, "fs", "cat", ":d/hello.txt").stdout.replace(b"\r\n", b"\n") == data.encode()
    import hashlib

    digest = hashlib.sha256(data.encode()).hexdigest().encode()
    assert digest in mp(vb, "fs", "sha256sum", ":d/hello.txt").stdout
    back = tmp_path / "back.txt"
    mp(vb, "fs", "cp", ":d/hello.txt", str(back))
    assert back.read_text() == data
    mp(vb, "fs", "rm", ":d/hello.txt")
    mp(vb, "fs", "rmdir", ":d")
    assert b"d/" not in mp(vb, "fs", "ls", ":").stdout


def test_raw_paste_is_used_and_a_long_script_runs(vb):
    start = len(vb.output)
    body = "\n".join("v%d = %d" % (i, i * i) for i in range(200))  # ~2.4 KB: 19 windows
    r = mp(vb, "exec", body + "\nprint(v199 + v3)")
    assert r.stdout.strip() == str(199 * 199 + 9).encode()
    seen = bytes(vb.output[start:])
    assert b"R\x01\x80\x00\x01" in seen  # raw-paste accepted with a 128-byte window
    assert seen.count(b"\x01") >= 19  # one more window granted every 128 bytes


def test_ctrl_c_interrupts_a_running_loop(vb):
    port = Port(vb.port)
    try:
        friendly(port)
        port.write(b"n = 0\r")
        port.read_until(b">>> ")
        port.write(b"while True:\r")
        port.read_until(b"... ")
        port.write(b"n += 1\r\x7f\r")  # auto-indent gave 4 spaces; backspace takes them
        time.sleep(0.5)
        port.write(b"\x03")
        out = port.read_until(b">>> ")
        assert b"KeyboardInterrupt" in out
        port.write(b"print(n > 0)\r")
        assert b"True" in port.read_until(b">>> ")
    finally:
        port.close()


# A program like the referee: it polls the port for commands (so it would eat bytes meant for
# the REPL), allocates all the time (so collections run often) and sleeps in between.
BUSY_MAIN = b"""import gc, select, sys, time
p = select.poll()
p.register(sys.stdin, select.POLLIN)
print('app running')
while True:
    junk = [bytearray(40) for i in range(30)]
    time.sleep_ms(2)
    if p.poll(0):
        print('app read', repr(sys.stdin.read(1)))
"""


def test_ctrl_c_stops_a_busy_program_at_a_safe_point_and_the_repl_reads_what_follows(tmp_path):
    # mpremote sends Ctrl-C and at once Ctrl-A. On a Pico the interrupt is raised between
    # bytecodes and the REPL then reads the Ctrl-A. The virtual board hands the interrupt over
    # at the program's next sample fetch (never inside a collection: that used to lock the heap
    # or crash the process now and then) and holds the bytes that follow until then.
    from rhinoref.vboard import VirtualBoard

    (tmp_path / "main.py").write_bytes(BUSY_MAIN)
    with VirtualBoard(flash_dir=tmp_path / "flash", speed=0) as board:
        board.wait_output(b">>> ", timeout=20)
        mp(board, "fs", "cp", str(tmp_path / "main.py"), ":main.py")
        port = Port(board.port)
        try:
            for _ in range(20):
                port.write(b"\x02\x04")  # friendly REPL, soft reset: main.py runs
                port.read_until(b"app running")
                time.sleep(0.05)
                port.write(b"\r\x03\r\x01")
                out = port.read_until(b"raw REPL; CTRL-B to exit\r\n>")
                assert b"KeyboardInterrupt" in out and b"app read" not in out
                # raised in time.sleep_ms or poll, where the board fetches samples; never
                # inside the allocations of line 6
                where = out[out.rindex(b'main.py", line ') + 15:].split(b",")[0]
                assert where in (b"7", b"8"), out
                assert b"heap is locked" not in out
        finally:
            port.close()
        assert [cause for cause, _ in board.boots].count("hard") == 0  # never crashed


def test_ctrl_c_at_the_prompt_cancels_the_line(vb):
    port = Port(vb.port)
    try:
        friendly(port)
        port.write(b"print('not run')\x03")
        out = port.read_until(b">>> ")
        assert b"not run'\r\n" not in out.replace(b"print('not run')", b"")
        port.write(b"1 + 2\r")
        assert b"3\r\n>>> " in port.read_until(b">>> ")
    finally:
        port.close()


def test_soft_reset_runs_main_py_again_but_not_from_raw_repl(vb, tmp_path):
    main = tmp_path / "main.py"
    main.write_bytes(TINY_MAIN)
    mp(vb, "fs", "cp", str(main), ":main.py")
    port = Port(vb.port)
    try:
        friendly(port)
        boots = len(vb.boots)
        port.write(b"\x04")  # Ctrl-D on an empty line: soft reset
        out = port.read_until(b">>> ")
        assert b"MPY: soft reboot\r\n" in out
        assert b"main.py ran" in out
        assert vb.boots[boots:] == [("soft", "friendly")]
        # Raw REPL soft reset (what mpremote does): boot.py only, no main.py.
        port.write(b"\x01")
        port.read_until(b"raw REPL; CTRL-B to exit\r\n>")
        port.write(b"\x04")
        out = port.read_until(b"raw REPL; CTRL-B to exit\r\n>")
        assert out.startswith(b"OK\r\nMPY: soft reboot\r\n")
        assert b"main.py ran" not in out
        port.write(b"\x02")
        port.read_until(b">>> ")
    finally:
        port.close()
        mp(vb, "fs", "rm", ":main.py")


def test_reset_restarts_the_board_from_power_on(vb):
    mp(vb, "exec", "import time; time.sleep_ms(300); print('up')")
    boots = len(vb.boots)
    mp(vb, "reset")
    # mpremote soft-resets into the raw REPL first, then machine.reset() restarts the board.
    vb.wait(lambda b: any(c == "hard" for c, _ in b.boots[boots:]), timeout=10)
    assert vb.boots[-1] == ("hard", "friendly")
    r = mp(vb, "exec",
           "import machine, time; print(machine.reset_cause(), time.ticks_ms() < 60000)")
    assert r.stdout.split() == [b"1", b"True"]  # PWRON_RESET, and the clock started again


def test_confined_to_its_own_flash(vb):
    code = (
        "import os\n"
        "bad = []\n"
        "for p in ('/etc/passwd', '../../../../etc/passwd', '/../etc/passwd', 'etc/passwd'):\n"
        "    try:\n"
        "        open(p).read()\n"
        "        bad.append(p)\n"
        "    except OSError:\n"
        "        pass\n"
        "print('bad', bad)\n"
        "print('system', hasattr(os, 'system'), 'getenv', hasattr(os, 'getenv'))\n"
        "import vfs\n"
        "print('posix', hasattr(vfs, 'VfsPosix'))\n"
        "import socket\n"
        "print('socket', socket)\n"
        "print(os.statvfs('/')[0] * os.statvfs('/')[2])\n"
    )
    out = mp(vb, "exec", code).stdout.decode()
    assert "bad []" in out
    assert "system False getenv False" in out
    assert "posix False" in out
    assert "socket None" in out
    assert "1441792" in out  # 1408 KB LittleFS: a Pico's filesystem


def test_flash_full_is_a_real_enospc(vb):
    code = (
        "import os\n"
        "b = bytes(4096)\n"
        "try:\n"
        "    with open('/big', 'wb') as f:\n"
        "        for i in range(400):\n"
        "            f.write(b)\n"
        "    print('no error')\n"
        "except OSError as e:\n"
        "    print('errno', e.args[0])\n"
        "os.remove('/big')\n"
    )
    assert b"errno 28" in mp(vb, "exec", code).stdout


def test_pico_identity_and_modules(vb):
    code = (
        "import sys, os, machine, rp2, neopixel, time\n"
        "print(sys.platform, os.uname().sysname, len(machine.unique_id()), machine.freq())\n"
        "print(sys.implementation._mpy > 0, 'virtual board' in sys.implementation._machine)\n"
        "print(time.ticks_diff(time.ticks_add(5, -10), 5), time.ticks_add(2**30 - 1, 1))\n"
    )
    lines = mp(vb, "exec", code).stdout.decode().split("\r\n")
    assert lines[0] == "rp2 rp2 8 125000000"
    assert lines[1] == "True True"
    assert lines[2] == "-10 0"  # ticks wrap at 2**30 as on the Pico


def test_simulated_hardware(vb):
    code = (
        "from machine import Pin, I2C\n"
        "i2c = I2C(0, sda=Pin(4), scl=Pin(5))\n"
        "print('scan', i2c.scan())\n"
        "print('who', i2c.readfrom_mem(0x68, 0x75, 1)[0])\n"
        "i2c.writeto_mem(0x68, 0x6B, b'\\x00')\n"
        "d = i2c.readfrom_mem(0x68, 0x3B, 6)\n"
        "z = (d[4] << 8 | d[5])\n"
        "print('z_1g', 15000 < z < 17500, z)\n"
        "try:\n"
        "    I2C(1, sda=Pin(2), scl=Pin(3)).readfrom_mem(0x68, 0x75, 1)\n"
        "except OSError as e:\n"
        "    print('wrong bus', e.args[0])\n"
        "b = Pin(6, Pin.IN, Pin.PULL_UP)\n"
        "print('idle', b.value())\n"
    )
    out = mp(vb, "exec", code).stdout.decode()
    assert "scan [104]" in out
    assert "who 104" in out
    assert "z_1g True" in out
    assert "wrong bus 5" in out
    assert "idle 1" in out


def test_button_press_from_the_host_reaches_the_pin(vb):
    code = (
        "import time\n"
        "from machine import Pin\n"
        "b = Pin(%d, Pin.IN, Pin.PULL_UP)\n"
        "seen = 0\n"
        "t0 = time.ticks_ms()\n"
        "while time.ticks_diff(time.ticks_ms(), t0) < 3000 and not seen:\n"
        "    seen = b.value() == 0\n"
        "    time.sleep_ms(5)\n"
        "print('pressed', seen)\n"
    ) % dict(vb.pins.BUTTONS)["seat2"]

    def press_soon():
        time.sleep(0.8)
        vb.press("seat2")

    import threading

    threading.Thread(target=press_soon, daemon=True).start()
    assert b"pressed True" in mp(vb, "exec", code).stdout


def test_hx711_state_machine_delivers_samples(vb):
    code = (
        "from machine import Pin\n"
        "from referee.hx711 import HX711PIO\n"
        "hx = HX711PIO(0, Pin(%d, Pin.IN), Pin(%d, Pin.OUT))\n"
        "vals = [hx.read() for _ in range(5)]\n"
        "print('n', len(vals), all(-8388608 <= v < 8388608 for v in vals))\n"
    ) % (vb.pins.HX711_DOUT, vb.pins.HX711_SCK)
    fw = Path(__file__).resolve().parents[1] / "firmware" / "referee"
    mp(vb, "fs", "mkdir", ":referee", check=False)
    mp(vb, "fs", "cp", str(fw / "__init__.py"), str(fw / "hx711.py"), str(fw / "hx711pio.py"),
       ":referee/")
    out = mp(vb, "exec", code).stdout
    assert b"n 5 True" in out
    mp(vb, "fs", "rm", "-r", ":referee")


def test_fast_mode_sleeps_take_no_real_time(tmp_path):
    from rhinoref.vboard import VirtualBoard

    with VirtualBoard(flash_dir=tmp_path, speed=0) as board:
        board.wait_output(b">>> ", timeout=20)
        t0 = time.monotonic()
        r = mp(board, "exec", "import time\nt=time.ticks_ms()\ntime.sleep(600)\n"
                              "print(time.ticks_diff(time.ticks_ms(), t) // 1000)")
        assert r.stdout.strip() == b"600"  # ten simulated minutes...
        assert time.monotonic() - t0 < 15  # ...in (much) less than ten real ones


def test_rhinoref_board_command_prints_a_working_port(tmp_path):
    import signal

    proc = subprocess.Popen([str(Path(sys.executable).parent / "rhinoref"), "board",
                             "--flash", str(tmp_path), "--seed", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = proc.stdout.readline().decode()
        assert line.startswith("port /dev/"), line
        port = line.split()[1]
        code = "import sys; print('hi from', sys.platform)"
        r = subprocess.run([MPREMOTE, "connect", port, "exec", code],
                           capture_output=True, timeout=60)
        assert r.stdout.strip() == b"hi from rp2", r
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    assert (tmp_path / "flash.img").stat().st_size == 352 * 4096


def test_rhinoref_board_rejects_bad_options():
    r = subprocess.run([str(Path(sys.executable).parent / "rhinoref"), "board", "--players", "7"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "rhinoref: --players must be 2 to 5" in r.stderr
