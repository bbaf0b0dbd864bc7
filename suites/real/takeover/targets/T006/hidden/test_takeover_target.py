"""Target (message 51): maxrows=N shows the first N rows and a line counting the hidden ones."""
from tabulate import tabulate

FLEET = [[f"GD {n:04d}", n] for n in range(1, 6)]


def test_first_rows_and_the_count():
    out = tabulate(FLEET, headers=["plate", "no"], maxrows=2)
    assert out == "plate      no\n-------  ----\nGD 0001     1\nGD 0002     2\n... and 3 more rows"


def test_no_line_when_nothing_is_hidden():
    assert tabulate(FLEET[:2], maxrows=2, tablefmt="plain") == "GD 0001  1\nGD 0002  2"


def test_total_covers_all_rows_and_stays_visible():
    out = tabulate(FLEET, headers=["plate", "no"], maxrows=1, totals=True).splitlines()
    assert out[-2:] == ["Total      15", "... and 4 more rows"]
    assert "GD 0002" not in "\n".join(out)
