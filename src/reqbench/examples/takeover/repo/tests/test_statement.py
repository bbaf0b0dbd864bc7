from datetime import date, timedelta

from billing.invoice import Member, monthly_invoice
from billing.numbering import InvoiceNumberer
from billing.statement import amount_due, is_overdue


def test_not_overdue_before_due_date():
    inv = monthly_invoice(Member("Bo", "hot_desk"), date(2026, 3, 1), InvoiceNumberer())
    assert not is_overdue(inv, inv.due)
    assert is_overdue(inv, inv.due + timedelta(days=1))


def test_amount_due_within_terms_is_total():
    inv = monthly_invoice(Member("Bo", "hot_desk"), date(2026, 3, 1), InvoiceNumberer())
    assert amount_due(inv, inv.due) == inv.total
