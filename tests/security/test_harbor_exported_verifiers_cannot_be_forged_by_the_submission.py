"""Threat: an agent whose task was exported to Harbor forges its reward. In Harbor the verifier runs in the
agent's own container after it (shared mode), so the agent can leave files in the working directory and
in ``/logs/verifier`` before ``tests/test.sh`` starts. None of it may raise the reward:

* a reward file already in ``/logs/verifier`` is removed before the verifier runs (every exported task), so
  a verifier the agent broke (it replaced the container's ``python3``) leaves no reward, not the agent's;
* PACE: a ``reqbench`` package or a ``json.py`` planted in the working directory is never imported by the
  grader (``python3 -P``: the working directory is off its import path), which only parses the tree;
* PACE: a table of compiled code (`reqbench.core.code_cache`) planted in the container's reqbench cache --
  code the harness would run instead of compiling -- is never read by the grader, even where the image
  names that cache (``REQBENCH_CACHE``).

(An exported takeover gate reads plain pytest's exit code, as Harbor's own tasks do: the submission's code
runs in that process and bounds it; docs/harbor.md says so.)"""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path

import pytest

from reqbench.core.bundled import resolve_suite
from reqbench.interop.harbor_export import export_suite
from tests.interop.exported import grade

FORGED = '{"reward": 1.0, "build": 1.0, "target": 1.0, "regression": 1.0}'
GRADER = ("import json, pathlib, sys\n"
          "pathlib.Path(sys.argv[2], 'reward.json').write_text(json.dumps({'reward': 1.0}))\n")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("harbor")
    for name in ("pace", "takeover"):
        export_suite(resolve_suite(f"demo:{name}"), root / name)
    return {"pace": root / "pace" / "billflow-credit-notes", "takeover": root / "takeover" / "DOCKSIDE_T001"}


@pytest.mark.parametrize("kind", ["pace", "takeover"])
def test_a_reward_left_in_the_verifier_folder_is_not_the_reward(exported: dict[str, Path], tmp_path: Path,
                                                                kind: str) -> None:
    planted = {"reward.json": FORGED, "reward.txt": "1"}
    assert grade(exported[kind], tmp_path / "broken", rewards_before=planted, python3="#!/bin/sh\nexit 1\n") is None
    assert grade(exported[kind], tmp_path / "working", rewards_before=planted)["reward"] == 0.0


def test_the_pace_grader_never_imports_the_submissions_modules(exported: dict[str, Path], tmp_path: Path) -> None:
    plant = {"reqbench/__init__.py": "", "reqbench/interop/__init__.py": "",
             "reqbench/interop/harbor_pace_grade.py": GRADER, "json.py": "raise SystemExit(0)\n"}
    assert grade(exported["pace"], tmp_path, plant=plant) == {"reward": 0.0}



def test_the_pace_grader_never_runs_a_compiled_code_table_the_agent_planted(exported: dict[str, Path],
                                                                           tmp_path: Path) -> None:
    cache, marker = tmp_path / "agent-writable-cache", tmp_path / "planted-code-ran"
    # a real table of what a reqbench process compiles, every entry then made to announce itself when run
    program = ("import reqbench.core\nfrom reqbench.protocols.pace.score import Scorer\n"
               "from reqbench.core.workspace import safe_diff\n")
    subprocess.run([sys.executable, "-c", program], check=True, env={**os.environ, "REQBENCH_CACHE": str(cache)})
    table = cache / "compiled-code" / f"{sys.implementation.cache_tag}.marshal"
    entries = marshal.loads(table.read_bytes()[len(MAGIC_NUMBER):])
    announce = f"open({str(marker)!r}, 'a').write('x')\n"
    planted = {key: compile(announce + text if mode == "exec" else text, "<string>", mode, dont_inherit=True)
               for key in entries for mode, text in [key]}
    table.write_bytes(MAGIC_NUMBER + marshal.dumps(planted))
    assert grade(exported["pace"], tmp_path / "work", env={"REQBENCH_CACHE": str(cache)}) == {"reward": 0.0}
    assert not marker.exists()
