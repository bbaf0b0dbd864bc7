"""Red team: a journey instance whose hidden tests come from a fetched release that also ships the
finished library. The base workspace (what a null agent submits) must not pass a single F2P node
through that copy; only the `hidden_include`d entries reach the test run."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.protocols.journey.env import make_workspace
from reqbench.protocols.journey.models import load_instance
from reqbench.protocols.journey.online import run_hidden_tests
from tests.protocols.journey.test_fetched_sources import _fetched_instance


def test_release_library_in_the_hidden_source_cannot_pass_f2p_nodes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    inst = load_instance(_fetched_instance(tmp_path, ["tests_hidden"]))
    assert not (inst.hidden_dir / "calc.py").exists()
    run = run_hidden_tests(inst, make_workspace(inst.repo_dir, tmp_path / "null-workspace"))
    assert run.failing(inst.whole_f2p) == inst.whole_f2p
    assert run.rate(inst.whole_p2p) == 1.0
