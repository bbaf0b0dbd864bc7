"""Behaviour that must survive proration (state after message 52)."""
from datetime import date
from decimal import Decimal

from billing.export import export_csv
from billing.invoice import Member, monthly_invoice
from billing.numbering import InvoiceNumberer


def test_existing_members_pay_full_price():
    inv = monthly_invoice(Member("Gu", "fixed_desk"), date(2026, 9, 30), InvoiceNumberer())
    assert inv.net == Decimal("250.00")


def test_export_format():
    inv = monthly_invoice(Member("Gu", "fixed_desk"), date(2026, 9, 1), InvoiceNumberer())
    assert export_csv([inv]).splitlines()[0] == "invoice_number;member;net;vat;total;due_date"
