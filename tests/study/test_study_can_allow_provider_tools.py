"""A study opts into provider-side tools like a run (``allow_provider_tools: true`` in the study file, as
``reqbench run --allow-provider-tools``): every configuration's run records it and its report says so; a study
that does not opt in forwards none. Real CLI, bundled SpecPath suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.store import RunStore
from tests.cli.generic_helpers import reqbench
from tests.study.helpers import write_study

SAID = "PROVIDER TOOLS allowed (--allow-provider-tools)"


@pytest.mark.parametrize("allowed", [True, False])
def test_every_configuration_records_the_studys_choice(allowed: bool, tmp_path: Path) -> None:
    spec = write_study(tmp_path / "study.yaml", [{"name": "a", "agent": "null"}, {"name": "b", "agent": "null"}],
                       conditions=["direct"], **({"allow_provider_tools": True} if allowed else {}))
    out = tmp_path / "study"
    done = reqbench("study", "run", str(spec), "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("a", "b"):
        with RunStore.open(out / "runs" / name, read_only=True) as store:
            assert bool(store.meta.options.get("allow_provider_tools")) is allowed
        report = reqbench("report", str(out / "runs" / name), COLUMNS="400").stdout
        assert (SAID in report) is allowed
