"""Invoice lifecycle: draft -> issued -> paid, or void. Every transition publishes an event."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from billflow import pricing
from billflow.config import Settings
from billflow.errors import BillingError, InvalidState
from billflow.events import EventBus
from billflow.models import Invoice, InvoiceStatus, LineItem
from billflow.money import is_positive, to_cents
from billflow.storage import Store


class InvoiceService:
    def __init__(self, store: Store, bus: EventBus, settings: Settings) -> None:
        self.store = store
        self.bus = bus
        self.settings = settings

    def create(self, customer_id: int) -> Invoice:
        self.store.customer(customer_id)
        return self.store.add_invoice(Invoice(self.store.next_id("invoice"), customer_id))

    def add_line(self, invoice_id: int, description: str, quantity: int, unit_price: Decimal) -> Invoice:
        invoice = self.store.invoice(invoice_id)
        if invoice.status is not InvoiceStatus.DRAFT:
            raise InvalidState(f"invoice {invoice_id} is {invoice.status.value}; only drafts take lines")
        if quantity <= 0:
            raise BillingError("quantity must be positive")
        invoice.lines.append(LineItem(description, quantity, to_cents(unit_price)))
        invoice.total = pricing.total(invoice, self.settings.tax_rate)
        return invoice

    def issue(self, invoice_id: int, today: date | None = None) -> Invoice:
        invoice = self.store.invoice(invoice_id)
        if invoice.status is not InvoiceStatus.DRAFT:
            raise InvalidState(f"invoice {invoice_id} is already {invoice.status.value}")
        if not invoice.lines:
            raise BillingError("an invoice needs at least one line")
        today = today or date.today()
        invoice.status = InvoiceStatus.ISSUED
        invoice.issued_on = today
        invoice.due_on = today + timedelta(days=self.settings.payment_terms_days)
        self.bus.publish("invoice.issued", {"invoice_id": invoice.id, "customer_id": invoice.customer_id,
                                            "total": str(invoice.total), "due_on": invoice.due_on.isoformat()})
        return invoice

    def pay(self, invoice_id: int, amount: Decimal) -> Invoice:
        invoice = self.store.invoice(invoice_id)
        if invoice.status is not InvoiceStatus.ISSUED:
            raise InvalidState(f"invoice {invoice_id} is {invoice.status.value}; only issued invoices take payments")
        amount = to_cents(amount)
        if not is_positive(amount):
            raise BillingError("payment amount must be positive")
        if amount > invoice.balance:
            raise BillingError(f"payment {amount} exceeds the balance {invoice.balance}")
        invoice.paid_total = to_cents(invoice.paid_total + amount)
        if invoice.balance == 0:
            invoice.status = InvoiceStatus.PAID
        self.bus.publish("invoice.paid", {"invoice_id": invoice.id, "customer_id": invoice.customer_id,
                                          "amount": str(amount), "balance": str(invoice.balance)})
        return invoice

    def void(self, invoice_id: int) -> Invoice:
        invoice = self.store.invoice(invoice_id)
        if invoice.status in (InvoiceStatus.PAID, InvoiceStatus.VOID):
            raise InvalidState(f"invoice {invoice_id} is {invoice.status.value} and cannot be voided")
        invoice.status = InvoiceStatus.VOID
        self.bus.publish("invoice.voided", {"invoice_id": invoice.id, "customer_id": invoice.customer_id})
        return invoice
