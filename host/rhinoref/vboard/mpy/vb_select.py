# The virtual board's `select` (sys.modules["select"]): real polling of the serial input, but a
# poll's timeout is a wait in SIMULATED time (in fast mode it takes no real time).

import select as _sel
import vb_hw

POLLIN = _sel.POLLIN
POLLOUT = _sel.POLLOUT
POLLERR = _sel.POLLERR
POLLHUP = _sel.POLLHUP


class _Poll:
    def __init__(self):
        self._p = _sel.poll()

    def register(self, obj, mask=POLLIN | POLLOUT):
        self._p.register(obj, mask)

    def unregister(self, obj):
        self._p.unregister(obj)

    def modify(self, obj, mask):
        self._p.modify(obj, mask)

    def _wait(self, timeout):
        if vb_hw.speed > 0:
            self._p.poll(int(timeout / vb_hw.speed) if timeout > 0 else timeout)
            vb_hw.now_us()
        elif timeout > 0:
            vb_hw.wait_us(timeout * 1000)
        else:
            self._p.poll(-1)

    def poll(self, timeout=-1):
        res = self._p.poll(0)
        if res or timeout == 0:
            vb_hw.now_us()
            return res
        self._wait(timeout)
        return self._p.poll(0)

    def ipoll(self, timeout=-1, flags=0):
        if timeout != 0 and not self._p.poll(0):
            self._wait(timeout)
        else:
            vb_hw.now_us()
        return self._p.ipoll(0, flags)


def poll():
    return _Poll()
