"""The two agent stages of a takeover row: Phase A (analyse, answer JSON) and coding (change the repo).

The coding stage writes the condition's input files into an inputs folder *outside* the workspace (so
they never become part of the submission); Phase A has no repository, so its workspace is the folder of
package files itself. Gold, checks and other conditions' inputs are never written there
(`test_condition_inputs_hold_no_gold_no_checks_and_no_other_history`); the sandbox hides the suite.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentInputs, AgentResult, Budget
from reqbench.core.execute.agent_step import AgentStep
from reqbench.core.execute.suite import RowContext
from reqbench.core.hashing import atomic_write_text, pretty_json
from reqbench.protocols.takeover.phase_a.prompts import render
from reqbench.protocols.takeover.phase_a.response import ResponseCheck, check_response_text
from reqbench.protocols.takeover.run.options import split_options

FILE_KEYS = {"response.schema.json": "schema", "history.jsonl": "history"}
PHASE_A_BUDGET = Budget(wall_seconds=900.0)  # ReqMemBench D.1: diagnostics 900 s
CODING_BUDGET = Budget(wall_seconds=1800.0)  # coding 1,800 s


@dataclass
class StageInputs:
    """Files (name -> text) to materialise, the instructions template, and control-agent context."""

    files: dict[str, str]
    instructions: str
    context: dict[str, Any] = field(default_factory=dict)
    verbatim: bool = False
    """The instructions are a package's text, written byte for byte (no `{name}` placeholders filled)."""


@dataclass
class PhaseAResult:
    step: AgentStep
    check: ResponseCheck

    @property
    def agent(self) -> AgentResult:
        return self.step.result

    @property
    def valid(self) -> bool:
        return self.check.frozen is not None

    @property
    def response(self) -> dict[str, Any] | None:
        return self.check.frozen.response.model_dump(mode="json") if self.check.frozen else None

    @property
    def decision(self) -> str | None:
        resp = self.response
        return resp["decision"] if resp else None

    def to_dict(self) -> dict[str, Any]:
        return {"agent_status": self.agent.status.value,
                "step_reason": self.step.reason.value if self.step.reason else None, "valid": self.valid,
                "decision": self.decision,
                "problems": list(self.check.problems),
                "response_sha256": self.check.frozen.sha256 if self.check.frozen else None}


def write_inputs(inputs_dir: Path, stage: StageInputs) -> dict[str, Path]:
    """Write the stage files and `instructions.md`; return logical name -> path."""
    inputs_dir.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for name, text in stage.files.items():
        atomic_write_text(inputs_dir / name, text)
        paths[FILE_KEYS.get(name, name.split(".")[0]) + "_file"] = inputs_dir / name
    template_paths = {k: str(v) for k, v in paths.items()}
    instructions = stage.instructions if stage.verbatim else render(stage.instructions, **template_paths)
    atomic_write_text(inputs_dir / "instructions.md", instructions)
    paths["instructions_file"] = inputs_dir / "instructions.md"
    paths["prompt_file"] = inputs_dir / "instructions.md"
    return paths


def run_agent(rctx: RowContext, stage_name: str, workspace: Path, inputs_dir: Path, stage: StageInputs,
              budget: Budget, hide: list[Path]) -> AgentStep:
    """Run the row's agent for one stage through core (`RowContext.step`); the `stage` option tells presets
    diagnostic vs coding. `hide` (the suite folder) and the run folder are hidden from sandboxed agents;
    the workspace and the stage's input files stay visible. The stage's context (reference patch or
    reply, the replay key) reaches control agents only."""
    options = rctx.options
    hidden = [*hide, *([options.work_dir.parent] if options.work_dir is not None else [])]
    paths = write_inputs(inputs_dir, stage)
    inputs = AgentInputs(files={k.removesuffix("_file"): v for k, v in paths.items()},
                         prompt=paths["instructions_file"].read_text(encoding="utf-8"),
                         context={"stage": stage_name, "hide": hidden})
    row_key = rctx.row.key if rctx.row is not None else ""
    answers = {**stage.context, "row_key": stage_row_key(row_key, stage_name)}
    _, agent_options = split_options(options)  # takeover.* settings are the protocol's, not the agent's
    return rctx.step(workspace, inputs, budget, answers=answers,
                     agent_options={**agent_options, "stage": stage_name})


def stage_row_key(row_key: str, stage_name: str) -> str:
    """The key a replay store uses for one stage: coding keeps the row key; Phase A marks the condition
    (``T|C1:diagnostic|agent|0``) so a store can hold both a patch and a Phase-A reply per row."""
    if stage_name == "coding":
        return row_key
    task, condition, *rest = row_key.split("|")
    return "|".join([task, f"{condition}:{stage_name}", *rest])


def run_phase_a(rctx: RowContext, workspace: Path, inputs_dir: Path, stage: StageInputs,
                visible_message_ids: list[Any], hide: list[Path]) -> PhaseAResult:
    """Phase A: the agent answers with one rq-agent-response-v1 JSON object, frozen after validation against
    the protocol's rules and the response schema the stage showed it (reqbench's or the released one).

    A reply that is missing or invalid is an agent failure (C.2), never a crash.
    """
    step = run_agent(rctx, "diagnostic", workspace, inputs_dir, stage, PHASE_A_BUDGET, hide)
    text = strip_fence(step.result.reply) if step.completed else None
    shown = stage.files.get("response.schema.json")
    return PhaseAResult(step, check_response_text(text, visible_message_ids,
                                                  json.loads(shown) if shown is not None else None))


def strip_fence(reply: str | None) -> str | None:
    """Tolerate one Markdown code fence around the JSON object (nothing else is repaired)."""
    if reply is None:
        return None
    text = reply.strip()
    if text.startswith("```") and text.endswith("```"):
        text = text[3:-3]
        text = text[4:] if text.startswith("json") else text
    return text.strip() or None


def json_file(value: Any) -> str:
    return pretty_json(value)


def jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
