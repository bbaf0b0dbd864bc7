"""Behaviour that must survive the export change (state after message 44)."""
from datetime import date, timedelta
from decimal import Decimal

from billing.invoice import Member, monthly_invoice
from billing.numbering import InvoiceNumberer
from billing.reminders import reminders_due


def test_discount_and_overage():
    inv = monthly_invoice(Member("Di", "hot_desk", prepaid_annual=True), date(2026, 8, 1),
                          InvoiceNumberer(), room_hours=3)
    assert inv.net == Decimal("139.50")


def test_reminders_three_days_before_due():
    inv = monthly_invoice(Member("Ed", "hot_desk"), date(2026, 8, 1), InvoiceNumberer())
    assert reminders_due([inv], inv.due - timedelta(days=3)) == [inv]
