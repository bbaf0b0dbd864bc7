"""Family provenance: typed source + history audit; `validate` warns when missing, `check` prints it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError
from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.protocols.specpath.family import load_family, provenance_lines, provenance_warnings
from reqbench.protocols.specpath.models import FamilySpec, Provenance

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "src" / "reqbench" / "examples" / "specpath"
REAL = ROOT / "suites" / "real" / "specpath"
runner = CliRunner()


@pytest.mark.parametrize("name", ["durations", "kvconf", "slugkit"])
def test_bundled_families_record_a_written_source_and_an_approved_audit(name: str) -> None:
    fam = load_family(EXAMPLES / name)
    prov = fam.spec.provenance
    assert prov is not None and prov.source.value == "written" and prov.licence == "Apache-2.0"
    assert prov.audit is not None and prov.audit.reviewer == "reqbench maintainers"
    assert prov.audit.verdict.value == "approved"
    assert provenance_warnings(fam) == []


@pytest.mark.parametrize("path", sorted(REAL.glob("*/family.yaml")), ids=lambda p: p.parent.name)
def test_real_families_are_valid_typed_provenance(path: Path) -> None:
    spec = FamilySpec.model_validate(yaml.safe_load(path.read_text()))
    assert spec.provenance is not None and spec.provenance.source.value == "pypi-sdist"
    assert spec.provenance.licence == "MIT" and spec.provenance.base and spec.provenance.change


def test_provenance_is_closed_and_typed() -> None:
    with pytest.raises(ValidationError):
        Provenance.model_validate({"source": "blog-post", "project": "x", "licence": "MIT"})
    with pytest.raises(ValidationError):
        Provenance.model_validate({"source": "written", "project": "x", "licence": "MIT", "url": "y"})
    with pytest.raises(ValidationError):
        Provenance.model_validate({"source": "written", "project": "x", "licence": "MIT",
                                   "audit": {"reviewer": "a", "date": "30/11/2026", "verdict": "approved"}})


def _copy(tmp_path: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    fam = tmp_path / "slugkit"
    shutil.copytree(EXAMPLES / "slugkit", fam)
    data = yaml.safe_load((fam / "family.yaml").read_text())
    edit(data)
    (fam / "family.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return fam


def test_missing_provenance_is_a_warning_not_an_error(tmp_path: Path) -> None:
    fam = _copy(tmp_path, lambda d: d.pop("provenance"))
    warnings = provenance_warnings(load_family(fam))
    assert len(warnings) == 1 and "provenance: missing" in warnings[0]
    res = runner.invoke(app, ["specpath", "validate", str(fam)])
    assert res.exit_code == 0, res.output
    assert "warning:" in res.output and "provenance: missing" in res.output
    suite = tmp_path / "suite"
    shutil.copytree(EXAMPLES, suite)
    shutil.copy(fam / "family.yaml", suite / "slugkit" / "family.yaml")
    res = runner.invoke(app, ["validate", str(suite)])
    assert res.exit_code == 0, res.output
    flat = res.output.replace("\n", "")  # the console wraps long paths
    assert "provenance: missing" in flat and "slugkit/family.yaml" in flat


def test_missing_audit_and_rejected_audit_and_unanchored_source_warn(tmp_path: Path) -> None:
    def no_audit(d):  # type: ignore[no-untyped-def]
        d["provenance"] = {"source": "git-commit", "project": "p", "licence": "MIT"}

    ws = provenance_warnings(load_family(_copy(tmp_path / "a", no_audit)))
    assert any("no base version/commit" in w for w in ws) and any("no human audit" in w for w in ws)

    def rejected(d):  # type: ignore[no-untyped-def]
        d["provenance"]["audit"]["verdict"] = "rejected"

    ws = provenance_warnings(load_family(_copy(tmp_path / "b", rejected)))
    assert ws and "rejected" in ws[0]


def test_check_prints_the_provenance() -> None:
    fam = load_family(EXAMPLES / "slugkit")
    lines = provenance_lines(fam)
    assert lines[0] == "source: written -- reqbench bundled example suite (licence Apache-2.0)"
    assert lines[-1].startswith("audit: approved by reqbench maintainers on 2026-11-30")
    res = runner.invoke(app, ["specpath", "check", str(EXAMPLES / "slugkit")])
    assert res.exit_code == 0, res.output
    assert "provenance source: written" in res.output and "audit: approved" in res.output
    res = runner.invoke(app, ["specpath", "check", str(EXAMPLES / "slugkit"), "--json"])
    assert '"verdict": "approved"' in res.output
