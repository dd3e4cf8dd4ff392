"""HX711 read by an RP2 PIO state machine: the back end a Pico uses (``referee.hx711`` holds
what both back ends share; this module is imported only by a board that runs it).

Usage::

    from machine import Pin
    from referee.hx711pio import HX711PIO      # or hx711.HX711PIO

    hx = HX711PIO(0, Pin(16, Pin.IN), Pin(17, Pin.OUT))   # state machine 0 (config: Pico W)
    raw = hx.read_nowait()     # the API of referee.hx711

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

from referee.hx711 import _HX711

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


_MASK = const(0xFFFFFF)
_PIO_FREQ = const(1000000)  # 1 us per PIO cycle: SCK high 2 us per bit (datasheet 0.2-50 us)


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
        sm.put(self._extra - 1)
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
