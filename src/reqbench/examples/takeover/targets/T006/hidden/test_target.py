"""Target: first-month proration by calendar days, the joining day included."""
from datetime import date
from decimal import Decimal

from billing.invoice import Member, monthly_invoice
from billing.numbering import InvoiceNumberer


def _net(joined, issued):
    return monthly_invoice(Member("Fa", "hot_desk", joined=joined), issued, InvoiceNumberer()).net


def test_joining_on_the_11th_of_a_30_day_month_pays_20_of_30_days():
    assert _net(date(2026, 9, 11), date(2026, 9, 30)) == Decimal("100.00")


def test_february_uses_its_own_length():
    assert _net(date(2027, 2, 15), date(2027, 2, 28)) == Decimal("75.00")


def test_joining_on_the_first_or_an_earlier_month_pays_full_price():
    assert _net(date(2026, 9, 1), date(2026, 9, 30)) == Decimal("150.00")
    assert _net(date(2026, 8, 20), date(2026, 9, 30)) == Decimal("150.00")
