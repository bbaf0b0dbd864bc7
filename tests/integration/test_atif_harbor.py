"""ATIF files written by `reqbench export --format atif` validate against Harbor's own ATIF models.

Harbor (PyPI ``harbor``, which defines ATIF's pydantic models) needs Python >= 3.12, so it is installed
into its own virtualenv (``.venv-harbor/`` beside the repo, or ``$REQBENCH_HARBOR_VENV``) made with the
first 3.12 or 3.13 interpreter found (`versions.find_python`: ``$REQBENCH_PYTHON_3_12``, ``python3.12`` on
PATH, pyenv's versions); the test skips, saying so, when there is none. Only the
models are needed, so Harbor is installed without its service dependencies, next to pydantic.

The rows exported are real: the pinned Codex and Aider binaries run through the gateway against the
scripted upstreams of their own integration tests, and their results are stored as takeover coding
rows of one run (plus a row without a trajectory).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.agents import versions
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.store import RunMeta, RunStore, utc_now
from tests.integration import test_real_aider, test_real_codex
from tests.support.real_agents import installed, make_workspace, run_row
from tests.support.scripted_openai import ScriptedOpenAI

REPO = Path(__file__).resolve().parents[2]
HARBOR = "harbor==0.26.0"
VALIDATE = r'''
import json, sys
from pathlib import Path
from harbor.models.trajectories import Trajectory
for path in sys.argv[1:]:
    t = Trajectory.model_validate_json(Path(path).read_text())
    print(json.dumps({"path": path, "steps": len(t.steps), "version": t.schema_version}))
'''


@pytest.fixture(scope="module")
def harbor_python() -> Path:
    venv = Path(os.environ.get("REQBENCH_HARBOR_VENV") or REPO / ".venv-harbor")
    python = venv / "bin" / "python"
    if not (venv / ".installed").exists():
        base = versions.find_python("3.12") or versions.find_python("3.13")
        if base is None:
            pytest.skip("harbor needs Python >= 3.12 and none was found (set REQBENCH_PYTHON_3_12)")
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "pydantic>=2.14"], check=True, timeout=900)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", HARBOR], check=True, timeout=900)
        (venv / ".installed").touch()
    return python


@pytest.mark.integration
@pytest.mark.timeout(1800)
def test_exported_trajectories_of_real_agents_validate_with_harbor(tmp_path: Path, harbor_python: Path) -> None:
    installed("codex")
    installed("aider")
    rows = {"codex": Row("greet", "C1", "codex", 0), "aider": Row("greet", "C1", "aider", 0)}
    meta = RunMeta(suite_path="/s", protocol="takeover", options={"agent": "codex"}, created=utc_now(),
                   reqbench_version="0")
    store = RunStore.create(tmp_path / "run", meta)
    store.add_plan([*rows.values(), Row("bare", "C1", "codex", 0)])
    for name, module, model in (("codex", test_real_codex, "gpt-5-codex"), ("aider", test_real_aider,
                                                                           "openai/gpt-4o")):
        ws = make_workspace(tmp_path / f"ws-{name}")
        with ScriptedOpenAI(module.script if name == "aider" else module.upstream_script(0)) as upstream:
            result = run_row(name, rows[name].key, store, ws, upstream.base_url, offline=False, model=model,
                             key=module.KEY)
        store.record_attempt(rows[name], RowOutcome(RowStatus.SCORED, {"score": 1.0}, reason="evaluated",
                                                    artifacts={"trajectory.json": json.dumps(result.to_dict())
                                                               .encode()}))
    store.record_attempt(Row("bare", "C1", "codex", 0), RowOutcome(RowStatus.INVALID, {}, reason="infrastructure"))
    store.close()

    out = tmp_path / "atif"
    done = subprocess.run([sys.executable, "-m", "reqbench", "export", str(tmp_path / "run"), "--format", "atif",
                           "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    files = sorted(out.glob("*/trajectory.json"))
    assert [f.parent.name for f in files] == ["bare__C1__codex__0", "greet__C1__aider__0", "greet__C1__codex__0"]
    checked = subprocess.run([str(harbor_python), "-c", VALIDATE, *map(str, files)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr[-3000:]
    steps = {Path(json.loads(line)["path"]).parent.name: json.loads(line)["steps"]
             for line in checked.stdout.splitlines()}
    assert steps["bare__C1__codex__0"] == 1 and steps["greet__C1__codex__0"] >= 4
    codex = json.loads(files[2].read_text())
    calls = [c["function_name"] for s in codex["steps"] for c in s.get("tool_calls", [])]
    assert calls == ["bash", "edit_file"]  # the blocked network probe, then the patch
    assert codex["final_metrics"]["extra"]["gateway"]["prompt_tokens"] == 6300
    aider = json.loads(files[1].read_text())
    assert [s["source"] for s in aider["steps"]][:2] == ["system", "system"]  # gateway note, aider's banner
    assert any(s["source"] == "user" and "Goodbye" in s["message"] for s in aider["steps"])
