"""Draw the rhinoref wiring diagram from hardware/pinmap.json with schemdraw.

Usage::

    .venv/bin/python hardware/draw_wiring.py                 # writes hardware/wiring.svg
    .venv/bin/python hardware/draw_wiring.py --png /tmp/w.png  # also a PNG to look at
    .venv/bin/python hardware/draw_wiring.py --check         # exit 1 if wiring.svg is stale

Every GPIO, bus and part comes from the pin map (through gen_pins.py, which validates it), so the
drawing cannot disagree with the firmware's pins.py. Each wire carries the pin map's signal name
and the Pico side shows ``GPn`` with the header pin number, which is what a maker solders to.
"""

import argparse
import io
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_pins  # noqa: E402  (the pin map loader and validator next to this file)

SVG = HERE / "wiring.svg"
ROW = 1.2          # vertical distance between Pico pins, drawing units
FONT = 11
LEAD = 1.0
OPTIONAL_STYLE = "--"  # optional parts are drawn dashed

# Power pins of the Pico header (the GPIO ones are in gen_pins.PICO_HEADER_PIN).
PICO_POWER = {"VBUS": 40, "3V3": 36, "GND": 38}


def _schemdraw():
    import schemdraw
    import schemdraw.elements as elm
    return schemdraw, elm


def _gpio_label(gpio):
    return f"GP{gpio}"


def _pin_no(gpio):
    return str(gen_pins.PICO_HEADER_PIN[gpio])


