"""The python kind: a venv built on the host (uv, or pip) runs inside bubblewrap where it is bound,
``/opt/reqbench-env/python``, importing a package reqbench itself does not have; it is read-only there."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.environments import BuiltEnvironment, ensure_built, load_environment
from reqbench.core.environments.buildbox import box_args, built_box

PACKAGE = "tomli-w==1.0.0"
"""A small pure-Python package that is not a dependency of reqbench (asserted below)."""


def _run(built: BuiltEnvironment, code: str) -> subprocess.CompletedProcess[str]:
    assert built.python is not None
    argv = [*box_args(built_box(built.root, built.binds, built.env)), "--", built.python, "-c", code]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)


def test_reqbench_itself_cannot_import_the_package() -> None:
    probe = subprocess.run([sys.executable, "-c", "import tomli_w"], capture_output=True, check=False)
    assert probe.returncode != 0


@pytest.mark.parametrize("installer", ["uv", pytest.param("pip", marks=pytest.mark.slow)])
def test_venv_runs_at_its_bind_path_under_bwrap(tmp_path: Path, require_bwrap: None, installer: str) -> None:
    (tmp_path / "requirements.txt").write_text(PACKAGE + "\n")
    spec = load_environment({"python": {"requirements_file": "requirements.txt", "installer": installer}},
                            origin="task.yaml", base_dir=tmp_path)
    built = ensure_built(spec, tmp_path, cache=tmp_path / "cache")
    assert built.python == "/opt/reqbench-env/python/bin/python" and built.root is None
    assert ("/opt/reqbench-env/python" in dict((m, h) for h, m in built.binds))
    done = _run(built, "import sys, tomli_w; print(sys.prefix); print(tomli_w.dumps({'a': 1}).strip())")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["/opt/reqbench-env/python", "a = 1"]
    assert str(tmp_path) not in (built.path / "python" / "pyvenv.cfg").read_text()
    scripts = [p for p in (built.path / "python" / "bin").iterdir() if p.is_file() and not p.is_symlink()]
    assert not any(str(built.path).encode() in p.read_bytes() for p in scripts), "a script names the cache"
    denied = _run(built, "open('/opt/reqbench-env/python/planted', 'w')")
    assert denied.returncode != 0 and "Read-only file system" in denied.stderr
    # byte code is compiled at build time: a read-only venv could never cache it for the checks
    assert list((built.path / "python").rglob("tomli_w/__pycache__/*.pyc")), "the venv holds no byte code"


def test_lock_and_project_dependencies(tmp_path: Path, require_bwrap: None) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "0"\ndependencies = []\n'
        f'[project.optional-dependencies]\ntoml = ["{PACKAGE}"]\n')
    spec = load_environment({"python": {"install_project": True, "project": "proj", "extras": ["toml"]}},
                            origin="task.yaml", base_dir=tmp_path)
    built = ensure_built(spec, tmp_path, cache=tmp_path / "cache")
    assert _run(built, "import tomli_w").returncode == 0
    (tmp_path / "lock.txt").write_text(PACKAGE + "\n")
    locked = ensure_built(load_environment({"python": {"lock": "lock.txt"}}, origin="t", base_dir=tmp_path),
                          tmp_path, cache=tmp_path / "cache")
    assert locked.key != built.key and _run(locked, "import tomli_w").returncode == 0
