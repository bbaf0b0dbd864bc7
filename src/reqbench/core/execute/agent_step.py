"""`AgentStep`: the one way a protocol runs an agent (`RowContext.step`, `RowContext.session`).

Core constructs the agent from the run's one agent spec, hands answers (reference patches, disclosed
subtasks, the row key of a replay store) to control agents only, runs it, and classifies how the step
ended with `verdict.step_reason` from what the harness recorded during the step (`core.llm.ledger`). A
protocol keeps its stages and turns and decides what a failed step means for its row (`verdict`), but
never builds, runs or classifies an agent itself.

An exception out of the agent's adapter is the agent's failure (``agent_exit``, traceback kept), except
`InputError` (the user's configuration, e.g. an offline replay miss: it stops the run) and a sandbox that
cannot isolate at all (`SandboxUnavailable`: ``infrastructure``).

The run's agent string and options are parsed by `core.agents.spec.parse_agent`: core's step limits
(``step_timeout``, seconds, any protocol, caps every agent step's wall-clock budget) and the protocols'
``PROTOCOL.KEY`` settings never reach the agent.
"""

from __future__ import annotations

import dataclasses
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget, Session
from reqbench.core.agents.spec import STEP_TIMEOUT as STEP_TIMEOUT  # the option's name, for `RowContext`
from reqbench.core.agents.spec import AgentConfig, StepLimits, parse_agent
from reqbench.core.errors import InputError
from reqbench.core.execute.outcomes import Reason, status_of
from reqbench.core.execute.types import RowStatus
from reqbench.core.execute.verdict import step_reason
from reqbench.core.llm.ledger import ObservedFailure, RowLedger, current_ledger
from reqbench.core.sandbox.environment import EnvironmentMount, agent_environment


@dataclass
class AgentStep:
    """How one agent step (a run, or one turn of a session) ended."""

    result: AgentResult
    """The adapter's record (trajectory, usage, reply); a synthesised ERROR record when it raised."""
    reason: Reason | None
    """None: the agent completed within budget. Otherwise why it did not (`verdict.step_reason`)."""
    detail: str = ""
    observed: tuple[ObservedFailure, ...] = ()
    """What the harness recorded during the step (provider, launcher, budget)."""
    seconds: float = 0.0

    @property
    def completed(self) -> bool:
        return self.reason is None

    @property
    def status(self) -> RowStatus | None:
        """The row status the step's reason implies (None when it completed)."""
        return None if self.reason is None else status_of(self.reason)

    @property
    def invalid(self) -> bool:
        """The harness, not the agent, failed the step: the row is never scored (a provider limit or
        infrastructure failure re-runs it, `outcomes.reruns_agent`; anything else is attrition)."""
        return self.status is RowStatus.INVALID

    def to_dict(self) -> dict[str, Any]:
        return {"reason": self.reason.value if self.reason else None, "detail": self.detail,
                "observed": [{"kind": o.kind.value, "detail": o.detail} for o in self.observed],
                "seconds": round(self.seconds, 3), "agent": self.result.to_dict()}


def build_agent(config: AgentConfig) -> Any:
    """The agent of a run's parsed `config` (its own options only: `core.agents.spec.parse_agent`)."""
    from reqbench.core.agents.registry import build_agent as build

    return build(config.spec)


def is_control(agent: Any) -> bool:
    """Only core's control agents may read a row's answers."""
    from reqbench.core.agents.controls import NullAgent, ReferenceAgent, ReplayAgent

    return isinstance(agent, NullAgent | ReferenceAgent | ReplayAgent)


def with_answers(agent: Any, inputs: AgentInputs, answers: dict[str, Any] | None) -> AgentInputs:
    """`inputs` with the answers in its context for a control agent; a real agent never gets them."""
    if not answers or not is_control(agent):
        return inputs
    return dataclasses.replace(inputs, context={**inputs.context, **answers})


def _ledger() -> RowLedger:
    found = current_ledger()
    return found if found is not None else RowLedger()


