"""Account statements: what a member owes on an invoice as of a given day."""

from datetime import date
from decimal import Decimal

from billing.fees import late_fee
from billing.invoice import Invoice, Line


def is_overdue(invoice: Invoice, today: date) -> bool:
    return today > invoice.due


def statement(invoice: Invoice, today: date) -> list[Line]:
    """Statement lines: the invoice total, plus a late fee line when one is owed."""
    lines = [Line(f"Invoice {invoice.number}", invoice.total)]
    fee = late_fee(invoice.total, invoice.due, today)
    if fee:
        lines.append(Line("Late fee", fee))
    return lines


def amount_due(invoice: Invoice, today: date) -> Decimal:
    return sum((line.amount for line in statement(invoice, today)), Decimal("0.00"))
