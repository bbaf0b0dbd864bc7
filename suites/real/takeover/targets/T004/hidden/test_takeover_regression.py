"""Behaviour that must survive the accounting change (state before message 40)."""
from tabulate import tabulate


def test_without_accounting_minus_sign_stays():
    assert tabulate([["fuel", -12.5]], floatfmt=".2f", tablefmt="plain") == "fuel  -12.50"


def test_boolean_words_upper_case():
    assert tabulate([[True, False]], booleans=("yes", "no"), tablefmt="plain") == "YES  NO"


def test_totals_row():
    out = tabulate([["a", 1.5], ["b", 2]], headers=["k", "n"], totals=True)
    assert out.splitlines()[-1] == "Total  3.5"


def test_empty_table_notice():
    assert tabulate([], headers=["a", "b"]) == "a    b\n---  ---\n(no rows)"
