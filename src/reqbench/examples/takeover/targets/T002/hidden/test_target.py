"""Target: the late fee is removed completely; payment terms stay at 30 days."""
from datetime import date, timedelta

from billing.invoice import Member, monthly_invoice
from billing.numbering import InvoiceNumberer
from billing.statement import amount_due, statement


def _invoice():
    return monthly_invoice(Member("Bo", "fixed_desk"), date(2026, 6, 1), InvoiceNumberer())


def test_no_fee_when_long_overdue():
    inv = _invoice()
    assert amount_due(inv, inv.due + timedelta(days=60)) == inv.total


def test_statement_has_no_late_fee_line():
    inv = _invoice()
    lines = statement(inv, inv.due + timedelta(days=60))
    assert [line.amount for line in lines] == [inv.total]
    assert not any("fee" in line.description.lower() for line in lines)
