"""The journey report as a typed `Summary`: one table ``{persona: {metric: value}}`` (`report.summarize_rows`),
headline Final F2P/P2P per persona, and the Proc/Final F2P and user-confidence plots."""

from __future__ import annotations

from typing import Any

from reqbench.core.summary import Cell, Plot, Summary, Table, as_number


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


def summary(data: dict[str, dict[str, Any]]) -> Summary:
    headline: dict[str, Cell] = {f"{p} final F2P/P2P": f"{r.get('final_f2p')}/{r.get('final_p2p')}"
                                 for p, r in data.items() if "final_f2p" in r}
    return Summary(tables=[Table.of("summary", data)] if data else [], headline=headline, plots=plots(data),
                   data=data)
