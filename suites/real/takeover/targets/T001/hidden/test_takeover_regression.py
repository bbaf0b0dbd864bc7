"""Behaviour that must survive the truncation change (state before message 30)."""
import datetime

from tabulate import tabulate


def test_totals_row_with_empty_cells():
    out = tabulate([["fuel", None], ["tolls", 2.5], ["parking", 4]], headers=["item", "eur"], totals=True)
    assert out.splitlines()[-1] == "Total      6.5"


def test_empty_table_notice():
    assert tabulate([], headers=["truck", "km"]) == "truck    km\n-------  ----\n(no rows)"


def test_boolean_words():
    assert tabulate([["reefer", True], ["hazmat", False]], booleans=("yes", "no"), tablefmt="plain") == \
        "reefer  yes\nhazmat  no"


def test_datefmt():
    assert tabulate([[datetime.date(2026, 3, 1)]], datefmt="%d.%m.%Y", tablefmt="plain") == "01.03.2026"


def test_headers_are_never_cut():
    out = tabulate([["abcdefgh"]], headers=["destination"], truncate=4)
    assert out.splitlines()[0] == "destination"
