"""Application wiring: one object holding the store, bus, handlers and services."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from billflow.config import Settings, load_settings
from billflow.events import EventBus
from billflow.handlers import register_all
from billflow.handlers.audit import AuditLog
from billflow.handlers.notify import Outbox
from billflow.services.invoices import InvoiceService
from billflow.storage import Store


@dataclass
class App:
    settings: Settings
    store: Store
    bus: EventBus
    audit: AuditLog
    outbox: Outbox
    invoices: InvoiceService


def build_app(settings_path: Path | None = None) -> App:
    settings = load_settings(settings_path)
    store = Store()
    bus = EventBus()
    audit = AuditLog()
    outbox = Outbox(settings.notification_sender, store)
    register_all(bus, settings, audit, outbox)
    return App(settings, store, bus, audit, outbox, InvoiceService(store, bus, settings))
