"""Hardware fakes built from the datasheets, for driver tests on CPython and MicroPython.

Usage::

    from fakes import FakeHX711, FakeRP2, FakeI2C, FakeMPU6050

    chip = FakeHX711(sps=80)          # pin-level HX711 with its own microsecond clock
    chip.level_a = 1234               # what channel A (gain 128) converts to
    hx = HX711GPIO(chip.dout, chip.sck, sleep_ms=chip.sleep_ms)
    raw = hx.read()

    rp2 = FakeRP2(chip)               # an rp2 module whose StateMachine RUNS the PIO program
    sys.modules["rp2"] = rp2          # (instruction by instruction, against the same chip)

    i2c = FakeI2C(FakeMPU6050())      # register-level accelerometers on a fake bus

Time: the chip has a clock in microseconds (``chip.now_us``). Every pin access costs
``chip.op_us`` (a CPU doing a pin write); ``chip.sleep_ms`` advances it (pass it to the drivers
as their sleep function); the fake PIO state machine runs its program up to ``now_us`` whenever
the CPU looks at it. Nothing here reads a real clock, so the tests are deterministic.
"""

_POWER_DOWN_US = 60  # datasheet: PD_SCK high > 60 us enters power-down
_GARBAGE = 0x5A5A5A  # what an unsettled conversion reads as (easy to spot in a failure)


class FakePin:
    """A ``machine.Pin`` look-alike whose level belongs to a model."""

    IN = 0
    OUT = 1
    PULL_UP = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, read=None, write=None, level=0):
        self._read = read
        self._write = write
        self._level = level
        self.mode = None
        self.handler = None
        self.writes = 0

    def init(self, mode=-1, pull=-1, value=None):
        self.mode = mode
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            if self._read is not None:
                return self._read()
            return self._level
        v = 1 if v else 0
        self.writes += 1
        if self._write is not None:
            self._write(v)
        else:
            old = self._level
            self._level = v
            if old != v and self.handler is not None:
                self.handler(self)

    __call__ = value

    def irq(self, handler=None, trigger=12):
        self.handler = handler


