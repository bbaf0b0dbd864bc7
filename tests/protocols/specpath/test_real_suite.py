"""The real specpath suite (`suites/real/specpath`): families on upstream changes of real libraries.

Offline: the suite validates and every family names a fetched base, a `pypi-diff:` reference and
provenance. With PyPI (skipped otherwise): sizes computed from the files are printed and checked, one
family runs end to end with the control agents (reference: FCR 1, null: FCR 0); the whole suite
under every condition plus calibration of every family is `integration` (and `make demo-real`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.execute.types import RunOptions
from reqbench.protocols.specpath.calibration import calibrate_family
from reqbench.protocols.specpath.calibration_gate import calibration_source, remember
from reqbench.protocols.specpath.sizes import family_size
from reqbench.protocols.specpath.suite import PROTOCOL, families
from tests.support.pypi import need_release, pypi_cache  # noqa: F401  (fixture)

REAL = Path(__file__).resolve().parents[3] / "suites" / "real" / "specpath"
RELEASES = ("parse==1.20.0", "parse==1.20.1", "parse==1.20.2", "humanize==4.9.0", "humanize==4.10.0",
            "cachetools==5.5.2", "cachetools==6.0.0")
QUICK = "parse-subsecond-format"


def test_real_suite_validates_offline() -> None:
    assert PROTOCOL.validate(REAL) == []
    fams = families(REAL)
    assert len(fams) >= 3
    for fam in fams.values():
        assert fam.spec.base_repo.startswith("pypi:") and "#sha256=" in fam.spec.base_repo
        assert fam.spec.reference_patch.startswith("pypi-diff:")
        prov = fam.spec.provenance
        assert prov is not None and all((prov.project, prov.licence, prov.base, prov.change, prov.adapted))
        assert all(v.startswith("reference + ") for v in fam.spec.negatives.values())


def test_sizes_from_the_files(pypi_cache: Path) -> None:  # noqa: F811
    need_release(*RELEASES)
    sizes = [family_size(f) for f in families(REAL).values()]
    print()
    for s in sizes:
        print(f"{s.family}: {s.files} files, +{s.added}/-{s.removed} lines, {s.probes} probes "
              f"({s.probe_cases} probe tests), {s.atoms} atoms, {s.histories} histories")
    assert max(s.files for s in sizes) >= 5  # the cachetools 6.0.0 change touches 5 files
    assert all(s.probes >= 3 and s.histories == 7 for s in sizes)


def test_every_family_ships_a_passing_calibration_of_its_current_content(pypi_cache: Path) -> None:  # noqa: F811
    need_release(*RELEASES)
    assert {fid: calibration_source(fam) for fid, fam in families(REAL).items()} == {
        "parse-hyphen-fields": "family", "parse-subsecond-format": "family",
        "humanize-low-precision-negative-delta": "family", "cachetools-condition-decorators": "family",
        "humanize-frozen-clock-feed": "family"}


def _fcr(suite: Path, agent: str, out: Path, conditions: tuple[str, ...] = ()) -> float:
    store, proto = run_suite(suite, RunOptions(agent=agent, conditions=conditions), out, resume=False,
                             quiet=True)
    with store:
        return float(proto.summarize(store.outcomes()).headline["FCR direct"])  # type: ignore[arg-type]


def test_one_real_family_brackets(pypi_cache: Path, tmp_path: Path) -> None:  # noqa: F811
    need_release("parse==1.20.0", "parse==1.20.1")
    family = REAL / QUICK
    audit = calibrate_family(next(iter(families(family).values())), workers=2)
    assert audit.passed, [g for g in audit.gates if not g.passed]
    remember(audit)  # `run` uses only calibrated verifiers
    assert _fcr(family, "reference", tmp_path / "ref", ("direct",)) == 1.0
    assert _fcr(family, "null", tmp_path / "null", ("direct",)) == 0.0


@pytest.mark.integration
@pytest.mark.timeout(1800)  # whole real suites: minutes on a busy machine
def test_whole_real_suite_brackets_and_calibrates(pypi_cache: Path, tmp_path: Path) -> None:  # noqa: F811
    need_release(*RELEASES)
    for fam in families(REAL).values():
        audit = calibrate_family(fam, workers=2)
        assert audit.passed, (fam.id, [g for g in audit.gates if not g.passed])
        remember(audit)
    assert _fcr(REAL, "reference", tmp_path / "ref") == 1.0
    assert _fcr(REAL, "null", tmp_path / "null") == 0.0
