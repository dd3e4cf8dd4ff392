"""The Detector's attribute count keeps MicroPython's attribute table at most 85 % full.

MicroPython (py/map.c) grows an instance's attribute table only when it is full, to the next
size of a fixed list; so n attributes live in the smallest listed size >= n. A method call
through ``self`` first looks the name up in that table and misses: in a full table the miss
probes every slot. The Detector at 167 attributes in 167 slots took 13.8 us per sample on the
unix port, at 168 in 223 slots 2.3 us. In a table that is not full the cost grows slowly: 178
attributes (80 %) took 3.1 us, 194 (87 %) 3.3 us (bench_firmware_resources.py --quick, three runs
each); the bound is 85 %, 189 attributes. The count must also not change as a game is played: an
attribute made late would move the table after the check below.
"""

import pytest

from referee import app, detector
from detrun import tilt_switch
from tracegen import Gen

# py/map.c hash_allocation_sizes (MicroPython 1.2x)
SIZES = (0, 2, 4, 6, 8, 10, 12, 17, 23, 29, 37, 47, 59, 73, 97, 127, 167, 223, 293, 389, 521)


def load(n):
    return n / next(size for size in SIZES if size >= n)


def test_the_size_list_is_used_the_way_micropython_grows_tables():
    assert load(167) == 1.0 and load(168) == 168 / 223 and load(12) == 1.0


@pytest.mark.parametrize("sps", [80, 10])
@pytest.mark.parametrize("accel", [True, False, detector.TILT])
def test_detector_attribute_table_is_at_most_80_percent_full_and_stays_so(sps, accel):
    g = Gen(seed=3, sps=sps, spikes=0.002, drift_g=0.3)
    g.idle(1500)
    g.floors(3)
    g.lift(5.5)
    g.bump(mg=300)
    g.collapse(10.0)
    g.idle(2000)
    d = detector.Detector(g.cal, sps=sps, accel=accel)
    made = set(d.__dict__)
    assert load(len(made)) <= 0.85, (
        "%d attributes fill %.0f %% of MicroPython's table: add or remove attributes "
        "(see Detector.__init__)" % (len(made), 100 * load(len(made))))
    # (a tilt switch's readings where the detector is told it has one: its own paths run)
    for sample in (tilt_switch(g) if accel == detector.TILT else g.samples)():
        d.feed(*sample)
    assert set(d.__dict__) == made, set(d.__dict__) ^ made


def test_referee_attribute_table_is_not_nearly_full():
    r = app.Referee(root=None, sps=80, accel=True)
    assert load(len(r.__dict__)) <= 0.85, len(r.__dict__)


def class_table(cls):
    """The names MicroPython's class table holds: what the class body defines, with
    ``__module__`` and ``__qualname__`` but not CPython's own ``__dict__``, ``__weakref__``
    and ``__doc__`` (a docstring is no entry there). The unix port's ``len(Detector.__dict__)``
    gives the same count."""
    names = set(cls.__dict__) - {"__dict__", "__weakref__", "__doc__"}
    return names | {"__qualname__"}


def test_detector_class_table_is_not_past_90_percent_full():
    """A method called through ``self`` misses in the instance's table and is then found in
    the class's, so the class's table's fill costs every call too: at 87 entries in 97 slots,
    one empty method more made ``Detector.feed`` about 0.4 us per sample slower on the unix
    port (docs/detector.md, "Speed on MicroPython"). A rule that needs a method inlines a
    single-use one elsewhere, or takes the class past 97 entries (127 slots, 77 % full)."""
    n = len(class_table(detector.Detector))
    assert load(n) <= 0.90, (
        "the Detector class has %d entries, %.0f %% of MicroPython's table" % (n, 100 * load(n)))