class FakeHX711:
    """The HX711 at pin level (Avia datasheet):

    * conversions complete on a free-running grid (``1e6 / sps`` us) while powered; DOUT goes
      low when one is waiting;
    * each PD_SCK rising edge shifts out the next of 24 bits, MSB first (the word is latched
      when the read starts); the 25th, 26th or 27th pulse selects channel A/128, B/32 or A/64
      for the NEXT conversion and pulls DOUT high until a conversion completes;
    * PD_SCK high for more than 60 us powers it down (DOUT high, no conversions); the falling
      edge powers it up reset to A/128;
    * after a reset or a gain/channel change the next 3 conversions are unsettled (datasheet
      settling time: 4 conversion periods) and read as ``_GARBAGE``.

    Inputs: ``level_a`` (signed counts at A/128; A/64 gives half), ``level_b`` (B/32), or
    ``queue`` (24-bit words used, in order, for the next settled conversions). Clamped to the
    chip's limits 0x7FFFFF / 0x800000. ``absent`` = no chip (DOUT pulled high), ``stuck_low``
    = DOUT shorted to ground.
    """

    def __init__(self, sps=80, op_us=1, absent=False, stuck_low=False):
        self.period_us = 1000000 // sps
        self.op_us = op_us
        self.absent = absent
        self.stuck_low = stuck_low
        self.now_us = 0
        self.level_a = 0
        self.level_b = 0
        self.queue = []
        self.powered = True
        self.gain = 128  # of the conversion in progress
        self.gain_next = 128
        self.unsettled = 3  # power-on is a reset
        self.next_conv = self.period_us
        self.ready = False
        self.data = 0  # latest complete conversion (24-bit word)
        self.word = 0  # latched for the read in progress
        self.pulses = 0  # rising edges since the read began
        self.sck_level = 0
        self.sck_high_since = 0
        self.max_high_us = 0
        self.conversions = 0
        self.reads = 0  # completed reads (25+ pulses)
        self.stray_pulses = 0  # rising edges with no data waiting
        self.power_downs = 0
        self.listeners = []
        self.sck = FakePin(write=self._cpu_sck)
        self.dout = FakePin(read=self._cpu_dout)

    # CPU-side pins: each access costs op_us of time

    def _cpu_sck(self, v):
        self.now_us += self.op_us
        self.set_sck(v, self.now_us)

    def _cpu_dout(self):
        self.now_us += self.op_us
        return self.dout_at(self.now_us)

    def sleep_ms(self, ms):
        self.sleep_us(ms * 1000)

    def sleep_us(self, us):
        self.now_us += us
        for run in self.listeners:  # running state machines keep up with the clock
            run()

    # the model, at explicit times (the PIO emulator runs behind the CPU clock)

    def _value(self):
        if self.unsettled:
            self.unsettled -= 1
            return _GARBAGE
        if self.queue:
            return self.queue.pop(0) & 0xFFFFFF
        if self.gain == 32:
            v = self.level_b
        elif self.gain == 64:
            v = self.level_a // 2
        else:
            v = self.level_a
        if v > 0x7FFFFF:
            v = 0x7FFFFF
        elif v < -0x800000:
            v = -0x800000
        return v & 0xFFFFFF

    def advance(self, t):
        """Bring the chip up to time ``t``: power-down, then conversions on the grid."""
        if self.sck_level and self.powered:
            if t - self.sck_high_since > _POWER_DOWN_US:
                self._convert_until(self.sck_high_since + _POWER_DOWN_US)
                self.powered = False
                self.power_downs += 1
                self.ready = False
                self.pulses = 0
        if self.powered:
            self._convert_until(t)

    def _convert_until(self, t):
        while self.next_conv <= t:
            self.conversions += 1
            if self.pulses >= 25:
                # the read is over; this conversion uses the channel/gain its pulses chose
                # (more than 27 pulses: datasheet-undefined, treated as 25)
                if self.gain_next != self.gain:
                    self.gain = self.gain_next
                    self.unsettled = 3
                self.pulses = 0
            value = self._value()
            if self.pulses == 0:  # not in the middle of a read
                self.data = value
                self.ready = True
            self.next_conv += self.period_us

    def set_sck(self, v, t):
        self.advance(t)
        if v == self.sck_level:
            return
        self.sck_level = v
        if v:
            self.sck_high_since = t
            if not self.powered:
                return
            if self.pulses == 0:
                if not self.ready:
                    self.stray_pulses += 1
                    return
                self.word = self.data
                self.ready = False
            self.pulses += 1
            if self.pulses == 25:
                self.reads += 1
            if self.pulses >= 25:
                self.gain_next = {25: 128, 26: 32, 27: 64}.get(self.pulses, 128)
        else:
            high = t - self.sck_high_since
            if high > self.max_high_us:
                self.max_high_us = high
            if not self.powered:  # wake up reset: A/128, settle again
                self.powered = True
                self.gain = 128
                self.unsettled = 3
                self.pulses = 0
                self.ready = False
                self.next_conv = t + self.period_us
                return

    def dout_at(self, t):
        self.advance(t)
        if self.stuck_low:
            return 0
        if self.absent or not self.powered:
            return 1
        p = self.pulses
        if p == 0:
            return 0 if self.ready else 1
        if p <= 24:
            return (self.word >> (24 - p)) & 1
        return 1  # the 25th pulse pulled DOUT high

    def next_dout_change(self, t):
        """Earliest time after ``t`` when DOUT may change without a pin edge, or None."""
        if self.absent or self.stuck_low or not self.powered:
            if self.sck_level and self.powered:
                return self.sck_high_since + _POWER_DOWN_US + 1
            return None
        return self.next_conv


# --- rp2 --------------------------------------------------------------------------------------


class _PIOConst:
    IN_LOW = 0
    IN_HIGH = 1
    OUT_LOW = 2
    OUT_HIGH = 3
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2


class _Emit:
    """Records a PIO program as (op, args, side, delay) when ``asm_pio`` calls the function."""

    def __init__(self):
        self.code = []
        self.labels = {}
        self.wrap_target_at = 0
        self.wrap_at = None

    def _word(self, op, *args):
        self.code.append([op, args, None, 0])
        return self

    def side(self, v):
        self.code[-1][2] = v
        return self

    def __getitem__(self, delay):
        self.code[-1][3] = delay
        return self

    def label(self, name):
        self.labels[name] = len(self.code)

    def wrap_target(self):
        self.wrap_target_at = len(self.code)

    def wrap(self):
        self.wrap_at = len(self.code) - 1


