"""In-memory persistence with sequential ids (the production adapter has the same interface)."""

from __future__ import annotations

from billflow.errors import NotFound
from billflow.models import Customer, Invoice


class Store:
    def __init__(self) -> None:
        self._customers: dict[int, Customer] = {}
        self._invoices: dict[int, Invoice] = {}
        self._ids: dict[str, int] = {}

    def next_id(self, kind: str) -> int:
        self._ids[kind] = self._ids.get(kind, 0) + 1
        return self._ids[kind]

    def add_customer(self, name: str, email: str) -> Customer:
        customer = Customer(self.next_id("customer"), name, email)
        self._customers[customer.id] = customer
        return customer

    def customer(self, customer_id: int) -> Customer:
        try:
            return self._customers[customer_id]
        except KeyError:
            raise NotFound(f"customer {customer_id} not found") from None

    def add_invoice(self, invoice: Invoice) -> Invoice:
        self._invoices[invoice.id] = invoice
        return invoice

    def invoice(self, invoice_id: int) -> Invoice:
        try:
            return self._invoices[invoice_id]
        except KeyError:
            raise NotFound(f"invoice {invoice_id} not found") from None

    def all_invoices(self) -> list[Invoice]:
        return list(self._invoices.values())

    def invoices_for(self, customer_id: int) -> list[Invoice]:
        return [inv for inv in self._invoices.values() if inv.customer_id == customer_id]
