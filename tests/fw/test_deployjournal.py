"""deployjournal.recover() on a real directory: the boot-side half of an atomic deploy.

Runs on CPython (pytest) and on MicroPython (tests/test_fw_on_micropython.py).
"""

import os

from mptest import raises
from referee import deployjournal

_count = [0]


def _tmpdir():
    base = os.getenv("TMPDIR") or "/tmp"
    _count[0] += 1
    path = "%s/rhinoref_dj_%s_%d" % (base, "".join("%02x" % b for b in os.urandom(4)), _count[0])
    os.mkdir(path)
    os.mkdir(path + "/referee")
    return path


def _rmtree(path):
    for name in os.listdir(path):
        full = path + "/" + name
        if os.stat(full)[0] & 0x4000:
            _rmtree(full)
        else:
            os.remove(full)
    os.rmdir(path)


def _write(root, rel, text):
    with open(root + "/" + rel, "w") as f:
        f.write(text)


def _read(root, rel):
    try:
        with open(root + "/" + rel) as f:
            return f.read()
    except OSError:
        return None


def _journal(root, renames, removes, version=1):
    parts = ['{"rhinoref": "deploy", "version": %d, "rename": [' % version]
    parts.append(", ".join('["%s", "%s"]' % pair for pair in renames))
    parts.append('], "remove": [')
    parts.append(", ".join('"%s"' % p for p in removes))
    parts.append("]}")
    _write(root, ".deploy", "".join(parts))


def test_nothing_pending_returns_zero_and_changes_nothing():
    root = _tmpdir()
    try:
        _write(root, "main.py", "old")
        assert not deployjournal.pending(root)
        assert deployjournal.recover(root) == 0
        assert _read(root, "main.py") == "old"
    finally:
        _rmtree(root)


def test_half_written_journal_is_dropped_old_set_stays():
    root = _tmpdir()
    try:
        _write(root, "main.py", "old")
        _write(root, "main.py.new", "new")
        _write(root, ".deploy.tmp", '{"rhinoref": "dep')  # cut while writing the journal
        assert deployjournal.recover(root) == 0
        assert _read(root, ".deploy.tmp") is None
        assert _read(root, "main.py") == "old"
    finally:
        _rmtree(root)


def test_journal_renames_and_removes_then_is_deleted():
    root = _tmpdir()
    try:
        _write(root, "main.py", "old main")
        _write(root, "main.py.new", "new main")
        _write(root, "referee/rules.py", "old rules source")
        _write(root, "referee/rules.mpy.new", "new rules bytecode")
        _write(root, "referee/gone.mpy", "module no longer in the firmware")
        _journal(root, [("main.py.new", "main.py"), ("referee/rules.mpy.new", "referee/rules.mpy")],
                 ["referee/rules.py", "referee/gone.mpy"])
        assert deployjournal.pending(root)
        assert deployjournal.recover(root) == 4
        assert _read(root, "main.py") == "new main"
        assert _read(root, "referee/rules.mpy") == "new rules bytecode"
        assert _read(root, "referee/rules.py") is None
        assert _read(root, "referee/gone.mpy") is None
        assert _read(root, "main.py.new") is None
        assert not deployjournal.pending(root)
        assert deployjournal.recover(root) == 0
    finally:
        _rmtree(root)


def test_finishes_a_journal_cut_half_way():
    root = _tmpdir()
    try:
        # main.py was already renamed before the cut; rules.mpy's old copy was deleted (the FAT
        # path) but the rename had not happened yet.
        _write(root, "main.py", "new main")
        _write(root, "referee/rules.mpy.new", "new rules")
        _journal(root, [("main.py.new", "main.py"), ("referee/rules.mpy.new", "referee/rules.mpy")],
                 ["referee/rules.py"])
        assert deployjournal.recover(root) == 1
        assert _read(root, "main.py") == "new main"
        assert _read(root, "referee/rules.mpy") == "new rules"
        assert not deployjournal.pending(root)
    finally:
        _rmtree(root)


def test_unreadable_journal_is_deleted_and_reported():
    root = _tmpdir()
    try:
        _write(root, ".deploy", "{not json")
        with raises(OSError) as caught:
            deployjournal.recover(root)
        assert "unreadable" in str(caught.value)
        assert not deployjournal.pending(root)
    finally:
        _rmtree(root)


def test_unknown_version_is_kept_and_reported():
    root = _tmpdir()
    try:
        _write(root, "main.py.new", "new")
        _journal(root, [("main.py.new", "main.py")], [], version=99)
        with raises(OSError) as caught:
            deployjournal.recover(root)
        assert "version" in str(caught.value)
        assert deployjournal.pending(root)
        assert _read(root, "main.py.new") == "new"
    finally:
        _rmtree(root)