_OPS = ("nop", "jmp", "wait", "in_", "out", "push", "pull", "mov", "irq", "set")
_NAMES = {
    "pins": "pins", "x": "x", "y": "y", "null": "null", "isr": "isr", "osr": "osr",
    "pin": "pin", "gpio": "gpio", "x_dec": "x_dec", "y_dec": "y_dec", "not_x": "not_x",
    "block": "block", "noblock": "noblock",
}


class FakeProgram:
    def __init__(self, emit, kw):
        self.code = emit.code
        self.labels = emit.labels
        self.wrap_target = emit.wrap_target_at
        self.wrap = emit.wrap_at if emit.wrap_at is not None else len(emit.code) - 1
        self.options = kw


class FakeStateMachine:
    """A PIO state machine that executes the recorded program against the chip model.

    Supports the instructions the HX711 program uses (pull, mov, set, wait pin, nop, in_ pins,
    jmp x_dec / always, push) with side-set and delays; one cycle per ``1e6 / freq`` us. It runs
    lazily up to the chip's ``now_us`` whenever the CPU calls ``rx_fifo``/``get``/``active``.
    """

    FIFO_DEPTH = 4

    def __init__(self, rp2, sm_id, prog, freq=125000000, in_base=None, sideset_base=None,
                 **kw):
        self.rp2 = rp2
        self.chip = rp2.chip
        self.id = sm_id
        self.prog = prog
        self.cycle_us = 1000000 // freq if freq <= 1000000 else 1  # coarse above 1 MHz
        self.in_base = in_base
        self.sideset_base = sideset_base
        self.rx = []
        self.tx = []
        self.puts = []
        self.running = False
        self.pc = 0
        self.x = self.y = self.isr = self.osr = 0
        self.t = self.chip.now_us
        self.executed = 0
        rp2.machines.append(self)
        self.chip.listeners.append(self._run)
        # init drives the side-set pin to its initial level (OUT_LOW) and owns it
        if sideset_base is not None:
            self.chip.set_sck(0, self.chip.now_us)

    def put(self, word):
        self.puts.append(word)
        self.tx.append(word & 0xFFFFFFFF)
        self._run()

    def active(self, v=None):
        if v is None:
            return self.running
        self._run()
        if v and not self.running:
            self.t = self.chip.now_us
        self.running = bool(v)
        self._run()

    def rx_fifo(self):
        self._run()
        return len(self.rx)

    def tx_fifo(self):
        return len(self.tx)

    def get(self, buf=None, shift=0):
        self._run()
        if not self.rx:
            raise AssertionError("sm.get() with an empty RX FIFO would block forever")
        word = self.rx.pop(0)
        self._run()
        return word >> shift

    def _run(self):
        if not self.running:
            return
        chip = self.chip
        until = chip.now_us
        code = self.prog.code
        labels = self.prog.labels
        steps = 0
        while self.t <= until:
            steps += 1
            if steps > 100000:
                raise AssertionError("PIO program runs away")
            op, args, side, delay = code[self.pc]
            t = self.t
            if side is not None:
                chip.set_sck(side, t)
            nxt = self.pc + 1
            if op == "pull":
                if not self.tx:
                    self.t = until + 1
                    return  # stalled (side-set applied, as on the hardware)
                self.osr = self.tx.pop(0)
            elif op == "mov":
                self._set(args[0], self._get(args[1]))
            elif op == "set":
                self._set(args[0], args[1])
            elif op == "wait":
                polarity, src, index = args
                if src != "pin" or index != 0:
                    raise AssertionError("fake PIO: only wait(pol, pin, 0) is modelled")
                if chip.dout_at(t) != polarity:
                    when = chip.next_dout_change(t)
                    if when is None or when > until:
                        self.t = until + 1 if when is None else when
                        return
                    self.t = max(when, t + self.cycle_us)
                    continue
            elif op == "in_":
                if args[0] != "pins" or args[1] != 1:
                    raise AssertionError("fake PIO: only in_(pins, 1) is modelled")
                self.isr = ((self.isr << 1) | chip.dout_at(t)) & 0xFFFFFFFF
            elif op == "jmp":
                if len(args) == 1:
                    nxt = labels[args[0]]
                elif args[0] == "x_dec":
                    if self.x:
                        nxt = labels[args[1]]
                    self.x = (self.x - 1) & 0xFFFFFFFF
                else:
                    raise AssertionError("fake PIO: jmp condition not modelled")
            elif op == "push":
                if len(self.rx) >= self.FIFO_DEPTH:
                    self.t = until + 1
                    return  # stalled until the CPU gets a word
                self.rx.append(self.isr)
                self.isr = 0
            elif op != "nop":
                raise AssertionError("fake PIO: instruction %s not modelled" % op)
            self.executed += 1
            if self.pc == self.prog.wrap and nxt == self.pc + 1:
                nxt = self.prog.wrap_target
            self.pc = nxt
            self.t = t + (1 + delay) * self.cycle_us

    def _get(self, src):
        if src == "osr":
            return self.osr
        if src == "x":
            return self.x
        if src == "y":
            return self.y
        if src == "isr":
            return self.isr
        if src == "null":
            return 0
        raise AssertionError("fake PIO: mov source not modelled")

    def _set(self, dst, v):
        if dst == "x":
            self.x = v
        elif dst == "y":
            self.y = v
        elif dst == "isr":
            self.isr = v
        elif dst == "osr":
            self.osr = v
        else:
            raise AssertionError("fake PIO: destination not modelled")


