"""The records that cross the boundary between the executor and a protocol.

A *row* is `(task, condition, agent config, repeat)`. A protocol plans rows and runs one row at a time;
the executor owns scheduling, attempts, the store and progress. A row's outcome is one of:

* ``scored``  — the row produced a result that counts (success or failure lives in `result`);
* ``pending`` — a harness problem (HARNESS_ERROR, judge pending): re-evaluated on `--resume`;
* ``invalid`` — an external problem (provider, runner infrastructure): attrition, never scored.

Which of the three a row gets is decided by its reason (`outcomes.Reason`, the one taxonomy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

from reqbench.core.agents.spec import AgentConfig, parse_agent
from reqbench.core.execute.reasons import Reason
from reqbench.core.execute.results import OpenResult, ProtocolResult


class RowStatus(StrEnum):
    SCORED = "scored"
    PENDING = "pending"
    INVALID = "invalid"


@dataclass(frozen=True, order=True)
class Row:
    task_id: str
    condition: str
    agent: str
    repeat: int = 0

    @property
    def key(self) -> str:
        return f"{self.task_id}|{self.condition}|{self.agent}|{self.repeat}"

    def to_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "condition": self.condition, "agent": self.agent,
                "repeat": self.repeat}


@dataclass
class RowOutcome:
    status: RowStatus
    result: ProtocolResult = field(default_factory=ProtocolResult)
    """The row's result as its protocol's model (``result_model``: gate results, signature, metrics...). A
    mapping given here (a protocol that declares no model) is kept as an `OpenResult`; the runner reads it
    into the protocol's model when the protocol declares one."""
    detail: str = ""
    artifacts: dict[str, bytes] = field(default_factory=dict)
    """Named blobs (patch, transcript, logs) stored content-addressed by the executor."""
    reason: Reason | None = None
    """Why the row ended so, consistent with `status` (`outcomes.status_of`). None only for outcomes stored
    before reasons existed, or from a plugin that does not classify. A reason's code (a plugin's string) is
    taken as its `Reason`; an unknown code is a protocol bug (ValueError)."""

    def __post_init__(self) -> None:
        if not isinstance(self.result, ProtocolResult):
            self.result = OpenResult.model_validate(dict(self.result or {}))
        if self.reason is not None and not isinstance(self.reason, Reason):
            self.reason = Reason(self.reason) if self.reason else None


Outcomes = list[tuple[Row, RowOutcome]]
"""A run's rows with their selected outcomes, as summaries, views and studies read them."""


@dataclass(frozen=True)
class RunOptions:
    """What the user asked `reqbench run` for; protocols read what they need."""

    agent: str = "reference"
    conditions: tuple[str, ...] = ()
    repeats: int = 1
    seed: int = 20260729
    judge: str = ""
    """The judge spec (`core.judges.spec`); '' = the protocol's offline default (takeover ``exact``, pace
    ``token-overlap``, journey ``word-overlap``)."""
    concurrency: int = 1
    agent_options: dict[str, Any] = field(default_factory=dict)
    """Every ``--agent-opt KEY=VALUE`` as given (what the run stores); read them typed through `agent_config`."""
    work_dir: Path | None = None
    unsafe_no_sandbox: bool = False
    """The user allowed a real agent to run without bubblewrap (``--unsafe-no-sandbox``): recorded in the
    run and printed in every report, because such scores are not protected against a hostile agent."""
    recheck: bool = True
    """Whether `reevaluate` runs the checks again on a frozen submission that was already scored. Always
    true for runs; `reqbench regrade` without ``--checks`` clears it (only the judge changes). Not stored."""
    check_timeout: float | None = None
    """A larger fixed budget (seconds) for the checks of a re-evaluation, replacing the suite's: set only by
    `reqbench regrade --timeout-rerun` (SpecPath re-ran verifier timeouts at 2,400 s). Not stored."""
    agent_timeout: float | None = None
    """A longer wall-clock budget (seconds) for every agent step, replacing the protocol's: set only by
    `reqbench regrade --timeout-rerun` for rows whose agent timed out (SpecPath re-ran them at 2,400 s).
    Not stored."""
    offline: bool = False
    """Replay-only model access (`core.llm.run_access`). Not part of the estimand and not stored: a run
    recorded online may be resumed or re-scored with ``--offline``."""
    prices: dict[str, list[float]] = field(default_factory=dict)
    """The run's own model prices ``{model: [USD per 1M input tokens, per 1M output tokens]}`` (``--price``,
    ``--prices``), over the built-in table (`core.llm.pricing`): what the gateway charges and budgets."""
    prices_from: str = ""
    """Where `prices` came from (``--prices /abs/file.yaml``, ``--price``, ``study file /abs/study.yaml``), for
    the run's provenance (`price_source`). Not part of the estimand and not stored in the options."""
    allow_unpriced: bool = False
    """Models without a price may be called under a dollar budget, their cost unknown (``--allow-unpriced``):
    recorded with the run and stated by every report."""
    allow_provider_tools: bool = False
    """Agents may use tools the provider runs outside the sandbox -- web search, URL fetches, MCP servers, code
    execution (``--allow-provider-tools``, `core.llm.gateway.provider_tools`): recorded with the run and
    stated by every report."""
    environment: dict[str, Any] | None = None
    """The run's task environment (``--environment``: a validated ``environment:`` block as JSON) for rows
    whose task declares none (`core.execute.environments`); stored, and a resume must repeat it."""
    environment_dir: str | None = None
    """The folder the block's paths are relative to (the file's folder, or the working directory)."""

    @cached_property
    def agent_config(self) -> AgentConfig:
        """`agent` and `agent_options` parsed once (`core.agents.spec.parse_agent`): the agent's spec and its
        own options, core's step limits, the protocols' ``PROTOCOL.KEY`` settings. `InputError` for a bad one."""
        return parse_agent(self.agent, self.agent_options)
