"""Monthly invoices: one line per charge, VAT on the net, totals in cents."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from billing.money import round_cents
from billing.numbering import InvoiceNumberer
from billing.plans import CURRENCY, monthly_price
from billing.tax import vat_for

PAYMENT_TERMS_DAYS = 30


@dataclass(frozen=True)
class Member:
    name: str
    plan: str


@dataclass(frozen=True)
class Line:
    description: str
    amount: Decimal


@dataclass
class Invoice:
    number: str
    member: Member
    issued: date
    lines: list[Line] = field(default_factory=list)
    currency: str = CURRENCY

    @property
    def due(self) -> date:
        return self.issued + timedelta(days=PAYMENT_TERMS_DAYS)

    @property
    def net(self) -> Decimal:
        return round_cents(sum((line.amount for line in self.lines), Decimal("0")))

    @property
    def vat(self) -> Decimal:
        return vat_for(self.net)

    @property
    def total(self) -> Decimal:
        return self.net + self.vat


def monthly_invoice(member: Member, issued: date, numberer: InvoiceNumberer) -> Invoice:
    """The invoice for one member's month, issued on `issued`."""
    invoice = Invoice(number=numberer.next_number(issued.year), member=member, issued=issued)
    invoice.lines.append(Line(f"{member.plan} membership", monthly_price(member.plan)))
    return invoice
