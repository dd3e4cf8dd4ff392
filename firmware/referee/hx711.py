"""HX711 24-bit load-cell ADC: an RP2 PIO back end and a GPIO bit-bang back end, one API.

Usage::

    from machine import Pin
    from referee.hx711 import HX711PIO, HX711GPIO

    hx = HX711PIO(0, Pin(16, Pin.IN), Pin(17, Pin.OUT))   # state machine 0 (config: Pico W)
    # hx = HX711GPIO(Pin(16, Pin.IN), Pin(17, Pin.OUT))   # any port, no PIO
    raw = hx.read()            # signed 24-bit count; OSError if no data within timeout_ms
    if hx.ready():             # non-blocking: a sample is waiting
        raw = hx.read_nowait() # int, or None when nothing is waiting
    hx.saturated               # True when the last reading was 0x7FFFFF or 0x800000
    hx.gain = 64               # 128 / 64: channel A, 32: channel B (next readings settle first)
    hx.power_down(); hx.power_up()

The chip (datasheet): DOUT goes low when a conversion is ready; each rising edge of PD_SCK shifts
out the next of 24 bits, MSB first, two's complement; 1, 2 or 3 further pulses (25, 26, 27 in
all) choose channel A gain 128, channel B gain 32 or channel A gain 64 for the NEXT conversion.
PD_SCK held high for more than 60 us powers the chip down; on power-up it resets to channel A,
gain 128. After power-up or a gain change the output needs 4 conversions to settle (datasheet
"output settling time" 400 ms at 10 SPS, 50 ms at 80 SPS): the driver drops those readings.

PIO contract (the virtual board and the test fakes implement rp2 against it):

* ``rp2.StateMachine(sm_id, program, freq=1_000_000, in_base=dout, sideset_base=sck)`` starts
  (and restarts) the program; ``program`` comes from ``rp2.asm_pio`` applied to ``_hx711_pio``.
* Right after that the driver writes ONE word with ``sm.put(extra_pulses - 1)``: 0 for A/128,
  1 for B/32, 2 for A/64, then ``sm.active(1)``. Nothing else is ever put.
* The program then loops by itself: wait for DOUT low, clock 24 bits in, give the extra pulses,
  push ONE word per conversion into the RX FIFO (4 deep) with the 24 raw bits right-aligned.
  When the FIFO is full it stalls with SCK low (no power-down; conversions are skipped).
* The driver checks ``sm.rx_fifo()`` (words waiting), reads with ``sm.get()``, masks 0xFFFFFF.
* A gain change or power-up repeats the two steps above: construct, put, active(1).
* ``power_down``: ``sm.active(0)``, then the driver drives SCK high as a GPIO
  (``sck.init(sck.OUT, value=1)``) and waits 1 ms; ``power_up``: ``sck.init(sck.OUT,
  value=0)`` and the restart above (constructing the state machine gives SCK back to the PIO).
"""

# The PIO instruction names (pull, mov, side, ...) exist only while rp2.asm_pio assembles.
# pyright: reportUndefinedVariable=false

import time

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


try:  # disable_irq guards the GPIO bit-bang where the port has it (rp2, esp32, ...)
    import machine

    _disable_irq = getattr(machine, "disable_irq", None)
    _enable_irq = getattr(machine, "enable_irq", None)
except ImportError:
    _disable_irq = _enable_irq = None

_MASK = const(0xFFFFFF)
_SIGN = const(0x800000)
_POS_FULL = const(0x7FFFFF)  # the chip clamps to these two codes outside its input range
_NEG_FULL = const(-0x800000)
_EXTRA = {128: 1, 32: 2, 64: 3}  # pulses after the 24 data bits -> channel/gain of the next
_PIO_FREQ = const(1000000)  # 1 us per PIO cycle: SCK high 2 us per bit (datasheet 0.2-50 us)


def decode(word):
    """Signed value of a 24-bit two's complement word (higher bits are ignored)."""
    word &= _MASK
    return word - 0x1000000 if word & _SIGN else word


def _default_sleep_ms(ms):
    sleep_ms = getattr(time, "sleep_ms", None)
    if sleep_ms is not None:
        sleep_ms(ms)
    else:  # CPython
        time.sleep(ms / 1000)


class _HX711:
    """What both back ends share: gain bookkeeping, settling, saturation, bounded waits."""

    settle_samples = 4  # readings dropped after power-up / gain change (datasheet settling)

    def __init__(self, gain, timeout_ms, sleep_ms):
        if gain not in _EXTRA:
            raise ValueError("gain must be 128, 64 (channel A) or 32 (channel B)")
        self._gain = gain
        self.timeout_ms = timeout_ms
        self._sleep_ms = sleep_ms or _default_sleep_ms
        self.saturated = False
        self._drop = self.settle_samples  # fresh chip: settle whatever the gain
        self.powered = True

    @property
    def gain(self):
        return self._gain

    @gain.setter
    def gain(self, value):
        if value not in _EXTRA:
            raise ValueError("gain must be 128, 64 (channel A) or 32 (channel B)")
        if value != self._gain:
            self._gain = value
            self._set_gain()
            self._drop = self.settle_samples

    def _value(self, word):
        v = decode(word)
        self.saturated = v == _POS_FULL or v == _NEG_FULL
        return v

    # what each back end provides
    def ready(self):
        raise NotImplementedError

    def _fetch(self):
        raise NotImplementedError

    def _set_gain(self):
        raise NotImplementedError

    def read_nowait(self):
        """The next reading if one is waiting, else None (settling readings are dropped)."""
        while self.ready():
            word = self._fetch()
            if self._drop:
                self._drop -= 1
                continue
            return self._value(word)
        return None

    def read(self):
        """Wait for the next reading (at most ``timeout_ms`` per conversion) and return it."""
        if not self.powered:
            raise OSError("HX711 is powered down: call power_up() first")
        while True:
            waited = 0
            while not self.ready():
                if waited >= self.timeout_ms:
                    raise OSError(
                        "HX711 not responding: no data ready within %d ms" % self.timeout_ms
                    )
                self._sleep_ms(1)
                waited += 1
            word = self._fetch()
            if self._drop:
                self._drop -= 1
                continue
            return self._value(word)


