"""Report and export endpoints, registered in the router next to the domain routes."""

from __future__ import annotations

from datetime import date
from typing import Any

from billflow.errors import NotFound
from billflow.exports.csv_export import export_invoices
from billflow.reports import REPORTS


def run_report(app: Any, params: dict[str, str], body: dict[str, Any]) -> tuple[int, dict]:
    name = params["name"]
    if name not in REPORTS:
        raise NotFound(f"no report named {name!r}")
    today = date.fromisoformat(body["today"]) if body.get("today") else date.today()
    return 200, {"report": name, "rows": REPORTS[name](app.store, today)}


def export_csv(app: Any, params: dict[str, str], body: dict[str, Any]) -> tuple[int, dict]:
    return 200, {"content_type": "text/csv", "body": export_invoices(app.store)}


REPORT_ROUTES = {
    ("GET", "/reports/{name}"): run_report,
    ("GET", "/exports/invoices.csv"): export_csv,
}
