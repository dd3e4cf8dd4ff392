"""hardware/bom.csv: every line's cost is qty x unit, the total row adds up, and the parts the
pin map needs are all on it in the right numbers."""

import csv
import json
from decimal import Decimal
from pathlib import Path

import pytest

HARDWARE = Path(__file__).resolve().parents[1] / "hardware"
COLUMNS = ["ref", "part", "qty", "typical part number", "unit cost (EUR)", "line cost (EUR)",
           "notes"]


@pytest.fixture(scope="module")
def bom():
    with open(HARDWARE / "bom.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return rows


@pytest.fixture(scope="module")
def parts(bom):
    return [r for r in bom if r["ref"] != "TOTAL"]


def _find(parts, *words):
    hits = [r for r in parts if all(w.lower() in (r["part"] + " " + r["typical part number"])
                                    .lower() for w in words)]
    assert hits, f"no BOM line mentions {words}"
    return hits[0]


def test_columns():
    with open(HARDWARE / "bom.csv", newline="", encoding="utf-8") as f:
        assert next(csv.reader(f)) == COLUMNS


def test_each_line_cost_is_qty_times_unit(parts):
    for r in parts:
        qty, unit = int(r["qty"]), Decimal(r["unit cost (EUR)"])
        line = Decimal(r["line cost (EUR)"])
        assert qty >= 0 and unit > 0, r["ref"]
        assert (qty * unit).quantize(Decimal("0.01")) == line, r["ref"]


def test_total_row_adds_up(bom, parts):
    totals = [r for r in bom if r["ref"] == "TOTAL"]
    assert len(totals) == 1 and bom[-1]["ref"] == "TOTAL"
    assert sum(Decimal(r["line cost (EUR)"]) for r in parts) == \
        Decimal(totals[0]["line cost (EUR)"])


def test_refs_are_unique_and_every_line_is_filled(parts):
    refs = [r["ref"] for r in parts]
    assert len(refs) == len(set(refs))
    for r in parts:
        assert r["part"] and r["typical part number"] and r["notes"], r["ref"]


def test_parts_the_pin_map_needs_are_there_in_the_right_numbers(parts):
    pm = json.loads((HARDWARE / "pinmap.json").read_text())
    assert int(_find(parts, "WS2812B")["qty"]) == pm["leds"]["leds_per_seat"] * pm["leds"]["seats"]
    assert int(_find(parts, "seat buttons")["qty"]) == len(pm["seats"])
    assert int(_find(parts, "symbol buttons")["qty"]) == len(pm["symbols"])
    assert int(_find(parts, "menu button")["qty"]) == 1
    for words in (("Pico",), ("HX711",), ("load cell", "1 kg"), ("MPU-6050",), ("74AHCT125",),
                  ("330 ohm",), ("1000 uF",), ("piezo",), ("platform",), ("spacer",),
                  ("overload stop",)):
        assert int(_find(parts, *words)["qty"]) >= 1, words


def _readme():
    return (HARDWARE / "README.md").read_text(encoding="utf-8")


def test_readme_parts_summary_adds_up_to_the_bom_total(bom):
    import re
    total = Decimal(bom[-1]["line cost (EUR)"])
    section = _readme().split("## 1. Parts", 1)[1].split("## 2.", 1)[0]
    costs = [Decimal(m) for m in re.findall(r"^\|[^\n]*\| (\d+\.\d\d) \|$", section, re.M)]
    assert len(costs) >= 5
    assert sum(costs) == total
    assert f"Total: **{total} EUR**" in section


def test_readme_power_budget_matches_the_firmware_cap():
    import re
    import sys
    readme = _readme()
    budget = int(re.search(r"\*\*LED colour budget\*\*[^\n]*\*\*(\d+) mA\*\*", readme).group(1))
    sys.path.insert(0, str(HARDWARE.parent / "firmware"))
    try:
        from referee import cues
    except ImportError:
        pytest.skip("firmware/referee/cues.py not there yet")
    assert cues.LED_BUDGET_MA == budget
    frame_max = budget * 255 // 20
    assert cues.FRAME_SUM_MAX == frame_max and f"= {frame_max}" in readme
    assert f"no single channel above {cues.CHANNEL_MAX}" in readme
    # The other consumers in the table (largest figure of each row) plus the LED budget fit
    # one USB port's 500 mA.
    table = readme.split("| consumer | current |", 1)[1].split("**LED colour budget**", 1)[0]
    rows = [r for r in table.splitlines() if r.startswith("| ") and "mA" in r]
    others = sum(max(int(n) for n in re.findall(r"(\d+) mA", r)) for r in rows)
    assert len(rows) >= 6
    assert budget + others <= 500
    assert f"{budget} + {others} = {budget + others} mA" in readme
