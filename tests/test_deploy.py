"""rhinoref deploy: compile, compare, stage, commit with the journal, verify; against fake boards.

The fake board (tests/boardfakes.py) runs the very code strings deploy sends, on an in-memory
flash that can lose power after any filesystem operation, lose the cable after any command, or
fill up. After every possible cut the board "reboots" (runs referee/deployjournal.py's recover,
as main.py does) and must hold the whole old firmware or the whole new one.
"""

import hashlib
import subprocess

import pytest

from boardfakes import BoardEnv, FakeFS, FakeTransport, PtyRawRepl
from rhinoref.cli import main
from rhinoref.cmd import deploy as deploy_cmd
from rhinoref.cmd.deploy import (JOURNAL_SOURCE, DeployError, build_firmware, deploy, make_plan,
                                 mpy_target)
from rhinoref.errors import BoardError
from rhinoref.mpy import micropython_binary

PICO = {"mpy": 0x1306, "version": (1, 24, 1), "machine": "Pico", "platform": "rp2",
        "free": 10 ** 6, "total": 10 ** 6, "hashlib": True}

# An old firmware as it might sit on a board: sources copied by hand, a module since removed,
# and the family's data that a deploy must never touch.
OLD = {
    "main.py": b"# old main\nimport referee.app\n",
    "referee/__init__.py": b"# old package\n",
    "referee/app.py": b"# old app\n" + b"x = 1\n" * 300,
    "referee/legacy.mpy": b"M\x06old module no longer in the firmware",
    "data/game.jsonl": b'{"rhinoref": "game", "version": 1}\n',
    "calibration.json": b'{"counts_per_gram": 420}',
}
# The new firmware: compiled modules, one spanning several write commands.
NEW = {
    "/main.py": b"# new main\nfrom referee import app\n",
    "/referee/__init__.mpy": b"M\x06\x00\x1fnew package",
    "/referee/app.mpy": b"M\x06\x00\x1f" + bytes(range(256)) * 22,  # 5.6 KB: 3 chunks
    "/referee/rules.mpy": b"M\x06\x00\x1fnew rules",
}


def loaded(fs):
    """What the board would run: main.py and, per module, the .py if present else the .mpy
    (MicroPython's import order)."""
    files = fs.snapshot()
    view = {"main.py": files.get("main.py")}
    for path in files:
        if path.startswith("referee/") and path.endswith((".py", ".mpy")):
            stem = path.rsplit(".", 1)[0]
            view[stem] = files.get(stem + ".py") or files.get(stem + ".mpy")
    return view


def view_of(build):
    fs = FakeFS({p.lstrip("/"): d for p, d in build.items()})
    return loaded(fs)


def reboot(fs):
    """Power comes back: main.py's first act is deployjournal.recover()."""
    fs.cut, fs.ops_left = False, None
    env = BoardEnv(fs)
    out, err = env.run(JOURNAL_SOURCE.read_text() + "\nprint(recover('/'))\n")
    assert not err, err
    return int(out.strip() or 0)


def leftovers(fs):
    return [p for p in fs.files if p.endswith(".new") or p.startswith(".deploy")]


def test_first_deploy_copies_everything_and_removes_what_the_new_set_replaces():
    fs = FakeFS(OLD)
    report = deploy(FakeTransport(fs), NEW)
    assert loaded(fs) == view_of(NEW)
    assert sorted(p for p, _ in report.plan.copy) == sorted(NEW)
    removed = dict(report.plan.remove)
    assert removed["/referee/app.py"] == "shadows referee/app.mpy"
    assert removed["/referee/legacy.mpy"] == "no longer in the firmware"
    assert removed["/referee/__init__.py"] == "shadows referee/__init__.mpy"
    # The family's data is never touched.
    assert fs.files["data/game.jsonl"] == OLD["data/game.jsonl"]
    assert fs.files["calibration.json"] == OLD["calibration.json"]
    assert leftovers(fs) == []


def test_second_deploy_writes_nothing_and_only_changed_files_are_copied():
    fs = FakeFS()
    deploy(FakeTransport(fs), NEW)
    before = fs.mutations
    report = deploy(FakeTransport(fs), NEW)
    assert report.plan.empty and report.written == 0
    assert fs.mutations == before  # not one write, rename or delete

    changed = dict(NEW, **{"/referee/rules.mpy": b"M\x06\x00\x1frules v2"})
    report = deploy(FakeTransport(fs), changed)
    assert report.plan.copy == [("/referee/rules.mpy", "changed")]
    assert report.written == len(changed["/referee/rules.mpy"])
    assert fs.files["referee/rules.mpy"] == changed["/referee/rules.mpy"]


