"""Top-level commands shared by every protocol: demo, validate, schema.

Thin: parse -> call the library -> print. `run` lives in `generic_run`, the readers of a run directory
(`report`, `export`, `view`) in `generic_report`, `stats` in `stats_cmd`; `cli.main.COMMANDS` names where
each command lives.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from reqbench.cli.consoles import console, err_console, marked
from reqbench.cli.generic_report import print_report
from reqbench.cli.generic_run import run_slug, run_suite, unmeasured_rows, validate_suite
from reqbench.cli.protocol_lookup import all_protocols, suite_spec
from reqbench.core import registry
from reqbench.core.errors import InputError, ReqbenchError
from reqbench.core.suggest import did_you_mean
from reqbench.core.summary import Cell, Summary
from reqbench.report.run_report import build_payload
from reqbench.report.tables import format_cell
from reqbench.schemas import json_schema


def validate(suite: Path = typer.Argument(..., help="Suite directory (or a single task), or demo:NAME.",
                                          callback=suite_spec)) -> None:
    """Check a suite's structure and semantics; prints every problem (exit 2 if any).

    SUITE is a directory, or demo:NAME or demo:NAME/TASK for a suite bundled with reqbench (from any directory).

    Example: reqbench validate demo:takeover
    """
    protocol = validate_suite(suite.resolve())
    for warning in protocol.warnings(suite.resolve()):
        err_console.print(marked("warning:", "yellow", warning))
    note = protocol.validation_note
    console.print(marked("✓", "green", f"{suite}: valid {protocol.name} suite" + (f" ({note})" if note else "")))


def schema(name: str | None = typer.Argument(None, help="Format name; omit to list them.")) -> None:
    """Print the JSON Schema of a file format (omit NAME to list the formats).

    Example: reqbench schema run-result-row
    """
    if name is None:
        for known in registry.listed("schemas"):  # a test fixture's formats print by name, unlisted
            console.echo(known)
        return
    console.echo(json.dumps(json_schema(name), indent=2, ensure_ascii=False))


def demo(
    out: Path = typer.Option(Path("runs/demo"), "--out", help="Directory for the demo runs."),
    protocol_names: list[str] = typer.Option([], "--protocol", help="Only this protocol (repeatable)."),
    verbose: bool = typer.Option(False, "--verbose", help="Print every run's full report too."),
) -> None:
    """Run the main job on the embedded default: every bundled suite, offline; print one line per run (where
    it is, how many rows were scored) and the summary of headline metrics (--verbose: every report).

    Re-running continues the same run directories (finished rows are kept). Exit 1 when the demo failed: a
    bundled suite is missing or does not validate, or a demo row ended invalid or pending (nothing else is
    expected of the control agents on the bundled suites).

    Example: reqbench demo --out runs/demo
    """
    everything = all_protocols()
    shown = registry.listed("protocols")  # a test fixture's protocol runs only when named
    unknown = [n for n in protocol_names if n not in {p.name for p in everything}]
    if unknown:
        raise InputError(f"unknown protocol {unknown[0]!r}{did_you_mean(unknown[0], shown)}; known protocols: "
                         f"{', '.join(shown)}",
                         item="--protocol")
    protocols = [p for p in everything if p.name in (protocol_names or shown)]
    jobs = [(protocol, suite, options) for protocol in protocols for suite, options in protocol.demo_runs()]
    if not jobs:
        console.print("no bundled suites yet")
        return
    used: set[str] = set()
    headlines: list[tuple[str, str, dict[str, Cell]]] = []
    failures: list[str] = []
    for protocol, suite, options in jobs:
        name = run_slug(protocol.name, Path(suite), options.agent)
        base, i = name, 1
        while name in used:
            i += 1
            name = f"{base}-{i}"
        used.add(name)
        if verbose:
            console.rule(f"demo: {protocol.name} {suite}")
        try:
            store, loaded = run_suite(Path(suite), options, out / name, resume=True, quiet=True)
        except ReqbenchError as exc:
            err_console.print(marked("error:", "red", exc))
            failures.append(f"{name}: {exc}")
            continue
        with store:
            if verbose:
                console.print(f"run directory: {store.run_dir}")
            payload = print_report(store, loaded) if verbose else build_payload(store, loaded)
            headline = Summary.from_json(payload["summary"]).headline
            if headline:
                headlines.append((protocol.name, options.agent, dict(headline)))
            counts = store.counts()
            unmeasured = unmeasured_rows(counts)
            console.print(marked("✗" if unmeasured else "✓", "red" if unmeasured else "green",
                                 f"{protocol.name} {options.agent}: {counts['scored']}/{counts['planned']} rows "
                                 f"scored  {store.run_dir}"))
        if unmeasured:
            failures.append(f"{name}: " + ", ".join(f"{n} row(s) {status}" for status, n in unmeasured.items())
                            + f" (details: reqbench report {store.run_dir})")
    if headlines:
        console.rule("demo summary")
        console.print(headline_table(headlines))
    if not verbose:
        console.print(f"each run's full report: reqbench report DIR (a directory above), reqbench view {out}, "
                      "or reqbench demo --verbose")
    if failures:
        for failure in failures:
            err_console.print(marked("demo failed:", "red", failure))
        raise typer.Exit(1)


def headline_table(headlines: list[tuple[str, str, dict[str, Cell]]]) -> Table:
    """One line per headline metric of each demo run (protocol, agent, metric, value)."""
    table = Table(title="demo summary: control agents bracket every suite")
    for col in ("protocol", "agent", "metric", "value"):
        table.add_column(col, justify="right" if col == "value" else "left")
    for name, agent, metrics in headlines:
        for metric, value in metrics.items():
            table.add_row(name, agent, metric, format_cell(value))
    return table
