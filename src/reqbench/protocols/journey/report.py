"""The journey report: per-condition (persona or single-shot) means, as in the paper's main tables.

`summarize_rows` returns ``{CONDITION: {sessions, proc_f2p, final_f2p, final_p2p, average, turns_per_session,
cost_per_session, user_confidence, capabilities...}}``; with more than one agent in the rows, keys are
``AGENT/CONDITION``. Only scored rows count; rates are means over sessions of per-session fractions
(`None` where no session has an applicable value). ``average`` is the mean of Final F2P and Final P2P
(the paper's Average column, B.2). Each condition also says which simulated user produced its sessions
(``simulated_user``, `simulated_user`), and `provenance_notes` what the header and every affected table
must say when the simulator or the judge is not the paper's.
"""

from __future__ import annotations

from typing import Any

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.protocols.journey.metrics import mean_or_none
from reqbench.protocols.journey.row_result import JourneyResult

CAPABILITY_KEYS = ("ask", "rel", "hit", "miss", "oc", "skip", "crit")
RULE_BASED = "rule-based (deterministic)"
HEURISTIC_JUDGE = "word-overlap heuristic"


def simulated_user(kind: str, model: str = "") -> str:
    """The simulated user of a session, as reports name it. SWE-Journey B.1: sessions are driven by "the
    fixed GLM-5.2 persona-conditioned simulator" (an LLM); reqbench's ``deterministic`` simulator is a
    rule-based stand-in, and single-shot (B.2) has "no simulated user"."""
    if kind == "deterministic":
        return RULE_BASED
    if kind == "llm":
        return f"LLM ({model})" if model else "LLM (model not recorded)"
    return "none (single-shot)" if kind in ("none", "") else kind


def provenance_notes(summary: dict[str, Any]) -> dict[str, str]:
    """Who played the user and who judged the capabilities, for the report's header, and the caveat each
    affected table carries (SWE-Journey B.1: an LLM simulator; §4.2/B.3: capability metrics "using an LLM
    as a judge"). Keys: ``simulated user``, ``capability judge``, ``main caveat``, ``capability caveat``
    (the caveats empty when the run used the paper's kinds)."""
    users = sorted({u for s in summary.values() for u in str(s.get("simulated_user", "")).split("; ") if u})
    methods = [str(s.get("capability_method", "")) for s in summary.values()]
    heuristic = any(m.startswith("heuristic") for m in methods)
    judged = sorted({m.split(" (")[0] for m in methods if m.startswith("judge:")})
    judge = "; ".join([*judged, *([f"{HEURISTIC_JUDGE} (offline approximation)"] if heuristic else [])])
    rule_based = RULE_BASED in users
    main = ("interactive rows: rule-based simulated user, not the paper's LLM simulator (B.1)"
            if rule_based else "")
    caveats = [f"{HEURISTIC_JUDGE}, not the paper's LLM judge (B.3)" if heuristic else "",
               "user confidence from the rule-based simulated user" if rule_based else ""]
    return {"simulated user": "; ".join(users) or "none", "capability judge": judge or "none",
            "main caveat": main, "capability caveat": "; ".join(c for c in caveats if c)}


def _group(rows: list[tuple[Row, RowOutcome]]) -> dict[str, list[JourneyResult]]:
    agents = {row.agent for row, _ in rows}
    groups: dict[str, list[JourneyResult]] = {}
    for row, out in rows:
        key = row.condition if len(agents) == 1 else f"{row.agent}/{row.condition}"
        groups.setdefault(key, [])
        if out.status == RowStatus.SCORED:
            groups[key].append(JourneyResult.of(out.result))
    return groups


