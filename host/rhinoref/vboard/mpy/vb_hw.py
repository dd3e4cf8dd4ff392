# The virtual board's hub (MicroPython unix port only): the link to the host, simulated time,
# and the state of the simulated hardware that vb_machine, vb_rp2 and vb_neopixel expose.
#
# Usage (by vboot.py, before the firmware runs):
#     import vb_hw
#     cfg = vb_hw.connect(fd)          # hello: the host's configuration as a dict
#     vb_hw.now_us()                   # simulated microseconds since power-on
#
# Time. The board clock is simulated. In fast mode (speed 0) it runs only when the firmware
# waits: sleep_ms/us, machine.idle/lightsleep, a poll with a timeout, an empty PIO RX FIFO
# (the loop would wait for the next HX711 conversion there, so the clock jumps to it), plus a
# few microseconds of "CPU time" per clock read so that any busy-wait ends. In paced mode
# (speed > 0) it also follows the wall clock scaled by speed, and waits really sleep.
#
# Samples. The host's simulated table answers "S" requests with fixed-size batches of records
# (t_us, raw, ax, ay, az, gpio, hold_ms, rolled), all records up to a horizon. A record with
# gpio >= 0 is a button press: the pin reads 0 from t_us for hold_ms. Records feed the HX711
# state machine's RX FIFO (4 deep, 8 with fifo_join: a full FIFO loses conversions, as the PIO
# stalls), the accelerometer's output registers, the button pins, and a ball tilt switch's
# pin (when the board has one: low at rest, the ball on its contacts; rolled = 1 lets it go
# high and back, two edges at t_us).
#
# Ctrl-C. While code runs, the host answers the next sample fetch with a count of -1 instead
# of records, and _took_batch raises KeyboardInterrupt: at a safe point, as on a Pico. Code
# that fetches nothing for a while gets a SIGINT instead (KeyboardInterrupt from the signal
# handler). Every call to the host has a fixed-size reply read with ONE readinto, so such a
# KeyboardInterrupt either leaves the whole reply unread (then it is owed, and drained before
# the next call) or comes after it: the stream never desynchronises.

import array
import sys
import time as _rt
from micropython import const

_REC = const(8)  # int64 fields per record
CAP = const(64)  # records per batch
_QUANTUM = const(10)  # us of simulated CPU time per clock read in fast mode
_REPLY_S = 16 + CAP * _REC * 8
_REPLY_ACK = const(8)

# Link ------------------------------------------------------------------------------------------

_f = None
_hdr = bytearray(4)
_ack = bytearray(_REPLY_ACK)
_owed = 0  # size of a reply that a KeyboardInterrupt left unread (0: none)
_req = bytearray(4 + 16)
_out = bytearray(0)  # scratch for frames: one write per message


def _put(kind, payload):
    # One message: kind byte, 3-byte little-endian length, payload, in a single write() so that
    # a KeyboardInterrupt can never cut a message in two.
    global _out
    n = len(payload)
    if len(_out) < n + 4:
        _out = bytearray(n + 4)
    o = _out
    o[0] = kind
    o[1] = n & 255
    o[2] = (n >> 8) & 255
    o[3] = n >> 16
    o[4 : 4 + n] = payload
    _f.write(memoryview(o)[: n + 4])


def _drain():
    # Read a reply that a KeyboardInterrupt left unread, so the next call gets its own.
    global _owed
    while _owed:
        if _owed == _REPLY_S:
            if _f.readinto(_batch_raw) != _REPLY_S:
                _lost()
            _owed = 0
            _took_batch()
        else:
            if _f.readinto(_ack) != _owed:
                _lost()
            _owed = 0


def _lost():
    # The host went away: nothing to simulate against any more.
    global lost
    lost = True
    raise SystemExit(99)


def send(kind, payload=b""):
    """Fire-and-forget message to the host (LED frame, buzzer, note, exit reason)."""
    _drain()
    _put(kind, payload)


