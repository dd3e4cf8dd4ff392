"""Where the firmware's heap goes, on MicroPython (SPEC 6: <= 64 KB after boot and a full game).

    .venv/bin/python bench/bench_heap.py           # modules, objects, the virtual board's game
    .venv/bin/python bench/bench_heap.py --quick   # modules and objects only (a few seconds)
    .venv/bin/python bench/bench_heap.py --micropython /work/mp32/micropython  # + a 32-bit build

Prints:

1. Per module, imported from ``.mpy`` files as deployed (mpy-cross), one after the other in the
   order a boot loads them, under ``micropython -X heapsize=192k``: ``gc.mem_alloc()`` after
   ``gc.collect()`` before and after each import (what the module adds beyond the modules it
   imports and that were loaded before it). Column ``romfs``: the same imports from a ROMFS
   image (``mpremote romfs build``, mounted with ``vfs.VfsRom``): MicroPython then runs the
   bytecode and strings in place, so what is left on the heap is the module's objects (function
   objects, raw-code records, dicts, tables built at import, qstr pool entries). ``file - romfs``
   is therefore the byte-sized part (bytecode, string data), the same on every port.
2. What a boot holds: the modules in ``sys.modules`` after ``main.py``'s own imports,
   ``board._load()`` and the driver modules ``board.Hardware()`` picks on the reference board
   (``HARDWARE_MODULES``: HX711 on PIO, MPU-6050), and their total, then what is loaded only on
   demand.
3. Objects: a ``Referee`` (real detector, files in a temporary directory as on the flash) and a
   ``Detector`` alone.
4. (not with --quick) The whole firmware on the virtual board after boot and after a full game
   played by bots (``bench_firmware_resources.board_heap``).

32-bit estimate (made before a 32-bit build was measured; kept to check it). The 64-bit figure is
split as above into bytes B = file - romfs (bytecode, string data: the same size on the RP2040)
and objects O = romfs (made of pointers and words: half the size on the RP2040, and GC blocks of
16 instead of 32 bytes, so their rounding halves too). Estimate = B + O / 2. Uncertainty: a
few small objects hold byte fields (hash and length of a qstr, small ints in tables), so O / 2
is slightly low; allocations are rounded to 16 instead of 32 bytes, so B is slightly high. We
take +-10 % as the band.

``--micropython PATH``: measure under that unix port build too (a 32-bit one, built by hand as
docs/heap.md says, has the RP2040's word, object and GC block sizes) and print its figures next
to the 64-bit ones and the estimate; the virtual board's game (not with --quick) runs on both.
Every table is labelled with the word size of the build it was measured on (``sys.maxsize``).
``RHINOREF_MICROPYTHON=PATH`` instead replaces this environment's build everywhere.
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(ROOT / "bench"))

from rhinoref.mpy import HEAP_ARGS, MICROPYTHON_MISSING, micropython_binary  # noqa: E402
from bench_firmware_resources import use_micropython, word_bits  # noqa: E402

# The order a boot imports them (main.py, board._load(), the two driver modules Hardware()
# picks on the reference board); others follow by name.
ORDER = ("deployjournal", "pins", "buttons", "protocol", "board", "rules", "gamelog", "storage",
         "calibration", "appstore", "cues", "appcues", "app", "detector", "hx711", "accel",
         "hx711pio", "mpu6050", "commands", "calibrator", "trace", "selftest", "selftestapp")
# What board.Hardware() imports on the reference board (the HX711 on PIO, an MPU-6050): it
# cannot be built in-process (no I2C, rp2 or neopixel here), so the boot imports them as it would.
HARDWARE_MODULES = ("hx711pio", "mpu6050")

# A machine module with just what the firmware touches while importing (no hardware is built).
FAKE_MACHINE = '''
class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 2
    def __init__(self, *a, **k):
        pass
    def value(self, v=None):
        return 1
'''

MODULES = r'''
import gc, sys
rom = sys.argv[1]
if rom != "-":
    import vfs
    f = open(rom, "rb")
    img = f.read()
    f.close()
    vfs.mount(vfs.VfsRom(memoryview(img)), "/rom")
    sys.path.insert(0, "/rom")
sys.path.insert(0, sys.argv[2])
import machine, json, os, select, binascii, micropython
from array import array
micropython.qstr_info()
gc.collect()
prev = gc.mem_alloc()
for name in sys.argv[3].split(","):
    __import__("referee." + name)
    gc.collect()
    a = gc.mem_alloc()
    print("mod", name, a - prev)
    prev = a
    micropython.qstr_info()    # "qstr pool: ..., n_str_data_bytes=S, n_total_bytes=T"
'''

BOOT = r'''
import gc, sys
sys.path.insert(0, sys.argv[1])
import machine, json, os, select, binascii
from array import array
gc.collect()
base = gc.mem_alloc()
# main.py's imports before board.main(): the deploy journal and the pin map
f = open(sys.argv[2])
exec(f.read())
f.close()
from referee import board
board._load()
for name in sys.argv[4].split(","):
    __import__("referee." + name)
gc.collect()
print("boot", gc.mem_alloc() - base, ",".join(sorted(k[8:] for k in sys.modules
                                                     if k.startswith("referee."))))
from referee import app, calibration, detector
cal = calibration.Calibration()
cal.offset = 1000
cal.counts_per_gram = 420.0
gc.collect()
a = gc.mem_alloc()
det = detector.Detector(cal, sps=80, accel=True)
gc.collect()
print("obj Detector(sps=80) %d" % (gc.mem_alloc() - a))
del det
gc.collect()
a = gc.mem_alloc()
det = detector.Detector(cal, sps=10, accel=True)
gc.collect()
print("obj Detector(sps=10) %d" % (gc.mem_alloc() - a))
del det
root = sys.argv[3]
cal.mark("tare")
cal.save(root + "/calib.json")
gc.collect()
a = gc.mem_alloc()
ref = app.Referee(root=root, sps=80, accel=True)
gc.collect()
print("obj Referee(root=flash) %d" % (gc.mem_alloc() - a))
'''


def main_py_prelude():
    """What firmware/main.py runs before ``board.main()``, as one string to exec (its imports
    of the deploy journal and the pins, and whatever it drops again)."""
    src = (ROOT / "firmware" / "main.py").read_text()
    head = src.split("if Pin(")[0]
    return head.replace("machine.soft_reset()", "pass")


def compile_firmware(out):
    from rhinoref.mpy import mpy_cross_binary

    (out / "referee").mkdir(parents=True)
    for src in sorted((ROOT / "firmware" / "referee").glob("*.py")):
        subprocess.run([mpy_cross_binary(), "-o", str(out / "referee" / (src.stem + ".mpy")),
                        "-s", "referee/" + src.name, str(src)], check=True)
    (out / "machine.py").write_text(FAKE_MACHINE)
    return out


def romfs_image(fw, tmp):
    src = Path(tmp) / "romsrc"
    (src / "referee").mkdir(parents=True)
    for f in (fw / "referee").glob("*.mpy"):
        (src / "referee" / f.name).write_bytes(f.read_bytes())
    img = Path(tmp) / "fw.romfs"
    r = subprocess.run([str(Path(sys.executable).parent / "mpremote"), "romfs", "--output",
                        str(img), "build", str(src)], capture_output=True, text=True)
    return img if r.returncode == 0 and img.exists() else None


def run_mp(exe, cwd, script, *args):
    """Run ``script`` (source text) with ``args`` under MicroPython, in ``cwd`` with paths
    relative to it. The unix port keeps some paths on the heap as qstrs (a module's
    ``__file__``, the script's folder as ``sys.path[0]``, the library folder under the home
    folder), so absolute ones would make the figures depend on where the temporary folder is
    (pytest's, CI's) and could tip the qstr pool into another block: the script is passed with
    ``-c`` and MICROPYPATH is fixed."""
    env = dict(os.environ, MICROPYPATH=".frozen")
    r = subprocess.run([exe, *HEAP_ARGS, "-c", script, *args], capture_output=True,
                       text=True, timeout=120, cwd=str(cwd), env=env)
    if r.returncode:
        raise SystemExit("MicroPython failed:\n" + r.stdout + r.stderr)
    return r.stdout


def read_modules(out, fig, key):
    """Parse the MODULES script's lines into ``fig[key]`` ({mod: bytes}) and
    ``fig[key + "_pool"]`` ({mod: bytes of qstr pool blocks allocated while it loaded}). The
    pool grows in doubling blocks, so which module pays for a block depends on how many names
    came before it: a lump that is not the module's own, and it may land on a different module
    when loaded from files and in place."""
    sizes, pools = fig.setdefault(key, {}), fig.setdefault(key + "_pool", {})
    name, pool = None, None
    for line in out.splitlines():
        p = line.split()
        if p[0] == "mod":
            name = p[1]
            sizes[name] = int(p[2])
        elif line.startswith("qstr pool:"):
            f = dict(kv.split("=") for kv in line[len("qstr pool:"):].replace(",", "").split())
            now = int(f["n_total_bytes"]) - int(f["n_str_data_bytes"])
            if name is not None:
                pools[name] = now - pool
            pool = now


def measure(tmp, exe=None):
    """Per-module and object figures under ``exe`` (default: ``micropython_binary()``):
    {"bits": 32|64, "file": {mod: bytes}, "romfs": {...}, "boot": (bytes, [mods]),
    "obj": [(name, bytes)], "mpy": {mod: file size}}."""
    exe = exe or micropython_binary()
    tmp = Path(tmp)
    fw = compile_firmware(tmp / "fw")
    names = [p.stem for p in (fw / "referee").glob("*.mpy") if p.stem != "__init__"]
    order = [n for n in ORDER if n in names] + sorted(n for n in names if n not in ORDER)
    fig = {"order": order, "file": {}, "romfs": {}, "obj": [], "bits": word_bits(exe),
           "mpy": {n: (fw / "referee" / (n + ".mpy")).stat().st_size for n in names}}
    read_modules(run_mp(exe, tmp, MODULES, "-", "fw", ",".join(order)), fig, "file")
    img = romfs_image(fw, tmp)
    if img is not None:
        mach = tmp / "mach"
        mach.mkdir()
        (mach / "machine.py").write_text(FAKE_MACHINE)
        read_modules(run_mp(exe, tmp, MODULES, img.name, "mach", ",".join(order)),
                     fig, "romfs")
    flash = tmp / "flash"
    flash.mkdir()
    (tmp / "prelude.py").write_text(main_py_prelude())
    for line in run_mp(exe, tmp, BOOT, "fw", "prelude.py", "flash",
                       ",".join(HARDWARE_MODULES)).splitlines():
        p = line.split()
        if p[0] == "boot":
            fig["boot"] = (int(p[1]), p[2].split(","))
        elif p[0] == "obj":
            fig["obj"].append((p[1], int(p[2])))
    return fig


def est32(file_b, rom_b):
    return (file_b - rom_b) + rom_b / 2


def columns(figs):
    """(build label, column title, fig, function of a module name) for the module table: file
    and romfs per build, and the 32-bit estimate next to a 64-bit build's."""
    cols = []
    for fig in figs:
        label = "%d-bit" % fig["bits"]
        cols.append((label, "file", fig, lambda n, f=fig: f["file"][n]))
        if fig["romfs"]:
            cols.append((label, "romfs", fig, lambda n, f=fig: f["romfs"][n]))
            if fig["bits"] == 64:
                cols.append((label, "32-bit~", fig,
                             lambda n, f=fig: est32(f["file"][n], f["romfs"][n])))
    return cols


