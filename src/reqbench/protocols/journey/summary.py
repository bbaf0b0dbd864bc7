"""The journey report as a typed `Summary`: the simulated user and the capability judge as header facts, the
main and capability tables ``{persona: {metric: value}}`` (`report.summarize_rows`), headline Final F2P/P2P
per persona, and the Proc/Final F2P and user-confidence plots."""

from __future__ import annotations

from typing import Any

from reqbench.core.summary import Cell, Plot, Summary, SummaryTable, as_number
from reqbench.protocols.journey.report import provenance_notes


def plots(data: dict[str, dict[str, Any]]) -> list[Plot]:
    rows = {k: v for k, v in data.items() if "proc_f2p" in v}
    if not rows:
        return []
    labels = list(rows)
    out = [Plot("grouped", "Proc and Final F2P by persona", labels,
                {"Proc F2P": [as_number(v.get("proc_f2p")) for v in rows.values()],
                 "Final F2P": [as_number(v.get("final_f2p")) for v in rows.values()]}, ylabel="fail-to-pass rate")]
    conf = [as_number(v.get("user_confidence")) for v in rows.values()]
    if any(c is not None for c in conf):
        out.append(Plot("bar", "final user confidence by persona", labels, {"confidence": conf},
                        ylabel="confidence (0-100)"))
    return out


MAIN_KEYS = ("sessions", "simulated_user", "proc_f2p", "final_f2p", "final_p2p", "average", "turns_per_session",
             "cost_per_session")


def summary(data: dict[str, dict[str, Any]]) -> Summary:
    """Header facts name the simulated user and the capability judge; the main table (B.2 columns) and the
    capability table (B.3) each carry in their title what departs from the paper (`provenance_notes`)."""
    headline: dict[str, Cell] = {f"{p} final F2P/P2P": f"{r.get('final_f2p')}/{r.get('final_p2p')}"
                                 for p, r in data.items() if "final_f2p" in r}
    if not data:
        return Summary(headline=headline, data=data)
    notes = provenance_notes(data)
    main = {k: {c: v for c, v in r.items() if c in MAIN_KEYS} for k, r in data.items()}
    caps = {k: {c: v for c, v in r.items() if c not in MAIN_KEYS} for k, r in data.items()}
    tables = [SummaryTable.of(_titled("main results", notes["main caveat"]), main),
              SummaryTable.of(_titled("capability metrics", notes["capability caveat"]), caps)]
    overview: dict[str, Cell] = {"simulated user": notes["simulated user"],
                                 "capability judge": notes["capability judge"]}
    return Summary(overview, tables, headline, plots(data), data)


def _titled(title: str, caveat: str) -> str:
    return f"{title} ({caveat})" if caveat else title