def call_ack(kind, payload=b""):
    """Message that the host acknowledges with 8 bytes (returned as an int)."""
    global _owed
    _drain()
    _owed = _REPLY_ACK
    _put(kind, payload)
    if _f.readinto(_ack) != _REPLY_ACK:
        _lost()
    _owed = 0
    return int.from_bytes(_ack, "little")


def set_intr(c):
    """The interrupt character: 3 while code runs (Ctrl-C raises KeyboardInterrupt), -1 at the
    REPL prompt (Ctrl-C is then just a byte). The host's serial bridge acts on it."""
    call_ack(ord("I"), str(c).encode())


def connect(fd):
    """Open the host link on an inherited socket fd; return the host's configuration."""
    global _f, speed, _now, _wall0, _fast
    import json

    _f = open(fd, "r+b")
    _put(ord("H"), b"hello")
    if _f.readinto(_hdr) != 4:
        _lost()
    n = _hdr[1] | _hdr[2] << 8 | _hdr[3] << 16
    body = bytearray(n)
    if _f.readinto(body) != n:
        _lost()
    cfg = json.loads(body)
    speed = cfg["speed"]
    _fast = speed <= 0
    _now = cfg["now_us"]
    _wall0 = _rt.ticks_us()
    _setup(cfg)
    return cfg


# Clock and events ------------------------------------------------------------------------------

speed = 0
_fast = True
_now = 0  # simulated us since power-on
_wall0 = 0  # real ticks_us at simulated _wall_base
_wall_base = 0
_batch_raw = array.array("q", bytearray(_REPLY_S))  # [n, horizon, records...]
_n = 0  # records in the batch
_i = 0  # next record to apply
_horizon = 0  # the host has told us everything up to here
_next_t = 0  # time of the next record (or horizon + 1)
_timed = []  # [t_us, kind, arg] pending: button releases, timers; sorted by t
_in_events = False
wdt_deadline = -1  # us; -1: no watchdog running
wdt_timeout = 0
irq_enabled = True
_irq_backlog = []


def now_us():
    """Current simulated time (advancing it by a CPU quantum, or to the wall clock)."""
    global _now
    if _fast:
        _now += _QUANTUM
    else:
        w = _wall_base + int(_rt.ticks_diff(_rt.ticks_us(), _wall0) * speed)
        if w > _now:
            _now = w
    if _now >= _next_t:
        _apply(_now)
    return _now


def peek_us():
    return _now


def _apply(t):
    # Apply every record and timed event up to t, in time order.
    global _i, _next_t, _in_events
    if _in_events:
        return
    _in_events = True
    try:
        while True:
            if _i >= _n:
                if t <= _horizon:
                    break
                _fetch(t, 1)
                continue
            rec = _batch_raw
            base = 2 + _i * _REC
            rt = rec[base]
            et = _timed[0][0] if _timed else rt + 1
            if et <= rt and et <= t:
                _at(et)
                _fire_timed()
                continue
            if rt > t:
                break
            _i += 1
            _at(rt)
            _record(rec, base)
        while _timed and _timed[0][0] <= t:
            _at(_timed[0][0])
            _fire_timed()
        if 0 <= wdt_deadline <= t:
            _at(wdt_deadline)
            _watchdog_bites()
        _recompute_next()
    finally:
        _in_events = False


def _at(t):
    # Handlers run at their event's time, even inside a long jump of the clock.
    global _now
    if t > _now:
        _now = t


def _recompute_next():
    global _next_t
    t = _batch_raw[2 + _i * _REC] if _i < _n else _horizon + 1
    if _timed and _timed[0][0] < t:
        t = _timed[0][0]
    if 0 <= wdt_deadline < t:
        t = wdt_deadline
    _next_t = t


def _fetch(t, min_count):
    # Ask the host for every record up to t (and at least min_count more).
    global _owed, _n, _i, _horizon
    _drain()
    r = _req
    r[0] = ord("S")
    r[1] = 16
    r[2] = 0
    r[3] = 0
    r[4:12] = t.to_bytes(8, "little")
    r[12:20] = min_count.to_bytes(8, "little")
    _owed = _REPLY_S
    _f.write(r)
    if _f.readinto(_batch_raw) != _REPLY_S:
        _lost()
    _owed = 0
    _took_batch()


