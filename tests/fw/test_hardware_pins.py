"""The generated pin module imports on MicroPython and describes a wiring a Pico can have.
(tests/test_hardware_pinmap.py checks it against hardware/pinmap.json on CPython.)"""

from referee import pins

_HEADER_GPIOS = tuple(range(0, 23)) + (26, 27, 28)


def _all_gpios():
    out = [pins.HX711_DOUT, pins.HX711_SCK, pins.I2C_SDA, pins.I2C_SCL, pins.LED_DATA]
    out += [g for _, g in pins.BUTTONS]
    for opt in (pins.BUZZER, pins.TILT_SWITCH):
        if opt is not None:
            out.append(opt)
    return out


def test_every_pin_is_a_header_gpio_used_once():
    used = _all_gpios()
    for g in used:
        assert g in _HEADER_GPIOS, g
    assert len(set(used)) == len(used)


def test_buttons_cover_seats_symbols_and_menu():
    assert pins.SEAT_COUNT == 5 and len(pins.BUTTONS) == 11
    names = [n for n, _ in pins.BUTTONS]
    assert names[:5] == ["seat0", "seat1", "seat2", "seat3", "seat4"]
    assert names[5:10] == ["reverse", "skip", "draw", "double", "rhino"]
    # the seats and symbols are slices of BUTTONS, not tuples of their own (heap: docs/heap.md)
    assert not hasattr(pins, "SEATS") and not hasattr(pins, "SYMBOL_BUTTONS")
    assert names[10:] == ["menu"] and pins.BUTTONS[10][1] == pins.MENU


def test_i2c_pair_and_hx711_settings():
    # I2C0 SDA/SCL sit on GPIO 0/1 mod 4, I2C1 on 2/3 mod 4.
    assert pins.I2C_SDA % 4 == 2 * pins.I2C_ID
    assert pins.I2C_SCL % 4 == 2 * pins.I2C_ID + 1
    assert pins.HX711_SPS in (10, 80)
    assert 0 <= pins.HX711_SM <= 7
    assert pins.LED_COUNT == pins.SEAT_COUNT * pins.LEDS_PER_SEAT
