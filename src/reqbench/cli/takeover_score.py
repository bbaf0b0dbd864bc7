"""`reqbench takeover score` (one target) and `reqbench takeover score-run` (a folder of responses)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.table import Table as RichTable
from rich.text import Text

from reqbench.cli.consoles import console, err_console, marked, styled
from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_text, pretty_json
from reqbench.core.judges.factory import JUDGE_SPECS, make_judge


def _write_records(path: Path | None, records: list[dict[str, Any]]) -> None:
    if path is not None:
        atomic_write_text(path, "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n"
                                        for r in records))


def _rows(data: dict[str, Any]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []

    def fmt(v: Any) -> str:
        if v is None:
            return "N/A"
        return f"{v:.4f}" if isinstance(v, float) else str(v)

    if data["rq1"]:
        for unit in ("requirement", "evidence"):
            block = data["rq1"][unit]
            for m in ("precision", "recall", "f1"):
                rows.append((f"RQ1 {unit} {m}", fmt(block[m] if block else None)))
    if data["rq2"]:
        for m in ("attribute_score", "coverage", "matched_state_score"):
            rows.append((f"RQ2 {m.replace('_', ' ')}", fmt(data["rq2"][m])))
    for m in ("gold_decision", "decision", "decision_correct", "post_state_score", "exact",
              "blocking_issue_f1", "question_validity", "strict_clarification"):
        rows.append((f"RQ3 {m.replace('_', ' ')}", fmt(data["rq3"][m])))
    rq4 = data.get("rq4")
    if rq4:
        if not rq4["eligible"]:
            rows.append(("RQ4 eligible", f"no ({rq4['exclusion_reason']})"))
        else:
            outcome = rq4["outcome"]
            for gate, status in ((rq4["evaluation"] or {}).get("components") or {}).items():
                rows.append((f"RQ4 {gate}", status))
            rows.append(("RQ4 status", outcome["score_status"]))
            rows.append(("RQ4 result", fmt(outcome["result"])))
            rows.append(("RQ4 reason", outcome["reason"]))
    return rows


def _score_rq4(instance: Path, condition: str, check: Any, repository: Path | None,
               judge_result: Path | None, judge_workspace: Path | None, environment: Path | None, *,
               unsafe_no_sandbox: bool) -> dict[str, Any]:
    from reqbench.core.hashing import read_json
    from reqbench.protocols.takeover.rq4_delivery.checks import score_rq4_target
    from reqbench.protocols.takeover.rq4_delivery.scoring import load_rq4_instance

    data = load_rq4_instance(instance)
    for given, what in ((repository, "repository"), (environment, "code environment")):
        if given is not None and not given.is_dir():
            raise InputError(f"{what} is not a directory", file=str(given))
    decision = str(getattr(check.frozen.response.decision, "value", check.frozen.response.decision)) \
        if check.valid else None
    verdicts = read_json(judge_result) if judge_result is not None else None
    return score_rq4_target(data, condition, decision, repository, environment=environment,
                            judge_result=verdicts, judge_workspace=judge_workspace,
                            unsafe_no_sandbox=unsafe_no_sandbox)


def score(
    instance: Path = typer.Option(..., "--instance", help="The target's RQ3 instance file."),
    response: Path = typer.Option(..., "--response", help="The frozen rq-agent-response-v1 JSON file."),
    condition: str = typer.Option(..., "--condition", help="History condition: C1 or C2."),
    judge: str = typer.Option("exact", "--judge", help=f"Semantic judge: {JUDGE_SPECS}."),
    rq1: Path | None = typer.Option(None, "--rq1", help="RQ1 instance (scored under C1 only)."),
    rq2: Path | None = typer.Option(None, "--rq2", help="RQ2 instance."),
    as_json: bool = typer.Option(False, "--json", help="Print the scores as JSON."),
    record: Path | None = typer.Option(None, "--record", help="Write judge call records (JSONL, "
                                       "replayable with --judge replay:FILE)."),
    rq4: Path | None = typer.Option(None, "--rq4", help="RQ4 instance: also score the delivery (Phase B)."),
    repository: Path | None = typer.Option(None, "--repository", help="The delivered project for --rq4 "
                                           "(omitted: no submission, a Phase-B agent failure)."),
    judge_result: Path | None = typer.Option(None, "--judge-result", help="An agent judge's "
                                             "rq4-agent-judge-result-v1 file for --rq4 (default: the exact "
                                             "judge runs each criterion's deterministic check)."),
    judge_workspace: Path | None = typer.Option(None, "--judge-workspace", help="The agent judge's "
                                                "workspace: evidence artifacts must be files in it."),
    code_environment: Path | None = typer.Option(None, "--code-environment", help="Where the target's code "
                                                 "environment lies (the project folder, its targets/ folder "
                                                 "or the environment's own folder); needed with --repository: "
                                                 "the scripts and checks the commands name are restored "
                                                 "from its pre-request repository before they run."),
    unsafe_no_sandbox: bool = typer.Option(False, "--unsafe-no-sandbox", help="Run the delivery's commands "
                                           "even where bubblewrap cannot isolate them (they could read "
                                           "this process's secrets and write anywhere it can)."),
) -> None:
    """Score one Phase-A response: every RQ1-RQ3 metric of one target, and with --rq4 its delivery.

    RQ4 follows the released agent-judge pipeline: the frozen Phase-A decision must be ACT and the target
    eligible (RQ3 gold ACT) under the condition; build and regression run in the sandbox on a fresh copy
    of the repository, the scripts they name restored from the code environment (exit 0 PASS, 1 FAIL,
    else HARNESS_ERROR); the acceptance criteria are judged; the finalizer gives SCORED PASS/FAIL,
    REVIEW_REQUIRED or JUDGE_ERROR.

    Example: reqbench takeover score --instance T002_RQ3.json --rq1 T002_RQ1.json --rq2 T002_RQ2.json
    --response response.json --condition C1 --judge exact --json

    Example: reqbench takeover score --instance out/RQ3/T001_RQ3.json --response response.json --condition C1
    --rq4 out/RQ4/T001_RQ4.json --repository delivered/ --code-environment project/
    """
    from reqbench.protocols.takeover.judging import JudgeSession
    from reqbench.protocols.takeover.phase_a.response import check_response_text
    from reqbench.protocols.takeover.scoring.instances import check_condition, load_target
    from reqbench.protocols.takeover.scoring.target import score_target

    check_condition(condition)
    instances = load_target(instance, rq1, rq2)
    if not response.is_file():
        raise InputError("response file does not exist", file=str(response))
    check = check_response_text(response.read_text(encoding="utf-8-sig"),
                                instances.visible_message_ids(condition))
    session = JudgeSession(make_judge(judge))
    result = score_target(instances, check, condition, session)
    _write_records(record, session.records)
    data = result.as_json()
    if isinstance(rq4, Path):  # (also callable as a plain function, where unset options are OptionInfo)
        repo, verdicts, workspace, environment = (v if isinstance(v, Path) else None
                                                  for v in (repository, judge_result, judge_workspace,
                                                            code_environment))
        data["rq4"] = _score_rq4(rq4, condition, check, repo, verdicts, workspace, environment,
                                 unsafe_no_sandbox=unsafe_no_sandbox is True)
    if as_json:
        console.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    console.print(Text.assemble(styled(data["target_id"], "bold"), f" {condition}: status {data['status']}"))
    if (data.get("rq4") or {}).get("unsafe_no_sandbox"):
        console.print("  UNSAFE: the delivery's commands ran with --unsafe-no-sandbox "
                      f"(isolation: {data['rq4']['isolation']})")
    for problem in (data.get("rq4") or {}).get("problems", []):
        console.print(f"  RQ4 judge result problem: {problem}")
    for problem in data["problems"]:
        console.print(f"  response problem: {problem}")
    for reason in data["pending"]:
        console.print(f"  pending: {reason}")
    for flag in (data["consistency"] or {}).get("flags", []):
        console.print(f"  RQ1/RQ2 label conflict for {flag['prediction_ref']} vs {flag['gold_ref']}: "
                      f"{flag['rq1_relation']} / {flag['rq2_relation']} (needs review)")
    table = RichTable("metric", "value")
    for name, value in _rows(data):
        table.add_row(name, value)
    console.print(table)


def score_run(
    run_dir: Path = typer.Argument(..., help="Folder with responses/<configuration>/<C1|C2>/<target>.json."),
    instances: Path | None = typer.Option(None, "--instances", help="RQ instance folder "
                                          "(default: RUN_DIR/instances)."),
    judge: str = typer.Option("exact", "--judge", help=f"Semantic judge: {JUDGE_SPECS}."),
    as_json: bool = typer.Option(False, "--json", help="Print aggregates and target scores as JSON."),
    markdown: Path | None = typer.Option(None, "--markdown", help="Also write the tables as Markdown."),
    record: Path | None = typer.Option(None, "--record", help="Write judge call records (JSONL)."),
) -> None:
    """Score a folder of frozen responses and print the paper's RQ1-RQ3 tables (3, 21-26, 28), and
    RQ4 (delivery success = PASS / SCORED, with pending and review counts) when the instances include
    RQ4 ones (outcomes from RUN_DIR/rq4/<configuration>/<C>/<target>.json).

    Example: reqbench takeover score-run runs/phase-a --instances suite/instances --judge exact
    """
    from reqbench.protocols.takeover.judging import JudgeSession
    from reqbench.protocols.takeover.rq4_delivery.scoring import score_run_rq4
    from reqbench.protocols.takeover.scoring.aggregate import aggregate_run
    from reqbench.protocols.takeover.scoring.run import discover_instances, response_coverage
    from reqbench.protocols.takeover.scoring.run import score_run as run_scoring
    from reqbench.protocols.takeover.scoring.tables import build_tables

    session = JudgeSession(make_judge(judge))
    found = discover_instances(instances or run_dir / "instances")
    _print_coverage(response_coverage(run_dir, found))
    scores = run_scoring(run_dir, instances, session, found)
    _write_records(record, session.records)
    summary = aggregate_run(scores)
    tables = build_tables(summary)
    rq4 = score_run_rq4(run_dir, instances or run_dir / "instances")
    if rq4 is not None:
        tables.append(_rq4_table(rq4))
    if markdown is not None:
        atomic_write_text(markdown, "\n".join(t.markdown() for t in tables))
    if as_json:
        targets = {cfg: {cond: [s.as_json() for s in rows] for cond, rows in by.items()}
                   for cfg, by in scores.items()}
        out: dict[str, Any] = {"aggregates": summary, "targets": targets}
        if rq4 is not None:
            out["rq4"] = rq4
        console.echo(pretty_json(out), end="")
        return
    for t in tables:
        rt = RichTable(*t.columns, title=f"{t.name}. {t.title}")
        for row in t.rows:
            rt.add_row(*row)
        console.print(rt)


def _print_coverage(coverage: list[Any]) -> None:
    """On stderr, per response folder: targets without a response (scored as agent failures) and files
    that match no target (never read)."""
    for c in coverage:
        where = f"responses/{c.configuration}/{c.condition}"
        if c.missing:
            err_console.print(marked("warning:", "yellow", f"{where}: no response for {len(c.missing)} of "
                                     f"{len(c.missing) + len(c.matched)} target(s) ({_listed(c.missing)}); "
                                     "scored as agent failures"))
        if c.unmatched:
            err_console.print(marked("warning:", "yellow", f"{where}: {len(c.unmatched)} file(s) match no "
                                     f"target and are not scored ({_listed([f + '.json' for f in c.unmatched])})"))


def _listed(names: list[str], limit: int = 5) -> str:
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _rq4_table(rq4: dict[str, Any]) -> Any:
    from reqbench.protocols.takeover.scoring.tables import PaperTable

    rows = []
    for config, by in rq4["by_condition"].items():
        for cond, agg in by.items():
            rate = "N/A" if agg["success_rate"] is None else f"{100 * agg['success_rate']:.2f}"
            rows.append([config, cond, str(agg["n"]), str(agg["scored"]), str(agg["pass"]), rate,
                         str(agg["review_required"]), str(agg["judge_error"]), str(agg["pending"])])
    return PaperTable("RQ4", "Delivery with the agent judge (success = PASS / SCORED)",
                      ["configuration", "condition", "n", "scored", "pass", "success %", "review", "judge error",
                       "pending"], rows)


def register(app: typer.Typer) -> None:
    app.command("score")(score)
    app.command("score-run")(score_run)
