"""rhinoref.boardlink: port discovery, open errors, the raw REPL link, and the JSON-lines client."""

import json
import threading
import time
from types import SimpleNamespace

import pytest
import serial

from boardfakes import BoardEnv, FakeFS, PtyApp, PtyRawRepl
from rhinoref import boardlink
from rhinoref.boardlink import AppLink, BoardError, choose_port, close_board, find_ports, open_board
from rhinoref.errors import RhinorefError


def port(device, vid=None, pid=None, description="n/a"):
    return SimpleNamespace(device=device, vid=vid, pid=pid, description=description, product=None)


@pytest.fixture
def ports(monkeypatch):
    """Fake pyserial's port list: ``ports.set([...])``."""
    seen = []
    monkeypatch.setattr(boardlink.list_ports, "comports", lambda: list(seen))
    monkeypatch.delenv(boardlink.PORT_ENV, raising=False)
    monkeypatch.setattr(boardlink, "_bootsel_drives", lambda: [])
    return SimpleNamespace(set=lambda items: seen.__init__(items))


@pytest.fixture
def app():
    boards = []

    def make(handler=None, path=None):
        b = PtyApp(handler, path=path)
        boards.append(b)
        return b

    yield make
    for b in boards:
        b.close()


# --- discovery ---------------------------------------------------------------------------------


def test_find_ports_keeps_micropython_boards_and_sorts_pico_first(ports):
    ports.set([
        port("/dev/ttyS0"),
        port("/dev/ttyACM3", 0x2E8A, 0x1020, "Waveshare RP2040-Plus"),
        port("/dev/ttyACM2", 0x2E8A, 0x000C, "Debug Probe (CMSIS-DAP)"),
        port("/dev/ttyACM1", 0x2E8A, 0x0005, "Board in FS mode"),
        port("/dev/ttyUSB0", 0x10C4, 0xEA60, "CP2102"),
        port("/dev/ttyACM4", 0xF055, 0x9802, "Pyboard"),
        port("/dev/ttyACM5", 0x2E8A, 0x000B, "CircuitPython CDC"),
    ])
    assert [p.device for p in find_ports()] == ["/dev/ttyACM1", "/dev/ttyACM3", "/dev/ttyACM4"]


def test_choose_port_prefers_argument_then_environment(ports, monkeypatch):
    ports.set([port("/dev/ttyACM0", 0x2E8A, 0x0005)])
    assert choose_port("/dev/ttyX") == "/dev/ttyX"
    monkeypatch.setenv(boardlink.PORT_ENV, "/dev/pts/9")
    assert choose_port() == "/dev/pts/9"
    monkeypatch.delenv(boardlink.PORT_ENV)
    assert choose_port() == "/dev/ttyACM0"


def test_no_board_lists_what_was_seen(ports):
    ports.set([port("/dev/ttyS0"), port("/dev/ttyUSB0", 0x10C4, 0xEA60, "CP2102 USB to UART")])
    with pytest.raises(BoardError) as err:
        choose_port()
    text = str(err.value)
    assert text.startswith("no board found")
    assert "/dev/ttyUSB0 (10C4:EA60, CP2102 USB to UART)" in text
    assert "/dev/ttyS0 (no USB ids)" in text


def test_no_board_points_at_a_bootsel_drive(ports, monkeypatch):
    ports.set([])
    monkeypatch.setattr(boardlink, "_bootsel_drives", lambda: ["/media/me/RPI-RP2"])
    with pytest.raises(BoardError,
                       match="BOOTSEL mode is mounted at /media/me/RPI-RP2.*rhinoref flash"):
        choose_port()


def test_two_boards_need_a_choice(ports):
    ports.set([port("/dev/ttyACM0", 0x2E8A, 0x0005), port("/dev/ttyACM1", 0x2E8A, 0x0005)])
    with pytest.raises(BoardError, match="2 boards found.*--port"):
        choose_port()


# --- opening -----------------------------------------------------------------------------------


def test_missing_port_says_so(tmp_path):
    with pytest.raises(BoardError, match="does not exist"):
        boardlink.open_serial(str(tmp_path / "ttyNOPE"))


def test_busy_port_says_another_program_has_it(app):
    board = app()
    holder = serial.Serial(board.path, exclusive=True)
    try:
        with pytest.raises(BoardError, match="is busy: another program"):
            AppLink(board.path)
        with pytest.raises(BoardError, match="is busy"):
            open_board(board.path)
    finally:
        holder.close()


def test_silent_port_is_not_micropython_and_the_wait_is_bounded():
    board = PtyRawRepl(silent=True)
    try:
        start = time.monotonic()
        with pytest.raises(BoardError, match="does not answer like MicroPython.*sent nothing"):
            open_board(board.path, timeout=0.5)
        assert time.monotonic() - start < 3
    finally:
        board.close()


def test_chatty_non_micropython_device_is_quoted():
    board = PtyRawRepl(garbage=b"AT+OK\r\n")
    try:
        with pytest.raises(BoardError, match="does not answer like MicroPython.*AT\\+OK"):
            open_board(board.path, timeout=0.5)
    finally:
        board.close()


def test_open_board_runs_code_and_close_board_starts_main():
    board = PtyRawRepl(BoardEnv(FakeFS({"main.py": b"print('hi')"})))
    try:
        t = open_board(board.path, timeout=2)
        assert t.eval("6 * 7") == 42
        assert t.eval("__import__('os').listdir('/')") == ["main.py"]
        close_board(t, run_main=True)
        assert board.main_runs == 1
    finally:
        board.close()


