"""Payment reminders for overdue invoices (dunning).

Levels escalate with the number of days overdue; each level sends at most one reminder per invoice.
A reminder adds a fee from the level table to the reminder text (fees are not booked on the invoice).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from billflow.events import EventBus
from billflow.models import Invoice, InvoiceStatus
from billflow.money import to_cents
from billflow.storage import Store


@dataclass(frozen=True)
class DunningLevel:
    level: int
    days_overdue: int
    fee: Decimal
    subject: str


LEVELS = (
    DunningLevel(1, 7, Decimal("0.00"), "Friendly reminder"),
    DunningLevel(2, 21, Decimal("5.00"), "Second reminder"),
    DunningLevel(3, 45, Decimal("15.00"), "Final notice"),
)


@dataclass
class Reminder:
    invoice_id: int
    customer_id: int
    level: int
    fee: Decimal
    balance: Decimal
    sent_on: date


class DunningRun:
    def __init__(self, store: Store, bus: EventBus, levels: tuple[DunningLevel, ...] = LEVELS) -> None:
        self.store = store
        self.bus = bus
        self.levels = tuple(sorted(levels, key=lambda lv: lv.days_overdue))
        self.sent: dict[int, int] = {}
        """invoice id -> highest level already sent."""

    def level_for(self, invoice: Invoice, today: date) -> DunningLevel | None:
        if invoice.status is not InvoiceStatus.ISSUED or invoice.due_on is None:
            return None
        overdue = (today - invoice.due_on).days
        due = [lv for lv in self.levels if overdue >= lv.days_overdue]
        return due[-1] if due else None

    def run(self, invoices: list[Invoice], today: date) -> list[Reminder]:
        reminders = []
        for invoice in invoices:
            level = self.level_for(invoice, today)
            if level is None or self.sent.get(invoice.id, 0) >= level.level:
                continue
            reminder = Reminder(invoice.id, invoice.customer_id, level.level, to_cents(level.fee),
                                invoice.balance, today)
            self.sent[invoice.id] = level.level
            reminders.append(reminder)
            self.bus.publish("invoice.reminded", {"invoice_id": invoice.id, "customer_id": invoice.customer_id,
                                                  "level": level.level, "fee": str(reminder.fee),
                                                  "balance": str(invoice.balance)})
        return reminders
