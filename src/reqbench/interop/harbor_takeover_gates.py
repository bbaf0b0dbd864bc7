"""The verifier of an exported takeover delivery target, run inside the Harbor task as ``tests/gates.py``
(`GATES_PY`: written out by `harbor_takeover`, never run by reqbench itself; standard library only):
ReqMemBench's three-gate delivery decision (§3.1, appendix C.2) on the working directory.

1. A working directory identical to the target's initial repository (``/tests/takeover/initial``) is no
   deliverable: reward 0, no gate runs.
2. Each gate runs on its own fresh copy of the submission (``{hidden}`` is ``/tests/hidden``), with the
   protected files (conftest.py, pytest ini files, sitecustomize, .pth, the check's own globs) put back as
   the initial repository has them.
3. Build first; a build that does not pass skips target and regression (SKIPPED, not FAIL).
4. Exit 0 is PASS, exit 1 FAIL. Any other exit is re-checked once at once and read the same way; an
   unexpected exit again, or a timeout, is FAIL (Harbor has no pending state: what reqbench would re-check
   on a resumed run, up to its bound, is decided here).
5. ``reward`` is 1 only when build, target and regression all PASS; ``build``, ``target`` and
   ``regression`` are 1 for a PASS, else 0. ``gates.json`` beside the reward holds each gate's status.
"""

GATES_PY = '''\
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

IGNORED = {"__pycache__", ".pytest_cache", ".git"}


def _files(root: Path) -> dict[str, Path]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in IGNORED]
        for name in filenames:
            path = Path(dirpath) / name
            if not name.endswith(".pyc") and (path.is_symlink() or path.is_file()):  # no pipe or device
                out[str(path.relative_to(root))] = path
    return out


def _skipped(folder, names):
    """What a gate's copy leaves out: caches, and anything neither a file, a folder nor a link."""
    return [n for n in names if n in IGNORED or not (os.path.islink(os.path.join(folder, n))
                                                     or os.path.isfile(os.path.join(folder, n))
                                                     or os.path.isdir(os.path.join(folder, n)))]


def unchanged(workspace: Path, initial: Path) -> bool:
    """Whether `workspace` holds exactly the initial repository's files (caches left out)."""
    mine, theirs = _files(workspace), _files(initial)
    if mine.keys() != theirs.keys():
        return False
    return all(_same(mine[rel], theirs[rel]) for rel in mine)


def _same(a, b):
    """Two entries with the same content: links by their target text (never followed), files by bytes."""
    if a.is_symlink() or b.is_symlink():
        return a.is_symlink() and b.is_symlink() and os.readlink(a) == os.readlink(b)
    return filecmp.cmp(a, b, shallow=False)


def restore_protected(tree: Path, initial: Path, globs: list[str]) -> None:
    """Put every protected path of `tree` back as `initial` has it (added ones removed)."""
    for pattern in globs:
        for found in [*tree.glob(pattern), *([tree / pattern] if "*" not in pattern else [])]:
            if found.is_symlink() or found.is_file():
                found.unlink()
        for source in initial.glob(pattern) if "*" in pattern else [initial / pattern]:
            if source.is_file() and not source.is_symlink():
                target = tree / source.relative_to(initial)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)


def _run(command: str, cwd: Path, hidden: Path, timeout: float) -> int | None:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = command.replace("{workspace}", str(cwd)).replace("{hidden}", str(hidden))
    try:
        return subprocess.run(["bash", "-c", command], cwd=cwd, env=env,
                              stdin=subprocess.DEVNULL, timeout=timeout, check=False).returncode
    except subprocess.TimeoutExpired:
        return None


def gate(spec: dict, workspace: Path, tests: Path, scratch: Path) -> str:
    """PASS or FAIL of one gate on a fresh copy of `workspace` (one immediate re-check of an exit other
    than 0 and 1)."""
    for attempt in range(2):
        tree = scratch / f"{spec['name']}-{attempt}"
        shutil.copytree(workspace, tree, symlinks=True, ignore=_skipped)
        restore_protected(tree, tests / "takeover" / "initial", spec["protected"])
        code = _run(spec["command"], tree, tests / "hidden", spec["timeout"])
        print(f"gate {spec['name']}: exit {code if code is not None else 'timeout'}", flush=True)
        if code in (0, 1, None):
            return "PASS" if code == 0 else "FAIL"
    return "FAIL"


def deliver(config: dict, tests: Path, workspace: Path, out: Path) -> dict[str, float]:
    """The delivery decision on `workspace`; `tests` is the task's tests folder (``/tests``)."""
    initial = tests / "takeover" / "initial"
    statuses = {g["name"]: "SKIPPED" for g in config["gates"]}
    decision = "no deliverable: the project is unchanged"
    if not unchanged(workspace, initial):
        with tempfile.TemporaryDirectory(prefix="gates-") as scratch:
            for spec in config["gates"]:
                statuses[spec["name"]] = gate(spec, workspace, tests, Path(scratch))
                if spec["name"] == "build" and statuses["build"] != "PASS":
                    break
        decision = "PASS" if all(s == "PASS" for s in statuses.values()) else "FAIL"
    rewards = {"reward": float(decision == "PASS"), **{g: float(s == "PASS") for g, s in statuses.items()}}
    (out / "gates.json").write_text(json.dumps({"decision": decision, "gates": statuses}, indent=1))
    (out / "reward.json").write_text(json.dumps(rewards))
    return rewards


if __name__ == "__main__":
    config = Path(sys.argv[1]).resolve()  # <tests>/takeover/gates.json
    found = deliver(json.loads(config.read_text()), config.parent.parent, Path.cwd(), Path(sys.argv[2]))
    print(json.dumps(found))
'''