class FakeRP2:
    """An ``rp2`` module stand-in: ``asm_pio`` records programs, ``StateMachine`` runs them.

    ``rp2.machines`` lists every StateMachine constructed (restarts make new ones).
    """

    PIO = _PIOConst

    def __init__(self, chip):
        self.chip = chip
        self.machines = []
        self.assembled = 0

    def asm_pio(self, **kw):
        def dec(f):
            emit = _Emit()
            gl = f.__globals__
            saved = dict(gl)
            gl.clear()
            for name in _NAMES:
                gl[name] = _NAMES[name]
            for name in _OPS:
                gl[name] = _op(emit, name)
            gl["label"] = emit.label
            gl["wrap_target"] = emit.wrap_target
            gl["wrap"] = emit.wrap
            try:
                f()
            finally:
                gl.clear()
                gl.update(saved)
            self.assembled += 1
            return FakeProgram(emit, kw)

        return dec

    def StateMachine(self, sm_id, prog=None, **kw):
        return FakeStateMachine(self, sm_id, prog, **kw)


def _op(emit, name):
    def instr(*args):
        return emit._word(name, *args)

    return instr


# --- I2C accelerometers -----------------------------------------------------------------------


class FakeI2C:
    """A ``machine.I2C`` look-alike holding register-level devices (by their ``addr``).

    A missing address raises ``OSError(5)`` (EIO: no acknowledge), as the RP2 port does.
    ``broken = True`` makes every transfer, and ``scan``, fail like a bus with SDA stuck low.
    """

    def __init__(self, *devices):
        self.devices = {}
        for d in devices:
            self.devices[d.addr] = d
        self.broken = False

    def _dev(self, addr):
        if self.broken or addr not in self.devices:
            raise OSError(5)
        return self.devices[addr]

    def scan(self):
        if self.broken:
            raise OSError(5)
        return sorted(self.devices)

    def readfrom_mem_into(self, addr, memaddr, buf, addrsize=8):
        self._dev(addr).fill(memaddr, buf)

    def readfrom_mem(self, addr, memaddr, n, addrsize=8):
        buf = bytearray(n)
        self._dev(addr).fill(memaddr, buf)
        return bytes(buf)

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        self._dev(addr).write(memaddr, buf)


