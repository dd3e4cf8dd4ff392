# Simulated `rp2` module of the virtual board, installed as sys.modules["rp2"].
#
#     import rp2
#     prog = rp2.asm_pio(sideset_init=rp2.PIO.OUT_LOW)(my_program)   # assembled and checked
#     sm = rp2.StateMachine(0, prog, freq=1_000_000, in_base=dout, sideset_base=sck)
#     sm.put(0); sm.active(1); sm.rx_fifo(); sm.get()
#
# asm_pio runs the program function as the real assembler does (PIO instruction names bound in
# its module's globals for the duration, two passes) and checks what the hardware would refuse:
# more than 32 instructions, unknown labels, delay plus side-set beyond 5 bits, bad operands.
# It does not execute the program. A StateMachine whose in_base (or jmp_pin) is the HX711's
# DOUT pin and whose side-set (or set) base is its SCK pin is the HX711 reader, per the driver's
# PIO contract (firmware/referee/hx711.py): while active it receives one word per conversion,
# the 24 raw bits right-aligned, into an RX FIFO of 4 words (8 with fifo_join=PIO.JOIN_RX);
# a full FIFO drops conversions. Any other state machine runs but produces nothing.
# rp2.Flash() is the block device of the board's flash filesystem (LittleFS, 1.4 MB).

import vb_hw
from micropython import const


class PIOASMError(Exception):
    pass


class PIO:
    IN_LOW = const(0)
    IN_HIGH = const(1)
    OUT_LOW = const(2)
    OUT_HIGH = const(3)
    SHIFT_LEFT = const(0)
    SHIFT_RIGHT = const(1)
    JOIN_NONE = const(0)
    JOIN_TX = const(1)
    JOIN_RX = const(2)
    IRQ_SM0 = const(0x100)
    IRQ_SM1 = const(0x200)
    IRQ_SM2 = const(0x400)
    IRQ_SM3 = const(0x800)

    def __init__(self, id):
        if id not in (0, 1):
            raise ValueError("invalid PIO id")
        self._id = id

    def state_machine(self, id, *args, **kw):
        sm = StateMachine(self._id * 4 + id)
        if args or kw:
            sm.init(*args, **kw)
        return sm

    def add_program(self, prog):
        pass

    def remove_program(self, prog=None):
        pass

    def irq(self, handler=None, trigger=0xFFF, hard=False):
        return None


# The assembler ------------------------------------------------------------------------------------

_COND = ("not_x", "x_dec", "not_y", "y_dec", "x_not_y", "pin", "not_osre")
_SRC = ("pins", "x", "y", "null", "isr", "osr", "status", "pc", "exec", "pindirs", "gpio")


class _Instr:
    def __init__(self, asm):
        self._asm = asm
        self._delay = 0
        self._side = None

    def side(self, v):
        self._side = v
        self._asm._check_side(v)
        return self

    def __getitem__(self, d):
        self._delay = d
        self._asm._check_delay(d)
        return self

    def delay(self, d):
        return self[d]


class _Asm:
    def __init__(self, kw):
        self.kw = kw
        side = kw.get("sideset_init")
        self.side_bits = len(side) if isinstance(side, tuple) else (1 if side is not None else 0)
        self.labels = {}
        self.refs = []
        self.n = 0
        self.wrap_target = 0
        self.wrap = -1

    def _check_delay(self, d):
        if not 0 <= d < (1 << (5 - self.side_bits)):
            raise PIOASMError("delay too large")

    def _check_side(self, v):
        if self.side_bits == 0:
            raise PIOASMError("no sideset")
        if not 0 <= v < (1 << self.side_bits):
            raise PIOASMError("sideset too large")

    def op(self, *args):
        self.n += 1
        if self.n > 32:
            raise PIOASMError("program too large: more than 32 instructions")
        return _Instr(self)

    def names(self):
        a = self

        def label(name):
            if name in a.labels and a.labels[name] != a.n:
                raise PIOASMError("duplicate label {}".format(name))
            a.labels[name] = a.n

        def wrap_target():
            a.wrap_target = a.n

        def wrap():
            a.wrap = a.n - 1

        def jmp(cond, label=None):
            if label is None:
                label, cond = cond, None
            elif cond not in _COND:
                raise PIOASMError("bad jmp condition")
            if isinstance(label, str):
                a.refs.append(label)
            return a.op()

        def wait(polarity, src, index, *rel):
            if polarity not in (0, 1) or src not in ("gpio", "pin", "irq"):
                raise PIOASMError("bad wait")
            return a.op()

        def in_(src, n):
            if src not in _SRC or not 1 <= n <= 32:
                raise PIOASMError("bad in_")
            return a.op()

        def out(dest, n):
            if dest not in _SRC or not 1 <= n <= 32:
                raise PIOASMError("bad out")
            return a.op()

        def mov(dest, src, *op):
            if dest not in _SRC or src not in _SRC:
                raise PIOASMError("bad mov")
            return a.op()

        def set(dest, v):
            if dest not in ("pins", "x", "y", "pindirs") or not 0 <= v <= 31:
                raise PIOASMError("bad set")
            return a.op()

        def simple(*args):
            return a.op()

        g = {
            "label": label, "wrap_target": wrap_target, "wrap": wrap, "jmp": jmp,
            "wait": wait, "in_": in_, "out": out, "mov": mov, "set": set,
            "push": simple, "pull": simple, "nop": simple, "irq": simple, "word": simple,
            "block": 1, "noblock": 0, "iffull": 2, "ifempty": 2, "rel": 16, "clear": 0x40,
        }
        for s in _SRC + _COND:
            g[s] = s
        g["irq"] = simple
        g["pin"] = "pin"
        return g


