"""Target (message 58): datefmt also formats strings holding an ISO date (exactly YYYY-MM-DD)."""
from tabulate import tabulate


def test_iso_date_strings_are_formatted():
    assert tabulate([["2026-03-01"]], datefmt="%d.%m.%Y", tablefmt="plain") == "01.03.2026"


def test_other_strings_stay():
    rows = [["2026-03-01", "2026-3-1", "n/a", "2026-02-30"]]
    assert tabulate(rows, datefmt="%d.%m.%Y", tablefmt="plain") == "01.03.2026  2026-3-1  n/a  2026-02-30"
