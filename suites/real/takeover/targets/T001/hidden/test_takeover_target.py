"""Target (message 30): truncated cells end in three ASCII dots, and the limit includes the dots."""
from tabulate import tabulate


def test_cut_cell_ends_in_three_dots_within_the_limit():
    route = "Gdansk - Poznan - Berlin via A2"
    assert tabulate([[route]], truncate=24, tablefmt="plain") == "Gdansk - Poznan - Ber..."


def test_no_unicode_ellipsis_left():
    out = tabulate([["abcdefghij", "klmnopqrstuvwxyz"]], truncate=8, tablefmt="plain")
    assert "\u2026" not in out
    assert out == "abcde...  klmno..."


def test_short_cells_and_numbers_are_not_cut():
    assert tabulate([["short", 123456789012]], truncate=6, tablefmt="plain") == "short  123456789012"
