"""The pin map is the single source: pins.py, the wiring diagram and the README table must agree
with hardware/pinmap.json, and the pin map itself must be a wiring a Pico can have."""

import copy
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HARDWARE = ROOT / "hardware"
PINS_PY = ROOT / "firmware" / "referee" / "pins.py"


def _load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = _load_module("gen_pins", HARDWARE / "gen_pins.py")


@pytest.fixture
def pm():
    return gen.load()


@pytest.fixture
def pins():
    return _load_module("generated_pins", PINS_PY)


def g(pm, name):
    return pm["signals"][name]["gpio"]


# --- the pin map itself --------------------------------------------------------------------------

def test_committed_pinmap_is_valid(pm):
    assert gen.validate(pm) == []


def test_only_real_pico_gpios_and_no_pin_used_twice(pm):
    used = [s["gpio"] for s in pm["signals"].values() if s["gpio"] is not None]
    assert len(used) == len(set(used))
    for gpio in used:
        assert 0 <= gpio <= 22 or 26 <= gpio <= 28


def test_i2c_pins_are_a_valid_pair_for_the_bus(pm):
    # RP2040 datasheet GPIO function table: I2C0 SDA on GP0/4/8/..., SCL on GP1/5/9/...;
    # I2C1 SDA on GP2/6/10/..., SCL on GP3/7/11/... (written out here, not taken from gen_pins).
    table = {0: ({0, 4, 8, 12, 16, 20}, {1, 5, 9, 13, 17, 21}),
             1: ({2, 6, 10, 14, 18, 26}, {3, 7, 11, 15, 19, 27})}
    sda_ok, scl_ok = table[pm["i2c"]["id"]]
    assert g(pm, pm["i2c"]["sda"]) in sda_ok
    assert g(pm, pm["i2c"]["scl"]) in scl_ok


def test_hx711_state_machine_is_on_pio0_away_from_the_pico_w_radio(pm):
    pio = pm["hx711"]["pio"]
    assert pio["block"] == 0 and pio["sm_id"] == 4 * pio["block"] + pio["sm"]


@pytest.mark.parametrize("edit, complaint", [
    (lambda pm: pm["signals"]["seat3"].update(gpio=6), "already used"),
    (lambda pm: pm["signals"]["menu"].update(gpio=23), "not a Pico header GPIO"),
    (lambda pm: pm["signals"]["menu"].update(gpio=29), "not a Pico header GPIO"),
    (lambda pm: pm["signals"]["i2c0_sda"].update(gpio=6), "cannot be I2C0 SDA"),
    (lambda pm: pm["i2c"].update(id=1), "cannot be I2C1"),
    (lambda pm: pm["signals"]["i2c0_scl"].update(gpio=4), "cannot be I2C0 SCL"),
    (lambda pm: pm["hx711"]["pio"].update(sm_id=5), "disagree"),
    (lambda pm: pm["hx711"].update(sps=40), "10 or 80"),
    (lambda pm: pm.update(symbols=["skip", "reverse", "draw", "double", "rhino"]), "order"),
    (lambda pm: pm.update(seats=pm["seats"][:4]), "5 signals"),
    (lambda pm: pm["signals"]["skip"].update(pull="none"), "pull 'up'"),
    (lambda pm: pm.update(menu="nosuch"), "not in 'signals'"),
    (lambda pm: pm["leds"].update(leds_per_seat=0), "leds_per_seat"),
    (lambda pm: pm.update(watchdog_ms=10000), "watchdog_ms"),
    (lambda pm: pm.update(version=2), "version"),
])
def test_validator_rejects_bad_pin_maps(pm, edit, complaint):
    bad = copy.deepcopy(pm)
    edit(bad)
    errors = gen.validate(bad)
    assert any(complaint in e for e in errors), errors
    with pytest.raises(gen.PinmapError):
        gen.render_pins(bad)


# --- pins.py agrees with the pin map -------------------------------------------------------------

