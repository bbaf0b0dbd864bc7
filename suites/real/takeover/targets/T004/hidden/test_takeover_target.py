"""Target (message 40): accounting=True is back: negatives in parentheses, column format, right-aligned."""
from tabulate import tabulate


def test_negative_in_parentheses_with_column_format():
    out = tabulate([["fuel", -12.5], ["tolls", 3.25]], floatfmt=".2f", accounting=True, tablefmt="plain")
    assert out == "fuel   (12.50)\ntolls     3.25"


def test_integers_and_headers():
    out = tabulate([["a", -3], ["b", 1200]], headers=["k", "n"], accounting=True, intfmt=",")
    assert out == "k        n\n---  -----\na      (3)\nb    1,200"


def test_text_columns_untouched():
    assert tabulate([["-x-", -1]], accounting=True, tablefmt="plain") == "-x-  (1)"
