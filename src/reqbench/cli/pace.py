"""`reqbench pace ...`: PACE-Bench commands (thin: parse -> library -> print)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from reqbench.cli.consoles import console, marked
from reqbench.cli.protocol_lookup import suite_spec
from reqbench.cli.scaffold_environment import environment_option, scaffold_environment
from reqbench.core import tempdirs
from reqbench.core.errors import InputError

JUDGE_HELP = "token-overlap (heuristic; older name: offline) | replay:FILE | llm[:MODEL]"

app = typer.Typer(
    help="PACE-Bench: PRD-driven Code Point scoring (L0/L1/L2), controls, agreement, attribution. "
    "Intervals: system scores are the equal-weight case mean +- standard error (sample SD / sqrt(n)); "
    "the token-overlap judge is a reference-relative smoke test, not a PACE score.",
    no_args_is_help=True,
)


def _print_json(value: object) -> None:
    console.echo(json.dumps(value, ensure_ascii=False, indent=2))


def _read(path: Path, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {what} ({type(exc).__name__})", file=str(path)) from exc


@app.command()
def validate(
    case: Path = typer.Argument(..., help="Case or suite folder.", callback=suite_spec),
    json_out: bool = typer.Option(False, "--json", help="Print problems as JSON."),
) -> None:
    """Check ids, weights, hint paths, reference applicability, freezing and reference evidence.

    Example: reqbench pace validate demo:pace/cachetools-slru
    """
    from reqbench.protocols.pace.validate import validate_path

    problems = validate_path(case)
    if json_out:
        _print_json({"valid": not problems, "problems": problems})
    else:
        for p in problems:
            console.print(marked("-", "red", p))
        console.print("valid" if not problems else f"{len(problems)} problem(s)")
    raise typer.Exit(2 if problems else 0)  # exit 2 on bad input, like every other validator


@app.command()
def freeze(case: Path = typer.Argument(..., help="Case folder.", callback=suite_spec)) -> None:
    """Record the content hash of the contract in case.yaml (required before scoring).

    Example: reqbench pace freeze demo:pace/billflow-credit-notes
    """
    from reqbench.protocols.pace.case import freeze_case

    console.echo(freeze_case(case))


@app.command()
def score(
    case: Path = typer.Argument(..., help="Case folder.", callback=suite_spec),
    patch: Path = typer.Option(..., "--patch", help="Candidate patch (unified diff)."),
    judge: str = typer.Option("token-overlap", "--judge", help=JUDGE_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    evidence: bool = typer.Option(False, "--evidence", help="Include evidence packages in the JSON."),
    variant: str = typer.Option("full", "--variant",
                                help="Judging variant (paper Table 5): full | full-diff (w/o tiered judgment) "
                                "| no-checklist (w/o checklist aggregation) | no-expansion."),
) -> None:
    """Score one candidate patch against a frozen case.

    Example: reqbench pace score demo:pace/cachetools-slru --patch my.patch --judge token-overlap --json
    """
    from reqbench.protocols.pace.case import load_case
    from reqbench.protocols.pace.repo import PatchApplyError
    from reqbench.protocols.pace.report import render_case
    from reqbench.protocols.pace.score import Scorer

    text = _read(patch, "patch")
    try:
        result = Scorer(load_case(case)).score(text, judge, with_evidence=evidence,
                                                 variant=variant).to_dict(evidence)
    except PatchApplyError as exc:
        raise InputError(f"patch does not apply to the exact base ({exc})", file=str(patch)) from exc
    if json_out:
        _print_json(result)
    else:
        console.echo(render_case(result))


@app.command()
def controls(
    case: Path = typer.Argument(..., help="Case folder (its suite siblings give cross-case patches), or a "
                                "suite folder (every case, plus the identifier-only control pooled).",
                                callback=suite_spec),
    judge: str = typer.Option("token-overlap", "--judge", help=JUDGE_HELP),
    json_out: bool = typer.Option(False, "--json", help="Print scores as JSON."),
    details: bool = typer.Option(False, "--details", help="Include per-control verdicts."),
) -> None:
    """Score the positive and negative controls: reference, empty, unrelated, cross-case, identifier-only.

    Example: reqbench pace controls demo:pace/cachetools-slru --json
    """
    from reqbench.protocols.pace.case import is_suite_dir, load_case, load_suite
    from reqbench.protocols.pace.controls import CONTROL_NAMES, run_controls
    from reqbench.protocols.pace.score import Scorer

    if is_suite_dir(Path(case)):
        from reqbench.protocols.pace.controls import pooled_identifier_only

        _suite, cases = load_suite(Path(case))
        per_case = [run_controls(Scorer(c), cases, judge) for c in cases]
        pooled = pooled_identifier_only(per_case)
        if not details:
            for r in per_case:
                r.pop("details")
        if json_out:
            _print_json({"cases": per_case, "identifier_only_pooled": pooled})
            return
        for r in per_case:
            _print_controls(r, CONTROL_NAMES)
        console.echo(f"identifier_only pooled over {pooled['targeted_points']} targeted behavioural points: "
                     f"{'blocked' if pooled['score'] is None else format(pooled['score'], '.2f')}")
        return
    target = load_case(case)
    parent = Path(case).resolve().parent
    others = load_suite(parent)[1] if is_suite_dir(parent) else []
    result = run_controls(Scorer(target), others, judge)
    if not details:
        result.pop("details")
    if json_out:
        _print_json(result)
    else:
        _print_controls(result, CONTROL_NAMES)


def _print_controls(result: dict[str, Any], names: tuple[str, ...]) -> None:
    from reqbench.protocols.pace.judges import judge_notice

    if notice := judge_notice(str(result["judge"])):
        console.echo(f"NOTE: {notice}")
    console.echo(f"case {result['case_id']}")
    for name in (*names, "identifier_only_targeted"):
        v = result[name]
        console.echo(f"  {name:<26} {'excluded' if v is None else f'{v:.2f}'}")


@app.command()
def evidence(
    case: Path = typer.Argument(..., help="Case folder.", callback=suite_spec),
    patch: Path = typer.Option(..., "--patch", help="Candidate patch."),
    point: str = typer.Option(None, "--point", help="Only this Code Point."),
    json_out: bool = typer.Option(False, "--json", help="JSON instead of rendered text."),
) -> None:
    """Show the L1 evidence packages the judge would see.

    Example: reqbench pace evidence demo:pace/cachetools-slru --patch ref.patch --point CP05
    """

    from reqbench.protocols.pace.case import load_case
    from reqbench.protocols.pace.score import Scorer

    c = load_case(case)
    scorer = Scorer(c)
    with tempdirs.folder("pace-ev") as tmp:
        loc = scorer.localize(_read(patch, "patch"), Path(tmp) / "tree")
        pkgs = [loc.package(p) for p in c.points if point is None or p.id == point]
    if not pkgs:
        raise InputError("no such Code Point", file=str(case), item=point)
    if json_out:
        _print_json([p.to_dict() for p in pkgs])
    else:
        console.echo("\n".join(p.render() for p in pkgs))


@app.command()
def agreement(
    judged: Path = typer.Argument(..., help="Judged verdicts (mapping or score results)."),
    consensus: Path = typer.Argument(..., help="Consensus verdicts, same shapes."),
    json_out: bool = typer.Option(False, "--json"),
) -> None:
    """Exact agreement, linearly weighted kappa and severe Covered-Missing inversions vs a consensus.

    Example: reqbench pace agreement judged.json consensus.json --json
    """
    from reqbench.protocols.pace.agreement import agreement as agree
    from reqbench.protocols.pace.agreement import load_record

    out = agree(load_record(judged)["verdicts"], load_record(consensus)["verdicts"])
    _print_json(out) if json_out else console.echo(
        f"n={out['n']} agreement={out['exact_agreement']:.3f} kappa_w={out['weighted_kappa']} "
        f"severe={out['severe_disagreement']:.3f}"
    )


@app.command()
def stability(
    judging: list[Path] = typer.Option(..., "--judging", help="Repeated judging records."),
    execution: list[Path] = typer.Option(..., "--execution", help="Repeated execution records."),
    json_out: bool = typer.Option(False, "--json"),
) -> None:
    """Judging vs execution variation (mean case SD and range, their ratio), per judging record the
    covered-point rate and complete deliveries, mean pairwise weighted kappa, and pass@k / pass^k.

    Example: reqbench pace stability --judging j1.json --judging j2.json
             --execution e1.json --execution e2.json
    """
    from reqbench.protocols.pace.agreement import judging_records, load_record, repeat_passk
    from reqbench.protocols.pace.agreement import stability as stab

    jr = [load_record(p) for p in judging]
    er = [load_record(p) for p in execution]
    out = stab([r["scores"] for r in jr], [r["scores"] for r in er])
    out["execution_passk"] = repeat_passk(er)
    out["judging"].update(judging_records(jr))
    if json_out:
        _print_json(out)
        return
    j = out["judging"]
    console.echo(
        f"mean case SD: execution {out['execution']['mean_case_sd']:.2f} vs judging "
        f"{j['mean_case_sd']:.2f} (ratio {out['sd_ratio']}); mean case range ratio {out['range_ratio']}"
    )
    kappa = j["mean_pairwise_weighted_kappa"]
    console.echo(f"judging: mean pairwise weighted kappa {'-' if kappa is None else f'{kappa:.3f}'} over "
                 f"{j['pairs']} pair(s); severe disagreement {j['mean_pairwise_severe_disagreement']}")
    for i, r in enumerate(j["records"], 1):
        rate = r["covered_point_rate"]
        console.echo(f"  record {i}: covered-point rate {'-' if rate is None else f'{rate:.1%}'}, "
                     f"complete {r['complete_deliveries']}")


@app.command()
def heatmap(
    results: list[Path] = typer.Argument(..., help="Score results with attribution (JSON)."),
    out: Path = typer.Option(Path("pace_heatmap.png"), "--out", help="PNG file."),
) -> None:
    """Draw the symptom x process-signal co-occurrence heatmap of scored cases.

    Example: reqbench pace heatmap runs/a.json runs/b.json --out heatmap.png
    """
    from reqbench.core.hashing import read_json
    from reqbench.protocols.pace.report import heatmap_png

    cases = []
    for p in results:
        data = read_json(p)
        cases += data if isinstance(data, list) else [data]
    console.echo(str(heatmap_png(cases, out)))


@app.command()
def synthesize(
    out: Path = typer.Option(..., "--out", help="Where to write candidate Code Points (YAML)."),
    diff: Path = typer.Option(..., "--diff", help="The accepted reference diff."),
    prd: Path | None = typer.Option(None, "--prd", help="The consolidated PRD (Markdown)."),
    record: Path | None = typer.Option(None, "--record", help="A production record (JSON/YAML: documents, "
                                       "conversation, task_title, changed_files) to reconstruct the PRD "
                                       "from, instead of --prd; the PRD is written beside --out."),
    audit: bool = typer.Option(True, "--audit/--no-audit", help="Run the contract audit on the candidates "
                               "(the paper's default; findings are attached, nothing is removed)."),
    model: str = typer.Option(None, "--model", help="Model name (default: REQBENCH_MODEL)."),
) -> None:
    """Propose candidate Code Points: [PRD reconstruction], PRD-only pass, diff-only pass, reconciliation,
    contract audit (marked unreviewed).

    Example: reqbench pace synthesize --prd prd.md --diff reference.patch --out candidates.yaml
    """
    from reqbench.core.hashing import atomic_write_text
    from reqbench.protocols.pace.llm import resolve_model
    from reqbench.protocols.pace.synthesize import synthesize as run

    if (prd is None) == (record is None):
        raise InputError("give exactly one of --prd and --record", item="pace synthesize")
    diff_text = _read(diff, "diff")
    source = None
    if record is not None:
        from reqbench.protocols.pace.reconstruct import load_record, reconstruct_prd

        prd_text = reconstruct_prd(load_record(record), resolve_model(model))
        prd_path = out.with_name(out.stem + ".prd.md")
        atomic_write_text(prd_path, prd_text)
        console.echo(str(prd_path))
        source = str(record)
    else:
        assert prd is not None
        prd_text = _read(prd, "PRD")
    path = run(prd_text, diff_text, out, model=model, audit=audit, reconstructed_from=source)
    console.echo(str(path))


@app.command("difficulty")
def difficulty_cmd(
    suite: Path = typer.Argument(..., help="Suite folder.", callback=suite_spec),
    results: list[Path] = typer.Argument(..., help="Score results (JSON, `pace score --json` or lists)."),
    json_out: bool = typer.Option(False, "--json"),
) -> None:
    """Difficulty groups by share of derived/implicit points (<25%, 25-50%, >50%) and Spearman's rho with
    the case score (mean over the given results per case).

    Example: reqbench pace difficulty demo:pace a.json b.json --json
    """
    import statistics

    from reqbench.core.hashing import read_json
    from reqbench.protocols.pace.case import load_suite
    from reqbench.protocols.pace.difficulty import difficulty

    per_case: dict[str, list[float]] = {}
    for p in results:
        data = read_json(p)
        for item in data if isinstance(data, list) else [data]:
            if isinstance(item, dict) and item.get("score") is not None:
                per_case.setdefault(str(item["case_id"]), []).append(float(item["score"]))
    out = difficulty(load_suite(Path(suite))[1], {c: statistics.fmean(v) for c, v in per_case.items()})
    if json_out:
        _print_json(out)
        return
    for g, row in out["groups"].items():
        console.echo(f"{g:<8} cases {row['cases']:<3} mean {row['mean_score']}")
    console.echo(f"Spearman rho {out['spearman']['rho']} (p {out['spearman']['p']}, n {out['spearman']['n']})")


@app.command("scaffold")
def scaffold_cmd(
    old: str = typer.Argument(..., help="The base release, NAME==A (a PyPI sdist)."),
    new: str = typer.Argument(..., help="The release whose change is the reference, NAME==B."),
    out: Path = typer.Option(..., "--out", help="Case folder to create (must not hold a case.yaml)."),
    paths: str = typer.Option("", "--paths", help="Comma-separated globs restricting the change "
                              "(fnmatch, `*` crosses `/`), e.g. 'src/pkg/*,tests/*,docs/index.rst'."),
    environment: str | None = environment_option(),
) -> None:
    """Write a case skeleton from two releases: pinned base, pypi-diff reference, draft Code Points (one per
    changed declaration, new export and changed non-source file, criteria marked TODO) and a PRD outline.

    Edit the drafts, then `reqbench pace validate` and `reqbench pace freeze`.
    Example: reqbench pace scaffold cachetools==5.5.0 cachetools==6.0.0 --out my-case --paths 'src/*,tests/*'
    """
    from reqbench.protocols.pace.scaffold import scaffold

    block = scaffold_environment(environment)
    made = scaffold(old, new, out, tuple(g.strip() for g in paths.split(",") if g.strip()), environment=block)
    console.echo(f"{made.out}: {made.files} files, +{made.added}/-{made.removed} lines, "
                 f"{made.points} draft Code Points (edit them, then validate and freeze)")
