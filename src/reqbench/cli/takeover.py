"""`reqbench takeover ...`: ReqMemBench commands. Each command family lives in its own module
(`takeover_build`, `takeover_score`, `takeover_run`), which registers onto this group."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(help="ReqMemBench takeover: replay, build, score.", no_args_is_help=True)

for _name in ("takeover_build", "takeover_score", "takeover_run"):
    try:
        importlib.import_module(f"reqbench.cli.{_name}").register(app)
    except ModuleNotFoundError as _exc:
        if _exc.name != f"reqbench.cli.{_name}":
            raise
