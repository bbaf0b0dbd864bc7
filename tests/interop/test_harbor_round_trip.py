"""Round trip: every bundled suite exported as Harbor tasks and imported back gives the original's headline
for the calibration agents -- `reference` full marks, `null` 0 -- run for real (sandboxed verifiers, the
exported test.sh of each protocol: journey's node shares, SpecPath's probes, PACE's offline grading by
reqbench's own code shipped in the task, takeover's three gates).

Journey, SpecPath and takeover tasks import onto the host's tools (``--host-toolchain``); PACE tasks in
the environment their Dockerfile maps to (``python:3.11`` + the grader's pinned packages -> a venv on the
host's Python 3.11), since their verifier needs reqbench's dependencies."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.bundled import resolve_suite
from reqbench.core.execute.types import RunOptions
from reqbench.core.sandbox import available_isolation
from reqbench.core.summary import Metric
from reqbench.interop.harbor_export import export_suite
from reqbench.protocols.harbor.importer import import_tasks
from reqbench.protocols.harbor.result import HarborResult

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(available_isolation() != "bwrap", reason="a Harbor verifier needs bubblewrap")]

ORIGINAL: dict[str, tuple[RunOptions, str, float]] = {
    # suite: (how its headline is run, the headline's key, its scale)
    "journey": (RunOptions(agent="reference", conditions=("single-shot",)), "single-shot final F2P/P2P", 1.0),
    "specpath": (RunOptions(agent="reference", conditions=("direct",)), "FCR direct", 1.0),
    "pace": (RunOptions(agent="reference", judge="token-overlap", conditions=("prd",)), "reference/prd score", 100.0),
    "takeover": (RunOptions(agent="reference", conditions=("C1",)), "C1 delivery", 1.0),
}


def _number(cell: Any) -> float | None:
    """A headline cell's number (journey's ``F2P/P2P`` pair: its F2P)."""
    value = cell.value if isinstance(cell, Metric) else cell
    if isinstance(value, str):
        value = value.split("/")[0]
    return None if value in (None, "None") else float(value)


def _headline(suite: Path, options: RunOptions, out: Path) -> dict[str, float | None]:
    store, loaded = run_suite(suite, options, out, resume=False, quiet=True)
    with store:
        summary = loaded.summarize(list(store.outcomes()))
    return {key: _number(cell) for key, cell in summary.headline.items()}


def _harbor(suite: Path, agent: str, out: Path) -> tuple[float | None, list[HarborResult]]:
    store, loaded = run_suite(suite, RunOptions(agent=agent, concurrency=2), out, resume=False, quiet=True)
    with store:
        outcomes = list(store.outcomes())
        summary = loaded.summarize(outcomes)
    return _number(summary.headline["mean reward"]), [HarborResult.of(o.result) for _, o in outcomes]


@pytest.mark.parametrize("name", sorted(ORIGINAL))
def test_export_then_import_keeps_the_headline(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if name == "pace" and shutil.which("python3.11") is None:
        pytest.skip("the exported PACE tasks' environment (python:3.11) needs a python3.11 on the host")
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    export_suite(resolve_suite(f"demo:{name}"), tmp_path / "harbor")
    tasks = sorted(p for p in (tmp_path / "harbor").iterdir())
    if name == "specpath":  # the headline compared is FCR direct: its histories are the ones to run back
        tasks = [p for p in tasks if p.name.endswith("__direct")]
        assert len(tasks) == 3
    import_tasks(tasks, tmp_path / "suite", host_toolchain=name != "pace")
    options, key, scale = ORIGINAL[name]
    original = {agent: _headline(resolve_suite(f"demo:{name}"), dataclasses.replace(options, agent=agent, concurrency=2),
                                 tmp_path / f"original-{agent}")[key.replace("reference", agent)]
                for agent in ("reference", "null")}
    assert original == {"reference": scale, "null": 0.0}, original
    for agent in ("reference", "null"):
        mean, results = _harbor(tmp_path / "suite", agent, tmp_path / f"harbor-{agent}")
        assert len(results) == len(tasks) and all(r.verdict == "reward" for r in results), results
        assert mean == original[agent] / scale, (agent, [r.rewards for r in results])
