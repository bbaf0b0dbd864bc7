"""Audit trail: one entry per domain event."""

from __future__ import annotations

from typing import Any


class AuditLog:
    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []

    def record(self, event: str, payload: dict[str, Any]) -> None:
        self.entries.append({"event": event, **payload})

    def for_invoice(self, invoice_id: int) -> list[dict[str, Any]]:
        return [e for e in self.entries if e.get("invoice_id") == invoice_id]
