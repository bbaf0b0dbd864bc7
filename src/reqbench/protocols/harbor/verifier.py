"""A phase's verifier: ``tests/test.sh`` through core's check runner, after the agent, on a fresh copy of
the submission -- Harbor's layout inside the sandbox: the tests read-only at ``/tests``, a fresh,
harness-owned ``/logs/verifier`` writable, the submission at the task's working directory.

Nothing the agent wrote can be read as a reward: ``/logs/verifier`` exists only in the verifier's
sandbox, is made empty for each run and is read by the harness after the check's processes are gone.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.checks import Check, CheckResult, FixedPaths, run_check
from reqbench.core.workspace import copy_tree
from reqbench.core.workspace.discard import discard
from reqbench.protocols.harbor.rewards import RewardError, Rewards, read_rewards
from reqbench.protocols.harbor.taskfile import Phase

TESTS_AT = "/tests"
VERIFIER_AT = "/logs/verifier"


@dataclass
class Verdict:
    """One verifier run: the rewards, or why there are none (Harbor's verifier exception)."""

    rewards: Rewards | None
    error: str | None
    check: CheckResult
    log: bytes


def merged_tests(phase: Phase, into: Path) -> Path:
    """The phase's test folders laid over one another (a step's files replace the task's), as Harbor
    uploads them to ``/tests``; made by the harness in its own scratch folder, never in the agent's view."""
    for folder in phase.tests:
        copy_tree(folder, into) if not into.exists() else _overlay(folder, into)
    return into


def _overlay(src: Path, dest: Path) -> None:
    for item in sorted(src.rglob("*")):
        target = dest / item.relative_to(src)
        if item.is_dir() and not item.is_symlink():
            target.mkdir(parents=True, exist_ok=True)
        elif item.is_file() and not item.is_symlink():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.unlink(missing_ok=True)
            target.write_bytes(item.read_bytes())


def verify(phase: Phase, submission: Path, tests: Path, workdir: str | None, env: dict[str, str]) -> Verdict:
    """Run the phase's ``test.sh`` on a copy of `submission` and read the rewards it wrote."""
    cd = f"cd {shlex.quote(workdir)} && " if workdir else ""
    check = Check(name="verifier", command=f"{cd}bash {TESTS_AT}/test.sh > {VERIFIER_AT}/test-stdout.txt 2>&1",
                  timeout_seconds=phase.verifier_timeout)
    kept = tempdirs.make("harbor-verifier")
    try:
        result = run_check(check, submission, tests, env={**env, **phase.verifier_env},
                           at=FixedPaths(hidden=TESTS_AT, output=VERIFIER_AT, workspace=workdir),
                           output_to=kept / "out")
        log = _log(kept / "out" / "test-stdout.txt")
        if result.timed_out:
            return Verdict(None, f"the verifier timed out after {phase.verifier_timeout:g}s", result, log)
        try:
            return Verdict(read_rewards(kept / "out"), None, result, log)
        except RewardError as exc:
            return Verdict(None, str(exc), result, log)
    finally:
        discard(kept)


def _log(path: Path) -> bytes:
    if path.is_file() and not path.is_symlink():
        with path.open("rb") as handle:
            return handle.read(200_000)
    return b""
