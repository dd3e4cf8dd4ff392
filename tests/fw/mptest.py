"""Tiny test helpers that run on both CPython (under pytest) and MicroPython.

Tests in ``tests/fw/`` are plain ``test_*`` functions using ``assert`` and these helpers, so the
same file proves the firmware on CPython and, through ``tests/fw/run.py``, on the MicroPython
unix port with a Pico-sized heap. No pytest imports, fixtures or CPython-only modules here.

Usage::

    from mptest import raises
    with raises(ValueError):
        int("x")
"""


class raises:
    """Context manager: the block must raise ``exc`` (or a subclass)."""

    def __init__(self, exc):
        self.exc = exc
        self.value = None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            raise AssertionError("did not raise %s" % self.exc.__name__)
        if not issubclass(kind, self.exc):
            return False
        self.value = value
        return True
