"""Behaviour that must survive the date change (state before message 58)."""
import datetime

from tabulate import tabulate


def test_date_objects():
    assert tabulate([[datetime.date(2026, 3, 1)]], datefmt="%d.%m.%Y", tablefmt="plain") == "01.03.2026"


def test_iso_strings_untouched_without_datefmt():
    assert tabulate([["2026-03-01"]], tablefmt="plain") == "2026-03-01"


def test_totals_with_separating_line_and_row_limit():
    out = tabulate([["a", 1], ["b", 2], ["c", 3]], headers=["k", "n"], maxrows=2, totals=True)
    assert out.splitlines()[-3:] == ["-----  ---", "TOTAL    6", "... and 1 more rows"]
