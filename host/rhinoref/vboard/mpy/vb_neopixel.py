# Simulated `neopixel` module of the virtual board, installed as sys.modules["neopixel"]; the
# same API as micropython-lib's neopixel: colours are (r, g, b) tuples, the buffer holds the
# bytes in the WS2812's order G, R, B, and write() clocks them out with machine.bitstream,
# which on the virtual board sends the frame to the host with its simulated time.
#
#     from machine import Pin
#     from neopixel import NeoPixel
#     np = NeoPixel(Pin(22), 30); np[0] = (255, 0, 0); np.write()

from vb_machine import bitstream


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        pin.init(pin.OUT)
        self.timing = timing

    def __len__(self):
        return self.n

    def __setitem__(self, i, v):
        offset = i * self.bpp
        for k in range(self.bpp):
            self.buf[offset + self.ORDER[k]] = v[k]

    def __getitem__(self, i):
        offset = i * self.bpp
        return tuple(self.buf[offset + self.ORDER[k]] for k in range(self.bpp))

    def fill(self, v):
        b = self.buf
        for k in range(self.bpp):
            c = v[k]
            for j in range(self.ORDER[k], len(b), self.bpp):
                b[j] = c

    def write(self):
        bitstream(self.pin, 0, self.timing, self.buf)
