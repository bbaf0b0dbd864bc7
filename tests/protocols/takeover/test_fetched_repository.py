"""A takeover suite whose repository is a source spec (`pypi:NAME==VERSION#sha256=...`) instead of a folder.

Offline: the sdist is planted in `$REQBENCH_CACHE` where a first download would have put it, so the real
source machinery (hash check, unpacking, cache) runs without PyPI. Threats guarded: a tampered cached sdist
silently becoming an agent's starting repository; a wrong pin accepted; a bad spec reported without the
suite file; a missing repository folder demanded for a fetched repository.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

import pytest
import yaml

from reqbench.core.errors import InputError
from reqbench.protocols.takeover.delivery.initial import build_initial_repository
from reqbench.protocols.takeover.suite_file import load_suite, repository_tree
from tests.protocols.takeover.takeover_suite_factory import EXAMPLE

FILES = {"billing/__init__.py": "", "billing/plans.py": "PRICE = 150\n"}


def _sdist(path: Path) -> str:
    with tarfile.open(path, "w:gz") as tar:
        for name, text in FILES.items():
            data = text.encode()
            info = tarfile.TarInfo(f"dockside-1.0/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture()
def fetched_suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The bundled suite's project and timeline with a planted `pypi:dockside==1.0` repository; no delivery."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("REQBENCH_CACHE", str(cache))
    folder = cache / "pypi" / "dockside-1.0"
    folder.mkdir(parents=True)
    sha = _sdist(folder / "dockside-1.0.tar.gz")
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "project").symlink_to(EXAMPLE / "project")
    spec = yaml.safe_load((EXAMPLE / "suite.yaml").read_text())
    spec.update(repository=f"pypi:dockside==1.0#sha256={sha}", timeline=[], delivery=[])
    (suite / "suite.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return suite, folder / "dockside-1.0.tar.gz"


def test_initial_repository_is_the_unpacked_sdist(fetched_suite: tuple[Path, Path], tmp_path: Path) -> None:
    suite_dir, _ = fetched_suite
    suite = load_suite(suite_dir)  # no repo/ folder is needed
    tree = repository_tree(suite_dir, suite)
    assert sorted(str(p.relative_to(tree)) for p in tree.rglob("*.py")) == sorted(FILES)
    initial = build_initial_repository(suite_dir, suite, "DOCKSIDE_T001", tmp_path / "initial")
    assert (initial / "billing" / "plans.py").read_text() == "PRICE = 150\n"


def test_tampered_cached_sdist_is_refused(fetched_suite: tuple[Path, Path], tmp_path: Path) -> None:
    suite_dir, sdist = fetched_suite
    suite = load_suite(suite_dir)
    repository_tree(suite_dir, suite)  # unpacked once into the cache
    sdist.write_bytes(sdist.read_bytes() + b"\0")  # the pin is checked on every use, not only the first
    with pytest.raises(InputError, match="sha256 mismatch"):
        build_initial_repository(suite_dir, suite, "DOCKSIDE_T001", tmp_path / "initial")


def test_wrong_pin_is_refused(fetched_suite: tuple[Path, Path]) -> None:
    suite_dir, _ = fetched_suite
    spec = yaml.safe_load((suite_dir / "suite.yaml").read_text())
    spec["repository"] = "pypi:dockside==1.0#sha256=" + "0" * 64
    (suite_dir / "suite.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    with pytest.raises(InputError, match="sha256 mismatch"):
        repository_tree(suite_dir, load_suite(suite_dir))


def test_malformed_spec_names_the_suite_file(fetched_suite: tuple[Path, Path]) -> None:
    suite_dir, _ = fetched_suite
    spec = yaml.safe_load((suite_dir / "suite.yaml").read_text())
    spec["repository"] = "pypi:dockside"
    (suite_dir / "suite.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    with pytest.raises(InputError) as err:
        load_suite(suite_dir)
    assert "suite.yaml" in str(err.value) and "expected pypi:NAME==VERSION" in str(err.value)
