"""Red team: a takeover suite whose repository is fetched (`pypi:NAME==VERSION#sha256=...`) into the cache.

The unpacked sdist in ``$REQBENCH_CACHE`` is the pristine baseline of every later row and admission. A
hostile agent must not reach it (nor the suite's hidden tests and reference patches): if it could rewrite
the cached tree, every later initial repository would start from its forgery. The sdist is planted where a
download would put it (offline), built from the bundled suite's repository, so the real source machinery
(pin check, unpacking, cache) runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from reqbench.core.workspace.trees import tree_hash
from reqbench.protocols.takeover.suite_file import load_suite, repository_tree
from tests.protocols.takeover.takeover_suite_factory import EXAMPLE, mini_suite

VANDAL = r"""#!/bin/sh
# Rewrite everything of the cached baseline, the suite and its hidden tests it can reach; steal answers.
for f in $(find __CACHE__ __SUITE__ -type f 2>/dev/null); do
  case "$f" in *.py) printf 'PRICE = 0\ndef test_forged():\n    pass\n' > "$f" 2>/dev/null;; esac
done
for p in $(find __CACHE__ __SUITE__ -name 'reference*.patch' 2>/dev/null); do git apply "$p" 2>/dev/null && break; done
exit 0
"""


def _plant_sdist(cache: Path) -> str:
    folder = cache / "pypi" / "dockside-1.0"
    folder.mkdir(parents=True)
    sdist = folder / "dockside-1.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as tar:
        tar.add(EXAMPLE / "repo", arcname="dockside-1.0")
    return hashlib.sha256(sdist.read_bytes()).hexdigest()


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reqbench.cli.main", *args], capture_output=True, text=True,
                          timeout=600, env=env, cwd=cwd)


def _c1_delivery(run: Path, env: dict[str, str]) -> float:
    rep = _cli(["report", str(run), "--json"], env, run.parent)
    assert rep.returncode == 0, rep.stderr
    return float(json.loads(rep.stdout)["takeover"]["delivery"]["C1"]["complete_delivery"])


def test_agent_cannot_rewrite_the_cached_baseline_or_the_hidden_tests(
        require_bwrap: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("REQBENCH_CACHE", str(cache))
    sha = _plant_sdist(cache)
    source = tmp_path / "source"  # a private copy: the vandal must never reach the bundled suite
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("repo"))
    suite_dir = mini_suite(tmp_path / "suite", ("T001",), source=source)
    spec = yaml.safe_load((suite_dir / "suite.yaml").read_text())
    spec["repository"] = f"pypi:dockside==1.0#sha256={sha}"
    (suite_dir / "suite.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    baseline = repository_tree(suite_dir, load_suite(suite_dir))

    def hashes() -> dict[str, str]:
        return {"baseline": tree_hash(baseline), "suite": tree_hash(source)}

    before = hashes()
    script = tmp_path / "vandal.sh"
    script.write_text(VANDAL.replace("__CACHE__", str(cache)).replace("__SUITE__", str(source)))
    env = {**os.environ, "REQBENCH_CACHE": str(cache)}
    common = ["--condition", "C1", "--quiet"]
    cheat = _cli(["run", str(suite_dir), "--agent", "command", "--agent-opt", f"template=sh {script}",
                  "--out", str(tmp_path / "cheat"), *common], env, tmp_path)
    assert cheat.returncode == 0, cheat.stderr[-3000:]
    assert _c1_delivery(tmp_path / "cheat", env) == 0.0
    assert hashes() == before
    # the same cache still yields the pristine repository: the reference solution is delivered
    ref = _cli(["run", str(suite_dir), "--agent", "reference", "--out", str(tmp_path / "ref"), *common], env, tmp_path)
    assert ref.returncode == 0, ref.stderr[-3000:]
    assert _c1_delivery(tmp_path / "ref", env) == 1.0
    # positive control: without the sandbox the same script does rewrite the cached baseline and the suite
    # (the run itself may then end in an error: its later steps rebuild from the forged baseline)
    _cli(["run", str(suite_dir), "--agent", "command", "--agent-opt", f"template=sh {script}",
          "--unsafe-no-sandbox", "--out", str(tmp_path / "unsafe"), *common], {**env, "REQBENCH_SANDBOX": "none"},
         tmp_path)
    after = hashes()
    assert after["baseline"] != before["baseline"] and after["suite"] != before["suite"]
