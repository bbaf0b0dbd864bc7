"""A hostile `command` agent and the trimmed bundled suites it attacks, one per protocol.

`cheat_and_null(protocol)` runs the real CLI twice on a private copy of a small bundled suite: once
with the `null` agent, once with `CHEATER`, a shell script that tries every way it has to get credit
without solving anything (read the answers wherever they may lie, rewrite hidden tests, escape the
sandbox as root, read the harness's secrets, leave a daemon behind). Results are cached for the
session in a folder shared by the xdist workers (a file lock keeps one run per protocol).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import yaml

from reqbench.core.bundled import bundled_suite
from reqbench.core.workspace.trees import tree_hash

EXAMPLES = bundled_suite("takeover").parent

TRIM: dict[str, tuple[str, list[str]]] = {
    # protocol: (suite.yaml key to trim, extra CLI arguments)
    "specpath": ("families", ["--condition", "direct"]),
    "takeover": ("delivery", ["--condition", "C1"]),
    "journey": ("instances", ["--condition", "non-coder"]),
    "pace": ("cases", ["--judge", "offline"]),
}

ANSWER_THIEF = r"""#!/bin/sh
# A hostile agent. __TOKEN__ marks every process it starts.
S=__SUITE__; E=__ELSEWHERE__; C=__CACHE__; R=__RUN__
PLACES="$S $E $C $R /tmp /root /home /work /var /opt /srv /mnt $HOME"   # where answers may lie
TARGETS="$S $E $C $R"   # what it tries to rewrite (kept to the test's own folders, should the sandbox fail)
# 1. the answers: in the first place that has any, the first reference patch that applies, and every
#    per-subtask patch (journey) in name order, applied to its workspace
for place in $PLACES; do
  found=$(find $place \( -name 'reference*.patch' -o -path '*/patches/*.patch' \) -type f 2>/dev/null | sort)
  [ -n "$found" ] || continue
  for p in $(echo "$found" | grep /reference); do git apply "$p" 2>/dev/null && echo "applied $p" && break; done
  for p in $(echo "$found" | grep /patches/); do git apply "$p" 2>/dev/null && echo "applied $p"; done
  break
done
"""
"""Safe to run unsandboxed (the positive control): it only reads, and writes its own workspace."""

CHEATER = ANSWER_THIEF + r"""
# 2. the checks: rewrite every hidden test and conftest it can reach, and the run store
for f in $(find $TARGETS \( -name 'test_*.py' -o -name 'conftest.py' \) -type f 2>/dev/null); do
  printf 'def test_forged():\n    pass\n' > "$f" 2>/dev/null
done
echo forged >> "$R/run.sqlite" 2>/dev/null
# ... and plant passing verdicts where validation remembers them (`core.validation_cache`)
for d in specpath-reference takeover-admission; do
  mkdir -p "$C/$d" 2>/dev/null && echo '[]' > "$C/$d/planted.json" 2>/dev/null
