"""Command-line entry point for operators: reports, exports and the dunning run."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

from billflow.app import build_app
from billflow.dunning import DunningRun
from billflow.exports.csv_export import export_invoices
from billflow.reports import REPORTS


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="billflow", description="billflow operator commands")
    p.add_argument("--settings", type=Path, default=None, help="settings.toml to use")
    sub = p.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="print a report as JSON")
    rep.add_argument("name", choices=sorted(REPORTS))
    rep.add_argument("--today", type=date.fromisoformat, default=None)
    sub.add_parser("export", help="print all invoices as CSV")
    dun = sub.add_parser("dunning", help="send reminders for overdue invoices")
    dun.add_argument("--today", type=date.fromisoformat, default=None)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    app = build_app(args.settings)
    if args.command == "report":
        rows = REPORTS[args.name](app.store, args.today or date.today())
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.command == "export":
        sys.stdout.write(export_invoices(app.store))
    else:
        reminders = DunningRun(app.store, app.bus).run(app.store.all_invoices(), args.today or date.today())
        sys.stdout.write(f"{len(reminders)} reminder(s) sent\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
