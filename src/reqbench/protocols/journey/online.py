"""Online evaluation (SWE-Journey §3.4): hidden tests on a snapshot of the workspace after each turn.

The hidden tests never enter the assistant's workspace. After a turn the instance's test command runs as
a `reqbench.core.checks` check: on a fresh copy of the tree, in the sandbox, without network, with the
instance's hidden directory readable at ``{hidden}`` and pytest's JUnit report giving every test node's
result in one run. Results are cached by (tree hash, test environment), so identical trees -- the base
repository, the reference states every persona reaches -- are tested once per process.

A node passes only when its JUnit test case has no failure, error or skipped child; a node missing from
the report (e.g. its module failed to import) counts as failing. A run that ends in HARNESS_ERROR (timeout,
an exit code other than 0/1, a missing or empty report) raises `HarnessError`: it is never a result.
"""

from __future__ import annotations

import shlex
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.checks import Check, CheckStatus, run_check
from reqbench.core.errors import HarnessError
from reqbench.protocols.journey.env import tree_hash
from reqbench.protocols.journey.models import Instance


@dataclass(frozen=True)
class TestRun:
    """Per-node results of one hidden-test run on one tree."""

    probes: dict[str, bool]
    tree: str
    seconds: float = 0.0
    output_tail: str = ""

    def passed(self, node: str) -> bool:
        return self.probes.get(node, False)

    def rate(self, nodes: list[str]) -> float | None:
        """Fraction of `nodes` passing; None for an empty node list (never reported as 0 or 1)."""
        if not nodes:
            return None
        return sum(1 for n in nodes if self.passed(n)) / len(nodes)

    def failing(self, nodes: list[str]) -> list[str]:
        return [n for n in nodes if not self.passed(n)]


@dataclass
class _Cache:
    runs: dict[tuple[str, str], TestRun] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


_CACHE = _Cache()


def hidden_check(instance: Instance) -> Check:
    """The instance's test command as a core `Check` with JUnit probes (``{python}`` is this interpreter)."""
    env_spec = instance.spec.environment
    command = env_spec.test_command.replace("{python}", shlex.quote(sys.executable))
    return Check(name="hidden-tests", command=command, timeout_seconds=env_spec.timeout_seconds,
                 probes="junit")


def run_hidden_tests(instance: Instance, tree: Path, scratch: Path | None = None) -> TestRun:
    """Run the hidden tests against a copy of `tree`; `tree` itself is never modified.

    Raises `HarnessError` when the run cannot produce a trustworthy report. (`scratch` is accepted for
    callers that keep temporary files together; the check manages its own.)
    """
    key = (instance.test_env_hash, tree_hash(tree))
    with _CACHE.lock:
        cached = _CACHE.runs.get(key)
    if cached is not None:
        return cached
    result = run_check(hidden_check(instance), tree, instance.hidden_dir, env=instance.spec.environment.env)
    if result.status not in (CheckStatus.PASS, CheckStatus.FAIL) or result.probes is None:
        raise HarnessError(f"hidden tests of {instance.id}: {result.status.value} {result.detail} "
                           f"{result.stderr_tail[-300:]}".strip())
    run = TestRun(probes=result.probes, tree=key[1], seconds=result.wall_seconds,
                  output_tail=(result.stdout_tail + result.stderr_tail)[-4000:])
    with _CACHE.lock:
        _CACHE.runs[key] = run
    return run
