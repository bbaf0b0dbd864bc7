"""The provenance header every report and viewer page starts with: what was evaluated, how, by which
reqbench, how the agent was isolated (`run_report.sandbox_statement`) and at which prices its model calls
were charged (`run_report.pricing_statement`)."""

from __future__ import annotations

import json
from typing import Any

from reqbench.core.execute.run_inputs import input_statements
from reqbench.core.store.models import RunMeta
from reqbench.report.run_report import pricing_statement, sandbox_statement


def _text(value: Any) -> str:
    if value in (None, "", [], {}):
        return "—"
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)


def shown_path(path: str) -> str:
    """`path` without the machine's layout: a bundled suite as ``demo:NAME``, a path under the working
    directory relative to it, one under the home directory as ``~/...``; anything else unchanged."""
    from pathlib import Path

    from reqbench.core.bundled import bundled_root

    p = Path(path)
    for base, prefix in ((bundled_root(), "demo:"), (Path.cwd(), ""), (Path.home(), "~/")):
        try:
            rel = p.relative_to(base)
        except ValueError:
            continue
        return prefix + rel.as_posix() if rel.parts else (prefix.rstrip(":/") or ".")
    return path


def provenance(meta: RunMeta, *, short_paths: bool = False) -> list[tuple[str, str]]:
    """``[(label, text)]``: agent, agent options/model, judge, conditions, repeats, seed, suite, ...
    (`short_paths`: the suite as `shown_path` gives it, as the viewer shows it)."""
    o = meta.options
    agent_options = o.get("agent_options") or {}
    model = agent_options.get("model") if isinstance(agent_options, dict) else None
    return [("agent", _text(o.get("agent"))), ("model", _text(model)),
            ("agent options", _text(agent_options)), ("judge", _text(o.get("judge"))),
            ("conditions", ", ".join(map(str, o.get("conditions") or [])) or "all of the suite's"),
            ("repeats", _text(o.get("repeats"))), ("seed", _text(o.get("seed"))),
            ("protocol", meta.protocol),
            ("suite", shown_path(meta.suite_path) if short_paths else meta.suite_path), ("created", meta.created),
            ("reqbench", meta.reqbench_version), ("sandbox", sandbox_statement(o)),
            ("model prices", pricing_statement(o, meta.provenance.get("prices"))),
            *input_statements(meta.provenance)]


def run_title(meta: RunMeta, suite_name: str | None = None) -> str:
    """A title that tells two runs apart: protocol, suite and the evaluated agent (and model)."""
    from pathlib import Path

    o = meta.options
    model = (o.get("agent_options") or {}).get("model") if isinstance(o.get("agent_options"), dict) else None
    agent = f"{o.get('agent', '?')}" + (f" ({model})" if model else "")
    return f"{meta.protocol} · {suite_name or Path(meta.suite_path).name} · agent {agent}"
