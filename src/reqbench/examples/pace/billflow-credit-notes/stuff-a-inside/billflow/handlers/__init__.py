"""Event handlers and their subscriptions (the one place that wires handlers to events)."""

from __future__ import annotations

from billflow.config import Settings
from billflow.events import EventBus
from billflow.handlers.audit import AuditLog
from billflow.handlers.notify import Outbox

SUBSCRIPTIONS = {
    "invoice.issued": ["audit", "notify_issued"],
    "invoice.paid": ["audit", "notify_paid"],
    "invoice.voided": ["audit"],
}


def register_all(bus: EventBus, settings: Settings, audit: AuditLog, outbox: Outbox) -> None:
    """Subscribe every handler named in SUBSCRIPTIONS, honouring the enable switches."""
    available = {
        "audit": audit.record,
        "notify_issued": outbox.invoice_issued,
        "notify_paid": outbox.invoice_paid,
    }
    for event, names in SUBSCRIPTIONS.items():
        for name in names:
            if name == "audit" and not settings.audit_enabled:
                continue
            if name.startswith("notify") and not settings.notifications_enabled:
                continue
            bus.subscribe(event, available[name])
