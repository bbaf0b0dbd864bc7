"""`reqbench report`, `reqbench export`, `reqbench view`: read a run directory, never change its results."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Any

import typer

from reqbench.cli.consoles import console, err_console, styled
from reqbench.cli.protocol_lookup import protocol_by_name
from reqbench.core.errors import InputError
from reqbench.core.execute.suite import Suite
from reqbench.core.hashing import atomic_write_bytes, atomic_write_text
from reqbench.core.store import RunStore
from reqbench.report.html import render_report
from reqbench.report.provenance import provenance, run_title
from reqbench.report.run_report import (
    build_payload,
    pick_grading,
    report_plots,
    report_sections,
    status_by_condition,
)
from reqbench.report.tables import rich_tables
from reqbench.report.zero_fold import fold_zeros


def print_report(store: RunStore, suite: Suite, grading: str | None = None) -> dict[str, Any]:
    """Print the report tables of an open run (one grading, default ``original``); returns the JSON payload.
    All-zero columns are left out and all-zero tables are one line (`report.zero_fold`)."""
    payload = build_payload(store, suite, grading)
    by_condition = status_by_condition(store, payload["run"]["grading"])
    for heading, tables in report_sections(payload, suite.protocol.name, by_condition):
        if len(heading) + 6 <= console.width:
            console.rule(heading)
        else:  # a rule cuts its title at the terminal's width: the grading's denominator must be read whole
            console.rule(heading.split(":", 1)[0])
            console.print(textwrap.fill(heading, max(console.width, 40), break_on_hyphens=False))
        for table in tables:
            folded = fold_zeros(table)
            if isinstance(folded, str):  # one line, wrapped to the terminal (the console itself never wraps)
                console.print(styled(textwrap.fill(folded, max(console.width, 40), subsequent_indent="  ",
                                                   break_on_hyphens=False), "dim"))
                continue
            for part in rich_tables(folded, console.width):
                console.print(part)
    return payload


def report(
    run_dir: Path = typer.Argument(..., help="A run directory made by `reqbench run`."),
    as_json: bool = typer.Option(False, "--json", help="Print {PROTOCOL: summary, \"run\": {...}, \"summary\": "
                                 "typed summary} as JSON."),
    html: Path | None = typer.Option(None, "--html", help="Also write a self-contained HTML report."),
    plots: Path | None = typer.Option(None, "--plots", help="Also write the plots as PNG files here."),
    grading: str | None = typer.Option(None, "--grading", help="Which grading to report: 'original' or a "
                                       "`reqbench regrade` label (default: original, the primary grading)."),
) -> None:
    """Summarise a run: the protocol's tables plus run accounting (attempts, attrition).

    Example: reqbench report runs/demo/takeover-reference --html report.html
    """
    with RunStore.open(run_dir) as store:
        protocol = protocol_by_name(store.meta.protocol)
        suite = protocol.load(Path(store.meta.suite_path))
        grading = pick_grading(store, grading)
        by_condition = status_by_condition(store, grading)
        if as_json:
            payload = build_payload(store, suite, grading)
            console.echo(json.dumps(payload, indent=2, ensure_ascii=False, default=str))
        else:
            payload = print_report(store, suite, grading)
        if html is not None or plots is not None:
            says = err_console if as_json else console  # with --json, stdout is the JSON document alone
            figures = report_plots(payload, protocol.name, by_condition)
            if html is not None:
                from reqbench.report.viewer.protocol_views import run_view_html  # pygments: only for --html

                title = f"reqbench report: {run_title(store.meta)}"
                atomic_write_text(html, render_report(title, report_sections(payload, protocol.name,
                                                                             by_condition), figures,
                                                      provenance(store.meta),
                                                      run_view_html(protocol, store.outcomes(grading=grading))))
                says.print(f"wrote the HTML report to {html}")
            if plots is not None:
                for i, (title, png) in enumerate(figures):
                    slug = re.sub(r"[^A-Za-z0-9]+", "_", title).strip("_")[:60]
                    atomic_write_bytes(plots / f"{i:02d}_{slug}.png", png)
                says.print(f"wrote {len(figures)} plot(s) to {plots}")


def export(
    run_dir: Path = typer.Argument(..., help="A run directory made by `reqbench run`; or the word `harbor` "
                                   "followed by a suite, to write the suite as Harbor tasks."),
    suite: Path | None = typer.Argument(None, help="After `harbor`: the suite (a folder or demo:NAME).",
                                        show_default=False),
    out: Path = typer.Option(..., "--out", help="Output file (a folder for atif and harbor); its suffix picks "
                             "the format unless --format."),
    fmt: str | None = typer.Option(None, "--format", help="csv, jsonl, parquet (needs pyarrow) or atif "
                                   "(one ATIF trajectory.json per row under the --out folder)."),
    parquet: bool = typer.Option(False, "--parquet", help="Same as --format parquet."),
) -> None:
    """Export one row per planned row (its selected attempt), the same columns in every format and for every
    protocol (schema: `reqbench schema run-result-row`): outcome (success, failure, invalid, pending,
    unstarted), protocol_outcome, score, reason (the outcome taxonomy code), detail (prose), cost_usd and
    tokens (the row's recorded model calls), seconds; or, with --format atif, each row's agent trajectory
    in the Agent Trajectory Interchange Format.

    `reqbench export harbor SUITE --out DIR` writes a suite as Harbor tasks instead (docs/harbor.md).

    Example: reqbench export runs/demo/takeover-reference --out rows.csv
    """
    if str(run_dir) == "harbor" and suite is not None:
        from reqbench.cli.harbor import export_harbor

        export_harbor(suite, out)
        return
    if suite is not None:
        raise InputError("takes one run directory (or: harbor SUITE)", item=str(suite))
    if fmt == "atif":
        from reqbench.report.export_atif import export_atif

        with RunStore.open(run_dir, read_only=True) as store:
            n = export_atif(store, out)
        console.print(f"wrote {n} trajectories under {out} (atif)")
        return
    from reqbench.report.export_rows import export_rows, format_for

    chosen = format_for(out, "parquet" if parquet else fmt)
    with RunStore.open(run_dir) as store:
        n = export_rows(store, out, chosen)
    console.print(f"wrote {n} rows to {out} ({chosen})")


def view(
    path: Path = typer.Argument(..., help="A run directory, a study directory (its study page), or a folder: "
                                "every run under it is listed."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0 picks a free one)."),
    host: list[str] = typer.Option([], "--host", metavar="NAME",
                                   help="Also answer requests addressed to this host name (e.g. the name an "
                                   "SSH tunnel or proxy uses); repeatable. The viewer still listens on "
                                   "127.0.0.1 only."),
) -> None:
    """Browse runs in a local web viewer (127.0.0.1, offline): runs list, run page with plots, row table,
    row pages (diff, checks, trajectory, protocol detail), compare two runs; for a study directory, the
    study page (leaderboard, configuration x condition heatmap, paired differences, two configurations
    row by row). Ctrl-C stops it.

    Open the URL it prints: it carries a token made for this launch. Without it
    (another web page, another user) the viewer answers 403, as it does to a
    request for any host name but 127.0.0.1, localhost, [::1] and --host.

    Example: reqbench view runs/demo --port 8765
    """
    from reqbench.report.viewer import make_server
    from reqbench.study import is_study_dir

    study = None
    if is_study_dir(path):
        from reqbench.study.view import study_view

        study = study_view(path)
    server = make_server(path, port=port, hosts=tuple(host), study=study)
    console.print(f"serving {path} at {server.url} (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        server.viewer.close()
