"""Online evaluation (SWE-Journey §3.4): hidden tests on a snapshot of the workspace after each turn.

The hidden tests never enter the assistant's workspace. After a turn the instance's test command runs as
a `reqbench.core.checks` check: on a fresh copy of the tree, in the sandbox, without network, with the
instance's hidden directory readable at ``{hidden}``, through the hardened ``{pytest}`` runner whose guard
plugin reports every test node's result in one run. Before the run, conftest.py / ini / sitecustomize
files the assistant added or changed are restored from the instance's base repository. Results are cached
by (tree hash, test environment), so identical trees -- the base repository, the reference states every
persona reaches -- are tested once per process.

A node passes only when the guard saw its setup, call and teardown pass; a node missing from the run
(e.g. its module failed to import) counts as failing, and a run whose evidence cannot be trusted (the
process ended before the session finished, a tampered channel) fails every node -- that is the
submission's doing. A run that ends in HARNESS_ERROR (timeout, the runner never started) raises
`HarnessError`: it is never a result.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.checks import Check, CheckStatus, run_check
from reqbench.core.errors import HarnessError
from reqbench.core.hashing import sha256_json
from reqbench.protocols.journey.env import tree_hash
from reqbench.protocols.journey.models import Instance, TestbedSpec


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
    runs: dict[tuple[str, str, str], TestRun] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


_CACHE = _Cache()


def testbed_check(env_spec: TestbedSpec, nodes: list[str]) -> Check:
    """An instance testbed's test command as a core `Check` expecting `nodes` (none: every node the
    run reports is a result, which is how `scaffold` discovers them); the tree's import roots are
    `env_spec.pythonpath` (``src`` for a src/ layout)."""
    return Check(name="hidden-tests", command=env_spec.test_command, timeout_seconds=env_spec.timeout_seconds,
                 expected_tests=nodes, pythonpath=list(env_spec.pythonpath))


def hidden_check(instance: Instance) -> Check:
    """The instance's test command as a core `Check`; every node of the instance is an expected test."""
    nodes = list(dict.fromkeys([*instance.spec.common_p2p, *instance.whole_f2p, *instance.whole_p2p,
                                *(n for sub in instance.subtasks for n in [*sub.f2p, *sub.p2p])]))
    return testbed_check(instance.spec.testbed, nodes)


def run_hidden_tests(instance: Instance, tree: Path, scratch: Path | None = None) -> TestRun:
    """Run the hidden tests against a copy of `tree`; `tree` itself is never modified.

    Raises `HarnessError` when the run cannot produce a trustworthy report. (`scratch` is accepted for
    callers that keep temporary files together; the check manages its own.)
    """
    from reqbench.core.execute.environments import checks_in, declared_environments
    from reqbench.core.sandbox.environment import current_row_environment

    bound = current_row_environment()  # a row's (its task's or the run's); else the instance's own, if any
    declared = None
    if bound is None and instance.spec.environment is not None:
        declared = declared_environments([(instance.id, instance.spec.environment,
                                           str(instance.root / "instance.yaml"), instance.root)])[instance.id]
    where = bound.key if bound is not None else sha256_json(instance.spec.environment)
    key = (instance.test_env_hash, tree_hash(tree), where)
    with _CACHE.lock:
        cached = _CACHE.runs.get(key)
    if cached is not None:
        return cached
    with checks_in(declared):  # where the tests run is part of what they measure
        result = run_check(hidden_check(instance), tree, instance.hidden_dir, env=instance.spec.testbed.env,
                           base=instance.repo_dir)
    if result.status not in (CheckStatus.PASS, CheckStatus.FAIL) or result.probes is None:
        raise HarnessError(f"hidden tests of {instance.id}: {result.status.value} {result.detail} "
                           f"{result.stderr_tail[-300:]}".strip())
    run = TestRun(probes=result.probes, tree=key[1], seconds=result.wall_seconds,
                  output_tail=(result.stdout_tail + result.stderr_tail)[-4000:])
    with _CACHE.lock:
        _CACHE.runs[key] = run
    return run
