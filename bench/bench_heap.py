"""Where the firmware's heap goes, on MicroPython (SPEC 6: <= 64 KB after boot and a full game).

    .venv/bin/python bench/bench_heap.py           # modules, objects, the virtual board's game
    .venv/bin/python bench/bench_heap.py --quick   # modules and objects only (a few seconds)

Prints:

1. Per module, imported from ``.mpy`` files as deployed (mpy-cross), one after the other in the
   order a boot loads them, under ``micropython -X heapsize=192k``: ``gc.mem_alloc()`` after
   ``gc.collect()`` before and after each import (what the module adds beyond the modules it
   imports and that were loaded before it). Column ``romfs``: the same imports from a ROMFS
   image (``mpremote romfs build``, mounted with ``vfs.VfsRom``): MicroPython then runs the
   bytecode and strings in place, so what is left on the heap is the module's objects (function
   objects, raw-code records, dicts, tables built at import, qstr pool entries). ``file - romfs``
   is therefore the byte-sized part (bytecode, string data), the same on every port.
2. What a boot holds: the modules in ``sys.modules`` after ``main.py``'s own imports and
   ``board._load()`` and their total, then what is loaded only on demand.
3. Objects: a ``Referee`` (real detector, files in a temporary directory as on the flash) and a
   ``Detector`` alone.
4. (not with --quick) The whole firmware on the virtual board after boot and after a full game
   played by bots (``bench_firmware_resources.board_heap``).

32-bit estimate (the Pico, not measured: there is no 32-bit port here). The 64-bit figure is
split as above into bytes B = file - romfs (bytecode, string data: the same size on the RP2040)
and objects O = romfs (made of pointers and words: half the size on the RP2040, and GC blocks of
16 instead of 32 bytes, so their rounding halves too). Estimate = B + O / 2. Uncertainty: a
few small objects hold byte fields (hash and length of a qstr, small ints in tables), so O / 2
is slightly low; allocations are rounded to 16 instead of 32 bytes, so B is slightly high. We
take +-10 % as the band.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "host"))
sys.path.insert(0, str(ROOT / "bench"))

from rhinoref.mpy import HEAP_ARGS, MICROPYTHON_MISSING, micropython_binary  # noqa: E402

# The order a boot imports them (main.py, then board._load()); others follow by name.
ORDER = ("deployjournal", "pins", "buttons", "protocol", "board", "rules", "gamelog", "storage",
         "calibration", "appstore", "cues", "appcues", "app", "detector", "hx711", "accel",
         "commands", "calibrator", "trace", "selftest", "selftestapp")

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
import machine, json, os, select, binascii
from array import array
gc.collect()
prev = gc.mem_alloc()
for name in sys.argv[3].split(","):
    __import__("referee." + name)
    gc.collect()
    a = gc.mem_alloc()
    print("mod", name, a - prev)
    prev = a
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


def run_mp(*args):
    r = subprocess.run([micropython_binary(), *HEAP_ARGS, *args], capture_output=True,
                       text=True, timeout=120)
    if r.returncode:
        raise SystemExit("MicroPython failed:\n" + r.stdout + r.stderr)
    return r.stdout


def measure(tmp):
    """Per-module and object figures: {"file": {mod: bytes}, "romfs": {...}, "boot": (bytes,
    [mods]), "obj": [(name, bytes)], "mpy": {mod: file size}}."""
    tmp = Path(tmp)
    fw = compile_firmware(tmp / "fw")
    names = [p.stem for p in (fw / "referee").glob("*.mpy") if p.stem != "__init__"]
    order = [n for n in ORDER if n in names] + sorted(n for n in names if n not in ORDER)
    (tmp / "modules.py").write_text(MODULES)
    (tmp / "boot.py").write_text(BOOT)
    fig = {"order": order, "file": {}, "romfs": {}, "obj": [],
           "mpy": {n: (fw / "referee" / (n + ".mpy")).stat().st_size for n in names}}
    for line in run_mp(str(tmp / "modules.py"), "-", str(fw), ",".join(order)).splitlines():
        p = line.split()
        fig["file"][p[1]] = int(p[2])
    img = romfs_image(fw, tmp)
    if img is not None:
        mach = tmp / "mach"
        mach.mkdir()
        (mach / "machine.py").write_text(FAKE_MACHINE)
        for line in run_mp(str(tmp / "modules.py"), str(img), str(mach),
                           ",".join(order)).splitlines():
            p = line.split()
            fig["romfs"][p[1]] = int(p[2])
    flash = tmp / "flash"
    flash.mkdir()
    (tmp / "prelude.py").write_text(main_py_prelude())
    for line in run_mp(str(tmp / "boot.py"), str(fw), str(tmp / "prelude.py"),
                       str(flash)).splitlines():
        p = line.split()
        if p[0] == "boot":
            fig["boot"] = (int(p[1]), p[2].split(","))
        elif p[0] == "obj":
            fig["obj"].append((p[1], int(p[2])))
    return fig


def est32(file_b, rom_b):
    return (file_b - rom_b) + rom_b / 2


def report(fig):
    kb = 1024.0
    has_rom = bool(fig["romfs"])
    boot_mods = set(fig["boot"][1])
    print("heap per module, 64-bit unix port, KB (gc.mem_alloc delta, imported in boot order):")
    print("  %-14s %6s %7s %7s %9s   %s" % ("module", ".mpy", "file", "romfs", "32-bit~",
                                             "loaded"))
    tot = {"boot": [0, 0, 0, 0], "demand": [0, 0, 0, 0]}
    for n in fig["order"]:
        f = fig["file"][n]
        r = fig["romfs"].get(n, 0)
        where = "boot" if n in boot_mods else "demand"
        e = est32(f, r) if has_rom else float("nan")
        for i, v in enumerate((fig["mpy"][n], f, r, e)):
            tot[where][i] += v
        print("  %-14s %6.1f %7.1f %7.1f %9.1f   %s" % (n, fig["mpy"][n] / kb, f / kb, r / kb,
                                                        e / kb, where))
    for where in ("boot", "demand"):
        t = tot[where]
        print("  %-14s %6.1f %7.1f %7.1f %9.1f" % ("sum " + where, t[0] / kb, t[1] / kb,
                                                    t[2] / kb, t[3] / kb))
    b, mods = fig["boot"]
    print("a boot (main.py's imports + board._load()) holds %.1f KB: %s" % (b / kb,
                                                                           " ".join(mods)))
    if has_rom:
        byte_part = tot["boot"][1] - tot["boot"][2]
        print("  32-bit estimate of the boot's modules: %.1f KB (bytes %.1f + objects %.1f / 2;"
              " +-10 %%); with ROMFS (bytecode in flash): %.1f KB"
              % (tot["boot"][3] / kb, byte_part / kb, tot["boot"][2] / kb,
                 tot["boot"][2] / 2 / kb))
    print("objects, 64-bit:")
    for name, v in fig["obj"]:
        print("  %-24s %6.1f KB" % (name, v / kb))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="modules and objects only, no game")
    args = ap.parse_args()
    if micropython_binary() is None:
        print("skipped:", MICROPYTHON_MISSING)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        report(measure(tmp))
    if not args.quick:
        from bench_firmware_resources import board_heap

        board_heap(timeout=240)
    return 0


if __name__ == "__main__":
    sys.exit(main())
