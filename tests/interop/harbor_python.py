"""Harbor's own code, run where the tests need it: the real ``harbor`` wheel from PyPI (Python >= 3.12) in
a task environment built with reqbench's environments feature -- a Debian trixie root (mmdebstrap,
Python 3.13) with a venv holding the wheel and the packages its task models import (`LOCK`, installed
with --no-deps) -- cached per machine like the other Debian test roots (``$REQBENCH_TEST_ENV_CACHE`` or
``/var/tmp/reqbench-env-tests``; the first build takes about two minutes, later runs find it by key).

`harbor_run` runs a Python snippet with Harbor importable, offline and read-only, with given host folders
bound read-only at their own paths. With ``build=True`` (the slow tests) it builds the environment when
the cache lacks it, and skips with the reason where bubblewrap or mmdebstrap is missing or the build
cannot reach the registries; with ``build=False`` it uses the environment only when it is built already.
``$REQBENCH_HARBOR_PYTHON`` names an interpreter that already has Harbor, used instead (nothing built)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from reqbench.core.environments import BuiltEnvironment, ensure_built, environment_key, find_built, load_environment
from reqbench.core.environments.buildbox import box_args, built_box
from reqbench.core.errors import ReqbenchError

HERE = Path(__file__).parent
LOCK = HERE / "harbor.lock"
CACHE = Path(os.environ.get("REQBENCH_TEST_ENV_CACHE", "/var/tmp/reqbench-env-tests"))
BLOCK = {"debian": {"suite": "trixie", "packages": ["python3", "python3-venv"], "mirror": "http://deb.debian.org/debian"},
         "python": {"interpreter": "root", "lock": LOCK.name}}
"""Debian trixie ships Python 3.13 (Harbor needs >= 3.12); Debian's own mirror, whatever the host's apt uses."""
SLOW_TEST = "tests/interop/test_harbor_reads_every_export.py"


def harbor_environment(build: bool) -> BuiltEnvironment:
    """The built environment (building it when `build`), or a skip saying why there is none."""
    if shutil.which("bwrap") is None:
        pytest.skip("Harbor's environment runs under bubblewrap, which is not installed")
    spec = load_environment(BLOCK, origin=str(LOCK), base_dir=HERE)
    found = find_built(environment_key(spec, HERE), cache=CACHE)
    if found is not None:
        return found
    if not build:
        pytest.skip(f"Harbor's Python 3.13 environment is not built on this machine yet ({SLOW_TEST} builds it)")
    if shutil.which("mmdebstrap") is None:
        pytest.skip("building Harbor's Python 3.13 environment needs mmdebstrap (apt-get install mmdebstrap)")
    try:
        return ensure_built(spec, HERE, cache=CACHE)
    except ReqbenchError as exc:  # no Debian mirror or PyPI reachable: the proof cannot be made here
        pytest.skip(f"Harbor's environment could not be built here: {exc}")


def harbor_run(code: str, args: Sequence[str] = (), *, binds: Sequence[Path] = (),
               build: bool = False) -> subprocess.CompletedProcess[str]:
    """Run `code` (``python -c``) with Harbor importable; `binds` are visible read-only at their paths."""
    given = os.environ.get("REQBENCH_HARBOR_PYTHON")
    if given:
        return subprocess.run([given, "-c", code, *args], capture_output=True, text=True, timeout=300)
    built = harbor_environment(build)
    assert built.python is not None
    argv = box_args(built_box(built.root, built.binds, built.env),
                    extra=[(Path(b).resolve(), str(Path(b).resolve())) for b in binds])
    return subprocess.run([*argv, "--", built.python, "-c", code, *args], capture_output=True, text=True,
                          timeout=300)


def harbor_package(build: bool = False) -> Path:
    """Where the installed ``harbor`` package lies on the host, for the files its wheel ships."""
    proc = harbor_run("import harbor, pathlib; print(pathlib.Path(harbor.__file__).parent)", build=build)
    assert proc.returncode == 0, proc.stderr
    inside = proc.stdout.strip()
    if os.environ.get("REQBENCH_HARBOR_PYTHON"):
        return Path(inside)
    built = harbor_environment(build)
    for host, at in built.binds:
        if inside.startswith(at.rstrip("/") + "/"):
            return Path(host) / inside[len(at.rstrip("/")) + 1:]
    assert built.root is not None
    return built.root / inside.lstrip("/")


TASK_CONFIGS = ("import sys, pathlib\nfrom harbor.models.task.config import TaskConfig\n"
                "for p in sys.argv[1:]:\n    c = TaskConfig.model_validate_toml(pathlib.Path(p).read_text())\n"
                "    s = c.multi_step_reward_strategy\n"
                "    print(pathlib.Path(p).parent.name, len(c.steps or []), s.value if s else '-')\n")


def harbor_task_configs(tomls: list[Path], *, build: bool = False) -> list[str]:
    """``name steps strategy`` per task.toml as Harbor's own `TaskConfig` reads it."""
    proc = harbor_run(TASK_CONFIGS, [str(Path(t).resolve()) for t in tomls],
                      binds=sorted({Path(t).resolve().parent.parent for t in tomls}), build=build)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()
