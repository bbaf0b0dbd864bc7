"""Target (message 37): the boolean words are printed in upper case, whatever words are passed."""
from tabulate import tabulate


def test_yes_no_in_upper_case():
    out = tabulate([["reefer", True], ["hazmat", False]], booleans=("yes", "no"), tablefmt="plain")
    assert out == "reefer  YES\nhazmat  NO"


def test_other_words_in_upper_case_too():
    assert tabulate([[True, False]], booleans=("ja", "nein"), tablefmt="plain") == "JA  NEIN"