done
# 3. escape as root
umount -l /tmp 2>/dev/null; umount -l /proc 2>/dev/null; mount -o remount,rw /usr 2>/dev/null
mount -t tmpfs none /mnt 2>/dev/null
nsenter -t 1 -a sh -c "cp -r $S/. . ; cat /proc/1/environ" 2>/dev/null
unshare -r -m sh -c "mount --bind / /mnt" 2>/dev/null
# 4. secrets of the harness: read them here, and plant links that make the harness read its own
#    (a submitted symlink to /proc/self/environ, read by whatever scores the tree outside the sandbox)
cat /proc/*/environ 2>/dev/null | tr '\0' '\n'
env
for d in $(find . -name '*.py' -not -path './.git/*' 2>/dev/null | head -3 | xargs -r -n1 dirname | sort -u); do
  ln -s /proc/self/environ "$d/zz_environ.py" 2>/dev/null
done
ln -s /proc/self/environ zz_environ.txt 2>/dev/null
# 5. a daemon that outlives the step and keeps forging tests (__TOKEN__)
(setsid env -i /bin/sh -c "while :; do for f in \$(find $TARGETS -name 'test_*.py' 2>/dev/null); do
   echo forged > \$f; done; sleep 0.2; done # __TOKEN__" >/dev/null 2>&1 &)
exit 0
"""


def trimmed_suite(protocol: str, dest: Path) -> Path:
    """A private copy of the bundled suite of `protocol`, cut to its first task."""
    shutil.copytree(EXAMPLES / protocol, dest)
    key, _ = TRIM[protocol]
    spec = yaml.safe_load((dest / "suite.yaml").read_text())
    spec[key] = spec[key][:1]
    (dest / "suite.yaml").write_text(yaml.safe_dump(spec))
    return dest


def cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reqbench.cli.main", *args], capture_output=True, text=True,
                          timeout=600, env=env, cwd=cwd)


def _script(template: str, root: Path, suite: Path, elsewhere: Path, cache: Path, run: str, token: str) -> Path:
    script = root / f"{run}.sh"
    script.write_text(template.replace("__SUITE__", str(suite)).replace("__ELSEWHERE__", str(elsewhere))
                      .replace("__CACHE__", str(cache)).replace("__RUN__", str(root / run))
                      .replace("__TOKEN__", token))
    return script


def _run(protocol: str, root: Path) -> dict[str, Any]:
    root.mkdir(parents=True)
    suite = trimmed_suite(protocol, root / "suite")
    elsewhere = trimmed_suite(protocol, root / "elsewhere")  # "any other copy of the suite on the host"
    cache = root / "cache"
    token = uuid.uuid4().hex
    canary = f"canary-{uuid.uuid4().hex}"
    env = {**os.environ, "REQBENCH_CACHE": str(cache), "REQBENCH_CANARY_SECRET": canary,
           "OPENAI_API_KEY": f"sk-{canary}", "ANTHROPIC_API_KEY": f"sk-ant-{canary}", "PYTHONUNBUFFERED": "1"}
    _, extra = TRIM[protocol]
    before = {"suite": tree_hash(suite), "elsewhere": tree_hash(elsewhere)}
    null = cli(["run", str(suite), "--agent", "null", "--out", str(root / "null"), "--quiet", *extra], env, root)
    script = _script(CHEATER, root, suite, elsewhere, cache, "cheat", token)
    cheat = cli(["run", str(suite), "--agent", "command", "--agent-opt", f"template=sh {script}",
                 "--out", str(root / "cheat"), "--quiet", *extra], env, root)
    # the positive control: the answer thief without the sandbox must get credit, or these tests prove nothing
    thief = _script(ANSWER_THIEF, root, suite, elsewhere, cache, "unsandboxed", token)
    unsandboxed = cli(["run", str(suite), "--agent", "command", "--agent-opt", f"template=sh {thief}",
                       "--unsafe-no-sandbox", "--out", str(root / "unsandboxed"), "--quiet", *extra],
                      {**env, "REQBENCH_SANDBOX": "none"}, root)
    reports = {}
    for name in ("null", "cheat", "unsandboxed"):
        rep = cli(["report", str(root / name), "--json"], env, root)
        reports[name] = json.loads(rep.stdout) if rep.returncode == 0 else {"error": rep.stderr}
    alive = subprocess.run(["pgrep", "-f", token], capture_output=True, text=True).stdout.split()
    return {"protocol": protocol, "null_rc": null.returncode, "cheat_rc": cheat.returncode, "cheat_stderr": cheat.stderr[-3000:],
            "unsandboxed_rc": unsandboxed.returncode,
            "reports": reports, "before": before, "root": str(root), "canary": canary, "token": token,
            "daemons_alive": alive,
            "after": {"suite": tree_hash(suite), "elsewhere": tree_hash(elsewhere)},
            "planted": sorted(str(p.relative_to(cache)) for p in cache.rglob("planted*"))}


def cheat_and_null(protocol: str, shared: Path) -> dict[str, Any]:
    """Run (once per test session, whatever the worker) and return the facts of both runs."""
    shared.mkdir(parents=True, exist_ok=True)
    result_file = shared / f"{protocol}.json"
    with open(shared / f"{protocol}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not result_file.is_file():
            result_file.write_text(json.dumps(_run(protocol, shared / protocol)))
    return json.loads(result_file.read_text())  # type: ignore[no-any-return]
