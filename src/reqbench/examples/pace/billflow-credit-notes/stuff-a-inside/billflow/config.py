"""Settings loaded from settings.toml (overridable per test via a path)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

DEFAULT_PATH = Path(__file__).with_name("settings.toml")


@dataclass(frozen=True)
class Settings:
    currency: str
    tax_rate: Decimal
    payment_terms_days: int
    notification_sender: str
    notifications_enabled: bool
    audit_enabled: bool


def load_settings(path: Path | None = None) -> Settings:
    data = tomllib.loads(Path(path or DEFAULT_PATH).read_text(encoding="utf-8"))
    billing = data.get("billing", {})
    notifications = data.get("notifications", {})
    audit = data.get("audit", {})
    return Settings(
        currency=billing.get("currency", "EUR"),
        tax_rate=Decimal(str(billing.get("tax_rate", "0"))),
        payment_terms_days=int(billing.get("payment_terms_days", 30)),
        notification_sender=notifications.get("sender", "billing@localhost"),
        notifications_enabled=bool(notifications.get("enabled", True)),
        audit_enabled=bool(audit.get("enabled", True)),
    )
