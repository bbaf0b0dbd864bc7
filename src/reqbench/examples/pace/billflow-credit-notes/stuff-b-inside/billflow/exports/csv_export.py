"""Invoice export as CSV for the accounting system (one line per invoice line)."""

from __future__ import annotations

import csv
import io

from billflow.storage import Store

COLUMNS = ("invoice_id", "customer_id", "status", "issued_on", "description", "quantity", "unit_price",
           "amount")


def export_invoices(store: Store) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for invoice in sorted(store.all_invoices(), key=lambda inv: inv.id):
        for line in invoice.lines:
            writer.writerow([invoice.id, invoice.customer_id, invoice.status.value,
                             invoice.issued_on.isoformat() if invoice.issued_on else "",
                             line.description, line.quantity, f"{line.unit_price:.2f}", f"{line.amount:.2f}"])
    return out.getvalue()
