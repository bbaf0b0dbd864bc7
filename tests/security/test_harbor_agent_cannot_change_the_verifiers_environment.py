"""Red team (harbor, task environments): an imported task whose Dockerfile maps to a venv with ``tomli-w``;
its verifier passes when ``config.toml`` is what ``tomli_w.dumps`` writes. The agent rewrites ``tomli_w`` in
its environment so that ``dumps`` returns its forged file, and replaces the environment's ``python3`` with
``/bin/true`` (a verifier in the agent's view would then pass whatever it checks). The agent's steps run in
the row's throw-away overlay of the environment, the verifier in the pristine one: the row earns 0, the
built environment in the cache is unchanged, and the same task solved honestly afterwards earns 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.execute.types import RunOptions
from reqbench.core.workspace.overlay import overlay_available
from reqbench.protocols.harbor.importer import import_tasks
from reqbench.protocols.harbor.result import HarborResult
from tests.protocols.harbor.test_task_environments import PYTHON_DOCKERFILE, WRITE_CONFIG, config_task

FORGE = r"""true  # (the first word: a program on PATH)
f=$(python3 -c 'import tomli_w; print(tomli_w.__file__)')
printf 'def dumps(obj, **kw):\n    return "forged\\n"\n' > "$f"
python3 -c 'import tomli_w; print(tomli_w.dumps(None), end="")' > seen.txt
printf 'forged\n' > config.toml
ln -sf /bin/true "$(dirname "$(command -v python3)")/python3"
"""


def _row(suite: Path, out: Path, template: str) -> tuple[HarborResult, bytes]:
    store, _ = run_suite(suite, RunOptions(agent="command", agent_options={"template": template}), out,
                         resume=False, quiet=True)
    with store:
        (_r, outcome), = list(store.outcomes(with_artifacts=True))
    return HarborResult.of(outcome.result), outcome.artifacts.get("patch", b"")


def test_an_agent_that_rewrites_its_environment_does_not_change_the_verifiers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, require_bwrap: None) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    import_tasks([config_task(tmp_path / "cfg", PYTHON_DOCKERFILE)], tmp_path / "suite")
    forged, patch = _row(tmp_path / "suite", tmp_path / "forged", FORGE)
    assert forged.reward == 0.0
    if overlay_available():  # the agent's own view did change: its overlay is writable
        assert patch.count(b"+forged") == 2, patch.decode(errors="replace")
    installed = list((tmp_path / "cache" / "environments").glob("*/python/lib/python*/site-packages/tomli_w/*.py"))
    assert installed and not any(b"forged" in p.read_bytes() for p in installed)
    assert all(p.resolve().name.startswith("python3") for p in
               (tmp_path / "cache" / "environments").glob("*/python/bin/python3"))
    honest, _ = _row(tmp_path / "suite", tmp_path / "honest", WRITE_CONFIG)
    assert honest.reward == 1.0
