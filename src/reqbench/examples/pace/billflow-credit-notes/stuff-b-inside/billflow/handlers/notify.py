"""Customer notifications, queued in an outbox that the mailer drains."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Message:
    sender: str
    to: str
    subject: str
    body: str


class Outbox:
    def __init__(self, sender: str, directory: Any) -> None:
        self.sender = sender
        self.directory = directory
        """Anything with `customer(id)` returning an object with `.email` (the store)."""
        self.messages: list[Message] = []

    def _send(self, customer_id: int, subject: str, body: str) -> None:
        customer = self.directory.customer(customer_id)
        self.messages.append(Message(self.sender, customer.email, subject, body))

    def invoice_issued(self, event: str, payload: dict[str, Any]) -> None:
        self._send(payload["customer_id"], f"Invoice {payload['invoice_id']}",
                   f"Your invoice of {payload['total']} is due on {payload['due_on']}.")

    def invoice_paid(self, event: str, payload: dict[str, Any]) -> None:
        self._send(payload["customer_id"], f"Payment received for invoice {payload['invoice_id']}",
                   f"We received {payload['amount']}. Remaining balance: {payload['balance']}.")
