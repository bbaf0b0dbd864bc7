"""`pypi-diff:` sources: spec parsing (offline) and the real change between two sdists (network)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.core.workspace import RepoSource, apply_patch, copy_tree
from reqbench.core.workspace.pypi_diff import parse, touched
from tests.support.pypi import need_release, pypi_cache  # noqa: F401  (fixture)

pytestmark = pytest.mark.slow  # whole runs or real tools: not in `make test-quick`

OLD, NEW = "parse==1.20.1", "parse==1.20.2"  # ~30 kB sdists, MIT


def test_parse_spec_round_trips() -> None:
    d = parse("pypi-diff:parse==1.20.1..1.20.2#paths=parse.py,tests/*.py")
    assert (d.name, d.old, d.new, d.paths) == ("parse", "1.20.1", "1.20.2", ("parse.py", "tests/*.py"))
    assert parse(d.spec) == d
    src = RepoSource.parse(d.spec)
    assert src.kind == "pypi-diff" and src.spec == d.spec


def test_filter_rules() -> None:
    everything = parse("pypi-diff:x==1..2")
    assert everything.selected("x/core.py")
    assert not everything.selected("PKG-INFO") and not everything.selected("x.egg-info/SOURCES.txt")
    only = parse("pypi-diff:x==1..2#paths=src/*.py")
    assert only.selected("src/x/deep.py") and not only.selected("tests/test_x.py")


@pytest.mark.parametrize("spec, rule", [
    ("pypi-diff:parse==1.20.1", "NAME==A..B"),
    ("pypi-diff:parse==1.0..1.0", "must differ"),
    ("pypi-diff:parse==1.0..2.0#files=x", "unknown fragment"),
    ("pypi-diff:parse==1.0..2.0#paths=", "at least one glob"),
    ("pypi-diff:parse==1.0..2.0#sha256=abc", "two 64-hex-digit"),
])
def test_bad_specs_name_the_spec_and_rule(spec: str, rule: str) -> None:
    with pytest.raises(InputError) as err:
        RepoSource.parse(spec)
    assert rule in str(err.value) and spec in str(err.value)


def test_only_a_pypi_diff_is_a_change() -> None:
    with pytest.raises(InputError, match="only a pypi-diff"):
        RepoSource.parse("pypi:parse==1.20.1").change_patch()


def test_upstream_change_applies_to_release_a(pypi_cache: Path, tmp_path: Path) -> None:  # noqa: F811
    need_release(OLD, NEW)
    src = RepoSource.parse("pypi-diff:parse==1.20.1..1.20.2#paths=parse.py")
    patch = src.change_patch()
    files, added, removed = touched(patch)
    assert files == ["parse.py"] and added >= 5 and removed >= 4
    assert "[\\w-]*" in patch  # the maintainers' hyphen-in-field-name change
    old = RepoSource.parse(f"pypi:{OLD}").baseline()
    new = RepoSource.parse(f"pypi:{NEW}").baseline()
    work = tmp_path / "ws"
    copy_tree(old, work)
    apply_patch(work, patch)
    assert (work / "parse.py").read_bytes() == (new / "parse.py").read_bytes()
    # as a repository source: B inside the filter, A outside it
    tree = src.baseline()
    assert (tree / "parse.py").read_bytes() == (new / "parse.py").read_bytes()
    assert (tree / "tests/test_parse.py").read_bytes() == (old / "tests/test_parse.py").read_bytes()
    assert src.change_patch() == patch  # served from the cache the second time


def test_default_filter_skips_build_metadata(pypi_cache: Path) -> None:  # noqa: F811
    need_release(OLD, NEW)
    files, _, _ = touched(RepoSource.parse("pypi-diff:parse==1.20.1..1.20.2").change_patch())
    assert "parse.py" in files and "tests/test_parse.py" in files
    assert not any(f.endswith("PKG-INFO") or ".egg-info/" in f for f in files)


def test_empty_change_and_pin_mismatch_are_input_errors(pypi_cache: Path) -> None:  # noqa: F811
    need_release(OLD, NEW)
    with pytest.raises(InputError, match="no file selected by the path filter changed"):
        RepoSource.parse("pypi-diff:parse==1.20.1..1.20.2#paths=LICENSE").change_patch()
    wrong = "0" * 64
    with pytest.raises(InputError, match="sha256 mismatch"):
        RepoSource.parse(f"pypi-diff:parse==1.20.1..1.20.2#sha256={wrong},{wrong}").change_patch()
