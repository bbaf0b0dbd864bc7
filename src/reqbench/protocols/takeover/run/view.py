"""The takeover row page as data (`core.views`): the requirement timeline (`view_timeline`) beside the
Phase-A response and how the scorer matched it on RQ1-RQ3, then the delivered diff beside the three gates
(build, target, regression) with each gate's log folded (ReqMemBench §3.1, §4.1-4.3)."""

from __future__ import annotations

import json
from typing import Any

from reqbench.core.views import (
    AttemptRecord,
    Block,
    Columns,
    Diff,
    Facts,
    Fold,
    Group,
    Heading,
    Muted,
    Paragraph,
    Preformatted,
    RowView,
    Scalar,
    Status,
    TableBlock,
    as_dict,
    as_list,
    fmt,
)
from reqbench.protocols.takeover.run.row_result import TakeoverResult
from reqbench.protocols.takeover.run.view_timeline import timeline

_RQ_SCALARS = {
    "rq1": ("status",),
    "rq2": ("status", "attribute_score", "coverage", "matched_state_score", "n_pred", "n_gold", "n_matched"),
    "rq3": ("status", "gold_decision", "decision", "decision_correct", "post_state_score", "exact",
            "blocking_issue_f1", "question_validity", "n_pred", "n_gold", "n_matched"),
}


def _note(text: str) -> Paragraph:
    return Paragraph((Muted(text),))


def _rq1_facts(rq1: dict[str, Any]) -> list[tuple[str, Scalar]]:
    facts: list[tuple[str, Scalar]] = [("status", rq1.get("status"))]
    for part in ("requirement", "evidence"):
        block = rq1.get(part)
        if isinstance(block, dict):
            facts += [(f"{part} {k}", v) for k, v in block.items() if isinstance(v, int | float | str)]
    return facts


def _matches(name: str, rq: dict[str, Any]) -> Block:
    """Which response requirement the scorer paired with which gold requirement (and how well)."""
    if name == "rq1":
        rows = [(str(p[0]), str(p[1]), "—") for p in as_list(rq.get("matches"))
                if isinstance(p, list | tuple) and len(p) >= 2]
    else:
        rows = [(str(p.get("prediction_ref")), str(p.get("gold_ref")), fmt(p.get("state_score")))
                for p in as_list(rq.get("requirements")) if isinstance(p, dict)]
    if not rows:
        return _note("no requirement matched")
    return TableBlock(("response ref", "gold requirement", "state score"), tuple(rows), name=f"matches {name}")


def _scalar(value: Any) -> Scalar:
    return value if isinstance(value, str | int | float | bool) or value is None else json.dumps(value, default=str)


def phase_a(record: AttemptRecord) -> tuple[Block, ...]:
    result = TakeoverResult.of(record.result)
    response = record.artifact_json("phase_a_response.json") or result.response
    score = result.score
    step = as_dict(result.phase_a)
    if response is None and score is None and not step:
        return Heading("Phase A"), _note("this condition has no Phase A")
    parts: list[Block] = [Heading("Phase A")]
    if step:
        problems = "; ".join(map(str, as_list(step.get("problems")))) or None
        parts.append(Facts((("decision", _scalar(step.get("decision"))), ("valid", _scalar(step.get("valid"))),
                            ("problems", problems))))
    for name in ("rq1", "rq2", "rq3"):
        rq = getattr(score, name) if score else None
        if not isinstance(rq, dict):
            continue
        facts = _rq1_facts(rq) if name == "rq1" else [(k, _scalar(rq.get(k))) for k in _RQ_SCALARS[name] if k in rq]
        parts += [Heading(name.upper(), level=4), Facts(tuple(facts)), _matches(name, rq)]
    if score is not None and not any(isinstance(getattr(score, n), dict) for n in _RQ_SCALARS):
        parts.append(_note("not scored"))
    parts.append(Fold(("Phase-A response",), (Preformatted(json.dumps(response, indent=2, ensure_ascii=False)),),
                      open=True) if response is not None else _note("no Phase-A response"))
    return tuple(parts)


def delivery(record: AttemptRecord) -> tuple[Block, ...]:
    result = TakeoverResult.of(record.result)
    decision = result.delivery
    if decision is None:
        return ()
    checks = as_dict(result.checks)
    gates = []
    for gate, status in decision.statuses.items():
        d = as_dict(checks.get(gate))
        logs = tuple(Preformatted(str(d[k])) for k in ("stdout_tail", "stderr_tail") if d.get(k))
        folded = (Fold((f"{gate} log",), logs, open=status not in ("PASS", "pass")),) if logs else ()
        gates.append((str(gate), Status(status), folded))
    patch = record.artifact("submission.patch")
    left = Group((Heading("delivered diff", level=4),
                  Diff(patch) if patch is not None else _note("nothing was delivered")))
    right = Group((Heading("gates", level=4),
                   Facts((("decision", _scalar(decision.decision)), ("reason", _scalar(decision.reason)),
                          ("score", _scalar(decision.score)))),
                   TableBlock(("gate", "status", "log"), tuple(gates), name="gates")))
    return Heading("delivery"), Columns((left, right), name="delivery", wide=True)


def row_view(record: AttemptRecord) -> RowView:
    side = Columns((Group(timeline(record.suite_path, record.row.task_id), name="timeline-col"),
                    Group(phase_a(record), name="phase-a")), name="takeover")
    return RowView((side, *delivery(record)), shows=frozenset({"diff", "checks"}))