def build(pm, backend="svg"):
    """Return the schemdraw Drawing for a valid pin map."""
    schemdraw, elm = _schemdraw()
    gen_pins.check(pm)
    sig = pm["signals"]
    g = gen_pins.gpio
    hx, i2c, leds = pm["hx711"], pm["i2c"], pm["leds"]

    # Right side of the Pico: every button, then the optional buzzer and tilt switch.
    right = [(name, name) for name in pm["seats"]] + [(s, s) for s in pm["symbols"]]
    right.append((pm["menu"], pm["menu"]))
    unfitted = []
    for opt in ("buzzer", "tilt_switch"):
        if pm.get(opt) is not None and g(pm, pm[opt]) is not None:
            right.append((opt, pm[opt]))
        elif pm.get(opt) is not None:
            unfitted.append(pm[opt])
    n_right = len(right)

    # Left side, top to bottom, in groups that face the parts they go to.
    left = [("VBUS", None), ("3V3", None), ("GND", None), None,
            (hx["dout"], hx["dout"]), (hx["sck"], hx["sck"]), None, None, None,
            (i2c["sda"], i2c["sda"]), (i2c["scl"], i2c["scl"])]
    n_slots = max(n_right, len(left))

    pins = []
    for row, item in enumerate(left):
        if item is None:
            continue
        label, signal = item
        slot = f"{n_slots - row}/{n_slots}"
        if signal is None:
            pins.append(elm.IcPin(name=label, pin=str(PICO_POWER[label]), side="left", slot=slot,
                                  anchorname="p_" + label))
        else:
            gp = g(pm, signal)
            pins.append(elm.IcPin(name=_gpio_label(gp), pin=_pin_no(gp), side="left", slot=slot,
                                  anchorname="p_" + signal))
    for row, (_, signal) in enumerate(right):
        gp = g(pm, signal)
        pins.append(elm.IcPin(name=_gpio_label(gp), pin=_pin_no(gp), side="right",
                              slot=f"{n_slots - row}/{n_slots}", anchorname="p_" + signal))
    led_gp = g(pm, leds["data"])
    pins.append(elm.IcPin(name=_gpio_label(led_gp), pin=_pin_no(led_gp), side="bottom",
                          anchorname="p_" + leds["data"]))

    d = schemdraw.Drawing(canvas=backend, show=False)
    d.config(fontsize=FONT, unit=2.5)
    d += elm.Label().at((0, n_slots * ROW + 3.2)).label(
        f"rhinoref wiring: generated from hardware/pinmap.json (version {pm['version']}) "
        "by hardware/draw_wiring.py", fontsize=FONT + 3, halign="left")
    d += elm.Label().at((0, n_slots * ROW + 2.4)).label(
        "GPn = Pico GPIO, small number = header pin; buttons close to GND "
        "(internal pull-ups); dashed = optional"
        + "".join("; %s: optional, not fitted" % name for name in unfitted),
        fontsize=FONT, halign="left")

    def at_pico(signal):
        return getattr(pico, "p_" + signal)

    pico = elm.Ic(pins=pins, size=(6.0, n_slots * ROW), pinspacing=ROW, leadlen=LEAD,
                  plblsize=FONT - 1, lsize=FONT + 1).theta(0).label(
        "Raspberry Pi\nPico / Pico 2", "center", fontsize=FONT + 3).at((0, 0))
    d += pico

    # --- power at the Pico ----------------------------------------------------------------------
    d += elm.Line().at(pico.p_VBUS).left().length(0.6)
    d += elm.Vdd().label("+5V (USB)", fontsize=FONT)
    d += elm.Line().at(pico.p_3V3).left().length(2.4)
    d += elm.Vdd().label("+3V3", fontsize=FONT)
    d += elm.Line().at(pico.p_GND).left().length(1.2)
    d += elm.Ground()

    # --- right: buttons to a common GND rail ------------------------------------------------------
    rail_x = at_pico(pm["menu"])[0] + 9.0
    for label, signal in right:
        start = at_pico(signal)
        s = sig[signal]
        ls = OPTIONAL_STYLE if s.get("optional") else "-"
        name = label + (" (optional)" if s.get("optional") else "")
        d += elm.Line(ls=ls).at(start).right().length(3.4).label(name, "top", fontsize=FONT,
                                                                 ofst=0.15)
        if signal == pm.get("buzzer"):
            part = elm.Crystal(ls=ls).right().length(2.4).label("piezo", "bottom",
                                                                 fontsize=FONT - 1)
        elif signal == pm.get("tilt_switch"):
            part = elm.Switch(ls=ls).right().length(2.4).label("tilt sw.", "bottom",
                                                              fontsize=FONT - 1)
        else:
            part = elm.Button().right().length(2.4)
        d += part
        d += elm.Line(ls=ls).right().tox(rail_x)
        d += elm.Dot()
    top_y = at_pico(right[0][1])[1]
    bottom_y = at_pico(right[-1][1])[1]
    d += elm.Line().at((rail_x, top_y)).to((rail_x, bottom_y - 0.8))
    d += elm.Ground()

    # --- left: HX711 and the load cell -----------------------------------------------------------
    hx_x = at_pico(hx["dout"])[0] - 6.0
    hx711 = elm.Ic(pins=[
        elm.IcPin(name="DT", side="right", slot="2/2", anchorname="DT"),
        elm.IcPin(name="SCK", side="right", slot="1/2", anchorname="SCK"),
        elm.IcPin(name="E+", side="left", slot="4/4", anchorname="Ep"),
        elm.IcPin(name="E-", side="left", slot="3/4", anchorname="Em"),
        elm.IcPin(name="A-", side="left", slot="2/4", anchorname="Am"),
        elm.IcPin(name="A+", side="left", slot="1/4", anchorname="Ap"),
        elm.IcPin(name="VCC", side="top", slot="2/3", anchorname="VCC"),
        elm.IcPin(name="RATE", side="top", slot="3/3", anchorname="RATE"),
        elm.IcPin(name="GND", side="bottom", slot="2/3", anchorname="GND"),
    ], size=(3.8, 4.2), pinspacing=ROW, leadlen=LEAD, plblsize=FONT - 1, lsize=FONT).theta(0).label(
        f"HX711\nch {hx['channel']}, gain {hx['gain']}\n{hx['sps']} SPS", "center",
        fontsize=FONT).anchor("DT").at((hx_x, at_pico(hx["dout"])[1]))
    d += hx711
    d += elm.Line().at(hx711.DT).to(at_pico(hx["dout"])).label(hx["dout"], "top", fontsize=FONT)
    d += elm.Line().at(hx711.SCK).to(at_pico(hx["sck"])).label(hx["sck"], "bottom", fontsize=FONT)
    d += elm.Vdd().at(hx711.VCC).label("+3V3", fontsize=FONT)
    d += elm.Line().at(hx711.RATE).up().length(0.6)
    rate = sig[hx["rate"]]
    d += elm.Label().label(
        f"{hx['rate']}: RATE jumper\nto VCC = 80 SPS, to GND = 10 SPS\n"
        f"(this board: {hx['sps']} SPS)" + ("" if rate["gpio"] is None else f" GP{rate['gpio']}"),
        "right", fontsize=FONT - 1, halign="left")
    d += elm.Ground().at(hx711.GND)
    cell = elm.Ic(pins=[
        elm.IcPin(name="red", side="right", slot="4/4", anchorname="red"),
        elm.IcPin(name="black", side="right", slot="3/4", anchorname="black"),
        elm.IcPin(name="white", side="right", slot="2/4", anchorname="white"),
        elm.IcPin(name="green", side="right", slot="1/4", anchorname="green"),
    ], size=(4.4, 4.2), pinspacing=ROW, leadlen=0.4, plblsize=FONT - 1, lsize=FONT).theta(0).label(
        "bar load\ncell 1 kg\n(colours\nvary)", "center",
        fontsize=FONT - 1).anchor("red").at((hx711.Ep[0] - 1.4, hx711.Ep[1]))
    d += cell
    for a, b in (("red", "Ep"), ("black", "Em"), ("white", "Am"), ("green", "Ap")):
        d += elm.Line().at(getattr(cell, a)).to(getattr(hx711, b))

    # --- left: accelerometer on I2C --------------------------------------------------------------
    acc = elm.Ic(pins=[
        elm.IcPin(name="SDA", side="right", slot="2/2", anchorname="SDA"),
        elm.IcPin(name="SCL", side="right", slot="1/2", anchorname="SCL"),
        elm.IcPin(name="VCC", side="top", slot="2/2", anchorname="VCC"),
        elm.IcPin(name="GND", side="bottom", slot="1/2", anchorname="GND"),
        elm.IcPin(name="AD0", side="bottom", slot="2/2", anchorname="AD0"),
    ], size=(3.2, 3.0), pinspacing=ROW, leadlen=LEAD, plblsize=FONT - 1, lsize=FONT).theta(0).label(
        f"MPU-6050\nGY-521\naddr {hex(i2c['accel_addr'])}", "center", fontsize=FONT).anchor(
        "SDA").at((hx_x, at_pico(i2c["sda"])[1]))
    d += acc
    d += elm.Line().at(acc.SDA).to(at_pico(i2c["sda"])).label(
        f"{i2c['sda']} (I2C{i2c['id']} SDA)", "top", fontsize=FONT)
    d += elm.Line().at(acc.SCL).to(at_pico(i2c["scl"])).label(
        f"{i2c['scl']} (I2C{i2c['id']} SCL, {i2c['freq'] // 1000} kHz)", "bottom",
        fontsize=FONT)
    d += elm.Vdd().at(acc.VCC).label("+3V3", fontsize=FONT)
    d += elm.Ground().at(acc.GND)
    d += elm.Ground().at(acc.AD0)

    # --- bottom: LED data through the level shifter to the seat pods -----------------------------
    led_y = at_pico(leds["data"])[1] - 7.5
    buf = elm.Ic(pins=[
        elm.IcPin(name="1A", side="left", anchorname="A"),
        elm.IcPin(name="1Y", side="right", anchorname="Y"),
        elm.IcPin(name="VCC", side="top", anchorname="VCC"),
        elm.IcPin(name="1OE", side="bottom", slot="1/2", invert=True, anchorname="OE"),
        elm.IcPin(name="GND", side="bottom", slot="2/2", anchorname="GND"),
    ], size=(3.8, 2.2), leadlen=LEAD, plblsize=FONT - 1, lsize=FONT).theta(0).label(
        "74AHCT125\n3.3 V to 5 V", "center", fontsize=FONT).anchor("A").at(
        (cell.red[0] - 3.4, led_y))
    d += buf
    # GP22 down, then left along a channel above the LED row, then into 1A from the left.
    chan_y = led_y + 5.0
    d += elm.Line().at(at_pico(leds["data"])).to((at_pico(leds["data"])[0], chan_y))
    d += elm.Line().to((buf.A[0] - 0.8, chan_y)).label(
        f"{leds['data']} (3.3 V)", "top", fontsize=FONT)
    d += elm.Line().to((buf.A[0] - 0.8, led_y))
    d += elm.Line().to(buf.A)
    d += elm.Vdd().at(buf.VCC).label("+5V", fontsize=FONT)
    d += elm.Ground().at(buf.OE)
    d += elm.Ground().at(buf.GND)

    # The bulk capacitor where 5 V leaves the base for the LEDs.
    cap_top = (buf.Y[0] + 1.4, led_y + 3.4)
    d += elm.Vdd().at(cap_top).label("+5V", fontsize=FONT)
    d += elm.Capacitor(polar=True).at(cap_top).down().length(1.6)
    d += elm.Ground()
    d += elm.Label().at((cap_top[0] + 0.6, cap_top[1] - 0.8)).label(
        "1000 uF across the\nLED 5 V feed", fontsize=FONT - 1, halign="left")
    d += elm.Line().at(buf.Y).right().length(1.4)

    per = leds["leds_per_seat"]
    pods = []
    for seat in range(leds["seats"]):
        d += elm.Resistor().right().length(2.0).label(f"R{seat + 1} 330", "top",
                                                      fontsize=FONT - 1)
        first, last = seat * per, seat * per + per - 1
        pod = elm.Ic(pins=[
            elm.IcPin(name="DIN", side="left", anchorname="DIN"),
            elm.IcPin(name="DOUT", side="right", anchorname="DOUT"),
            elm.IcPin(name="5V", side="top", anchorname="V"),
            elm.IcPin(name="GND", side="bottom", anchorname="GND"),
        ], size=(4.6, 2.6), leadlen=0.5, plblsize=FONT - 1, lsize=FONT - 1).theta(0).label(
            f"seat {seat} pod\n{per} x {leds['type']}\nLED {first}-{last}", "center",
            fontsize=FONT - 1).anchor("DIN")
        d += pod
        d += elm.Vdd().at(pod.V).label("+5V", fontsize=FONT - 1)
        d += elm.Ground().at(pod.GND)
        d.here = pod.DOUT
        pods.append(pod)
    d += elm.Line().at(pods[-1].DOUT).right().length(0.6)
    d += elm.NoConnect()
    d += elm.Label().at((pods[0].DIN[0], led_y - 3.6)).label(
        f"{leds['type']} chain, {leds['order']}: data from the base to seat 0, back, to seat 1, "
        f"... clockwise to seat {leds['seats'] - 1}; each seat pod also holds its seat button",
        fontsize=FONT - 1, halign="left")
    return d


