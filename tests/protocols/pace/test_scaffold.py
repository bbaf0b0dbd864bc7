"""`reqbench pace scaffold NAME==A NAME==B --out DIR`: a case skeleton from two releases (offline, from
releases placed in a private cache)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from reqbench.core.errors import InputError
from reqbench.protocols.pace.case import freeze_case, load_case
from reqbench.protocols.pace.scaffold import scaffold
from reqbench.protocols.pace.validate import validate_path
from tests.protocols.pace.conftest import run_cli
from tests.protocols.pace.fake_releases import fake_releases


@pytest.fixture
def shas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    return fake_releases(tmp_path / "cache")


def test_skeleton_pins_both_releases_and_drafts_a_point_per_change(
        shas: tuple[str, str], tmp_path: Path) -> None:
    made = scaffold("toylib==1.0", "toylib==1.1", tmp_path / "case", ("toylib/*", "tests/*", "README.rst"))
    assert (made.files, made.added, made.removed) == (4, 19, 2)
    spec = yaml.safe_load((tmp_path / "case" / "case.yaml").read_text())
    assert spec["base"] == "pypi:toylib==1.0" and spec["base_sha256"] == shas[0]
    assert spec["reference_patch"] == ("pypi-diff:toylib==1.0..1.1#paths=toylib/*,tests/*,README.rst"
                                       f"&sha256={shas[0]},{shas[1]}")
    drafts = {(p["kind"], p["retrieval_hints"][0]): p for p in spec["code_points"]}
    assert sorted(drafts) == [
        ("behavior", "toylib/__init__.py::scale"),
        ("behavior", "toylib/stats.py::mean"),
        ("documentation", "README.rst"),
        ("registration", "toylib/__init__.py"),
        ("test", "tests/test_scale.py"),
    ]
    assert drafts[("registration", "toylib/__init__.py")]["contract"] == {
        "strategy": "exported", "target": "toylib/__init__.py", "name": "scale"}
    assert drafts[("behavior", "toylib/stats.py::mean")]["contract"] == {
        "strategy": "symbol_exists", "target": "toylib/stats.py::mean"}
    assert all(c["text"].startswith("TODO: ") for p in spec["code_points"] for c in p["criteria"])
    assert made.points == 5 and "TODO" in (tmp_path / "case" / "prd.md").read_text()
    case = load_case(tmp_path / "case")
    assert case.spec.frozen_hash is None  # left for a human to edit, then freeze
    freeze_case(tmp_path / "case")
    assert validate_path(tmp_path / "case") == []  # every draft point finds reference evidence


def test_scaffold_refuses_bad_input(shas: tuple[str, str], tmp_path: Path) -> None:
    with pytest.raises(InputError, match="two releases of one project"):
        scaffold("toylib==1.0", "otherlib==1.1", tmp_path / "x")
    scaffold("toylib==1.0", "toylib==1.1", tmp_path / "case")
    with pytest.raises(InputError, match="refusing to overwrite"):
        scaffold("toylib==1.0", "toylib==1.1", tmp_path / "case")


def test_cli_scaffold(shas: tuple[str, str], tmp_path: Path) -> None:
    proc = run_cli("pace", "scaffold", "toylib==1.0", "toylib==1.1", "--out", str(tmp_path / "c"),
                   "--paths", "toylib/*,README.rst")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"{tmp_path / 'c'}: 3 files, +14/-2 lines, 4 draft Code Points " \
                                  "(edit them, then validate and freeze)"


PYTHON_BLOCK = '{"python": {"requirements": ["tomli-w==1.0.0"]}}'


def test_cli_scaffold_writes_the_environment_block_it_was_given(shas: tuple[str, str], tmp_path: Path) -> None:
    proc = run_cli("pace", "scaffold", "toylib==1.0", "toylib==1.1", "--out", str(tmp_path / "c"),
                   "--paths", "toylib/*,README.rst", "--environment", PYTHON_BLOCK)
    assert proc.returncode == 0, proc.stderr
    spec = yaml.safe_load((tmp_path / "c" / "case.yaml").read_text())
    assert spec["environment"] == {"python": {"requirements": ["tomli-w==1.0.0"]}}
    assert load_case(tmp_path / "c").spec.environment == spec["environment"]
    freeze_case(tmp_path / "c")
    checked = run_cli("validate", str(tmp_path / "c"))
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.parametrize("bad", ['{"python": {"requirement": ["x"]}}', '{"python": ', "missing.yaml",
                                 '{"python": {"requirements_file": "requirements.txt"}}'])
def test_cli_scaffold_refuses_a_bad_environment_and_writes_nothing(
        shas: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    (tmp_path / "requirements.txt").write_text("tomli-w==1.0.0\n")
    monkeypatch.chdir(tmp_path)
    proc = run_cli("pace", "scaffold", "toylib==1.0", "toylib==1.1", "--out", str(tmp_path / "c"),
                   "--environment", bad)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--environment" in proc.stderr
    assert not (tmp_path / "c").exists()
