# Probes that need the family's environment (family.yaml `environment:`): freezegun, which reqbench does
# not install, and the xmllint command of Debian's libxml2-utils, which the host need not have.
# test_naturaltime is verbatim from humanize 4.9.0's tests/test_time.py (MIT, Jason Moiron and
# contributors; unchanged in 4.10.0), with the module constants it uses. test_feed_entries_round_trip
# was written for this suite: humanize's texts, non-ASCII included ("μ"), written into an XML feed that
# xmllint must find well-formed and read back unchanged with an XPath query.
from __future__ import annotations

import datetime as dt
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from freezegun import freeze_time

import humanize

with freeze_time("2020-02-02"):
    NOW = dt.datetime.now()


@freeze_time("2020-02-02")
@pytest.mark.parametrize(
    "test_input, expected",
    [
        (NOW, "now"),
        (NOW - dt.timedelta(seconds=1), "a second ago"),
        (NOW - dt.timedelta(seconds=30), "30 seconds ago"),
        (NOW - dt.timedelta(minutes=1, seconds=30), "a minute ago"),
        (NOW - dt.timedelta(minutes=2), "2 minutes ago"),
        (NOW - dt.timedelta(hours=1, minutes=30, seconds=30), "an hour ago"),
        (NOW - dt.timedelta(hours=23, minutes=50, seconds=50), "23 hours ago"),
        (NOW - dt.timedelta(days=1), "a day ago"),
        (NOW - dt.timedelta(days=500), "1 year, 4 months ago"),
        (NOW - dt.timedelta(days=365 * 2 + 35), "2 years ago"),
        (NOW + dt.timedelta(seconds=1), "a second from now"),
        (NOW + dt.timedelta(seconds=30), "30 seconds from now"),
        (NOW + dt.timedelta(minutes=1, seconds=30), "a minute from now"),
        (NOW + dt.timedelta(minutes=2), "2 minutes from now"),
        (NOW + dt.timedelta(hours=1, minutes=30, seconds=30), "an hour from now"),
        (NOW + dt.timedelta(hours=23, minutes=50, seconds=50), "23 hours from now"),
        (NOW + dt.timedelta(days=1), "a day from now"),
        (NOW + dt.timedelta(days=500), "1 year, 4 months from now"),
        (NOW + dt.timedelta(days=365 * 2 + 35), "2 years from now"),
        # regression tests for bugs in post-release humanize
        (NOW + dt.timedelta(days=10000), "27 years from now"),
        (NOW - dt.timedelta(days=365 + 35), "1 year, 1 month ago"),
        (dt.timedelta(days=-10000), "27 years from now"),
        (dt.timedelta(days=365 + 35), "1 year, 1 month ago"),
        (23.5, "23 seconds ago"),
        (30, "30 seconds ago"),
        (NOW - dt.timedelta(days=365 * 2 + 65), "2 years ago"),
        (NOW - dt.timedelta(days=365 + 4), "1 year, 4 days ago"),
        ("NaN", "NaN"),
    ],
)
def test_naturaltime(test_input: dt.datetime, expected: str) -> None:
    assert humanize.naturaltime(test_input) == expected


@freeze_time("2020-02-02")
def test_feed_entries_round_trip(tmp_path: Path) -> None:
    texts = [humanize.naturaltime(NOW - dt.timedelta(minutes=2)), humanize.metric(0.000_001_5, "s"),
             humanize.naturalsize(3_000_000)]
    feed = ET.Element("feed")
    for text in texts:
        ET.SubElement(feed, "entry").text = text
    path = tmp_path / "feed.xml"
    ET.ElementTree(feed).write(path, encoding="utf-8", xml_declaration=True)
    subprocess.run(["xmllint", "--noout", str(path)], check=True)
    read = [subprocess.run(["xmllint", "--xpath", f"string(/feed/entry[{n}])", str(path)], check=True,
                           capture_output=True).stdout.decode("utf-8").removesuffix("\n") for n in range(1, len(texts) + 1)]
    assert read == texts == ["2 minutes ago", "1.50 μs", "3.0 MB"]  # xmllint ends its answer with a newline