def report(figs):
    """Print the figures of one build, or of several side by side (figs[0] first)."""
    if isinstance(figs, dict):
        figs = [figs]
    kb = 1024.0
    base = figs[0]
    boot_mods = set(base["boot"][1])
    cols = columns(figs)
    print("heap per module, KB (gc.mem_alloc delta, imported in boot order), unix port %s:"
          % " and ".join("%d-bit" % f["bits"] for f in figs))
    head = "  %-14s %6s" % ("", "")
    title = "  %-14s %6s" % ("module", ".mpy")
    for i, (label, name, _f, _fn) in enumerate(cols):
        first = i == 0 or cols[i - 1][0] != label
        head += " %8s" % (label if first else "")
        title += " %8s" % name
    print(head)
    print(title + "   loaded")
    tot = {"boot": [0.0] * (len(cols) + 1), "demand": [0.0] * (len(cols) + 1)}
    for n in base["order"]:
        where = "boot" if n in boot_mods else "demand"
        vals = [base["mpy"][n]] + [fn(n) for _l, _t, _f, fn in cols]
        for i, v in enumerate(vals):
            tot[where][i] += v
        print("  %-14s %6.1f" % (n, vals[0] / kb)
              + "".join(" %8.1f" % (v / kb) for v in vals[1:]) + "   " + where)
    for where in ("boot", "demand"):
        t = tot[where]
        print("  %-14s %6.1f" % ("sum " + where, t[0] / kb)
              + "".join(" %8.1f" % (v / kb) for v in t[1:]))
    for fig in figs:
        b, mods = fig["boot"]
        print("a boot (main.py's imports, board._load(), drivers), %d-bit, holds %.1f KB: %s"
              % (fig["bits"], b / kb, " ".join(mods)))
    sums = {}
    for fig in figs:
        boot = [n for n in fig["order"] if n in boot_mods]
        f = sum(fig["file"][n] for n in boot)
        r = sum(fig["romfs"].get(n, 0) for n in boot)
        sums[fig["bits"]] = (f, r, fig["boot"][0])
    if 64 in sums and sums[64][1]:
        f, r, _b = sums[64]
        print("  32-bit estimate of the boot's modules: %.1f KB (bytes %.1f + objects %.1f / 2;"
              " +-10 %%); with ROMFS (bytecode in flash): %.1f KB"
              % (est32(f, r) / kb, (f - r) / kb, r / kb, r / 2 / kb))
    if 32 in sums:
        f, r, b = sums[32]
        print("  32-bit measured: the boot's modules %.1f KB (bytes %.1f + objects %.1f), a boot "
              "%.1f KB; with ROMFS (bytecode in flash): %.1f KB"
              % (f / kb, (f - r) / kb, r / kb, b / kb, r / kb))
        if 64 in sums and sums[64][1]:
            f64, r64, _b = sums[64]
            print("  estimate / measured: total %.2f, bytes %.2f, objects %.2f"
                  % (est32(f64, r64) / f, (f64 - r64) / max(1, f - r), r64 / 2 / max(1, r)))
    print("objects, KB:" + "".join(" %8s" % ("%d-bit" % f["bits"]) for f in figs))
    for i, (name, _v) in enumerate(base["obj"]):
        print("  %-24s" % name + "".join(" %8.1f" % (f["obj"][i][1] / kb) for f in figs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="modules and objects only, no game")
    ap.add_argument("--micropython", metavar="PATH",
                    help="another unix port build to measure as well (a 32-bit one)")
    args = ap.parse_args()
    exes = [micropython_binary()]
    if exes[0] is None:
        print("skipped:", MICROPYTHON_MISSING)
        return 0
    if args.micropython:
        exes.append(os.path.abspath(args.micropython))
    figs = []
    for i, exe in enumerate(exes):
        with tempfile.TemporaryDirectory() as tmp:
            figs.append(measure(Path(tmp) / str(i), exe))
    report(figs)
    if not args.quick:
        from bench_firmware_resources import board_heap

        board_heap(timeout=240)
        if args.micropython:
            use_micropython(args.micropython)
            board_heap(timeout=240)
    return 0


if __name__ == "__main__":
    sys.exit(main())
