# Probes for humanize 4.9.0 -> 4.10.0, taken from the project's own tests (MIT, Jason Moiron and
# contributors). Rows are verbatim from tests/test_number.py and tests/test_time.py; adapted: the
# upstream test_metric is split into the rows that existed in 4.9.0 (fixed) and the rows added in
# 4.10.0 (test_metric_low_precision); the upstream test_naturaldelta is split into its positive
# assertion (fixed) and the negative assertion added in 4.10.0 (test_naturaldelta_negative).
# humanize reads its version from installed metadata at import time: the dist-info folder next to this
# file stands in for the installation (the verifier installs nothing).
from __future__ import annotations

import datetime as dt
import math
import typing

import pytest

import humanize

NATURALDELTA_ROWS = [
    (0, "a moment"),
    (1, "a second"),
    (23.5, "23 seconds"),
    (30, "30 seconds"),
    (dt.timedelta(microseconds=13), "a moment"),
    (dt.timedelta(minutes=1, seconds=30), "a minute"),
    (dt.timedelta(minutes=2), "2 minutes"),
    (dt.timedelta(hours=1, minutes=30, seconds=30), "an hour"),
    (dt.timedelta(hours=23, minutes=50, seconds=50), "23 hours"),
    (dt.timedelta(days=1), "a day"),
    (dt.timedelta(days=500), "1 year, 4 months"),
    (dt.timedelta(days=365 * 2 + 35), "2 years"),
    (dt.timedelta(seconds=1), "a second"),
    (dt.timedelta(seconds=30), "30 seconds"),
    # regression tests for bugs in post-release humanize
    (dt.timedelta(days=10000), "27 years"),
    (dt.timedelta(days=365 + 35), "1 year, 1 month"),
    (dt.timedelta(days=365 * 2 + 65), "2 years"),
    (dt.timedelta(days=365 + 4), "1 year, 4 days"),
    (dt.timedelta(days=35), "a month"),
    (dt.timedelta(days=65), "2 months"),
    (dt.timedelta(days=9), "9 days"),
    (dt.timedelta(days=365), "a year"),
    (dt.timedelta(days=365 * 1_141), "1,141 years"),
    ("NaN", "NaN"),  # Returns non-numbers unchanged.
    # largest possible timedelta
    (dt.timedelta(days=999_999_999), "2,739,726 years"),
]


@pytest.mark.parametrize("test_input, expected", NATURALDELTA_ROWS)
def test_naturaldelta(test_input: float | dt.timedelta, expected: str) -> None:
    assert humanize.naturaldelta(test_input) == expected


@pytest.mark.parametrize("test_input, expected", [r for r in NATURALDELTA_ROWS if not isinstance(r[0], str)])
def test_naturaldelta_negative(test_input: float | dt.timedelta, expected: str) -> None:
    assert humanize.naturaldelta(-test_input) == expected


@pytest.mark.parametrize(
    "test_args, expected",
    [
        ([1.5123, "", 0], "2"),
        ([10.5123, "", 0], "11"),
        ([10.5123, "", 1], "11"),
        ([10.5123, "", 2], "11"),
        ([10.5123, "", 3], "10.5"),
        ([1, "", 0], "1"),
        ([10, "", 0], "10"),
        ([100, "", 0], "100"),
        ([1000, "", 0], "1 k"),
        ([1, "", 1], "1"),
        ([10, "", 1], "10"),
        ([100, "", 1], "100"),
        ([1000, "", 1], "1 k"),
        ([1, "", 2], "1.0"),
        ([10, "", 2], "10"),
        ([100, "", 2], "100"),
        ([1000, "", 2], "1.0 k"),
        ([1, "", 3], "1.00"),
        ([10, "", 3], "10.0"),
        ([100, "", 3], "100"),
        ([1000, "", 3], "1.00 k"),
    ],
    ids=str,
)
def test_metric_low_precision(test_args: list[typing.Any], expected: str) -> None:
    assert humanize.metric(*test_args) == expected


@pytest.mark.parametrize(
    "test_args, expected",
    [
        ([0], "0.00"),
        ([1, "Hz"], "1.00 Hz"),
        ([1.0, "W"], "1.00 W"),
        ([3, "C"], "3.00 C"),
        ([3, "W", 5], "3.0000 W"),
        ([1.23456], "1.23"),
        ([12.3456], "12.3"),
        ([123.456], "123"),
        ([1234.56], "1.23 k"),
        ([12345, "", 6], "12.3450 k"),
        ([200_000], "200 k"),
        ([1e25, "m"], "10.0 Ym"),
        ([1e26, "m"], "100 Ym"),
        ([1e27, "A"], "1.00 RA"),
        ([1.234e28, "A"], "12.3 RA"),
        ([1.234e-28, "A"], "123 qA"),
        ([1.235e29, "A"], "124 RA"),
        ([2.56e-30, "V"], "2.56 qV"),
        ([2.596e32, "F"], "260 QF"),
        ([1e50], "1.00 x 10⁵⁰"),
        ([1e-50], "1.00 x 10⁻⁵⁰"),
        ([-1500, "V"], "-1.50 kV"),
        ([0.12], "120 m"),
        ([0.012], "12.0 m"),
        ([0.0012], "1.20 m"),
        ([0.00012], "120 μ"),
        ([1e-23], "10.0 y"),
        ([1e-24], "1.00 y"),
        ([1e-25], "100 r"),
        ([1e-26], "10.0 r"),
        ([1, "°"], "1.00°"),
        ([0.1, "°"], "100m°"),
        ([100], "100"),
        ([0.1], "100 m"),
        ([math.nan], "NaN"),
        ([math.nan, "m"], "NaN"),
        ([math.inf], "+Inf"),
        ([-math.inf], "-Inf"),
    ],
    ids=str,
)
def test_metric(test_args: list[typing.Any], expected: str) -> None:
    assert humanize.metric(*test_args) == expected
