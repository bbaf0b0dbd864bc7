"""The viewer shows paths without the machine's layout (`report.provenance.shown_path`): published
screenshots of the demo name `demo:NAME`, never a checkout or a home directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.store import RunMeta
from reqbench.report.provenance import provenance, shown_path


def test_bundled_suites_are_shown_as_demo_names() -> None:
    assert shown_path(str(bundled_suite("takeover"))) == "demo:takeover"
    assert shown_path(str(bundled_suite("specpath/slugkit"))) == "demo:specpath/slugkit"


def test_paths_under_the_working_or_home_directory_are_shortened(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert shown_path(str(tmp_path / "runs" / "demo")) == "runs/demo"
    assert shown_path(str(tmp_path)) == "."
    assert shown_path(str(Path.home() / "suites" / "x")) in ("~/suites/x", "suites/x")
    assert shown_path("/srv/elsewhere") == "/srv/elsewhere"


def test_viewer_provenance_shortens_the_suite_and_reports_keep_it() -> None:
    meta = RunMeta(suite_path=str(bundled_suite("pace")), protocol="pace", options={"agent": "reference"},
                   created="2026-01-01T00:00:00+00:00", reqbench_version="t")
    assert dict(provenance(meta, short_paths=True))["suite"] == "demo:pace"
    assert dict(provenance(meta))["suite"] == str(bundled_suite("pace"))
