"""Which filter the HX711 has, read off a finger's press let go at once on the platform.

Usage::

    from rhinoref.adccheck import verdict
    adc, spreads = verdict(grams, sps)   # "sinc1", "sinc4" or None (cannot tell), and for each
                                         # release found, how many readings lay partway down

A reading that is the mean load over its own conversion ("sinc1") catches a finger snapped
away from the platform (10-30 ms) partway down in one reading at most at 10 SPS; a sinc^4
filter hands the change to the readings over four conversions, two or more of them partway.
The release is the descent into the empty platform's rest from where it began (a finger's
wander while it holds is not part of it); its top tenth is left out (a pressing finger
trembles by 3-10 % of its push) and so is its last half percent (the noise), which leaves the
small last reading a sinc^4 filter trails (0.2-4 % of the drop). The pressed level those
shares are of lies between the top and the median of the five readings up to it: a finger's
wander (a fifth of its push and more) makes the top a peak that a reading just before the
release lies far under, partway by the top alone (taken from the top, 3 % of sinc1 checks of
three presses read sinc4; from the median, sinc4's second reading partway, 80 % of the drop
when the release falls mid-conversion, went over the top tenth). Five presses, and the
answer only when they agree: sinc1 when two releases or more show one reading partway or
none, sinc4 when none does, else no answer (a wrong one is worse than none: docs/detector.md,
"The converter's filter"). At 80 SPS a conversion lasts 12.5 ms, and a finger's 10-40 ms
release spans as many conversions as the filter would: no verdict there (the referee at 80
SPS does not depend on it). Measured on the simulated table (``tests/test_adccheck.py``);
``rhinoref calibrate --adc check`` runs it on a board.
"""

MIN_DROP_G = 20.0        # a firm fingertip press weighs 50-500 g; the noise is 0.02 g
REST_MS = 300            # the empty platform after a release: still this long
REST_BAND_G = 0.3        # ... within this (noise, creep, the platform settling)
LOOK_BACK_MS = 600       # the pressed level is found within this before the rest
PARTWAY = (0.005, 0.90)  # a reading partway down lies within these shares of the release
MIN_RELEASES = 3         # releases a verdict needs (five presses are asked for)


def _n(ms, sps):
    return max(2, (ms * sps + 999) // 1000)


def releases(grams, sps):
    """For each release in ``grams`` (readings at ``sps``): (index of the first reading at
    rest after it, its drop in grams, readings partway down). The release is the descent into
    the rest, from the last reading that the one before it does not exceed (a finger's
    wander while it holds is not part of it)."""
    rest_n = _n(REST_MS, sps)
    back_n = _n(LOOK_BACK_MS, sps)
    out = []
    j = back_n + 1       # (the top and the reading before it stay inside the readings)
    while j + rest_n <= len(grams):
        window = grams[j:j + rest_n]
        rest = sum(window) / rest_n
        if max(window) - min(window) > REST_BAND_G or grams[j - 1] - rest < REST_BAND_G:
            j += 1
            continue
        top = j - 1
        while top > j - back_n and grams[top - 1] > grams[top]:
            top -= 1
        drop = grams[top] - rest
        # (and the reading before the top was pressed too: a lone spike of the HX711, from the
        # rest or from a press, is no release)
        if drop >= MIN_DROP_G and grams[top - 1] - rest >= drop / 2:
            held = sorted(grams[max(0, top - 4):top + 1])
            pressed = (grams[top] + held[len(held) // 2]) / 2 - rest
            lo = rest + PARTWAY[0] * pressed
            hi = rest + PARTWAY[1] * pressed
            partway = sum(1 for g in grams[top + 1:j] if lo < g < hi)
            out.append((j, drop, partway))
            j += rest_n
        else:
            j += 1
    return out


def verdict(grams, sps):
    """("sinc1", "sinc4" or None, [readings partway down, per release]) for the readings of a
    platform pressed and let go a few times at 10 SPS: sinc1 when two releases or more show
    one reading partway or none, sinc4 when none does (None: they disagree, fewer than three
    releases were seen, or 80 SPS, where a finger's 10-40 ms release spans as many conversions
    as the filter would). A cell mounted the other way up, not yet calibrated, reads a press
    as a dip: that is tried too."""
    found = releases(grams, sps) or releases([-g for g in grams], sps)
    spreads = [p for _, _, p in found]
    if sps > 20 or len(spreads) < MIN_RELEASES:
        return None, spreads
    sharp = sum(1 for p in spreads if p <= 1)
    return ("sinc1" if sharp >= 2 else "sinc4" if sharp == 0 else None), spreads