class _Regs:
    """A register file: 256 bytes, burst reads increment the address (when ``_inc`` says)."""

    def __init__(self, addr):
        self.addr = addr
        self.regs = bytearray(256)
        self.writes = []
        self.mg = (0, 0, 0)

    def _inc(self, memaddr):
        return True

    def _reg(self, memaddr):
        return memaddr & 0xFF

    def fill(self, memaddr, buf):
        # no allocation here: the drivers' read_into is measured through this
        reg = self._reg(memaddr)
        regs = self.regs
        if self._inc(memaddr):
            for i in range(len(buf)):
                buf[i] = regs[(reg + i) & 0xFF]
        else:
            for i in range(len(buf)):
                buf[i] = regs[reg]

    def write(self, memaddr, buf):
        reg = self._reg(memaddr)
        for i in range(len(buf)):
            self.writes.append((reg + i, buf[i]))
            self.regs[reg + i] = buf[i]
        self._update()

    def set_mg(self, ax, ay, az):
        """The acceleration the part feels, in milli-g."""
        self.mg = (ax, ay, az)
        self._update()

    def _update(self):
        pass


def _clamp16(v):
    return 32767 if v > 32767 else (-32768 if v < -32768 else v)


class FakeMPU6050(_Regs):
    """MPU-6050 registers: WHO_AM_I 0x75, PWR_MGMT_1 0x6B (resets to 0x40: asleep),
    CONFIG 0x1A, SMPLRT_DIV 0x19, ACCEL_CONFIG 0x1C (AFS_SEL bits 4:3: 16384 counts/g >> n),
    ACCEL_XOUT_H..ACCEL_ZOUT_L 0x3B-0x40 big-endian. Asleep, the data registers read 0."""

    def __init__(self, addr=0x68, who=0x68):
        super().__init__(addr)
        self.regs[0x75] = who
        self.regs[0x6B] = 0x40
        self._update()

    def _update(self):
        regs = self.regs
        asleep = regs[0x6B] & 0x40
        per_g = 16384 >> ((regs[0x1C] >> 3) & 3)
        for i in range(3):
            v = 0 if asleep else _clamp16(self.mg[i] * per_g // 1000)
            regs[0x3B + 2 * i] = (v >> 8) & 0xFF
            regs[0x3C + 2 * i] = v & 0xFF


class FakeLIS3DH(_Regs):
    """LIS3DH registers: WHO_AM_I 0x0F = 0x33, CTRL_REG1 0x20 (ODR bits 7:4; 0 = power-down),
    CTRL_REG4 0x23 (FS bits 5:4, HR bit 3), OUT_X_L 0x28.. little-endian, left-justified.
    A burst only increments the address when its MSB is set (datasheet 6.1.1)."""

    def __init__(self, addr=0x18):
        super().__init__(addr)
        self.regs[0x0F] = 0x33
        self.regs[0x20] = 0x07
        self._update()

    def _inc(self, memaddr):
        return bool(memaddr & 0x80)

    def _reg(self, memaddr):
        return memaddr & 0x7F

    def _update(self):
        regs = self.regs
        on = regs[0x20] >> 4
        fs = (regs[0x23] >> 4) & 3
        hr = regs[0x23] & 0x08
        mg_per_digit = (1 << fs) if hr else (4 << fs)  # 12-bit HR / 10-bit normal
        shift = 4 if hr else 6
        for i in range(3):
            v = 0 if not on else _clamp16((self.mg[i] // mg_per_digit) << shift)
            regs[0x28 + 2 * i] = v & 0xFF
            regs[0x29 + 2 * i] = (v >> 8) & 0xFF


class FakeADXL345(_Regs):
    """ADXL345 registers: DEVID 0x00 = 0xE5, BW_RATE 0x2C, POWER_CTL 0x2D (Measure bit 3; the
    part starts in standby: data reads 0), DATA_FORMAT 0x31 (FULL_RES bit 3, range bits 1:0),
    DATAX0 0x32.. little-endian; 256 counts/g in full resolution, else 256 >> range."""

    def __init__(self, addr=0x53):
        super().__init__(addr)
        self.regs[0x00] = 0xE5
        self._update()

    def _update(self):
        regs = self.regs
        measure = regs[0x2D] & 0x08
        rng = regs[0x31] & 3
        per_g = 256 if regs[0x31] & 0x08 else 256 >> rng
        for i in range(3):
            v = 0 if not measure else _clamp16(self.mg[i] * per_g // 1000)
            regs[0x32 + 2 * i] = v & 0xFF
            regs[0x33 + 2 * i] = (v >> 8) & 0xFF
