"""`reqbench.run` / `reqbench.report`: the library entry point the CLI, benchmarks and studies share."""

from __future__ import annotations

from pathlib import Path

import pytest

import reqbench
from reqbench.core.errors import InputError


def test_library_run_scores_every_row_and_reports_the_headline(tmp_path: Path) -> None:
    handle = reqbench.run("demo:specpath", agent="reference", out=tmp_path / "run", concurrency=2)
    assert handle.protocol == "specpath"
    assert handle.counts["planned"] == handle.counts["scored"] == 21
    assert handle.headline()["FCR direct"] == 1.0
    payload = reqbench.report(tmp_path / "run")
    assert payload["summary"]["headline"] == handle.headline()


def test_library_run_refuses_an_unknown_agent_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        reqbench.run("demo:specpath", agent="no-such-agent", out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        reqbench.no_such_thing  # noqa: B018