def render_svg(pm):
    """The SVG text for a pin map."""
    d = build(pm, backend="svg")
    return d.get_imagedata("svg").decode("utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(SVG), help="SVG to write (default: %(default)s)")
    parser.add_argument("--png", help="also write a PNG here (matplotlib), to look at")
    parser.add_argument("--check", action="store_true",
                        help="do not write; exit 1 if the SVG is not what the pin map draws")
    args = parser.parse_args(argv)
    try:
        pm = gen_pins.check(gen_pins.load())
    except (OSError, ValueError, gen_pins.PinmapError) as e:
        print(f"draw_wiring: {e}", file=sys.stderr)
        return 2
    svg = render_svg(pm)
    out = Path(args.out)
    if args.check:
        if not out.exists() or out.read_text(encoding="utf-8") != svg:
            print(f"draw_wiring: {out} is out of date with hardware/pinmap.json; "
                  "run .venv/bin/python hardware/draw_wiring.py", file=sys.stderr)
            return 1
        return 0
    out.write_text(svg, encoding="utf-8")
    print(f"draw_wiring: wrote {out}")
    if args.png:
        d = build(pm, backend="matplotlib")
        buf = io.BytesIO(d.get_imagedata("png"))
        Path(args.png).write_bytes(buf.getvalue())
        print(f"draw_wiring: wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
