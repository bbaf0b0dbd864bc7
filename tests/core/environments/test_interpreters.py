"""A version interpreter found through a launcher (a pyenv shim, a wrapper script) on PATH: the venv is made on
the interpreter the launcher starts. A venv linked to the launcher runs that interpreter with its own prefix,
so the environment's packages would be installed into the host's interpreter."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from reqbench.core.environments.interpreters import base_interpreter
from reqbench.core.errors import InputError


def _launcher(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def test_a_launcher_on_path_resolves_to_the_interpreter_it_starts(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    real = base_interpreter("host")
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    launcher = _launcher(tmp_path / "shims", f"python{version}", f'exec {real} "$@"')
    monkeypatch.setenv("PATH", f"{launcher.parent}{os.pathsep}{os.environ['PATH']}")
    assert base_interpreter(version) == real
    assert base_interpreter(str(launcher)) == real


def test_a_launcher_that_starts_nothing_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _launcher(tmp_path / "shims", "python3.99", "echo 'python3.99: command not found' >&2; exit 127")
    monkeypatch.setenv("PATH", f"{tmp_path / 'shims'}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(InputError, match=r"environment.python.interpreter: cannot run interpreter .*command not found"):
        base_interpreter("3.99")
