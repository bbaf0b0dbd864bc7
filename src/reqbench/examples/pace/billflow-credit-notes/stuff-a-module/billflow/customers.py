"""Customer administration: profile changes, deactivation and lookup."""

from __future__ import annotations

import re
from dataclasses import dataclass

from billflow.errors import BillingError, InvalidState
from billflow.events import EventBus
from billflow.models import Customer, InvoiceStatus
from billflow.storage import Store

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")


@dataclass
class CustomerProfile:
    customer: Customer
    country: str | None = None
    vat_id: str | None = None
    active: bool = True


class CustomerService:
    def __init__(self, store: Store, bus: EventBus) -> None:
        self.store = store
        self.bus = bus
        self._profiles: dict[int, CustomerProfile] = {}

    def register(self, name: str, email: str, country: str | None = None,
                 vat_id: str | None = None) -> CustomerProfile:
        if not name.strip():
            raise BillingError("a customer needs a name")
        if not _EMAIL.match(email):
            raise BillingError(f"invalid e-mail address {email!r}")
        customer = self.store.add_customer(name.strip(), email)
        profile = CustomerProfile(customer, country.upper() if country else None, vat_id or None)
        self._profiles[customer.id] = profile
        self.bus.publish("customer.registered", {"customer_id": customer.id, "country": profile.country})
        return profile

    def profile(self, customer_id: int) -> CustomerProfile:
        if customer_id not in self._profiles:
            self._profiles[customer_id] = CustomerProfile(self.store.customer(customer_id))
        return self._profiles[customer_id]

    def change_email(self, customer_id: int, email: str) -> CustomerProfile:
        if not _EMAIL.match(email):
            raise BillingError(f"invalid e-mail address {email!r}")
        profile = self.profile(customer_id)
        profile.customer.email = email
        return profile

    def deactivate(self, customer_id: int) -> CustomerProfile:
        profile = self.profile(customer_id)
        open_invoices = [inv for inv in self.store.invoices_for(customer_id)
                         if inv.status in (InvoiceStatus.DRAFT, InvoiceStatus.ISSUED)]
        if open_invoices:
            raise InvalidState(f"customer {customer_id} still has {len(open_invoices)} open invoice(s)")
        profile.active = False
        self.bus.publish("customer.deactivated", {"customer_id": customer_id})
        return profile

    def search(self, text: str) -> list[Customer]:
        needle = text.strip().lower()
        return [p.customer for p in self._profiles.values()
                if needle in p.customer.name.lower() or needle in p.customer.email.lower()]
