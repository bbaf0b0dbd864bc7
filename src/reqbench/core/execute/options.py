"""Which run options define a run (and must match on `--resume`), and their JSON form in the store.

The estimand is fixed by agent, conditions, repeats, seed, judge and agent options (SpecPath: an agent
configuration is its model deployment, scaffold, prompts, tools, retry policy and budget). Concurrency,
executor and scratch directory only change how fast a run goes, so a resumed run may change them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from reqbench.core.execute.types import RunOptions

ESTIMAND_FIELDS = ("agent", "conditions", "repeats", "seed", "judge", "agent_options", "unsafe_no_sandbox",
                   "prices", "allow_unpriced", "allow_provider_tools", "environment")
"""``unsafe_no_sandbox``, ``prices``, ``allow_unpriced``, ``allow_provider_tools`` and ``environment`` are stored
only when set, and a resume must repeat them: a run is either protected by the sandbox throughout or says that
it is not, its dollar budgets are charged at one set of prices, and its rows run in one environment."""


def options_to_json(options: RunOptions) -> dict[str, Any]:
    data = {"agent": options.agent, "conditions": list(options.conditions), "repeats": options.repeats,
            "seed": options.seed, "judge": options.judge,
            "agent_options": dict(sorted(options.agent_options.items()))}
    if options.unsafe_no_sandbox:
        data["unsafe_no_sandbox"] = True
    if options.prices:
        data["prices"] = {m: list(p) for m, p in sorted(options.prices.items())}
    if options.allow_unpriced:
        data["allow_unpriced"] = True
    if options.allow_provider_tools:
        data["allow_provider_tools"] = True
    if options.environment is not None:
        data["environment"], data["environment_dir"] = options.environment, options.environment_dir
    return data


def options_from_json(data: dict[str, Any], *, concurrency: int = 1,
                      work_dir: Path | None = None) -> RunOptions:
    return RunOptions(agent=data["agent"], conditions=tuple(data.get("conditions", ())),
                      repeats=int(data.get("repeats", 1)), seed=int(data["seed"]),
                      judge=data.get("judge", ""), agent_options=dict(data.get("agent_options", {})),
                      unsafe_no_sandbox=bool(data.get("unsafe_no_sandbox", False)),
                      prices={m: list(p) for m, p in (data.get("prices") or {}).items()},
                      allow_unpriced=bool(data.get("allow_unpriced", False)),
                      allow_provider_tools=bool(data.get("allow_provider_tools", False)),
                      environment=data.get("environment"), environment_dir=data.get("environment_dir"),
                      concurrency=concurrency, work_dir=work_dir)


def differing_options(stored: dict[str, Any], requested: dict[str, Any]) -> list[str]:
    """Names of estimand options whose values differ (agent options reported as ``agent_options.KEY``)."""
    out = []
    for name in ESTIMAND_FIELDS:
        a, b = stored.get(name), requested.get(name)
        if name == "agent_options" and isinstance(a, dict) and isinstance(b, dict):
            out += [f"agent_options.{k}" for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
        elif a != b:
            out.append(name)
    return out


def with_work_dir(options: RunOptions, work_dir: Path) -> RunOptions:
    return dataclasses.replace(options, work_dir=work_dir)
