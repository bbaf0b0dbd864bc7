"""A run's configuration records its model (SpecPath §4: a system configuration is a model deployment x
scaffold pair): two models on one scaffold are two configurations in the results, never duplicate rows,
and any-CPV by model reads the model the rows recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.core.agents import registry
from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.types import RunOptions
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.protocols.specpath.runs import configuration
from reqbench.protocols.specpath.suite import PROTOCOL
from tests.protocols.specpath.test_timeout_rerun import GOOD

CORE = ("direct", "duplicate", "split", "override", "cancellation")
runner = CliRunner()


@pytest.fixture(autouse=True)
def _spy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.AGENTS, "spy", ("tests.protocols.specpath.spy_agent", "make_spy"))


def _run(family: Path, run_dir: Path, **opts: object) -> None:
    agent_options = {"specpath.allow_uncalibrated": "true", **opts}
    options = RunOptions(agent="spy", conditions=CORE, seed=1, agent_options=agent_options)
    meta = RunMeta(suite_path=str(family), protocol="specpath", created=utc_now(), reqbench_version="t",
                   options={"agent": "spy", "conditions": list(CORE), "seed": 1, "agent_options": agent_options})
    with RunStore.create(run_dir, meta) as store:
        execute_run(store, PROTOCOL.load(family), options)


def test_the_configuration_is_scaffold_and_model() -> None:
    assert configuration("mini-swe-agent", {"model": "m-a"}) == {
        "config": "mini-swe-agent:m-a", "scaffold": "mini-swe-agent", "model": "m-a"}
    assert configuration("reference", {}) == {"config": "reference", "scaffold": "reference", "model": ""}


def test_two_models_on_one_scaffold_are_two_configurations_in_the_statistics(tally_family: Path,
                                                                              tmp_path: Path) -> None:
    _run(tally_family, tmp_path / "a", model="m-a", write={"src/tally/__init__.py": GOOD})
    _run(tally_family, tmp_path / "b", model="m-b")  # changes nothing: every history fails
    lines = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.jsonl"
        result = runner.invoke(app, ["specpath", "results", str(tmp_path / name), "--out", str(out)])
        assert result.exit_code == 0, result.output
        lines += out.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert {(r["config"], r["scaffold"], r["model"]) for r in records} == {("spy:m-a", "spy", "m-a"),
                                                                          ("spy:m-b", "spy", "m-b")}
    both = tmp_path / "both.jsonl"
    both.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["specpath", "stats", str(both), "--json"])
    assert result.exit_code == 0, result.output  # not refused as duplicate rows
    stats = json.loads(result.output)
    # hand-computed: one family; direct succeeds under m-a, fails under m-b -> FCR direct 1/2; two complete
    # blocks, one eligible (m-a), no core history failed there -> any-CPV 0/1
    assert stats["fcr"]["direct"]["estimate"] == 0.5
    assert stats["blocks"] == {"possible": 2, "complete": 2, "eligible": 1}
    assert (stats["cpv"]["any"]["estimate"], stats["cpv"]["any"]["eligible"]) == (0.0, 1)
    assert sorted(stats["by_model"]) == ["m-a", "m-b"] and list(stats["by_scaffold"]) == ["spy"]
    assert stats["by_model"]["m-a"]["blocks"]["eligible"] == 1
    assert stats["by_model"]["m-b"]["blocks"]["eligible"] == 0
    assert stats["by_model"]["m-b"]["fcr"]["direct"]["estimate"] == 0.0
