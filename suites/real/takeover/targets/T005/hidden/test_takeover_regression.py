"""Behaviour that must survive the withdrawal (state before message 45)."""
import datetime

from tabulate import tabulate


def test_accounting():
    assert tabulate([["fuel", -12.5]], floatfmt=".2f", accounting=True, tablefmt="plain") == "fuel  (12.50)"


def test_totals_row():
    out = tabulate([["a", 1], ["b", 2]], headers=["k", "n"], totals=True)
    assert out.splitlines()[-1] == "Total    3"


def test_empty_without_headers_stays_empty():
    assert tabulate([]) == ""


def test_dates():
    when = datetime.datetime(2026, 3, 2, 14, 30)
    assert tabulate([[when]], datefmt="%d.%m.%Y", tablefmt="plain") == "02.03.2026"
