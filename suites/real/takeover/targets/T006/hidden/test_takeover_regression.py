"""Behaviour that must survive the row limit (state before message 51)."""
from tabulate import tabulate


def test_empty_table_is_just_the_headers():
    assert tabulate([], headers=["a", "b"]) == "a    b\n---  ---"


def test_totals_row_without_limit():
    out = tabulate([["a", 1], ["b", 2], ["c", 3]], headers=["k", "n"], totals=True)
    assert out == "k        n\n-----  ---\na        1\nb        2\nc        3\nTotal    6"


def test_accounting():
    assert tabulate([[-3]], accounting=True, tablefmt="plain") == "(3)"
