"""Revenue per month: issued totals and received payments, by issue month."""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from decimal import Decimal
from typing import Any

from billflow.models import InvoiceStatus
from billflow.money import to_cents
from billflow.storage import Store


def revenue_report(store: Store, today: date) -> list[dict[str, Any]]:
    issued: dict[str, Decimal] = defaultdict(lambda: Decimal("0"))
    received: dict[str, Decimal] = defaultdict(lambda: Decimal("0"))
    for invoice in store.all_invoices():
        if invoice.issued_on is None or invoice.status is InvoiceStatus.VOID:
            continue
        month = invoice.issued_on.strftime("%Y-%m")
        issued[month] += invoice.total
        received[month] += invoice.paid_total
    return [{"month": m, "issued": str(to_cents(issued[m])), "received": str(to_cents(received[m]))}
            for m in sorted(issued) if m <= today.strftime("%Y-%m")]