# --- the JSON-lines client ------------------------------------------------------------------------


def test_command_gets_its_one_reply_and_keeps_events_and_noise_apart(app):
    def handler(cmd):
        if cmd["cmd"] == "status":
            return ["MicroPython noise", {"ev": "turn", "seat": 1}, {"ok": True, "state": "play"}]
        return {"ok": False, "error": "unknown cmd"}

    board = app(handler)
    with AppLink(board.path) as link:
        assert link.command({"cmd": "status"}) == {"ok": True, "state": "play"}
        assert board.commands == [{"cmd": "status"}]
        assert link.poll_events() == [{"ev": "turn", "seat": 1}]
        assert "MicroPython noise" in link.noise
        assert link.command({"cmd": "dance"}) == {"ok": False, "error": "unknown cmd"}
        with pytest.raises(BoardError, match="refused 'dance': unknown cmd"):
            link.command({"cmd": "dance"}, check=True)


def test_an_event_with_an_ok_field_is_not_taken_for_the_reply(app):
    board = app(lambda cmd: [{"ev": "part", "part": "hx711", "ok": True}, {"ok": True, "done": 1}])
    with AppLink(board.path) as link:
        assert link.command({"cmd": "selftest"}) == {"ok": True, "done": 1}
        assert link.poll_events() == [{"ev": "part", "part": "hx711", "ok": True}]


def test_no_reply_times_out_and_the_late_reply_is_not_mistaken(app):
    held = []

    def handler(cmd):
        if cmd["cmd"] == "slow":
            held.append(cmd)
            return None
        return {"ok": True, "for": cmd["cmd"]}

    board = app(handler)
    with AppLink(board.path) as link:
        start = time.monotonic()
        with pytest.raises(BoardError, match="did not reply to 'slow' within 0.3 s"):
            link.command({"cmd": "slow"}, timeout=0.3)
        assert time.monotonic() - start < 1.5
        board.emit({"ok": True, "for": "slow"})  # the slow reply finally arrives
        assert link.command({"cmd": "status"}) == {"ok": True, "for": "status"}


def test_board_at_the_repl_prompt_is_named_in_the_timeout(app):
    board = app(lambda cmd: ["Traceback (most recent call last):", "ValueError: oops", ">>> "])
    with AppLink(board.path) as link:
        with pytest.raises(BoardError, match="at the MicroPython prompt"):
            link.command({"cmd": "status"}, timeout=0.3)


def test_events_iterator_is_bounded_and_in_order(app):
    board = app()
    with AppLink(board.path) as link:
        for i in range(3):
            board.emit({"ev": "sample", "i": i})
        got = [e["i"] for e in link.events(timeout=0.4)]
        assert got == [0, 1, 2]


def test_an_oversized_line_is_dropped_not_buffered(app):
    board = app()
    with AppLink(board.path) as link:
        # A pty holds a few KB: write from a thread while the link reads.
        writer = threading.Thread(target=board.write, args=(
            "x" * (boardlink.MAX_LINE + 10) + "\n" + json.dumps({"ev": "after"}) + "\n",))
        writer.start()
        assert list(link.events(timeout=1.0)) == [{"ev": "after"}]
        writer.join(timeout=2)
        assert any("longer than" in n for n in link.noise)
        assert len(link._buf) == 0


def test_unplug_without_reconnect_is_a_clear_error(app):
    board = app()
    link = AppLink(board.path)
    board.unplug()
    with pytest.raises(BoardError, match="lost the board|disconnected"):
        list(link.events(timeout=1.0))
    with pytest.raises(BoardError, match="disconnected"):
        link.command({"cmd": "status"})


def test_reconnects_when_the_board_comes_back(app, tmp_path):
    path = str(tmp_path / "ttyREFEREE")
    first = app(path=path)
    link = AppLink(path, reconnect=True, retry=0.05)
    first.emit({"ev": "before"})
    stream = link.events(timeout=5.0)
    assert next(stream) == {"ev": "before"}
    first.unplug()
    down = next(stream)
    assert down["ev"] == "link" and down["up"] is False
    second = app(lambda cmd: {"ok": True, "board": 2}, path=path)  # plugged in again
    up = next(stream)
    assert up == {"ev": "link", "up": True, "port": path}
    assert link.command({"cmd": "status"}) == {"ok": True, "board": 2}
    second.emit({"ev": "after"})
    assert next(stream) == {"ev": "after"}
    link.close()


def test_command_must_be_a_dict_with_cmd(app):
    board = app()
    with AppLink(board.path) as link:
        with pytest.raises(ValueError):
            link.command("status")


def test_idle_status_refuses_a_game_in_play_and_a_refused_status(app):
    phases = iter([{"ok": True, "phase": "lobby"}, {"ok": True, "phase": "play"},
                   {"ok": False, "error": "busy"}])
    board = app(lambda cmd: next(phases))
    with AppLink(board.path) as link:
        assert link.idle_status("calibrating")["phase"] == "lobby"
        with pytest.raises(RhinorefError, match="game is in play.*before calibrating"):
            link.idle_status("calibrating")
        with pytest.raises(BoardError, match="refused 'status': busy"):
            link.idle_status("the self-test")
