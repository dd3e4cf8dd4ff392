"""Firmware resources measured under MicroPython (unix port, Pico-sized heap).

    .venv/bin/python bench/bench_firmware_resources.py           # full run (about a minute)
    .venv/bin/python bench/bench_firmware_resources.py --quick   # fewer samples, no game
    .venv/bin/python bench/bench_firmware_resources.py --micropython /work/mp32/micropython
                                       # the same under another unix port build (a 32-bit one)

Prints:

1. Per-sample cost in steady state, the firmware alone under ``micropython -X heapsize=192k``:
   a Referee (root=None: game log in memory) in a started game, fed a quiet platform from the
   simulated table; bytes allocated per ``Referee.sample`` and per ``Detector.feed``
   (``gc.mem_alloc`` before/after N samples, no collection in between) and microseconds per
   sample, next to the very same code and samples on CPython (the ratio).
2. Heap on the virtual board (the whole board: main.py, board loop, drivers, referee): in use
   after boot and after a full game played by bots, ``gc.mem_alloc()`` after ``gc.collect()``,
   read at the REPL after Ctrl-C without a soft reset (``mpremote resume``), minus the virtual
   board's own runtime (measured at a bare REPL). The word size of the build is printed with
   the figures: the 64-bit port's objects are larger than on the RP2040 (an upper bound for the
   Pico); a 32-bit build has the RP2040's object sizes (docs/heap.md).

``--micropython PATH`` (or ``RHINOREF_MICROPYTHON=PATH``, which every MicroPython run of the
host follows, the virtual board's included) runs another unix port build instead of this
environment's.

Targets (SPEC 6): <= 64 KB of heap after a full game; 0 bytes per sample.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "host"))

from rhinoref.mpy import (HEAP_ARGS, MICROPYTHON_MISSING, micropython_binary,  # noqa: E402
                          word_bits)

WORKER = r'''
import sys, gc
sys.path.insert(0, sys.argv[1])
try:
    import time
    ticks_us, ticks_diff = time.ticks_us, time.ticks_diff
except AttributeError:
    import time
    ticks_us = lambda: int(time.perf_counter() * 1000000)
    ticks_diff = lambda a, b: a - b
from array import array
if not hasattr(gc, "mem_alloc"):  # CPython: timing only
    gc.mem_alloc = lambda: 0
from referee import app, calibration, detector

cal_in = [float(x) for x in sys.argv[2].split(",")]
n = int(sys.argv[3])
path = sys.argv[4]
m = int(sys.argv[5])
raw = array("i", bytearray(4 * m))
ax = array("i", bytearray(4 * m))
ay = array("i", bytearray(4 * m))
az = array("i", bytearray(4 * m))
with open(path) as f:
    i = 0
    for line in f:
        p = line.split(",")
        raw[i] = int(p[0]); ax[i] = int(p[1]); ay[i] = int(p[2]); az[i] = int(p[3])
        i += 1
gc.collect()
cal = calibration.Calibration()
cal.offset = int(cal_in[0]); cal.counts_per_gram = cal_in[1]
cal.wall_g, cal.roof_g, cal.rhino_g = cal_in[2], cal_in[3], cal_in[4]
cal.learned = True

def make_det(c, sps, accel):
    return detector.Detector(cal, sps=sps, accel=accel)

ref = app.Referee(root=None, sps=80, accel=True, t_ms=0, make_detector=make_det)
print("reply", ref.command(0, '{"cmd": "new_game", "players": 3, "first": 0, "side": "easy"}'))
m = len(raw)
t = 0
for i in range(400):  # warm up: detector baseline, first events, cues
    t += 12
    ref.sample(t, raw[i % m], ax[i % m], ay[i % m], az[i % m])
    ref.pop_events()
ref.pop_events()
sample = ref.sample
# (every global the measured loop sets is bound before it: one first set inside it grows the
# module's globals dict, 128 bytes on the 64-bit port that are not the firmware's)
j = dt = a1 = 0
gc.collect()
a0 = gc.mem_alloc()
t0 = ticks_us()
for i in range(n):
    t += 12
    j = i % m
    sample(t, raw[j], ax[j], ay[j], az[j])
dt = ticks_diff(ticks_us(), t0)
a1 = gc.mem_alloc()
print("referee_bytes", a1 - a0, "samples", n, "us", dt)
det = detector.Detector(cal, sps=80, accel=True)
for i in range(400):
    det.feed(i * 12, raw[i % m], ax[i % m], ay[i % m], az[i % m])
feed = det.feed
gc.collect()
a0 = gc.mem_alloc()
t0 = ticks_us()
for i in range(n):
    j = i % m
    feed(t + i * 12, raw[j], ax[j], ay[j], az[j])
dt = ticks_diff(ticks_us(), t0)
a1 = gc.mem_alloc()
print("detector_bytes", a1 - a0, "samples", n, "us", dt)
'''


def quiet_samples(path, count):
    from rhinoref.table import Table

    table = Table(seed=5, sps=80, accel=True)
    table.idle(count * 13)
    with open(path, "w") as f:
        for _ in range(count):
            _, raw, ax, ay, az, _ = table.next_sample()
            f.write("%d,%d,%d,%d\n" % (raw, ax, ay, az))
    cal = table.calibration()
    return "%d,%r,%r,%r,%r" % (cal.offset, cal.counts_per_gram, cal.wall_g, cal.roof_g,
                               cal.rhino_g)


def parse(out):
    figs = {}
    for line in out.splitlines():
        p = line.split()
        if p and p[0] in ("referee_bytes", "detector_bytes"):
            figs[p[0]] = (int(p[1]), int(p[3]), int(p[5]))
    return figs


def compiled_firmware(tmp):
    """The firmware as the board runs it: .mpy files from mpy-cross (compiling app.py from
    source needs more heap than a Pico has, on the board as here)."""
    from rhinoref.mpy import mpy_cross_binary

    out = Path(tmp) / "fw"
    (out / "referee").mkdir(parents=True)
    for src in (ROOT / "firmware" / "referee").glob("*.py"):
        subprocess.run([mpy_cross_binary(), "-o", str(out / "referee" / (src.stem + ".mpy")),
                        "-s", "referee/" + src.name, str(src)], check=True)
    return out


def use_micropython(path):
    """Run every later MicroPython of this process and its children (the virtual board,
    rhinoref) under ``path``."""
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise SystemExit("not an executable: %s" % path)
    os.environ["RHINOREF_MICROPYTHON"] = os.path.abspath(path)


def per_sample(n):
    exe = micropython_binary()
    with tempfile.TemporaryDirectory() as tmp:
        fw_mpy = compiled_firmware(tmp)
        worker = Path(tmp) / "worker.py"
        worker.write_text(WORKER)
        data = Path(tmp) / "quiet.csv"
        cal = quiet_samples(data, 500)
        args = [str(worker), str(ROOT / "firmware"), cal, str(n), str(data), "500"]
        mp_args = list(args)
        mp_args[1] = str(fw_mpy)
        mp = subprocess.run([exe, *HEAP_ARGS, *mp_args], capture_output=True, text=True,
                            timeout=600)
        if mp.returncode:
            raise SystemExit("MicroPython worker failed:\n" + mp.stdout + mp.stderr)
        cp = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                            timeout=600)
        if cp.returncode:
            raise SystemExit("CPython worker failed:\n" + cp.stdout + cp.stderr)
    m, c = parse(mp.stdout), parse(cp.stdout)
    print("per sample, steady state (quiet platform, game started), %d samples, %d-bit "
          "MicroPython:" % (n, word_bits(exe)))
    for key, name in (("referee_bytes", "Referee.sample"), ("detector_bytes", "Detector.feed")):
        b, cnt, us = m[key]
        cus = c[key][2]
        print("  %-15s MicroPython: %6.1f bytes/sample (%d bytes in all), %6.1f us/sample; "
              "CPython %5.2f us/sample; MicroPython/CPython %.1fx"
              % (name, b / cnt, b, us / cnt, cus / cnt, us / max(1, cus)))


def board_heap(timeout):
    from rhinoref.vboard.measure import firmware_heap

    bits = word_bits(micropython_binary())
    print("virtual board heap (gc.mem_alloc after gc.collect; %d-bit unix port):" % bits)
    for romfs, layout in ((False, ".mpy files on the flash filesystem"),
                          (True, "the package in the ROMFS partition (deploy --romfs)")):
        fig = firmware_heap(romfs=romfs, timeout=timeout)
        base, result = fig["runtime"], fig["result"]
        print("  %s:" % layout)
        print("    runtime of the virtual board itself:  %6.1f KB" % (base / 1024))
        print("    after boot, at the REPL (modules):    %6.1f KB firmware"
              % ((fig["boot"] - base) / 1024))
        if result is None:
            print("    no game result within %d s" % timeout)
            continue
        print("    during a full game (%s, winners %s, %.0f s simulated in %.1f s real),"
              % (result.get("result"), result.get("winners"), fig["sim_s"], fig["real_s"]))
        print("      every 8 s while the app runs:       %6.1f KB firmware at most "
              "(target <= 64 KB), %d readings" % ((fig["peak"] - base) / 1024, len(fig["marks"])))
        print("    after the game, at the REPL:          %6.1f KB firmware"
              % ((fig["game"] - base) / 1024))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer samples, no game on the board")
    ap.add_argument("--samples", type=int, default=None)
    ap.add_argument("--micropython", metavar="PATH",
                    help="unix port build to run instead of this environment's (a 32-bit one)")
    args = ap.parse_args()
    if args.micropython:
        use_micropython(args.micropython)
    if micropython_binary() is None:
        print("skipped:", MICROPYTHON_MISSING)
        return 0
    per_sample(args.samples or (2000 if args.quick else 20000))
    if not args.quick:
        board_heap(timeout=240)
    return 0


if __name__ == "__main__":
    sys.exit(main())
