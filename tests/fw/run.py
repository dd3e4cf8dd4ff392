"""Run firmware test modules on MicroPython: ``micropython run.py FIRMWARE_DIR test_rules ...``.

Each ``test_*`` function of each named module is called; the output is one line per test and
a closing ``N passed, N failed`` line; the exit status is 1 when anything failed. pytest drives
this through ``tests/test_fw_on_micropython.py``; it also runs by hand. FIRMWARE_DIR may be
several folders joined by ``:``, searched in that order before this one (pytest passes the
firmware and these test modules compiled to .mpy: tests/rel_mpy.py).
"""

import sys


def main(argv):
    here = argv[0].rpartition("/")[0] or "."
    sys.path[0:0] = argv[1].split(":") + [here]
    passed = failed = 0
    for name in argv[2:]:
        module = __import__(name)
        for attr in sorted(dir(module)):
            fn = getattr(module, attr)
            if not attr.startswith("test_") or not callable(fn):
                continue
            try:
                fn()
            except Exception as err:  # report every failure, then carry on
                failed += 1
                print("FAIL %s.%s: %s: %s" % (name, attr, type(err).__name__, err))
                sys.print_exception(err)
            else:
                passed += 1
                print("ok   %s.%s" % (name, attr))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main(sys.argv))