def test_pins_py_is_the_generated_text(pm):
    assert PINS_PY.read_text(encoding="utf-8") == gen.render_pins(pm), \
        "firmware/referee/pins.py is stale: run .venv/bin/python hardware/gen_pins.py"


def test_pins_py_values_match_the_pin_map(pm, pins):
    # Checked value by value, independently of the generator's own rendering.
    assert pins.HX711_DOUT == g(pm, pm["hx711"]["dout"])
    assert pins.HX711_SCK == g(pm, pm["hx711"]["sck"])
    assert pins.HX711_SM == pm["hx711"]["pio"]["sm_id"]
    assert pins.HX711_SPS == pm["hx711"]["sps"]
    assert pins.I2C_ID == pm["i2c"]["id"]
    assert pins.I2C_SDA == g(pm, pm["i2c"]["sda"])
    assert pins.I2C_SCL == g(pm, pm["i2c"]["scl"])
    assert pins.I2C_FREQ == pm["i2c"]["freq"]
    assert pins.ACCEL_ADDR == pm["i2c"]["accel_addr"]
    assert pins.LED_DATA == g(pm, pm["leds"]["data"])
    assert pins.LEDS_PER_SEAT == pm["leds"]["leds_per_seat"]
    assert pins.LED_COUNT == 5 * pins.LEDS_PER_SEAT
    assert tuple(gp for _n, gp in pins.BUTTONS[:5]) == tuple(g(pm, s) for s in pm["seats"])
    assert [n for n, _ in pins.BUTTONS[5:10]] == ["reverse", "skip", "draw", "double", "rhino"]
    assert pins.BUTTONS[5:10] == tuple((s, g(pm, s)) for s in pm["symbols"])
    assert pins.MENU == g(pm, pm["menu"])
    assert pins.BUZZER == g(pm, pm["buzzer"])
    assert pins.TILT_SWITCH == g(pm, pm["tilt_switch"])
    assert pins.WDT_MS == pm["watchdog_ms"]
    names = [n for n, _ in pins.BUTTONS]
    assert names == [f"seat{i}" for i in range(5)] + list(pm["symbols"]) + ["menu"]
    assert len({gp for _, gp in pins.BUTTONS}) == len(pins.BUTTONS)


def test_pins_py_says_it_is_generated():
    first = PINS_PY.read_text(encoding="utf-8").splitlines()[0]
    assert first == gen.HEADER


def _copy_tree(tmp_path):
    """A throwaway copy of the files gen_pins.py reads and writes, laid out as in the repo."""
    (tmp_path / "hardware").mkdir()
    (tmp_path / "firmware" / "referee").mkdir(parents=True)
    for name in ("gen_pins.py", "pinmap.json", "README.md"):
        if (HARDWARE / name).exists():
            shutil.copy(HARDWARE / name, tmp_path / "hardware" / name)
    shutil.copy(PINS_PY, tmp_path / "firmware" / "referee" / "pins.py")
    return tmp_path


def _check(tree):
    return subprocess.run([sys.executable, str(tree / "hardware" / "gen_pins.py"), "--check"],
                          capture_output=True, text=True, timeout=60)


def test_check_passes_on_the_committed_files(tmp_path):
    result = _check(_copy_tree(tmp_path))
    assert result.returncode == 0, result.stderr


def test_check_fails_when_only_the_pinmap_is_edited(tmp_path):
    tree = _copy_tree(tmp_path)
    path = tree / "hardware" / "pinmap.json"
    pm = json.loads(path.read_text())
    pm["signals"]["menu"]["gpio"] = 19
    path.write_text(json.dumps(pm))
    result = _check(tree)
    assert result.returncode == 1
    assert "pins.py" in result.stderr
    # Regenerating brings the two sides back together.
    subprocess.run([sys.executable, str(tree / "hardware" / "gen_pins.py")], check=True,
                   capture_output=True, timeout=60)
    assert _check(tree).returncode == 0
    assert "MENU = 19" in (tree / "firmware" / "referee" / "pins.py").read_text()


