"""``rhinoref board``: start the virtual board and print its serial port.

The firmware runs unchanged on the MicroPython unix port with a Pico-sized heap and simulated
hardware (HX711 via PIO, MPU-6050, WS2812 LEDs, buttons) fed by the simulated table. Any
serial tool can use the port: ``mpremote connect PORT``, Thonny, ``rhinoref deploy --port``,
``rhinoref monitor --port``. It runs until Ctrl-C. See docs/virtual-board.md.
"""

import signal
import sys
import threading

from ..errors import InputError, RhinorefError

HELP = "start the virtual board: the firmware on MicroPython behind a serial port"
EXAMPLE = """
rhinoref board --flash ~/.rhinoref/board        # prints: port /dev/pts/5
mpremote connect /dev/pts/5 exec "print(1)"       # in another terminal
rhinoref deploy --port /dev/pts/5
rhinoref board --players 3 --seed 7 --speed 10  # bots play on the table, 10x real time
rhinoref board --maker --no-accel               # then: rhinoref selftest --port /dev/pts/5
rhinoref board --tilt-switch 100                # a ball tilt switch on GP18 instead of the
                                                # MPU-6050 (deploy a pin map that wires it)
"""


def add_arguments(parser):
    parser.add_argument("--flash", metavar="DIR",
                        help="folder for the board's flash image (kept between runs); "
                             "default: a temporary one, empty, removed at exit")
    parser.add_argument("--sps", type=int, choices=(10, 80), default=80,
                        help="HX711 samples per second (its RATE pin; default 80)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the simulated table")
    from ..table import ADC_MODELS

    parser.add_argument("--adc", choices=ADC_MODELS, default="sinc1",
                        help="the simulated HX711's filter: each reading its own conversion's mean "
                             "(sinc1, default) or a change spread over four (sinc4); the board "
                             "knows only what its calibration was told")
    parser.add_argument("--no-accel", action="store_true",
                        help="no accelerometer on the I2C bus (the firmware's degraded mode)")
    parser.add_argument("--tilt-switch", type=int, default=None, metavar="MG",
                        help="a ball tilt switch that rolls at MG milli-g on GPIO --tilt-pin "
                             "instead of the MPU-6050; the firmware uses it once its pin map "
                             "says so (pins.TILT_SWITCH, docs/virtual-board.md)")
    parser.add_argument("--tilt-pin", type=int, default=18, metavar="GPIO",
                        help="with --tilt-switch: its GPIO (default 18, as hardware/pinmap.json "
                             "suggests)")
    parser.add_argument("--players", type=int, default=0, metavar="N",
                        help="bot players (2-5) acting on the table and pressing buttons; "
                             "default 0: an idle table for manual tests")
    parser.add_argument("--speed", type=float, default=1.0,
                        help="simulated seconds per real second (default 1: like a real "
                             "board; 0: as fast as it runs)")
    parser.add_argument("--no-hx711", action="store_true",
                        help="a dead HX711: no conversion ever comes (for the self-test)")
    parser.add_argument("--maker", action="store_true",
                        help="a simulated maker answers the self-test's prompts (presses each "
                             "button asked for, pushes the platform with a finger)")
    parser.add_argument("--heap", type=int, default=None, metavar="KB",
                        help="MicroPython heap in KB (default: a Pico's 192, times 1.3 on a "
                             "64-bit MicroPython, plus what the virtual board's own modules "
                             "and its ROMFS partition take)")
    parser.add_argument("--romfs", type=int, default=None, metavar="KB",
                        help="size of the ROMFS partition, as a MicroPython built with one "
                             "(default 128; 0: none, as the stock Pico builds; "
                             "'rhinoref deploy --romfs' fills it)")


def _table(args):
    from ..table import Table

    return Table(seed=args.seed, sps=args.sps, accel=not args.no_accel, adc=args.adc,
                 tilt_mg=args.tilt_switch)


def run(args) -> int:
    from ..vboard import VirtualBoard
    from ..vboard.core import ROMFS_KB

    if args.players and not 2 <= args.players <= 5:
        raise InputError("--players must be 2 to 5 (or 0 for an idle table)")
    romfs_kb = ROMFS_KB if args.romfs is None else args.romfs
    if romfs_kb < 0 or romfs_kb % 4:
        raise InputError("--romfs must be a multiple of 4 KB (flash erase blocks), or 0")
    if args.speed < 0:
        raise InputError("--speed must be 0 (as fast as possible) or more")
    from ..table import tilt_switch_problem

    if problem := tilt_switch_problem(args.tilt_switch, args.no_accel):
        raise InputError(problem)
    if args.tilt_switch is not None and not 0 <= args.tilt_pin <= 28:
        raise InputError("--tilt-pin must be a GPIO 0-28")
    table = _table(args)
    driver = maker = None
    if args.players:
        from ..vboard.players import BoardBots

        driver = BoardBots(table, args.players, args.seed)
    if args.maker:
        from ..vboard.maker import Maker, PlatformHand

        table = PlatformHand(table, seed=args.seed)
        driver = maker = Maker(table, seed=args.seed, then=driver)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    vb = VirtualBoard(flash_dir=args.flash, speed=args.speed, table=table,
                      driver=driver, sps=args.sps, seed=args.seed,
                      accel=not args.no_accel and args.tilt_switch is None,
                      tilt_pin=args.tilt_pin if args.tilt_switch is not None else None,
                      heap_kb=args.heap, log=log, hx711=not args.no_hx711,
                      romfs_kb=romfs_kb)
    if maker is not None:
        maker.attach(vb)
        driver = maker.then
    if driver is not None:
        driver.attach(vb)
    try:
        vb.start()
    except OSError as err:
        raise RhinorefError("cannot start the virtual board: %s" % err)
    print("port %s" % vb.port, flush=True)
    print("virtual board running (flash %s); Ctrl-C stops it" % (args.flash or "temporary"),
          file=sys.stderr, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *a: stop.set())
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        vb.stop()
    return 0
