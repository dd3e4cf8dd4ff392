# rhinoref: the referee starts here (MicroPython runs main.py at boot).
# Safe mode: hold the menu button while plugging in -> the app does not start and the REPL
# stays free for mpremote / Thonny / rhinoref deploy. Ctrl-C stops the app the same way.

try:  # first finish a deploy that a cut cable interrupted (rhinoref deploy's journal)
    from referee import deployjournal

    if deployjournal.recover():
        import machine

        machine.soft_reset()
except ImportError:
    pass
except OSError as err:
    print("deploy journal:", err)
try:  # needed only once per boot: let its code go (4 KB of heap)
    import sys
    import referee

    del sys.modules["referee.deployjournal"], deployjournal
    delattr(referee, "deployjournal")
except (ImportError, KeyError, AttributeError, NameError):
    pass

from machine import Pin

from referee import pins

if Pin(pins.MENU, Pin.IN, Pin.PULL_UP).value() == (0 if pins.BUTTONS_ACTIVE_LOW else 1):
    print("rhinoref: safe mode (menu button held at power-on): the referee is not started")
else:
    from referee import board

    board.main()
