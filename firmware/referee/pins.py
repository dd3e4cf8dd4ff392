# generated from hardware/pinmap.json by hardware/gen_pins.py; do not edit
# (pin map format rhinoref-pinmap version 1)
"""GPIO numbers and bus settings of the rhinoref board.

Usage::

    from machine import I2C, Pin
    from referee import pins
    i2c = I2C(pins.I2C_ID, sda=Pin(pins.I2C_SDA), scl=Pin(pins.I2C_SCL),
              freq=pins.I2C_FREQ)
    seat_pins = [Pin(g, Pin.IN, Pin.PULL_UP) for _n, g in pins.BUTTONS[:5]]  # pressed: 0

Plain integers and tuples so that firmware, host tools and tests can all import it.
Every name costs heap on the board for good (this module stays loaded): the seats and
symbol buttons are BUTTONS[:5] and BUTTONS[5:10], not tuples of their own.
"""

PINMAP_VERSION = 1

# HX711 load-cell ADC, channel A. HX711_SM is an rp2.StateMachine id (0-3 PIO0, 4-7 PIO1;
# a Pico W's radio claims one in PIO1). HX711_SPS is set by the RATE pin in hardware.
HX711_DOUT = 2
HX711_SCK = 3
HX711_SM = 0
HX711_SPS = 80
HX711_GAIN = 128

# Accelerometer on I2C (valid SDA/SCL pair for the bus id).
I2C_ID = 0
I2C_SDA = 4
I2C_SCL = 5
I2C_FREQ = 400000
ACCEL_ADDR = 0x68

# WS2812B chain: seat n owns LEDs n * LEDS_PER_SEAT .. (n + 1) * LEDS_PER_SEAT - 1.
LED_DATA = 22
LEDS_PER_SEAT = 6
SEAT_COUNT = 5
LED_COUNT = 30
LED_ORDER = "GRB"

# Buttons: inputs with the internal pull-up, pressed = 0. Seats in clockwise order.
BUTTONS_ACTIVE_LOW = True
MENU = 16
# Every button as (name, gpio), names as the board app's press() takes them: the seats
# 0-4 clockwise, then the symbols reverse, skip, draw, double, rhino, then the menu.
BUTTONS = (
    ("seat0", 6),
    ("seat1", 7),
    ("seat2", 8),
    ("seat3", 9),
    ("seat4", 10),
    ("reverse", 11),
    ("skip", 12),
    ("draw", 13),
    ("double", 14),
    ("rhino", 15),
    ("menu", 16),
)

# Optional parts (None: not wired).
BUZZER = 17
TILT_SWITCH = None

WDT_MS = 5000
