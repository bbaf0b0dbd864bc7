"""Imported Harbor tasks run in the environment their Dockerfile maps to: built once before any row, the
agent's steps and ``solve.sh`` in the row's overlay of it, the verifier in the pristine one with Harbor's
fixed paths (``/tests`` read-only, ``/logs/verifier`` writable, the submission at ``WORKDIR``).

``FROM python:3.11-slim`` + ``pip install tomli-w`` is a venv holding a package reqbench's own venv lacks:
only in the environment can ``solve.sh``, an agent and ``test.sh`` import it. ``FROM debian:bookworm`` is a
Debian root (slow; built once per machine in the fixed cache the environment tests share,
``$REQBENCH_TEST_ENV_CACHE`` or ``/var/tmp/reqbench-env-tests``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.errors import InputError
from reqbench.core.execute.types import RunOptions
from reqbench.protocols.harbor.importer import import_tasks
from reqbench.protocols.harbor.result import HarborResult
from tests.protocols.harbor.tasks import single_step, write

MACHINE_CACHE = Path(os.environ.get("REQBENCH_TEST_ENV_CACHE", "/var/tmp/reqbench-env-tests"))
WRITE_CONFIG = "python3 -c 'import tomli_w; open(\"config.toml\", \"w\").write(tomli_w.dumps(dict(name=\"harbor\")))'"
CONFIG_TEST = """#!/bin/bash
# the reward: config.toml is what tomli_w writes (needs tomli_w: only the environment has it)
python3 - <<'EOF' && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt
import sys, tomli_w
sys.exit(0 if open("config.toml").read() == tomli_w.dumps(dict(name="harbor")) else 1)
EOF
"""
PYTHON_DOCKERFILE = "FROM python:3.11-slim\nRUN pip install --no-cache-dir tomli-w==1.0.0\nWORKDIR /app\n"
DEBIAN_DOCKERFILE = ("FROM debian:bookworm\nRUN apt-get update && apt-get install -y python3 python3-venv\n"
                     "RUN pip install tomli-w==1.0.0\nRUN echo done > /etc/reqbench-setup-ran\nWORKDIR /app\n")
"""Maps to exactly the block `tests/core/environments/test_debian_env.py` builds: the same key, one root."""
DEBIAN_TEST = """#!/bin/bash
# the Debian root's own /etc, the working directory, /tests read-only and the tomli_w check
ok=1
[ "$(cat /etc/reqbench-setup-ran 2>/dev/null)" = done ] || ok=0
[ "$PWD" = /app ] || ok=0
touch /tests/planted 2>/dev/null && ok=0
python3 -c 'import sys, tomli_w; sys.exit(open("config.toml").read() != tomli_w.dumps(dict(name="harbor")))' || ok=0
echo $ok > /logs/verifier/reward.txt
"""


def config_task(path: Path, dockerfile: str, test: str = CONFIG_TEST) -> Path:
    task = single_step(path, dockerfile=dockerfile)
    return write(task, {"instruction.md": "Write config.toml holding name = \"harbor\" exactly as tomli_w writes it.\n",
                        "solution/solve.sh": f"#!/bin/bash\n{WRITE_CONFIG}\n", "tests/test.sh": test})


def outcomes(suite: Path, out: Path, agent: str, **agent_options: str) -> dict[str, tuple[HarborResult, bytes]]:
    """Each task's result and its verifier's log."""
    store, _ = run_suite(suite, RunOptions(agent=agent, agent_options=agent_options), out, resume=False, quiet=True)
    with store:
        return {row.task_id: (HarborResult.of(o.result), o.artifacts.get("verifier-task", b""))
                for row, o in store.outcomes(with_artifacts=True)}


def rewards(suite: Path, out: Path, agent: str, **agent_options: str) -> dict[str, HarborResult]:
    return {task: result for task, (result, _log) in outcomes(suite, out, agent, **agent_options).items()}


def environments_in(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "environments").iterdir() if not p.name.startswith("."))


def test_reqbench_itself_lacks_the_package() -> None:
    assert subprocess.run([sys.executable, "-c", "import tomli_w"], capture_output=True).returncode != 0


def test_a_python_task_runs_its_agent_solution_and_verifier_in_its_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, require_bwrap: None) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    lines = import_tasks([config_task(tmp_path / "cfg", PYTHON_DOCKERFILE)], tmp_path / "suite")
    assert not any("host toolchain" in line for line in lines)
    assert "tomli-w==1.0.0" in (tmp_path / "suite" / "tasks" / "cfg" / "environment.yaml").read_text()
    assert rewards(tmp_path / "suite", tmp_path / "ref", "reference")["cfg"].reward == 1.0
    built = environments_in(tmp_path / "cache")
    assert len(built) == 1, "built once, before any row"
    assert rewards(tmp_path / "suite", tmp_path / "null", "null")["cfg"].reward == 0.0
    agent = rewards(tmp_path / "suite", tmp_path / "cmd", "command", template=WRITE_CONFIG)["cfg"]
    assert agent.reward == 1.0 and agent.steps[0].agent is None, "the agent's own step imports tomli_w"
    assert environments_in(tmp_path / "cache") == built, "found again, not rebuilt"


def test_the_same_task_on_the_host_toolchain_cannot_import_the_package(tmp_path: Path, require_bwrap: None) -> None:
    """Without its environment the verifier cannot import tomli_w: what earns 1 above is the environment."""
    task = config_task(tmp_path / "cfg", PYTHON_DOCKERFILE)
    write(task, {"solution/solve.sh": "#!/bin/bash\nprintf 'name = \"harbor\"\\n' > config.toml\n"})
    import_tasks([task], tmp_path / "suite", host_toolchain=True)
    result, log = outcomes(tmp_path / "suite", tmp_path / "ref", "reference")["cfg"]
    assert result.reward == 0.0 and b"No module named 'tomli_w'" in log


@pytest.mark.slow
def test_a_debian_task_runs_in_its_debian_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               require_bwrap: None) -> None:
    if shutil.which("mmdebstrap") is None:
        pytest.skip("mmdebstrap is not installed")
    MACHINE_CACHE.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("REQBENCH_CACHE", str(MACHINE_CACHE))
    import_tasks([config_task(tmp_path / "deb", DEBIAN_DOCKERFILE, DEBIAN_TEST)], tmp_path / "suite")
    assert "debian" in (tmp_path / "suite" / "tasks" / "deb" / "environment.yaml").read_text()
    ref = rewards(tmp_path / "suite", tmp_path / "ref", "reference")["deb"]
    assert ref.reward == 1.0, ref
    assert rewards(tmp_path / "suite", tmp_path / "null", "null")["deb"].reward == 0.0


@pytest.mark.slow
def test_a_working_directory_the_root_lacks_is_one_error_not_a_run_on_the_host(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, require_bwrap: None) -> None:
    """An edited ``environment.yaml`` (the same root, without the ``mkdir`` the mapping adds) and
    ``workdir = "/srv/app"``: ``/srv`` is the root's, read-only, so the verifier cannot be bound there."""
    if shutil.which("mmdebstrap") is None:
        pytest.skip("mmdebstrap is not installed")
    MACHINE_CACHE.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("REQBENCH_CACHE", str(MACHINE_CACHE))
    task = config_task(tmp_path / "deb", DEBIAN_DOCKERFILE.replace("WORKDIR /app", "WORKDIR /srv/app"), DEBIAN_TEST)
    import_tasks([task], tmp_path / "suite")
    written = tmp_path / "suite" / "tasks" / "deb" / "environment.yaml"
    assert "mkdir -p /srv/app" in written.read_text()
    written.write_text(written.read_text().replace("  - mkdir -p /srv/app\n", ""))
    with pytest.raises(InputError, match="the environment's root has no folder /srv/app to bind it on"):
        run_suite(tmp_path / "suite", RunOptions(agent="reference"), tmp_path / "run", resume=False, quiet=True)


def test_a_bad_environment_file_is_one_error_naming_it_before_any_row(tmp_path: Path) -> None:
    import_tasks([config_task(tmp_path / "cfg", PYTHON_DOCKERFILE)], tmp_path / "suite")
    written = tmp_path / "suite" / "tasks" / "cfg" / "environment.yaml"
    written.write_text("environment:\n  debian:\n    suite: 'no such suite'\n")
    proc = subprocess.run([sys.executable, "-m", "reqbench", "run", str(tmp_path / "suite"), "--agent", "null",
                           "--out", str(tmp_path / "run")], capture_output=True, text=True,
                          env={**os.environ, "REQBENCH_CACHE": str(tmp_path / "cache")})
    said = proc.stdout + proc.stderr
    assert proc.returncode == 2 and f"{written}: environment.debian:" in said and "not a Debian suite" in said, said
    assert not (tmp_path / "run").exists() and not (tmp_path / "cache" / "environments").exists()