def observe(call: Any, budget: Budget) -> AgentStep:
    """Run `call()` (one agent run or session turn) and classify how it ended."""
    from reqbench.core.sandbox import SandboxUnavailable

    ledger = _ledger()
    mark = ledger.mark()
    started = time.monotonic()
    try:
        result = call()
    except InputError:
        raise  # the user's configuration (an offline replay miss, a bad option): stops the run
    except SandboxUnavailable as exc:
        return AgentStep(AgentResult(AgentStatus.ERROR, detail=str(exc)), Reason.INFRASTRUCTURE, str(exc),
                         ledger.since(mark), time.monotonic() - started)
    except Exception as exc:  # the agent's adapter crashed: its failure, never the harness's
        detail = f"the agent's adapter raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        result = AgentResult(AgentStatus.ERROR, detail=detail)
    if not isinstance(result, AgentResult) or not isinstance(result.status, AgentStatus):
        result = AgentResult(AgentStatus.ERROR, detail=f"the agent's adapter returned {type(result).__name__}, "
                                                        "not an AgentResult")
    observed = ledger.since(mark)
    reason = step_reason(result, observed, budget)
    detail = result.detail
    if reason is not None and reason.value != result.status.value:
        shown = "; ".join(o.detail for o in observed if o.kind.value not in ("budget", "resource_limit"))
        detail = "; ".join(filter(None, [shown if status_of(reason) is RowStatus.INVALID else "", result.detail]))
    return AgentStep(result, reason, detail or (reason.value if reason else ""), observed,
                     time.monotonic() - started)


def run_step(spec: str, agent_options: dict[str, Any], workspace: Path, inputs: AgentInputs, budget: Budget,
             answers: dict[str, Any] | None = None) -> AgentStep:
    """Build the agent, run it once in `workspace` under its step limits, classify the step."""
    config = parse_agent(spec, agent_options)
    budget = config.limits.cap(budget)
    agent = build_agent(config)
    inputs = with_answers(agent, inputs, answers)
    return observe(lambda: agent.run(workspace, inputs, budget), budget)


@dataclass
class StepSession:
    """A conversation with the agent in one persistent workspace (journey), each turn an `AgentStep`.

    The agent's own session object stays private: `send` and `close` are the only ways in, plus
    `checkpoint`/`restore` and `compact_history` where the agent offers them."""

    session: Session
    limits: StepLimits = StepLimits()
    turns: int = field(default=0)
    environment: EnvironmentMount | None = None
    """The session's overlay of the row's environment: every turn runs in it, so what the agent installed
    in one turn is there in the next (`core.execute.environments`)."""

    def send(self, message: str, budget: Budget) -> AgentStep:
        budget = self.limits.cap(budget)
        self.turns += 1
        with agent_environment(self.environment):
            return observe(lambda: self.session.send(message, budget), budget)

    def offers(self, name: str) -> bool:
        return callable(getattr(self.session, name, None))

    def call(self, name: str, *args: Any) -> Any:
        """A documented optional capability of the agent's session (``checkpoint``, ``restore``,
        ``compact_history``, ``force_low_watermark``)."""
        return getattr(self.session, name)(*args)

    def close(self) -> None:
        try:
            self.session.close()
        except Exception:  # noqa: BLE001 - closing the agent's session is best effort; its outcome is recorded
            pass


def open_session(spec: str, agent_options: dict[str, Any], workspace: Path,
                 answers: dict[str, Any] | None = None, sample: int | str = 0,
                 rerun: Any = None) -> StepSession:
    """The agent's session in `workspace`: its own ``start_session`` when it has one (controls get
    `answers` as their inputs' context), else `rerun(agent, workspace)` (an adapter that re-runs the agent
    every turn)."""
    import inspect

    config = parse_agent(spec, agent_options)
    agent = build_agent(config)
    starter = getattr(agent, "start_session", None)
    if not callable(starter):
        if rerun is None:
            raise InputError(f"agent {spec!r} cannot hold a conversation", item="--agent")
        return StepSession(rerun(agent, workspace), config.limits)
    if is_control(agent):
        session = starter(workspace, inputs=AgentInputs(context=dict(answers or {})))
    elif "sample" in inspect.signature(starter).parameters:
        session = starter(workspace, sample=sample)
    else:
        session = starter(workspace)
    return StepSession(session, config.limits)
