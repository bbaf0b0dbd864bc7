"""Behaviour that must survive the boolean change (state before message 37)."""
from tabulate import tabulate


def test_only_real_booleans_are_replaced():
    assert tabulate([["True", 1]], booleans=("yes", "no"), tablefmt="plain") == "True  1"


def test_without_booleans_python_words_stay():
    assert tabulate([[True]], tablefmt="plain") == "True"


def test_truncation_with_three_dots():
    assert tabulate([["Gdansk - Poznan - Berlin via A2"]], truncate=24, tablefmt="plain") == "Gdansk - Poznan - Ber..."


def test_totals_row():
    out = tabulate([["a", 1], ["b", None]], headers=["k", "n"], totals=True)
    assert out.splitlines()[-1] == "Total    1"


def test_empty_table_notice():
    assert tabulate([], headers=["a"]).splitlines()[-1] == "(no rows)"
