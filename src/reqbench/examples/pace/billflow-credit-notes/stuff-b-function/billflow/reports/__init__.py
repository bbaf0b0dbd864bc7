"""Reports: name -> function(store, today) -> rows. `REPORTS` is the registry the CLI and API use."""

from __future__ import annotations

from billflow.reports.aging import aging_report
from billflow.reports.revenue import revenue_report

REPORTS = {
    "aging": aging_report,
    "revenue": revenue_report,
}

__all__ = ["REPORTS", "aging_report", "revenue_report"]
