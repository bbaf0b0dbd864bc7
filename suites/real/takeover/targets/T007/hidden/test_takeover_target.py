"""Target (message 55): the totals row reads TOTAL and is set off by a separating line."""
from tabulate import tabulate


def test_total_in_capitals_under_a_separating_line():
    out = tabulate([["a", 1], ["b", 2]], headers=["k", "n"], totals=True)
    assert out == "k        n\n-----  ---\na        1\nb        2\n-----  ---\nTOTAL    3"


def test_grid_draws_no_extra_line():
    out = tabulate([["a", 1]], headers=["k", "n"], totals=True, tablefmt="grid")
    assert out == "\n".join(["+-------+-----+", "| k     |   n |", "+=======+=====+", "| a     |   1 |",
                             "+-------+-----+", "| TOTAL |   1 |", "+-------+-----+"])