def capability_sessions(caps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str, str]:
    """The sessions whose capability rates are averaged, how they were obtained, and Skip%/Crit%'s source.

    Paper §4.2 and B.3: the capability metrics are LLM-judged ("using an LLM as a judge because manual
    annotation is costly"), and Skip%/Crit% come from reasoning traces ("closed-source models are
    excluded because reasoning traces are inaccessible"). So a heuristic (offline approximation, or a
    judged session that fell back to it) is never averaged with judged sessions: when any session is
    judged, only judged sessions are averaged and the others are counted as left out; with no judged
    session the heuristic sessions are averaged and labelled so. Skip%/Crit% exist only for sessions
    whose turns had real reasoning traces (None otherwise), and their source says so.
    """
    present = [c for c in caps if c]
    judged = [c for c in present if str(c.get("method", "")).startswith("judge:") and "judge_pending" not in c]
    if judged:
        names = ",".join(sorted({str(c["method"]) for c in judged}))
        left = len(present) - len(judged)
        method = f"{names} ({len(judged)} judged" + (f"; {left} heuristic not averaged)" if left else ")")
        chosen = judged
    else:
        chosen = present
        method = f"heuristic ({len(present)} sessions; offline approximation)" if present else "none"
    traced = sum(1 for c in chosen if c.get("skip") is not None)
    skip_source = (f"reasoning traces ({traced} sessions)" if traced
                   else "n/a: no reasoning traces")
    return chosen, method, skip_source


def summarize_rows(rows: list[tuple[Row, RowOutcome]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, results in _group(rows).items():
        f2p = mean_or_none([r.final_f2p for r in results])
        p2p = mean_or_none([r.final_p2p for r in results])
        caps, method, skip_source = capability_sessions([r.capabilities or {} for r in results])
        out[key] = {
            "sessions": len(results),
            "simulated_user": "; ".join(sorted({simulated_user(r.simulator or "none", r.simulator_model or "")
                                                for r in results})),
            "proc_f2p": mean_or_none([r.proc_f2p for r in results]),
            "final_f2p": f2p,
            "final_p2p": p2p,
            "average": (f2p + p2p) / 2 if f2p is not None and p2p is not None else None,
            "turns_per_session": mean_or_none([r.turns for r in results]),
            "cost_per_session": mean_or_none([r.cost_usd for r in results]),
            "user_confidence": mean_or_none([r.final_confidence for r in results]),
            "capability_method": method,
            **{k: mean_or_none([c.get(k) for c in caps]) for k in CAPABILITY_KEYS},
            "skip_crit_source": skip_source,
        }
    return out


def _fmt(value: Any, pct: bool) -> str:
    if value is None:
        return "n/a"
    if pct:
        return f"{100 * value:.2f}"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def markdown_table(summary: dict[str, Any]) -> str:
    """The paper-style table: Proc. F2P, Final F2P, Final P2P, Average (in %), Turn/Session, Cost/Session;
    headed by the simulated user and the capability judge, each table with its caveat (`provenance_notes`)."""
    notes = provenance_notes(summary)
    head = ("| Condition | Sessions | Proc. F2P | Final F2P | Final P2P | Average | Turn/Session | "
            "Cost/Session ($) |")
    lines = [f"Simulated user: {notes['simulated user']}. Capability judge: {notes['capability judge']}.", ""]
    lines += [f"Note: {notes['main caveat']}.", ""] if notes["main caveat"] else []
    lines += [head, "|" + "---|" * 8]
    for key, s in summary.items():
        rates = " | ".join(_fmt(s[k], True) for k in ("proc_f2p", "final_f2p", "final_p2p", "average"))
        lines.append(f"| {key} | {s['sessions']} | {rates} | {_fmt(s['turns_per_session'], False)} | "
                     f"{_fmt(s['cost_per_session'], False)} |")
    caps = ("| Condition | Ask% | Rel% | Hit% | Miss% | OC% | Skip% | Crit% | Confidence | Method |",
            "|" + "---|" * 10)
    lines += ["", *([f"Note: {notes['capability caveat']}.", ""] if notes["capability caveat"] else []), *caps]
    for key, s in summary.items():
        cells = " | ".join(_fmt(s[k], True) for k in CAPABILITY_KEYS)
        lines.append(f"| {key} | {cells} | {_fmt(s['user_confidence'], False)} | {s['capability_method']} |")
    return "\n".join(lines) + "\n"
