"""Domain records: customers, invoice lines and invoices."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from enum import Enum

from billflow.money import to_cents


class InvoiceStatus(str, Enum):
    DRAFT = "draft"
    ISSUED = "issued"
    PAID = "paid"
    VOID = "void"


@dataclass
class Customer:
    id: int
    name: str
    email: str


@dataclass
class LineItem:
    description: str
    quantity: int
    unit_price: Decimal

    @property
    def amount(self) -> Decimal:
        return to_cents(self.unit_price * self.quantity)


@dataclass
class Invoice:
    id: int
    customer_id: int
    lines: list[LineItem] = field(default_factory=list)
    status: InvoiceStatus = InvoiceStatus.DRAFT
    issued_on: date | None = None
    due_on: date | None = None
    paid_total: Decimal = Decimal("0.00")
    total: Decimal = Decimal("0.00")

    @property
    def balance(self) -> Decimal:
        """What the customer still owes."""
        return to_cents(self.total - self.paid_total)

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "customer_id": self.customer_id,
            "status": self.status.value,
            "issued_on": self.issued_on.isoformat() if self.issued_on else None,
            "due_on": self.due_on.isoformat() if self.due_on else None,
            "total": str(self.total),
            "paid_total": str(self.paid_total),
            "balance": str(self.balance),
            "lines": [
                {"description": ln.description, "quantity": ln.quantity, "unit_price": str(ln.unit_price)}
                for ln in self.lines
            ],
        }
