"""`reqbench takeover score` (one target) and `reqbench takeover score-run` (a folder of responses)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table as RichTable

from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_text, pretty_json
from reqbench.core.judges.factory import JUDGE_SPECS, make_judge

console = Console()


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
    return rows


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
) -> None:
    """Score one Phase-A response: every RQ1-RQ3 metric of one target.

    Example: reqbench takeover score --instance T002_RQ3.json --rq1 T002_RQ1.json --rq2 T002_RQ2.json
    --response response.json --condition C1 --judge exact --json
    """
    from reqbench.protocols.takeover.judging import JudgeSession
    from reqbench.protocols.takeover.response import check_response_text
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
    if as_json:
        typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    console.print(f"[bold]{data['target_id']}[/bold] {condition}: status {data['status']}")
    for problem in data["problems"]:
        console.print(f"  response problem: {problem}", highlight=False)
    for reason in data["pending"]:
        console.print(f"  pending: {reason}", highlight=False)
    for flag in (data["consistency"] or {}).get("flags", []):
        console.print(f"  RQ1/RQ2 label conflict for {flag['prediction_ref']} vs {flag['gold_ref']}: "
                      f"{flag['rq1_relation']} / {flag['rq2_relation']} (needs review)", highlight=False)
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
    """Score a folder of frozen responses and print the paper's RQ1-RQ3 tables (3, 21-26, 28).

    Example: reqbench takeover score-run runs/phase-a --instances suite/instances --judge exact
    """
    from reqbench.protocols.takeover.judging import JudgeSession
    from reqbench.protocols.takeover.scoring.aggregate import aggregate_run
    from reqbench.protocols.takeover.scoring.run import score_run as run_scoring
    from reqbench.protocols.takeover.scoring.tables import build_tables

    session = JudgeSession(make_judge(judge))
    scores = run_scoring(run_dir, instances, session)
    _write_records(record, session.records)
    summary = aggregate_run(scores)
    tables = build_tables(summary)
    if markdown is not None:
        atomic_write_text(markdown, "\n".join(t.markdown() for t in tables))
    if as_json:
        targets = {cfg: {cond: [s.as_json() for s in rows] for cond, rows in by.items()}
                   for cfg, by in scores.items()}
        typer.echo(pretty_json({"aggregates": summary, "targets": targets}), nl=False)
        return
    for t in tables:
        rt = RichTable(*t.columns, title=f"{t.name}. {t.title}")
        for row in t.rows:
            rt.add_row(*row)
        console.print(rt)


def register(app: typer.Typer) -> None:
    app.command("score")(score)
    app.command("score-run")(score_run)
