"""Accounts-receivable aging: open balances per customer in overdue buckets."""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from decimal import Decimal
from typing import Any

from billflow.models import InvoiceStatus
from billflow.money import to_cents
from billflow.storage import Store

BUCKETS = ((0, "current"), (1, "1-30"), (31, "31-60"), (61, "61-90"), (91, "90+"))


def bucket(days_overdue: int) -> str:
    label = BUCKETS[0][1]
    for start, name in BUCKETS:
        if days_overdue >= start:
            label = name
    return label


def aging_report(store: Store, today: date) -> list[dict[str, Any]]:
    totals: dict[int, dict[str, Decimal]] = defaultdict(lambda: {name: Decimal("0") for _, name in BUCKETS})
    for invoice in store.all_invoices():
        if invoice.status is not InvoiceStatus.ISSUED or invoice.due_on is None:
            continue
        overdue = max(0, (today - invoice.due_on).days)
        totals[invoice.customer_id][bucket(overdue)] += invoice.balance
    rows = []
    for customer_id in sorted(totals):
        row: dict[str, Any] = {"customer_id": customer_id}
        row.update({name: str(to_cents(v)) for name, v in totals[customer_id].items()})
        row["total"] = str(to_cents(sum(totals[customer_id].values(), Decimal("0"))))
        rows.append(row)
    return rows