def asm_pio(**kw):
    def dec(f):
        saved = f.__globals__.copy()
        for _ in range(2):  # two passes, as the real assembler (forward labels)
            a = _Asm(kw)
            f.__globals__.clear()
            f.__globals__.update(a.names())
            try:
                f()
            finally:
                f.__globals__.clear()
                f.__globals__.update(saved)
        for r in a.refs:
            if r not in a.labels:
                raise PIOASMError("unknown label {}".format(r))
        if a.n == 0:
            raise PIOASMError("empty program")
        return ["vboard-pio", a.n, kw]

    return dec


# State machines ---------------------------------------------------------------------------------

_sms = [None] * 8


class StateMachine:
    def __new__(cls, id, *args, **kw):
        if not 0 <= id < 8:
            raise ValueError("invalid StateMachine id")
        sm = _sms[id]
        if sm is None:
            sm = object.__new__(cls)
            sm._id = id
            sm._active = False
            sm._prog = None
            sm._hx = False
            _sms[id] = sm
        return sm

    def __init__(self, id, prog=None, *args, **kw):
        if prog is not None:
            self.init(prog, *args, **kw)

    def init(self, prog, freq=-1, *, in_base=None, out_base=None, set_base=None, jmp_pin=None,
             sideset_base=None, in_shiftdir=None, out_shiftdir=None, push_thresh=None,
             pull_thresh=None, autopush=None, autopull=None, fifo_join=None, **kw):
        if not (isinstance(prog, list) and prog and prog[0] == "vboard-pio"):
            raise TypeError("program must come from rp2.asm_pio")
        self._active = False
        self._prog = prog
        if self is vb_hw.hx_sm:
            vb_hw.hx_sm = None
        vb_hw.fifo_clear()
        ins = _gpio(in_base), _gpio(jmp_pin)
        clk = _gpio(sideset_base if sideset_base is not None else set_base)
        self._hx = vb_hw.hx_dout in ins and clk == vb_hw.hx_sck
        join = fifo_join if fifo_join is not None else prog[2].get("fifo_join", 0)
        self._depth = 8 if join == PIO.JOIN_RX else 4

    def active(self, v=None):
        if v is None:
            return 1 if self._active else 0
        vb_hw.now_us()
        self._active = bool(v)
        if self._hx:
            if self._active:
                vb_hw.hx_sm = self
                vb_hw.fifo_depth = self._depth
            elif vb_hw.hx_sm is self:
                vb_hw.hx_sm = None
        return 1 if self._active else 0

    def restart(self):
        if self is vb_hw.hx_sm:
            vb_hw.fifo_clear()

    def exec(self, instr):
        pass

    def rx_fifo(self):
        if self is not vb_hw.hx_sm:
            vb_hw.now_us()
            return 0
        vb_hw.now_us()
        n = vb_hw.fifo_n
        if n == 0:
            # The loop would wait for the next conversion here: move the clock to it.
            vb_hw.wait_event()
        return n

    def tx_fifo(self):
        return 0

    def get(self, buf=None, shift=0):
        if buf is not None:
            for k in range(len(buf)):
                buf[k] = self.get(None, shift)
            return None
        while self is not vb_hw.hx_sm or vb_hw.fifo_n == 0:
            # Blocks, as the real get() does, until a word arrives (Ctrl-C still works).
            vb_hw.wait_event(1000 if self is not vb_hw.hx_sm else -1)
        return vb_hw.fifo_get() >> shift

    def put(self, value, shift=0):
        vb_hw.now_us()

    def irq(self, handler=None, trigger=0, hard=False):
        return None


def _gpio(p):
    if p is None:
        return -1
    return p._id if hasattr(p, "_id") else p


# Flash, misc ------------------------------------------------------------

_flash = None
_ERASED = b"\xff" * 4096  # made once: erasing a block must not need the heap


class _Flash:
    # The flash filesystem's block device (extended interface, as rp2.Flash): 4 KB erase
    # blocks of an image file on the host, opened before the host's filesystem disappears.
    def __init__(self, f, nblocks):
        self.f = f
        self.n = nblocks

    def readblocks(self, block, buf, off=0):
        self.f.seek(block * 4096 + off)
        self.f.readinto(buf)

    def writeblocks(self, block, buf, off=None):
        if off is None:
            self.ioctl(6, block)
            off = 0
        self.f.seek(block * 4096 + off)
        self.f.write(buf)

    def ioctl(self, op, arg):
        if op == 4:
            return self.n
        if op == 5:
            return 4096
        if op == 6:
            self.f.seek(arg * 4096)
            self.f.write(_ERASED)
            return 0
        if op == 3:
            self.f.flush()
        return 0


def Flash():
    return _flash


def bootsel_button():
    return 0


def country(c=None):
    return "XX"