def test_dry_run_changes_nothing():
    fs = FakeFS(OLD)
    before = fs.snapshot()
    report = deploy(FakeTransport(fs), NEW, dry_run=True)
    assert fs.snapshot() == before
    assert len(report.plan.copy) == len(NEW)
    assert report.plan.remove


def _count_mutations():
    fs = FakeFS(OLD)
    deploy(FakeTransport(fs), NEW)
    return fs.mutations


def test_power_cut_after_any_operation_leaves_old_or_new_never_a_mix():
    """Cut the power after every possible flash operation (including half-way through a write)."""
    total = _count_mutations()
    assert total > 15
    old_view, new_view = loaded(FakeFS(OLD)), view_of(NEW)
    outcomes = set()
    for n in range(total + 1):
        fs = FakeFS(OLD)
        fs.ops_left = n
        try:
            deploy(FakeTransport(fs), NEW)
            finished = True
        except BoardError as err:
            finished = False
            assert "run 'rhinoref deploy' again" in str(err)
        reboot(fs)
        view = loaded(fs)
        assert view in (old_view, new_view), "cut after %d operations left a mix" % n
        assert fs.files["data/game.jsonl"] == OLD["data/game.jsonl"]
        outcomes.add("new" if view == new_view else "old")
        assert finished <= (view == new_view)
        # The next deploy, uncut, cleans up and lands the new set.
        deploy(FakeTransport(fs), NEW)
        assert loaded(fs) == new_view and leftovers(fs) == []
    assert outcomes == {"old", "new"}


def test_cable_cut_between_any_two_commands_leaves_old_or_new():
    fs = FakeFS(OLD)
    t = FakeTransport(fs)
    deploy(t, NEW)
    total = t.execs
    old_view, new_view = loaded(FakeFS(OLD)), view_of(NEW)
    for n in range(total):
        fs = FakeFS(OLD)
        with pytest.raises(BoardError) as err:
            deploy(FakeTransport(fs, cut_after=n), NEW)
        assert "lost the board on fake:0" in str(err.value)
        # Unplugged and plugged in again = power cycle: boot runs recover().
        reboot(fs)
        assert loaded(fs) in (old_view, new_view), "cable cut after %d commands left a mix" % n


def test_a_cut_after_commit_is_finished_by_the_next_deploy_without_a_reboot():
    total = _count_mutations()
    old_view, new_view = loaded(FakeFS(OLD)), view_of(NEW)
    for n in range(total):
        fs = FakeFS(OLD)
        fs.ops_left = n
        with pytest.raises(BoardError):
            deploy(FakeTransport(fs), NEW)
        fs.cut, fs.ops_left = False, None  # back, but main.py never ran (old firmware, say)
        if not any(p == ".deploy" for p in fs.files):
            continue
        report = deploy(FakeTransport(fs), NEW)
        assert report.recovered > 0
        assert loaded(fs) == new_view
        return
    pytest.fail("no cut left a committed journal behind")


def test_out_of_flash_before_writing_keeps_the_old_firmware():
    fs = FakeFS(OLD, capacity=8 * 4096)
    before = fs.snapshot()
    with pytest.raises(DeployError, match="out of flash.*old firmware is unchanged"):
        deploy(FakeTransport(fs), NEW)
    assert fs.snapshot() == before


def test_enospc_while_writing_keeps_the_old_firmware_and_cleans_up():
    # Room for the bytes but not for the blocks: the precheck passes, a write hits ENOSPC.
    fs = FakeFS(OLD, capacity=10 * 4096)
    assert sum(map(len, NEW.values())) < fs.free() < 4 * 4096 + sum(map(len, NEW.values()))
    before = fs.snapshot()
    with pytest.raises(DeployError) as err:
        deploy(FakeTransport(fs), NEW)
    assert "out of flash" in str(err.value) and "old firmware is unchanged" in str(err.value)
    assert fs.snapshot() == before
    assert loaded(fs) == loaded(FakeFS(OLD))


def test_cli_exit_code_for_out_of_flash_is_1(monkeypatch, capsys):
    fs = FakeFS(OLD, capacity=8 * 4096)
    monkeypatch.setattr(deploy_cmd, "open_board", lambda port: FakeTransport(fs, port=port))
    monkeypatch.setattr(deploy_cmd, "build_firmware", lambda source, info, compile=True: NEW)
    assert main(["deploy", "--port", "fake:1"]) == 1
    assert "rhinoref: out of flash" in capsys.readouterr().err


