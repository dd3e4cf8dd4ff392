"""No accelerometer: what ``referee.accel.probe`` returns when no part answers and no tilt
switch is wired (the detector's degraded mode). In its own module: a board with a part never
loads it.

Usage::

    from referee.noaccel import NoAccel     # or accel.NoAccel, or what accel.probe() returns
    acc = NoAccel("no device answers on I2C")
    acc.read()                              # (0, 0, 0); acc.reason says why
"""


class NoAccel:
    """No accelerometer: reads zeros. ``reason`` says why (shown by the board's status)."""

    name = "none"

    def __init__(self, reason="no accelerometer"):
        self.reason = reason

    def read(self):
        return (0, 0, 0)

    def read_into(self, xyz):
        xyz[0] = 0
        xyz[1] = 0
        xyz[2] = 0
