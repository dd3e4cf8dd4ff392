# The virtual board's `vfs` (sys.modules["vfs"]): no VfsPosix, so nothing can mount the host's
# filesystem again.

import vfs as _vfs

mount = _vfs.mount
umount = _vfs.umount
VfsLfs2 = _vfs.VfsLfs2
VfsLfs1 = _vfs.VfsLfs1
VfsFat = _vfs.VfsFat
