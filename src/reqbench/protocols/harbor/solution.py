"""``solution/solve.sh`` as the `reference` agent's answer: the harness runs it in the sandbox (Harbor's
layout: the solution folder read-only at ``/solution``, the tree at the task's working directory) on a
copy of the workspace as it stands before the phase, and hands the resulting diff to the reference agent
as its patch. Only a run of the `reference` agent asks for it. In a task environment it runs where the
agent's steps run, the row's throw-away overlay of it (what it changes there the verifier never sees)."""

from __future__ import annotations

import shlex
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.sandbox import run_sandboxed
from reqbench.core.sandbox.environment import EnvironmentMount
from reqbench.core.workspace import copy_tree, diff_trees
from reqbench.core.workspace.discard import discard
from reqbench.protocols.harbor.taskfile import Phase

SOLUTION_AT = "/solution"


def solution_patch(phase: Phase, workspace: Path, workdir: str | None, env: dict[str, str],
                   environment: EnvironmentMount | None = None) -> str | None:
    """The patch ``solve.sh`` makes to `workspace` (None: the phase has no solution); a script that fails
    is the suite's error, named."""
    if phase.solution is None:
        return None
    scratch = tempdirs.make("harbor-solution")
    try:
        tree = scratch / "tree"
        copy_tree(workspace, tree)
        cd = f"cd {shlex.quote(workdir)} && " if workdir else ""
        proc = run_sandboxed(f"{cd}bash {SOLUTION_AT}/solve.sh", tree, timeout=phase.agent_timeout, env=env,
                             readonly_binds={phase.solution.absolute(): Path(SOLUTION_AT)},
                             writable_binds={tree: Path(workdir)} if workdir else {}, network=False,
                             environment=environment)
        if proc.exit_code != 0:
            raise InputError(f"solve.sh failed (exit {proc.exit_code}): {proc.stderr_tail()[-300:]}",
                             file=str(phase.solution / "solve.sh"), item=f"step {phase.name!r}")
        return diff_trees(workspace, tree, None)
    finally:
        discard(scratch)