def _took_batch():
    global _n, _i, _horizon
    if _batch_raw[0] < 0:
        # Ctrl-C from the port: raised here, between bytecodes, as a Pico raises it. The
        # batch before stays as it was, so the next fetch asks for the same records again.
        raise KeyboardInterrupt
    _n = _batch_raw[0]
    _horizon = _batch_raw[1]
    _i = 0
    _recompute_next()
    if heap_probe:
        _probe_heap()


# Heap probe (VirtualBoard(heap_probe=N), for benchmarks and tests): every N batches, while the
# firmware waits for a sample with all its objects alive, collect and report gc.mem_alloc().
heap_probe = 0
_probe_count = 0


def _probe_heap():
    global _probe_count
    _probe_count += 1
    if _probe_count >= heap_probe:
        import gc

        _probe_count = 0
        call_ack(ord("m"))  # from here the host holds Ctrl-C back until "M"
        gc.collect()
        send(ord("M"), gc.mem_alloc().to_bytes(8, "little"))


def _next_event_t():
    # Time of the next thing that will happen (fetching records if needed).
    if _i >= _n:
        _fetch(_now, 1)
    _recompute_next()
    return _next_t


def wait_us(dt):
    """The firmware waits dt microseconds (sleep): the clock moves, events fire."""
    until = now_us() + dt
    _wait_until(until)


def _wait_until(until):
    global _now
    if not _fast:
        while True:
            w = _wall_base + int(_rt.ticks_diff(_rt.ticks_us(), _wall0) * speed)
            if w >= until:
                break
            step = int((until - w) / speed)
            _rt.sleep_us(step if step < 20000 else 20000)
            _apply(w)
    if until > _now:
        _now = until
    _apply(_now)


def wait_event(limit_us=-1):
    """Idle until the next event (record, timer, button release), at most limit_us."""
    now_us()
    t = _next_event_t()
    if limit_us >= 0 and t > _now + limit_us:
        t = _now + limit_us
    if t > _now:
        _wait_until(t)
    else:
        _apply(_now)


def schedule(t, kind, arg):
    """Add a timed event (kind: 0 button release, 1 timer)."""
    ev = [t, kind, arg]
    i = 0
    n = len(_timed)
    while i < n and _timed[i][0] <= t:
        i += 1
    _timed.insert(i, ev)
    global _next_t
    if t < _next_t:
        _next_t = t
    return ev


def unschedule(ev):
    try:
        _timed.remove(ev)
    except ValueError:
        pass


def _fire_timed():
    ev = _timed.pop(0)
    kind = ev[1]
    if kind == 0:
        _set_ext(ev[2], 255, ev[0])
    else:
        ev[2]._due(ev)


def _watchdog_bites():
    exit_board("wdt")


def exit_board(how, mode="friendly"):
    """End this boot ("soft", "hard" or "wdt" reset): the host stops this process and starts
    the next boot. Blocks until then, so no firmware code runs after a reset."""
    global _owed
    _drain()
    _owed = _REPLY_ACK
    _put(ord("Z"), ("%s %s %d" % (how, mode, _now)).encode())
    while True:
        _f.readinto(_ack)  # never answered: the host ends the process
        raise SystemExit(99)


# Pins ------------------------------------------------------------------------------------------

NPINS = const(30)
mode = bytearray(b"\xff" * NPINS)  # 255 unset, 0 IN, 1 OUT, 2 OPEN_DRAIN, 3 ALT
pull = bytearray(NPINS)  # 0 none, 1 up, 2 down
out = bytearray(NPINS)  # output latch
ext = bytearray(b"\xff" * NPINS)  # level driven from outside (button), 255 none
irq_handler = [None] * NPINS
irq_trigger = bytearray(NPINS)
_IRQ_FALLING = const(4)
_IRQ_RISING = const(8)


def level(g):
    e = ext[g]
    if e != 255:
        return e
    m = mode[g]
    if m == 1:
        return out[g]
    if m == 2:
        return 0 if out[g] == 0 else (1 if pull[g] == 1 else 0)
    return 1 if pull[g] == 1 else 0


