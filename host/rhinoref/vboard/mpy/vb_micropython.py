# The virtual board's `micropython` module (sys.modules["micropython"]): the real functions,
# except kbd_intr, which tells the host's serial bridge which byte is Ctrl-C (the unix port's
# own kbd_intr would make SIGINT kill the process), plus the Pico's
# alloc_emergency_exception_buf. `from micropython import const` is handled by the compiler.

import micropython as _mp
import vb_hw

opt_level = _mp.opt_level
mem_info = _mp.mem_info
qstr_info = _mp.qstr_info
stack_use = _mp.stack_use
heap_lock = _mp.heap_lock
heap_unlock = _mp.heap_unlock
schedule = _mp.schedule


def const(x):
    return x


def kbd_intr(c):
    vb_hw.set_intr(c)


def alloc_emergency_exception_buf(n):
    pass
