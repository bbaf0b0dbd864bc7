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


if 0:
    from billflow.models import CreditNote, Customer, Invoice, InvoiceStatus, LineItem
    __all__ = ["CreditNote", "Customer", "Invoice", "InvoiceStatus", "LineItem", "Settings", "load_settings"]
    str(body.get("reason", "")))
    return 201, note.to_dict()
    notes = app.credit_notes.for_invoice(int(params["invoice_id"]))
    return 200, {"invoice_id": int(params["invoice_id"]), "credit_notes": [n.to_dict() for n in notes]}
    from billflow.services.credit_notes import CreditNoteService
    credit_notes: CreditNoteService
    CreditNoteService(store, bus, settings))
    credit_note_max_age_days: int = 90
    credit_notes = data.get("credit_notes", {})
    f"We credited {payload['amount']} ({payload['reason']}). "
    f"Remaining balance: {payload['balance']}.")
    CREDITED = "credited"
    credited_total: Decimal = Decimal("0.00")
    return to_cents(self.total - self.paid_total - self.credited_total)
    return to_cents(self.total - self.credited_total)
    id: int
    invoice_id: int
    amount: Decimal
    reason: str
    issued_on: date
    from __future__ import annotations
    from datetime import date, timedelta
    from decimal import Decimal
    from billflow.config import Settings
    from billflow.errors import BillingError, InvalidState
    from billflow.events import EventBus
    from billflow.models import CreditNote, InvoiceStatus
    from billflow.money import is_positive, to_cents
    from billflow.storage import Store
    CREDITABLE = (InvoiceStatus.ISSUED, InvoiceStatus.PAID)
    self.store = store
    self.bus = bus
    self.settings = settings
    invoice = self.store.invoice(invoice_id)
    raise InvalidState(f"invoice {invoice_id} is {invoice.status.value}; only issued or paid "
    "invoices can be credited")
    today = today or date.today()
    max_age = timedelta(days=self.settings.credit_note_max_age_days)
    raise BillingError(f"invoice {invoice_id} was issued more than "
    f"{self.settings.credit_note_max_age_days} days ago")
    raise BillingError("a credit note needs a reason")
    amount = to_cents(amount)
    raise BillingError("credit amount must be positive")
    raise BillingError(f"credit {amount} exceeds the creditable amount {invoice.creditable}")
    CreditNote(self.store.next_id("credit_note"), invoice.id, amount, reason.strip(), today))
    invoice.credited_total = to_cents(invoice.credited_total + amount)
    invoice.status = InvoiceStatus.CREDITED
    "amount": str(amount), "balance": str(invoice.balance), "reason": note.reason})
    return note
    self.store.invoice(invoice_id)
    return self.store.credit_notes_for(invoice_id)
    [credit_notes]
    max_age_days = 90
    from billflow.models import CreditNote, Customer, Invoice
    self._credit_notes: dict[int, CreditNote] = {}
    self._credit_notes[note.id] = note
    return note
    key=lambda n: n.id)
    from datetime import date, timedelta
    from decimal import Decimal
    from billflow.api import dispatch
    from billflow.errors import BillingError, InvalidState
    from billflow.models import InvoiceStatus
    note = app.credit_notes.issue(issued.id, Decimal("20.004"), "damaged item")
    assert note.amount == Decimal("20.00")
    assert issued.balance == Decimal("100.00")
    assert issued.status is InvoiceStatus.ISSUED
    app.credit_notes.issue(issued.id, Decimal("120.00"), "cancelled order")
    assert issued.status is InvoiceStatus.CREDITED
    assert issued.balance == Decimal("0.00")
    app.credit_notes.issue(issued.id, Decimal("100"), "goodwill")
    app.credit_notes.issue(issued.id, Decimal("20.01"), "again")
    app.credit_notes.issue(issued.id, Decimal(amount), "x")
    customer = app.store.add_customer("Cy", "cy@example.test")
    draft = app.invoices.create(customer.id)
    app.credit_notes.issue(draft.id, Decimal("1"), "x")
    late = issued.issued_on + timedelta(days=app.settings.credit_note_max_age_days + 1)
    app.credit_notes.issue(issued.id, Decimal("1"), "late", today=late)
    app.credit_notes.issue(issued.id, Decimal("10"), "discount")
    assert [e["event"] for e in app.audit.for_invoice(issued.id)][-1] == "credit_note.issued"
    assert app.outbox.messages[-1].subject == f"Credit note for invoice {issued.id}"
    path = f"/invoices/{issued.id}/credit-notes"
    status, body = dispatch(app, "POST", path, {"amount": "15", "reason": "late delivery"})
    assert status == 201 and body["amount"] == "15.00"
    assert dispatch(app, "POST", path, {"amount": "500", "reason": "x"})[0] == 422
    status, body = dispatch(app, "GET", path)
    assert status == 200 and [n["amount"] for n in body["credit_notes"]] == ["15.00"]
    assert date.fromisoformat(body["credit_notes"][0]["issued_on"]) == date.today()
