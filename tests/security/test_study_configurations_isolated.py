"""A configuration's agent cannot read the other configurations of its study: their run directories (with the
submissions that solved the rows) sit beside its own, but never in its sandbox's view.

The thief is added with `reqbench study add` after `ref` (the reference agent) has stored its solved
patches; it applies every blob under ``runs/ref/artifacts``. Sandboxed it scores like `null`; the positive
control (no sandbox, ``unsafe_no_sandbox: true``) shows that the same thief does get credit otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.cli.generic_helpers import reqbench

STEALER = """#!/bin/sh
# applies every artifact another configuration of the study stored; its submissions are the answers
for f in $(find __RUNS__/ref/artifacts -type f 2>/dev/null | sort); do git apply "$f" 2>/dev/null && echo "applied $f"; done
exit 0
"""


def _fcr_direct(tmp: Path, name: str, unsafe: bool) -> float:
    spec = tmp / f"{name}.yaml"
    spec.write_text(yaml.safe_dump({"suite": "demo:specpath", "conditions": ["direct"], "unsafe_no_sandbox": unsafe,
                                    "configurations": [{"name": "ref", "agent": "reference"}]}))
    out = tmp / name
    env = {"REQBENCH_SANDBOX": "none"} if unsafe else {}
    ran = reqbench("study", "run", str(spec), "--out", str(out), "--quiet", timeout=300, **env)
    assert ran.returncode == 0, ran.stderr
    script = tmp / f"{name}-thief.sh"
    script.write_text(STEALER.replace("__RUNS__", str(out / "runs")))
    added = reqbench("study", "add", str(out), f"name=thief,agent=command,opt.template=sh {script}", "--quiet",
                     timeout=300, **env)
    assert added.returncode == 0, added.stderr
    report = reqbench("study", "report", str(out), "--json")
    assert report.returncode == 0, report.stderr
    tables = {t["title"]: t["rows"] for t in json.loads(report.stdout)["tables"]}
    assert tables["headline by configuration"]["ref"]["FCR direct"] == 1.0
    value: float = tables["headline by configuration"]["thief"]["FCR direct"]
    return value


def test_study_agent_cannot_read_another_configurations_submissions(require_bwrap: None, tmp_path: Path) -> None:
    assert _fcr_direct(tmp_path, "sandboxed", unsafe=False) == 0.0
    assert _fcr_direct(tmp_path, "unsandboxed", unsafe=True) == 1.0  # positive control: the thief works
