"""`reqbench specpath ...`: check (contract equivalence), calibrate (verifier gates), scaffold (a family skeleton
from two PyPI releases), stats (FCR / CPV).

Thin: parse -> call the protocol library -> print. Exit 0 on success, 1 on a negative finding (a history
diverges, a calibration gate fails), 2 on bad input (raised as `InputError`, mapped in `cli.main`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from reqbench.cli.consoles import console, err_console, marked
from reqbench.cli.protocol_lookup import suite_spec
from reqbench.cli.scaffold_environment import environment_option, scaffold_environment

app = typer.Typer(help="SpecPath: contract-equivalent specification histories. Intervals: 95% percentile "
                  "cluster bootstrap over families (2,000 resamples; `stats --bootstrap task` resamples tasks); "
                  "under 2 families no interval, with the reason.", no_args_is_help=True)


def _emit_json(data: Any) -> None:
    console.echo(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))


@app.command("check")
def check(family: Path = typer.Argument(..., help="Family folder (with family.yaml).", callback=suite_spec),
          as_json: bool = typer.Option(False, "--json", help="Print the report as JSON.")) -> None:
    """Replay every history and prove them contract-equivalent (eq. 3), or name where they diverge.

    Example: reqbench specpath check demo:specpath/slugkit --json
    """
    from reqbench.protocols.specpath.equivalence import check_family
    from reqbench.protocols.specpath.family import load_family, provenance_lines, provenance_warnings

    fam = load_family(family)
    report = check_family(fam)
    if as_json:
        prov = fam.spec.provenance
        _emit_json({**report.to_dict(), "provenance": prov.model_dump(mode="json") if prov else None,
                    "provenance_warnings": provenance_warnings(fam)})
    else:
        for line in provenance_lines(fam):
            console.print(f"provenance {line}")
        for warning in provenance_warnings(fam):
            console.print(marked("warning", "yellow", warning))
        for cond, atoms in report.histories.items():
            console.print(f"{cond:28} -> {{{', '.join(atoms)}}}")
        for line in [*report.errors, *(d.sentence() for d in report.divergences)]:
            console.print(marked("FAIL", "red", line))
        if report.ok:
            console.print(marked("OK", "green", f"{len(report.histories)} histories of {report.family!r} are "
                                                f"contract-equivalent"))
    raise typer.Exit(0 if report.ok else 1)


@app.command("validate")
def validate(suite: Path = typer.Argument(..., help="SpecPath suite or family folder.", callback=suite_spec)
             ) -> None:
    """Check a SpecPath suite (exit 2 on any problem); missing provenance or history audits are warnings.

    Example: reqbench specpath validate demo:specpath
    """
    from reqbench.protocols.specpath.suite import SpecPathProtocol

    protocol = SpecPathProtocol()
    for warning in protocol.warnings(suite):
        err_console.echo(f"warning: {warning}")
    problems = protocol.validate(suite)
    for problem in problems:
        err_console.echo(problem)
    if problems:
        err_console.echo(f"{len(problems)} problem(s) in {suite}")
        raise typer.Exit(2)
    console.echo(f"{suite}: valid specpath suite ({protocol.validation_note})")


@app.command("calibrate")
def calibrate(family: Path = typer.Argument(..., help="Family folder (with family.yaml).", callback=suite_spec),
              as_json: bool = typer.Option(False, "--json", help="Print the audit record as JSON."),
              out: Path | None = typer.Option(None, "--out", help="Also write the audit record here.")
              ) -> None:
    """Verifier calibration gates: reference passes, base fails, negatives fail their probe, and
    fixed-patch signatures are identical under every core history.

    Example: reqbench specpath calibrate demo:specpath/slugkit --json
    """
    from reqbench.core.hashing import write_json
    from reqbench.protocols.specpath.calibration import calibrate_family
    from reqbench.protocols.specpath.calibration_gate import remember
    from reqbench.protocols.specpath.family import load_family

    audit = calibrate_family(load_family(family))
    remember(audit)  # a passing audit lets `reqbench run` use this family's verifier
    record = audit.to_dict()
    if out is not None:
        write_json(out, record)
    if as_json:
        _emit_json(record)
    else:
        for gate in audit.gates:
            console.print(marked("PASS", "green", f"{gate.name}: {gate.detail}") if gate.passed
                          else marked("FAIL", "red", f"{gate.name}: {gate.detail}"))
        console.print(f"{sum(len(v) for v in audit.signatures.values())} verifier runs, "
                      f"{audit.verifier_seconds:.1f}s of verifier time")
    raise typer.Exit(0 if audit.passed else 1)


@app.command("scaffold")
def scaffold_cmd(old: str = typer.Argument(..., help="The base release, NAME==A (a PyPI sdist)."),
                 new: str = typer.Argument(..., help="The release that made the change, NAME==B."),
                 out: Path = typer.Option(..., "--out", help="Family folder to create (absent or empty)."),
                 paths: str = typer.Option("", "--paths", help="Comma-separated globs (fnmatch, `*` crosses "
                                           "`/`) restricting the reference patch, e.g. 'src/pkg/*.py'; "
                                           "default: every changed file that is not a test."),
                 environment: str | None = environment_option(),
                 ) -> None:
    """Write a family skeleton from two releases of a PyPI project: base_repo pinned by sha256, the
    upstream change A..B as a `pypi-diff:` reference with the path filter, provenance (project, versions,
    licence from the sdist metadata), the changed files, and the test functions B added or changed
    copied into hidden/test_probes.py (with their origin) as candidate probes. Atoms, decoys,
    phrasings, negative deltas and what was adapted are left marked FILL IN; `specpath check` names
    each one until they are written. Both sdists are fetched with pip into the cache ($REQBENCH_CACHE).

    Example: reqbench specpath scaffold parse==1.20.1 parse==1.20.2 --out families/parse-hyphens --paths parse.py
    """
    from reqbench.protocols.specpath.scaffold import message, scaffold

    block = scaffold_environment(environment)
    result = scaffold(old, new, out, [g for g in paths.split(",") if g.strip()], environment=block)
    for line in message(result):
        console.echo(line)


@app.command("stats")
def stats(results: Path = typer.Argument(..., help="Results JSONL (one row per line), or a run directory."),
          as_json: bool = typer.Option(False, "--json", help="Print the statistics as JSON."),
          raster: Path | None = typer.Option(None, "--raster", help="Write the signature raster PNG here."),
          bootstrap: str = typer.Option("family", "--bootstrap",
                                        help="Interval estimator: family (95% percentile cluster bootstrap "
                                        "over families, 2000 resamples, the paper's unit) | task (units "
                                        "resampled independently). Under 2 families: no interval."),
          ) -> None:
    """Task-macro FCR per condition, complete blocks, any-/per-variant CPV and control deltas.

    Example: reqbench specpath stats results.jsonl --json --raster raster.png
    """
    from reqbench.protocols.specpath.metrics import summarize_results
    from reqbench.protocols.specpath.report import render_text
    from reqbench.protocols.specpath.results import read_results, results_from_run

    rows = results_from_run(results) if results.is_dir() else read_results(results)
    if bootstrap not in ("family", "task"):
        from reqbench.core.errors import InputError

        raise InputError("--bootstrap must be family or task", item=bootstrap)
    summary = summarize_results(rows, bootstrap)
    if raster is not None:
        from reqbench.protocols.specpath.raster import write_raster

        write_raster(rows, raster)
    if as_json:
        _emit_json(summary)
    else:
        console.echo(render_text(summary))


@app.command("results")
def results_cmd(run_dir: Path = typer.Argument(..., help="Run directory of a specpath run."),
                out: Path = typer.Option(..., "--out", help="Results JSONL to write.")) -> None:
    """Write a run's selected rows as results JSONL (the input of `specpath stats`).

    Example: reqbench specpath results runs/specpath-demo --out results.jsonl
    """
    from reqbench.core.hashing import atomic_write_text
    from reqbench.protocols.specpath.results import results_from_run, row_to_json

    rows = results_from_run(run_dir)
    atomic_write_text(out, "".join(row_to_json(r) + "\n" for r in rows))
    console.print(f"{len(rows)} rows -> {out}")