def test_check_fails_when_only_pins_py_is_edited(tmp_path):
    tree = _copy_tree(tmp_path)
    path = tree / "firmware" / "referee" / "pins.py"
    path.write_text(path.read_text().replace("MENU = ", "MENU = 1 + "))
    result = _check(tree)
    assert result.returncode == 1 and "pins.py" in result.stderr


def test_check_refuses_an_invalid_pinmap(tmp_path):
    tree = _copy_tree(tmp_path)
    path = tree / "hardware" / "pinmap.json"
    pm = json.loads(path.read_text())
    pm["signals"]["skip"]["gpio"] = pm["signals"]["draw"]["gpio"]
    path.write_text(json.dumps(pm))
    result = _check(tree)
    assert result.returncode == 2 and "already used" in result.stderr


# --- the wiring diagram agrees with the pin map --------------------------------------------------

def _svg_texts(svg):
    import re
    return set(re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg))


@pytest.fixture(scope="module")
def draw():
    pytest.importorskip("schemdraw")
    return _load_module("draw_wiring", HARDWARE / "draw_wiring.py")


def test_wiring_svg_is_up_to_date(draw):
    committed = (HARDWARE / "wiring.svg").read_text(encoding="utf-8")
    assert committed == draw.render_svg(gen.load()), \
        "hardware/wiring.svg is stale: run .venv/bin/python hardware/draw_wiring.py"


def test_every_signal_and_gpio_is_in_the_committed_diagram(pm):
    texts = _svg_texts((HARDWARE / "wiring.svg").read_text(encoding="utf-8"))
    words = " ".join(texts)
    for name, sig in pm["signals"].items():
        assert name in words, f"signal {name} missing from wiring.svg"
        if sig["gpio"] is not None:
            assert f"GP{sig['gpio']}" in texts, f"GP{sig['gpio']} missing from wiring.svg"
            assert str(gen.PICO_HEADER_PIN[sig["gpio"]]) in texts
    # Nothing in the drawing claims a GPIO the pin map does not use.
    used = {f"GP{s['gpio']}" for s in pm["signals"].values() if s["gpio"] is not None}
    assert {t for t in texts if t.startswith("GP") and t[2:].isdigit()} == used


def test_diagram_check_fails_when_only_the_pinmap_is_edited(tmp_path, draw):
    tree = _copy_tree(tmp_path)
    for name in ("draw_wiring.py", "wiring.svg"):
        shutil.copy(HARDWARE / name, tree / "hardware" / name)
    script = tree / "hardware" / "draw_wiring.py"
    ok = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True,
                        timeout=120)
    assert ok.returncode == 0, ok.stderr
    path = tree / "hardware" / "pinmap.json"
    pm = json.loads(path.read_text())
    pm["signals"]["skip"]["gpio"] = 19
    path.write_text(json.dumps(pm))
    stale = subprocess.run([sys.executable, str(script), "--check"], capture_output=True,
                           text=True, timeout=120)
    assert stale.returncode == 1 and "wiring.svg" in stale.stderr


# --- the README's pin table agrees with the pin map ----------------------------------------------

def test_readme_pin_table_is_the_generated_one(pm):
    readme = (HARDWARE / "README.md").read_text(encoding="utf-8")
    assert gen.TABLE_BEGIN in readme and gen.TABLE_END in readme
    assert gen.replace_table(readme, gen.render_table(pm)) == readme, \
        "the pin table in hardware/README.md is stale: run .venv/bin/python hardware/gen_pins.py"
    for name, sig in pm["signals"].items():
        gp = "-" if sig["gpio"] is None else f"GP{sig['gpio']}"
        assert f"| `{name}`" in readme and f"| {gp} |" in readme


def test_check_fails_when_only_the_readme_table_is_edited(tmp_path):
    tree = _copy_tree(tmp_path)
    path = tree / "hardware" / "README.md"
    path.write_text(path.read_text().replace("| `menu` | GP16 |", "| `menu` | GP19 |"))
    result = _check(tree)
    assert result.returncode == 1 and "README.md" in result.stderr