def _set_ext(g, v, t):
    before = level(g)
    ext[g] = v
    after = level(g)
    if before != after:
        _edge(g, after)


def _edge(g, new):
    h = irq_handler[g]
    if h is None:
        return
    trig = irq_trigger[g]
    if (new == 0 and trig & _IRQ_FALLING) or (new == 1 and trig & _IRQ_RISING):
        if irq_enabled:
            h[0](h[1])
        else:
            _irq_backlog.append(h)


def run_irq_backlog():
    while _irq_backlog:
        h = _irq_backlog.pop(0)
        h[0](h[1])


# HX711 state machine, accelerometer and LEDs ------------------------------------------------

hx_dout = -1
hx_sck = -1
hx_sm = None  # the StateMachine wired to the HX711 (set by vb_rp2 when it becomes active)
fifo = array.array("i", bytes(32))
fifo_n = 0
fifo_r = 0
fifo_depth = 4
fifo_lost = 0
accel = array.array("i", bytes(12))  # latest ax, ay, az in milli-g
i2c_bus = None  # (id, sda, scl) of the accelerometer's bus, or None
accel_addr = -1
led_pin = -1
tilt_pin = -1  # GPIO of a ball tilt switch (VirtualBoard(tilt_pin=)), or -1
unique = b"\0" * 8
lost = False


def _setup(cfg):
    global hx_dout, hx_sck, i2c_bus, accel_addr, led_pin, unique, heap_probe, tilt_pin
    import binascii

    heap_probe = cfg.get("heap_probe", 0)

    unique = binascii.unhexlify(cfg["unique_id"])
    hx_dout = cfg["hx711_dout"]
    hx_sck = cfg["hx711_sck"]
    if cfg.get("accel_addr") is not None:
        i2c_bus = tuple(cfg["i2c"])
        accel_addr = cfg["accel_addr"]
    led_pin = cfg["led_pin"]
    tilt_pin = cfg.get("tilt_pin", -1)
    if tilt_pin >= 0:
        ext[tilt_pin] = 0  # a ball switch upright is closed: its pin reads low at rest
    # The accelerometer samples on its own: its registers hold data from the start.
    a = cfg.get("accel_now") or (0, 0, 0)
    accel[0], accel[1], accel[2] = a[0], a[1], a[2]


def _record(rec, base):
    global fifo_n, fifo_lost
    accel[0] = rec[base + 2]
    accel[1] = rec[base + 3]
    accel[2] = rec[base + 4]
    sm = hx_sm
    if sm is not None and sm._active:
        if fifo_n < fifo_depth:
            fifo[(fifo_r + fifo_n) & 7] = rec[base + 1] & 0xFFFFFF
            fifo_n += 1
        else:
            fifo_lost += 1
    g = rec[base + 5]
    if 0 <= g < NPINS:
        t = rec[base]
        _set_ext(g, 0, t)
        schedule(t + rec[base + 6] * 1000, 0, g)
    if rec[base + 7] and tilt_pin >= 0:
        # The ball rolled off its contacts (the pull-up wins) and back during this conversion.
        _set_ext(tilt_pin, 255, rec[base])
        _set_ext(tilt_pin, 0, rec[base])


def fifo_get():
    global fifo_n, fifo_r
    v = fifo[fifo_r]
    fifo_r = (fifo_r + 1) & 7
    fifo_n -= 1
    return v


def fifo_clear():
    global fifo_n, fifo_r
    fifo_n = 0
    fifo_r = 0


def led_frame(pin, buf):
    """Send an LED frame (the bytes as clocked out on the data pin) with its time."""
    n = len(buf)
    global _out
    if len(_out) < n + 13:
        _out = bytearray(n + 13)
    o = _out
    m = n + 9
    o[0] = ord("L")
    o[1] = m & 255
    o[2] = (m >> 8) & 255
    o[3] = m >> 16
    o[4:12] = _now.to_bytes(8, "little")
    o[12] = pin
    o[13 : 13 + n] = buf
    _drain()
    _f.write(memoryview(o)[: n + 13])
