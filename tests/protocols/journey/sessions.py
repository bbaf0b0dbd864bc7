"""Running one journey session in a test (real workspace, real hidden-test runs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reqbench.core.agents.base import AgentInputs, Session
from reqbench.core.agents.control_sessions import ReferenceSession
from reqbench.core.execute.agent_step import StepSession
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import RunOptions
from reqbench.protocols.journey.assistants import control_context, open_session
from reqbench.protocols.journey.env import make_workspace
from reqbench.protocols.journey.models import Instance, load_instance
from reqbench.protocols.journey.personas import preset
from reqbench.protocols.journey.session import SessionLimits, SessionRecord, run_session
from reqbench.protocols.journey.simulators.deterministic import DeterministicSimulator

SessionFactory = Callable[[Instance, Path, DeterministicSimulator], Session | StepSession]


def reference_session(inst: Instance, ws: Path, disclosed: Callable[[], list[str]]) -> ReferenceSession:
    """Core's `reference` control serving a journey session (what `open_session("reference", ...)` builds)."""
    return ReferenceSession.from_inputs(ws, AgentInputs(context=control_context(inst, disclosed, "")))


def control(name: str) -> SessionFactory:
    """The control agent `name` as the runner opens it (`RowContext.session`)."""
    return lambda inst, ws, sim: open_session(RowContext(RunOptions(agent=name), ws.parent), inst, ws,
                                              lambda: list(sim.state.disclosed))


def as_step_session(session: Session | StepSession) -> StepSession:
    """A test's own session object, as core hands sessions to the protocol."""
    return session if isinstance(session, StepSession) else StepSession(session)


def run(instance_dir: Path, persona: str, factory: SessionFactory, tmp: Path, *, seed: int = 0,
        max_turns: int = 30, limits: SessionLimits | None = None) -> tuple[Instance, SessionRecord]:
    inst = load_instance(instance_dir)
    ws = make_workspace(inst.repo_dir, tmp / "workspace")
    sim = DeterministicSimulator(inst, preset(persona), seed=seed)
    limits = limits or SessionLimits(max_turns=max_turns)
    record = run_session(inst, persona, sim, as_step_session(factory(inst, ws, sim)), ws, tmp, limits)
    return inst, record


def conversation(record: SessionRecord) -> list[tuple[str, int | None, dict[str, str]]]:
    return [(t.user_message, t.confidence_after, t.statuses_after) for t in record.turns] + [
        (record.final_message, None, {})]
