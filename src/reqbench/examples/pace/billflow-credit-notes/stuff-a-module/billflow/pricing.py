"""Invoice arithmetic: subtotal, tax and total, always in cents."""

from __future__ import annotations

from decimal import Decimal

from billflow.models import Invoice
from billflow.money import to_cents


def subtotal(invoice: Invoice) -> Decimal:
    return to_cents(sum((line.amount for line in invoice.lines), Decimal("0")))


def tax(invoice: Invoice, rate: Decimal) -> Decimal:
    return to_cents(subtotal(invoice) * rate)


def total(invoice: Invoice, rate: Decimal) -> Decimal:
    return to_cents(subtotal(invoice) + tax(invoice, rate))
