"""Behaviour that must survive the late-fee removal (state after message 30)."""
from datetime import date, timedelta
from decimal import Decimal

from billing.invoice import Member, monthly_invoice
from billing.numbering import InvoiceNumberer
from billing.statement import is_overdue
from billing.tax import vat_for_lines


def test_payment_terms_30_days():
    inv = monthly_invoice(Member("Bo", "hot_desk"), date(2026, 6, 1), InvoiceNumberer())
    assert inv.due == date(2026, 7, 1)
    assert is_overdue(inv, inv.due + timedelta(days=1))
    assert not is_overdue(inv, inv.due)


def test_vat_21_rounded_per_line():
    assert vat_for_lines([Decimal("0.10"), Decimal("0.10")]) == Decimal("0.04")
    inv = monthly_invoice(Member("Bo", "team_suite"), date(2026, 6, 1), InvoiceNumberer())
    assert inv.total == Decimal("1694.00")
