# The virtual board's `os` (sys.modules["os"] and "uos"): what a Pico's os has, on the board's
# own flash filesystem only. The unix port's os.system, getenv and friends are left out, and the
# host's filesystem is not mounted anywhere (see vboot.py: confinement).

import os as _os
import vfs as _vfs
from collections import namedtuple

chdir = _os.chdir
getcwd = _os.getcwd
ilistdir = _os.ilistdir
listdir = _os.listdir
mkdir = _os.mkdir
remove = _os.remove
rename = _os.rename
rmdir = _os.rmdir
stat = _os.stat
statvfs = _os.statvfs
urandom = _os.urandom
unlink = _os.remove
sep = "/"
mount = _vfs.mount
umount = _vfs.umount
VfsLfs2 = _vfs.VfsLfs2
VfsFat = _vfs.VfsFat

_uname = namedtuple("uname_result", ("sysname", "nodename", "release", "version", "machine"))
_UNAME = None


def uname():
    return _UNAME


def sync():
    pass


def dupterm(stream=None, index=0):
    return None


def _set_uname(release, version, machine):
    global _UNAME
    _UNAME = _uname("rp2", "rp2", release, version, machine)
