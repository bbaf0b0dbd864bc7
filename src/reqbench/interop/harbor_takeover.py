"""Takeover delivery targets as Harbor tasks: one single-step task per delivery target, under condition C1
(direct delivery with the full history, ReqMemBench §4.1).

The starting repository is the target's initial repository; the instruction is C1's coding instruction
with the client's newest message (``task.json``) and the conversation before it (``history.jsonl``)
reproduced after it. The verifier (``tests/test.sh``) is `harbor_takeover_gates` (shipped as
``tests/gates.py``) over the target's three gates as the suite declares them (``{python}`` -> python3,
``{pytest}`` -> plain pytest, ``{hidden}`` -> ``/tests/hidden``): ``reward`` is 1 only when build, target
and regression all pass, 0 for an unchanged project. ``tests/takeover/initial`` holds the initial
repository (for the no-deliverable rule and the protected files); ``solution/`` the reference patch.
"""

from __future__ import annotations

import json
from pathlib import Path

from reqbench.core.checks import DEFAULT_PROTECTED
from reqbench.core.workspace import copy_tree
from reqbench.interop.harbor_env import TEST_SH_HEAD, dockerfile, toml_string, write_solution
from reqbench.interop.harbor_takeover_gates import GATES_PY
from reqbench.protocols.takeover.delivery.gates import GATES
from reqbench.protocols.takeover.phase_a.prompts import DIRECT_DELIVERY, render
from reqbench.protocols.takeover.run.context import SuiteContext
from reqbench.protocols.takeover.run.stages import CODING_BUDGET
from reqbench.protocols.takeover.suite_file import DeliveryTarget

CONDITION = "C1"
TEST_SH = TEST_SH_HEAD + "python3 /tests/gates.py /tests/takeover/gates.json /logs/verifier\n"
PLACEHOLDERS = {"{python}": "python3", "{pytest}": "python3 -m pytest -p no:cacheprovider"}
"""Bound at export; ``{hidden}`` and ``{workspace}`` are bound by the gates script where it runs."""


class TakeoverTarget:
    """One delivery target with the suite context that builds its initial repository and its package."""

    def __init__(self, ctx: SuiteContext, target: DeliveryTarget) -> None:
        self.ctx, self.target = ctx, target

    @property
    def target_id(self) -> str:
        return self.target.target_id


def takeover_targets(suite: Path, cache: Path) -> list[TakeoverTarget]:
    """Every delivery target of the suite, each checked to have its C1 package and checks (the release is
    built below `cache`); one that has not is one error naming it."""
    ctx = SuiteContext.load(suite, cache)
    for target in ctx.suite.delivery:
        ctx.public_files(target.target_id, CONDITION)
        ctx.suite.checks_for(target)
    return [TakeoverTarget(ctx, d) for d in ctx.suite.delivery]


def _command(text: str) -> str:
    for placeholder, value in PLACEHOLDERS.items():
        text = text.replace(placeholder, value)
    return text


def instruction(files: dict[str, str]) -> str:
    """C1's coding instruction with its two files reproduced after it."""
    head = render(DIRECT_DELIVERY, task_file="task.json", history_file="history.jsonl")
    return (f"{head}\nBoth files are reproduced in full below; they are not part of the repository.\n\n"
            f"## task.json\n\n```json\n{files['task.json'].strip()}\n```\n\n"
            f"## history.jsonl\n\n```\n{files['history.jsonl'].strip()}\n```\n")


def write_takeover_task(item: TakeoverTarget, dest: Path) -> list[str]:
    """One delivery target as one Harbor task at `dest`; the report lines."""
    ctx, target = item.ctx, item.target
    initial = ctx.initial_repository(target.target_id)
    copy_tree(initial, dest / "environment" / "repo")
    block = target.environment or ctx.suite.environment
    (dest / "environment" / "Dockerfile").write_text(
        dockerfile(block, ["pytest"], origin=str(ctx.suite_dir / "suite.yaml")))
    checks = ctx.suite.checks_for(target)
    gates = [{"name": name, "command": _command(getattr(checks, name).command),
              "timeout": getattr(checks, name).timeout_seconds,
              "protected": [*DEFAULT_PROTECTED, *getattr(checks, name).protected]} for name in GATES]
    copy_tree(ctx.hidden_dir(target.target_id), dest / "tests" / "hidden")
    copy_tree(initial, dest / "tests" / "takeover" / "initial")
    (dest / "tests" / "takeover" / "gates.json").write_text(
        json.dumps({"gates": gates}, indent=1))
    (dest / "tests" / "gates.py").write_text(GATES_PY)
    (dest / "tests" / "test.sh").write_text(TEST_SH)
    (dest / "instruction.md").write_text(instruction(ctx.public_files(target.target_id, CONDITION)), encoding="utf-8")
    write_solution(dest, (ctx.suite_dir / target.reference_patch).read_text(encoding="utf-8"))
    verifier = 2 * sum(g["timeout"] for g in gates) + 60  # each gate may be re-checked once
    (dest / "task.toml").write_text(
        f'schema_version = "1.4"\nsource = {toml_string(f"reqbench takeover {ctx.suite.name} {target.target_id}")}\n\n'
        f"[metadata]\ncondition = {toml_string(CONDITION)}\ndelivery = "
        f"{toml_string('reward 1 only when build, target and regression all pass (ReqMemBench C.2)')}\n\n"
        f"[verifier]\ntimeout_sec = {float(verifier)}\n\n[agent]\ntimeout_sec = {CODING_BUDGET.wall_seconds}\n")
    return [f"{target.target_id}: condition {CONDITION} (the full history in the instruction); the gates run plain "
            "pytest, without reqbench's guarded runner"]