class HX711GPIO(_HX711):
    """Bit-banged HX711 on two ``machine.Pin`` objects: ``dout`` (input), ``sck`` (output).

    Each SCK high phase is one pin write long (a few us on a Pico), far below the 60 us that
    powers the chip down; interrupts are disabled around the 25-27 pulses where the port allows.
    """

    def __init__(self, dout, sck, gain=128, timeout_ms=500, sleep_ms=None):
        self._dout = dout
        self._sck = sck
        sck.value(0)
        super().__init__(gain, timeout_ms, sleep_ms)

    def ready(self):
        return self.powered and self._dout.value() == 0

    def _set_gain(self):
        pass  # the pulses of the next read select it

    def _fetch(self):
        sck = self._sck.value  # bound to locals: the loop must stay tight
        dout = self._dout.value
        extra = _EXTRA[self._gain]
        word = 0
        state = _disable_irq() if _disable_irq is not None else None
        try:
            for _ in range(24):
                sck(1)
                sck(0)
                word = (word << 1) | dout()  # valid from the rising edge to the next one
            for _ in range(extra):
                sck(1)
                sck(0)
        finally:
            if _enable_irq is not None:
                _enable_irq(state)
        if dout() == 0:
            # the last pulse forces DOUT high until the next conversion; low means no chip
            raise OSError("HX711 not responding: DOUT stays low (check wiring)")
        return word

    def power_down(self):
        """SCK high; returns 1 ms later, when the chip surely sleeps (> 60 us), so that
        ``power_down(); power_up()`` is a real reset."""
        self._sck.value(0)
        self._sck.value(1)
        self._sleep_ms(1)
        self.powered = False

    def power_up(self):
        self._sck.value(0)  # the chip wakes reset to channel A, gain 128
        self.powered = True
        self._drop = self.settle_samples  # the first reading's pulses set our gain again


def _hx711_pio():
    pull(block).side(0)  # the one word put at start: extra pulses - 1 (0, 1 or 2)
    mov(y, osr).side(0)
    wrap_target()
    # 24 data bits (this is the PIO set instruction, not the builtin)
    set(x, 23).side(0)  # type: ignore
    wait(0, pin, 0).side(0)  # DOUT low: a conversion is ready
    label("bit")
    nop().side(1)[1]  # SCK high 2 us: the chip shifts out the next bit
    in_(pins, 1).side(0)  # sample DOUT as SCK falls (it changes only on rising edges)
    jmp(x_dec, "bit").side(0)
    mov(x, y).side(0)
    label("gain")
    nop().side(1)[1]  # 1-3 extra pulses: channel and gain of the next conversion
    jmp(x_dec, "gain").side(0)[1]
    push(block).side(0)  # ONE word: the 24 bits right-aligned; stalls (SCK low) if full
    wrap()


_program = None  # (rp2 module, assembled program): assembled once per rp2 implementation


def _assemble(rp2):
    global _program
    if _program is None or _program[0] is not rp2:
        prog = rp2.asm_pio(
            sideset_init=rp2.PIO.OUT_LOW,
            in_shiftdir=rp2.PIO.SHIFT_LEFT,
            autopush=False,
            autopull=False,
        )(_hx711_pio)
        _program = (rp2, prog)
    return _program[1]


class HX711PIO(_HX711):
    """HX711 read by an RP2 PIO state machine ``sm_id`` (0-7; on a Pico W one is the radio's).

    The state machine clocks every conversion by itself; the CPU only collects words, so SCK
    timing never depends on Python or interrupts. See the module docstring for the contract.
    """

    def __init__(self, sm_id, dout, sck, gain=128, timeout_ms=500, sleep_ms=None):
        import rp2  # here, not at the top: the module also serves ports without rp2

        self._rp2 = rp2
        self._prog = _assemble(rp2)
        self._sm_id = sm_id
        self._dout = dout
        self._sck = sck
        super().__init__(gain, timeout_ms, sleep_ms)
        self._start()

    def _start(self):
        sm = self._rp2.StateMachine(
            self._sm_id, self._prog, freq=_PIO_FREQ, in_base=self._dout, sideset_base=self._sck
        )
        sm.put(_EXTRA[self._gain] - 1)
        sm.active(1)
        self._sm = sm

    def ready(self):
        return self.powered and self._sm.rx_fifo() > 0

    def _fetch(self):
        return self._sm.get() & _MASK

    def _set_gain(self):
        if self.powered:
            self._sm.active(0)
            self._start()  # fresh FIFO: nothing converted with the old gain is left

    def power_down(self):
        """Stop the state machine, SCK high as a GPIO; returns 1 ms later, when the chip
        surely sleeps (> 60 us), so that ``power_down(); power_up()`` is a real reset."""
        self._sm.active(0)
        sck = self._sck
        sck.init(sck.OUT, value=1)
        self._sleep_ms(1)
        self.powered = False

    def power_up(self):
        sck = self._sck
        sck.init(sck.OUT, value=0)  # the chip wakes reset to channel A, gain 128
        self.powered = True
        self._drop = self.settle_samples
        self._start()  # takes SCK back for the PIO

    def deinit(self):
        self._sm.active(0)
