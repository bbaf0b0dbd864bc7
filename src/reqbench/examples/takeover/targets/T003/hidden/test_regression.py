"""Behaviour that must survive the discount change (state after message 38)."""
from datetime import date, timedelta
from decimal import Decimal

from billing.invoice import Member, monthly_invoice
from billing.numbering import InvoiceNumberer
from billing.statement import amount_due


def test_meeting_room_overage():
    inv = monthly_invoice(Member("Cy", "private_office"), date(2026, 7, 1), InvoiceNumberer(), room_hours=12)
    assert inv.net == Decimal("624.00")


def test_no_late_fee():
    inv = monthly_invoice(Member("Cy", "hot_desk"), date(2026, 7, 1), InvoiceNumberer())
    assert amount_due(inv, inv.due + timedelta(days=90)) == inv.total


def test_vat_21():
    inv = monthly_invoice(Member("Cy", "hot_desk"), date(2026, 7, 1), InvoiceNumberer())
    assert inv.vat == Decimal("31.50")
