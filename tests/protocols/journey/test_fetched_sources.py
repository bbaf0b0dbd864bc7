"""Journey instances whose base repository and hidden tests are fetched sources (`journey.sources`):
an `archive:` stands in for a `pypi:` sdist offline (both go through the same cached baseline)."""

from __future__ import annotations

import copy
import shutil
import tarfile
from pathlib import Path

import pytest
import yaml

from reqbench.core.errors import InputError
from reqbench.protocols.journey.calibrate import calibrate
from reqbench.protocols.journey.models import load_instance

from .conftest import SPEC, STATES, build_instance


def _pack(src: Path, dest: Path) -> None:
    with tarfile.open(dest, "w:gz") as tar:
        tar.add(src, arcname="pkg-1.0")


def _fetched_instance(tmp_path: Path, include: list[str]) -> Path:
    inst = build_instance(tmp_path)
    _pack(inst / "repo", tmp_path / "repo.tar.gz")
    # the release holding the tests also ships the finished library: it must never reach the tests
    (inst / "hidden" / "calc.py").write_text(STATES["T3"])
    _pack(inst / "hidden", tmp_path / "tests.tar.gz")
    shutil.rmtree(inst / "repo")
    shutil.rmtree(inst / "hidden")
    spec = copy.deepcopy(SPEC)
    spec["repo"] = f"archive:{tmp_path / 'repo.tar.gz'}"
    spec["testbed"] |= {"hidden_tests": f"archive:{tmp_path / 'tests.tar.gz'}", "hidden_include": include}
    (inst / "instance.yaml").write_text(yaml.safe_dump(spec))
    return inst


def test_fetched_repo_and_hidden_tests_calibrate_without_the_release_library(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    inst = load_instance(_fetched_instance(tmp_path, ["tests_hidden"]))
    assert sorted(p.name for p in inst.hidden_dir.iterdir()) == ["tests_hidden"]
    assert (inst.repo_dir / "calc.py").read_text() == STATES["base"]
    report = calibrate(inst)
    assert report.ok, [f.sentence() for f in report.findings]
    assert report.whole_f2p == 4


def test_fetched_hidden_tests_without_include_is_an_input_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    inst = load_instance(_fetched_instance(tmp_path, []))
    with pytest.raises(InputError, match="needs hidden_include"):
        _ = inst.hidden_dir