def test_a_board_that_corrupts_writes_fails_verification_and_keeps_the_old_set():
    fs = FakeFS(OLD)
    env = BoardEnv(fs)
    real_open = fs.open

    def flaky_open(path, mode="r"):
        f = real_open(path, mode)
        if "w" in mode:
            write = f.write
            f.write = lambda data: write(bytes(data)[:-1] + b"?") if len(data) > 1 else write(data)
        return f

    fs.open = flaky_open
    env.reset()
    with pytest.raises(DeployError, match="did not read back right"):
        deploy(FakeTransport(env), NEW)
    fs.open = real_open
    assert loaded(fs) == loaded(FakeFS(OLD))
    assert leftovers(fs) == []


def test_board_without_hashlib_is_compared_by_reading_back():
    fs = FakeFS()
    env = BoardEnv(fs, hashlib_ok=False)
    deploy(FakeTransport(env), NEW)
    assert loaded(fs) == view_of(NEW)
    report = deploy(FakeTransport(BoardEnv(fs, hashlib_ok=False)), NEW)
    assert report.plan.empty


def test_plan_removes_only_twins_and_stale_modules_in_firmware_folders():
    listing = [("/main.py", 0x8000), ("/notes.py", 0x8000), ("/referee", 0x4000),
               ("/referee/a.py", 0x8000), ("/referee/old.mpy", 0x8000),
               ("/referee/readme.txt", 0x8000), ("/referee/a.mpy.new", 0x8000),
               ("/.deploy.tmp", 0x8000)]
    build = {"/main.py": b"m", "/referee/a.mpy": b"a"}
    digest = hashlib.sha256(b"m").hexdigest()
    plan = make_plan(build, listing, {"/main.py": digest, "/referee/a.mpy": None})
    assert plan.copy == [("/referee/a.mpy", "new")]
    assert plan.unchanged == ["/main.py"]
    assert [p for p, _ in plan.remove] == ["/referee/a.py", "/referee/old.mpy"]
    assert sorted(plan.leftovers) == ["/.deploy.tmp", "/referee/a.mpy.new"]
    assert plan.mkdirs == []


# --- compiling for the board's version ----------------------------------------------------------


def test_mpy_target_decodes_sys_implementation_mpy():
    assert mpy_target({"mpy": 0x1306}) == ("6.3", "armv6m")  # Pico (RP2040)
    assert mpy_target({"mpy": 0x1F06}) == ("6.3", "armv7emsp")  # Pico 2 (RP2350, Arm)
    assert mpy_target({"mpy": 0x0B06}) == ("6.3", "x64")  # the unix port
    with pytest.raises(DeployError, match="did not report its .mpy version"):
        mpy_target({"mpy": None})


def _tiny_source(tmp_path):
    src = tmp_path / "fw"
    (src / "referee").mkdir(parents=True)
    (src / "main.py").write_text("from referee import hello\nprint(hello.greet())\n")
    (src / "referee" / "__init__.py").write_text("")
    (src / "referee" / "hello.py").write_text("def greet():\n    return 'hello from ' + __file__\n")
    (src / "referee" / "__pycache__").mkdir()
    (src / "referee" / "__pycache__" / "hello.cpython-311.pyc").write_bytes(b"junk")
    (src / ".hidden").write_text("no")
    return src


def test_build_compiles_modules_and_keeps_main_py_source(tmp_path):
    build = build_firmware(_tiny_source(tmp_path), PICO)
    assert sorted(build) == ["/main.py", "/referee/__init__.mpy", "/referee/hello.mpy"]
    assert build["/main.py"].startswith(b"from referee")
    assert build["/referee/hello.mpy"][:2] == b"M\x06"
    # deterministic, so hashes compare across runs and hosts
    again = build_firmware(_tiny_source(tmp_path / "again"), PICO)
    assert again["/referee/hello.mpy"] == build["/referee/hello.mpy"]
    assert b"referee/hello.py" in build["/referee/hello.mpy"]  # -s: the name tracebacks show


def test_build_targets_an_older_bytecode_version(tmp_path):
    build = build_firmware(_tiny_source(tmp_path), dict(PICO, mpy=5))  # MicroPython 1.12-1.18
    assert build["/referee/hello.mpy"][:2] == b"M\x05"


def test_build_refuses_a_version_it_cannot_write(tmp_path):
    with pytest.raises(DeployError, match="wants .mpy v7.0"):
        build_firmware(_tiny_source(tmp_path), dict(PICO, mpy=7))


def test_no_compile_copies_sources_and_removes_mpy_twins(tmp_path):
    fs = FakeFS({"referee/hello.mpy": b"M\x06stale"})
    deploy(FakeTransport(fs), build_firmware(_tiny_source(tmp_path), PICO, compile=False))
    assert sorted(fs.files) == ["main.py", "referee/__init__.py", "referee/hello.py"]


