"""rhinoref host tool: simulator, replay, detect, deploy, flash, monitor, calibrate, record, plot.

The firmware in ``firmware/`` is the single source of the referee's logic; the host imports
it unchanged through :mod:`rhinoref.firmware`.
"""

__version__ = "0.1.0"
