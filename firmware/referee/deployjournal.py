"""Finishing an interrupted deploy: the board side of ``rhinoref deploy``'s journal.

Usage, first thing in ``main.py`` (before the app's modules are imported)::

    from referee import deployjournal
    try:
        if deployjournal.recover():     # files were changed: boot the new set cleanly
            import machine
            machine.soft_reset()
    except OSError as err:              # never stops the board from booting
        print("deploy journal:", err)

How ``rhinoref deploy`` replaces the firmware so the board boots either the whole old set or
the whole new set, never a mix (docs/host.md has the full story):

1. stage: every new or changed file is written beside its final name as ``NAME.new`` and its
   SHA-256 checked; the old firmware is untouched, so a cut leaves only ``*.new`` leftovers
   that the next deploy deletes;
2. commit: the journal ``.deploy`` is written as ``.deploy.tmp`` and renamed (a rename is
   atomic on LittleFS), listing the renames ``NAME.new -> NAME`` and the files to delete
   (a stale ``.py`` that would shadow a new ``.mpy``: MicroPython imports ``.py`` first; modules
   no longer in the firmware). From the moment ``.deploy`` exists the new set is decided;
3. finish: the host runs ``recover()`` (this very function, sent over the raw REPL), which
   carries the journal out and deletes it last. If the cable or power is cut meanwhile, the
   journal is still there at the next boot and ``recover()`` finishes it. Every step is
   idempotent: a rename whose source is gone was done before the cut.

Journal format (version 1), paths relative to the filesystem root::

    {"rhinoref": "deploy", "version": 1,
     "rename": [["referee/rules.mpy.new", "referee/rules.mpy"], ["main.py.new", "main.py"]],
     "remove": ["referee/rules.py"]}
"""

import json
import os

JOURNAL = ".deploy"
JOURNAL_TMP = ".deploy.tmp"
STAGED_SUFFIX = ".new"
VERSION = 1


def _join(root, path):
    if root.endswith("/"):
        return root + path
    return root + "/" + path


def _exists(path):
    try:
        os.stat(path)
    except OSError:
        return False
    return True


def _remove_if_exists(path):
    try:
        os.remove(path)
    except OSError:
        return False
    return True


def pending(root="/"):
    """True when a committed deploy has not been finished yet."""
    return _exists(_join(root, JOURNAL))


def recover(root="/"):
    """Carry out a pending deploy journal under ``root``.

    Returns the number of files renamed or deleted (0: nothing was pending). Raises ``OSError``
    with a sentence when the journal cannot be used; an unreadable journal is deleted first,
    so the next boot is not stopped by it again.
    """
    jpath = _join(root, JOURNAL)
    try:
        f = open(jpath)
    except OSError:
        # No commit: a half-written journal (a cut while writing it) means the old set stays.
        _remove_if_exists(_join(root, JOURNAL_TMP))
        return 0
    try:
        text = f.read()
    finally:
        f.close()
    try:
        plan = json.loads(text)
        version = plan["version"]
        renames = plan["rename"]
        removes = plan["remove"]
    except (ValueError, KeyError, TypeError):
        _remove_if_exists(jpath)
        raise OSError("deploy journal %s was unreadable and is deleted: "
                      "run 'rhinoref deploy' again" % jpath)
    if version != VERSION:
        raise OSError("deploy journal %s has version %r; this firmware knows %d: "
                      "run 'rhinoref deploy' again" % (jpath, version, VERSION))
    done = 0
    for pair in renames:
        src = _join(root, pair[0])
        dst = _join(root, pair[1])
        if not _exists(src):
            continue  # renamed before the cut
        try:
            os.rename(src, dst)
        except OSError:
            # FAT (and some ports) refuse to rename onto an existing file: delete it first. A cut
            # between the two leaves src, so the next recover() renames it.
            _remove_if_exists(dst)
            os.rename(src, dst)
        done += 1
    for path in removes:
        if _remove_if_exists(_join(root, path)):
            done += 1
    os.remove(jpath)
    return done