def test_deployed_mpy_files_import_on_micropython(tmp_path):
    """The real firmware, compiled for the unix port's bytecode, deployed to a fake flash,
    written to disk and imported by MicroPython from the .mpy files alone."""
    exe = micropython_binary()
    if exe is None:
        pytest.skip("the MicroPython unix port is not installed")
    info = subprocess.run([exe, "-c", "import sys; print(sys.implementation._mpy)"],
                          capture_output=True, text=True).stdout.strip()
    fs = FakeFS()
    deploy(FakeTransport(fs),
           lambda board: build_firmware(deploy_cmd.FIRMWARE_DIR, dict(PICO, mpy=int(info))))
    flash = tmp_path / "flash"
    for path, data in fs.files.items():
        (flash / path).parent.mkdir(parents=True, exist_ok=True)
        (flash / path).write_bytes(data)
    assert not list(flash.rglob("referee/*.py"))
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from referee import rules, detector, cues, protocol, gamelog, deployjournal\n"
            "print(rules.__file__, deployjournal.__file__)\n"
            "print(deployjournal.recover(%r))\n" % (str(flash), str(flash)))
    result = subprocess.run([exe, "-X", "heapsize=192k", "-c", code], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr + result.stdout
    assert "referee/rules.mpy" in result.stdout and "referee/deployjournal.mpy" in result.stdout
    assert result.stdout.strip().endswith("0")


# --- the command line -------------------------------------------------------------------------


def test_cli_missing_port_is_exit_3(tmp_path, capsys):
    assert main(["deploy", "--port", str(tmp_path / "ttyNONE")]) == 3
    assert "does not exist" in capsys.readouterr().err


def test_cli_bad_source_is_exit_2(tmp_path, capsys):
    assert main(["deploy", "--port", "x", "--source", str(tmp_path / "nope")]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_cli_help_has_an_example(capsys):
    with pytest.raises(SystemExit):
        main(["deploy", "--help"])
    out = capsys.readouterr().out
    assert "rhinoref deploy --port /dev/ttyACM0" in out and "--dry-run" in out


def test_cli_deploys_over_a_serial_raw_repl_and_starts_main(tmp_path, capsys):
    """End to end through mpremote's real SerialTransport on a pseudo-terminal."""
    fs = FakeFS({"referee/hello.py": b"old"})
    env = BoardEnv(fs, mpy=0x1306)
    board = PtyRawRepl(env)
    try:
        src = _tiny_source(tmp_path)
        assert main(["deploy", "--port", board.path, "--source", str(src)]) == 0
        out = capsys.readouterr().out
        assert "changed main.py" not in out and "new main.py" in out
        assert "verified 3 files" in out and "soft reset" in out
        assert sorted(fs.files) == ["main.py", "referee/__init__.mpy", "referee/hello.mpy"]
        assert board.main_runs == 1
        assert main(["deploy", "--port", board.path, "--source", str(src), "--dry-run",
                     "--no-reset"]) == 0
        out = capsys.readouterr().out
        assert "3 unchanged; nothing to do" in out
        assert board.main_runs == 1
    finally:
        board.close()


# --- the virtual board: the firmware on real MicroPython with a LittleFS flash -----------------


def _vboard(flash):
    from rhinoref.vboard import VirtualBoard

    return VirtualBoard(flash_dir=flash, speed=1.0).start()


def _board_files(port):
    """{path: sha256} of every file under /referee and / on the board, through the raw REPL."""
    t = deploy_cmd.open_board(port, timeout=10)
    try:
        board = deploy_cmd.Board(t)
        listing = board.listing(["/", "/referee"])
        files = sorted(p for p, kind in listing if kind != 0x4000)
        modules = t.eval("[__import__('referee.' + m).__dict__[m].__file__"
                         " for m in ('app', 'rules')]"
                         if "/referee/app.mpy" in files else "[]")
        return board.hashes(files, {"hashlib": True}), modules
    finally:
        deploy_cmd.close_board(t, run_main=True)


def _booted(vb, start, timeout=30.0):
    """Wait until the firmware, started by main.py after ``start`` (an offset into the board's
    output), prints its first JSON event line: the app's modules loaded from the flash."""
    end = vb.wait_output(b'{"ev": ', start=start, timeout=timeout)
    assert b"Traceback" not in bytes(vb.output[start:end]), bytes(vb.output[start:end])


def _variant(tmp_path, mark, base=deploy_cmd.FIRMWARE_DIR):
    """A copy of the firmware (a snapshot: others may be editing firmware/ meanwhile) whose
    cues module carries ``mark``, so its .mpy differs from other variants'."""
    import shutil

    src = tmp_path / ("fw_" + mark)
    shutil.copytree(base, src, ignore=shutil.ignore_patterns("__pycache__"))
    cues = src / "referee" / "cues.py"
    cues.write_text(cues.read_text() + "\n_DEPLOY_MARK = %r\n" % mark)
    return src


def _expected(src, port):
    t = deploy_cmd.open_board(port, timeout=10)
    try:
        info = deploy_cmd.Board(t).info()
    finally:
        deploy_cmd.close_board(t, run_main=True)
    return {p: hashlib.sha256(d).hexdigest() for p, d in build_firmware(src, info).items()}


@pytest.mark.skipif(micropython_binary() is None,
                    reason="the MicroPython unix port is not installed")
def test_deploy_to_the_virtual_board_boots_from_mpy_and_survives_cuts(tmp_path, monkeypatch,
                                                                       capsys):
    flash = tmp_path / "flash"
    vb = _vboard(flash)
    try:
        vb.wait_output(b">>> ", timeout=20)  # an empty flash boots to the REPL
        # 1. A first deploy: the app starts from the .mpy files.
        base = _variant(tmp_path, "base")
        a = _variant(tmp_path, "a", base=base)
        start = len(vb.output)
        assert main(["deploy", "--port", vb.port, "--source", str(base)]) == 0, capsys.readouterr()
        assert "verified" in capsys.readouterr().out
        _booted(vb, start)
        files, modules = _board_files(vb.port)
        assert modules == ["referee/app.mpy", "referee/rules.mpy"]
        assert not [p for p in files if p.startswith("/referee/") and p.endswith(".py")]
        new = _expected(base, vb.port)
        assert {p: h for p, h in files.items() if p in new} == new
        # 2. Nothing changed: nothing is written.
        assert main(["deploy", "--port", vb.port, "--source", str(base)]) == 0
        assert "up to date" in capsys.readouterr().out

        # 3. The cable is pulled while a changed module is being written: the old set stays.
        real_write = deploy_cmd.Board.write

        def write_then_pull(self, path, data, advance=None):
            if path.startswith("/referee/cues.mpy"):
                raise deploy_cmd._Lost("cable pulled")
            return real_write(self, path, data, advance)

        monkeypatch.setattr(deploy_cmd.Board, "write", write_then_pull)
        assert main(["deploy", "--port", vb.port, "--source", str(a)]) == 3
        assert "old firmware is still in place" in capsys.readouterr().err
        monkeypatch.setattr(deploy_cmd.Board, "write", real_write)
        vb.stop()
        vb = _vboard(flash)  # power cycle
        _booted(vb, 0)
        files, _ = _board_files(vb.port)
        assert {p: h for p, h in files.items() if p in new} == new

        # 4. The cable is pulled right after the commit: the board finishes it at boot.
        real_finish = deploy_cmd.Board.finish_journal

        def pull_after_commit(self):
            if self.phase == "finishing":
                raise deploy_cmd._Lost("cable pulled")
            return real_finish(self)

        monkeypatch.setattr(deploy_cmd.Board, "finish_journal", pull_after_commit)
        assert main(["deploy", "--port", vb.port, "--source", str(a)]) == 3
        assert "new firmware is committed" in capsys.readouterr().err
        monkeypatch.setattr(deploy_cmd.Board, "finish_journal", real_finish)
        vb.stop()
        vb = _vboard(flash)  # power cycle: main.py runs deployjournal.recover()
        _booted(vb, 0)
        files, _ = _board_files(vb.port)
        want = _expected(a, vb.port)
        assert {p: h for p, h in files.items() if p in want} == want
        assert "/.deploy" not in files
        assert not [p for p in files if p.endswith(".new")]
    finally:
        vb.stop()


def test_progress_lines_without_a_terminal_and_a_bar_with_one():
    import io

    out = io.StringIO()
    deploy(FakeTransport(FakeFS(OLD)), NEW, deploy_cmd.Progress(out=out))  # not a tty: lines
    text = out.getvalue()
    assert "deploy: writing 4 files" in text and "deploy:   new referee/rules.mpy" in text
    assert "deploy: verified 4 files by SHA-256" in text

    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = Tty()
    deploy(FakeTransport(FakeFS(OLD)), NEW, deploy_cmd.Progress(out=out))  # a terminal: rich
    assert "deploy:   new referee/rules.mpy" not in out.getvalue()  # the bar, not file lines
    assert "verified 4 files" in out.getvalue()
