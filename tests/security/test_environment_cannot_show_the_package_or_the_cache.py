"""Threat: a task environment's folders expose what the sandbox masks everywhere else -- the installed
reqbench package (bundled suites with their answers) or the source cache -- e.g. a venv whose base
interpreter's installation also holds reqbench, or a layer that contains the cache.

A layer bound from the folder holding the reqbench package and a shared folder holding the cache: inside,
both are empty, at their in-sandbox paths.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import reqbench
from reqbench.core.sandbox import run_sandboxed
from reqbench.core.sandbox.environment import EnvironmentMount


def test_the_package_and_the_cache_stay_masked_inside_an_environments_folders(
        require_bwrap: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "shared" / "cache"
    (cache / "suites").mkdir(parents=True)
    (cache / "suites" / "answers.txt").write_text("gold")
    monkeypatch.setenv("REQBENCH_CACHE", str(cache))
    package = Path(os.path.dirname(reqbench.__file__))
    mount = EnvironmentMount("1" * 64, None, layers=((package.parent, "/opt/reqbench-env/python"),),
                             shared=((tmp_path / "shared", str(tmp_path / "shared")),))
    ws = tmp_path / "ws"
    ws.mkdir()
    proc = run_sandboxed(f"ls -A /opt/reqbench-env/python/{package.name} | wc -l; "
                         f"ls -A {cache} | wc -l; ls /opt/reqbench-env/python | wc -l", ws, environment=mount)
    counts = proc.stdout.decode().split()
    assert counts[:2] == ["0", "0"], (proc.stdout, proc.stderr)
    assert int(counts[2]) >= 1  # the layer itself is shown
