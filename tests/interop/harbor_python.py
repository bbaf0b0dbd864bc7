"""Harbor's own code, run where the tests need it: the real ``harbor`` wheel from PyPI (Python >= 3.12) in
a task environment built with reqbench's environments feature -- a Debian trixie root (mmdebstrap,
Python 3.13) with a venv holding the wheel and the packages its task models import (`LOCK`, installed
with --no-deps) -- cached per machine like the other Debian test roots (``$REQBENCH_TEST_ENV_CACHE`` or
``/var/tmp/reqbench-env-tests``; the first build takes one to two minutes, later runs find it by key).

`harbor_run` runs a Python snippet with Harbor importable, offline, read-only, with given host folders
bound read-only at the same paths; it skips (with the reason) where bubblewrap or mmdebstrap is missing
or the build cannot reach the registries. ``$REQBENCH_HARBOR_PYTHON`` names an interpreter that already
has Harbor and is used instead (no build)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import pytest

HERE = Path(__file__).parent
LOCK = HERE / "harbor.lock"
CACHE = Path(os.environ.get("REQBENCH_TEST_ENV_CACHE", "/var/tmp/reqbench-env-tests"))
BLOCK = {"debian": {"suite": "trixie", "packages": ["python3", "python3-venv"]},
         "python": {"interpreter": "root", "lock": LOCK.name}}
"""Debian trixie ships Python 3.13; Harbor needs >= 3.12."""


@lru_cache(maxsize=1)
def _built() -> tuple[list[str], str] | str:
    """(bwrap prefix without binds, interpreter) of the built environment, or why there is none."""
    if shutil.which("bwrap") is None:
        return "Harbor's environment runs under bubblewrap, which is not installed"
    if shutil.which("mmdebstrap") is None:
        return "building Harbor's Python 3.13 environment needs mmdebstrap (apt-get install mmdebstrap)"
    from reqbench.core.environments import ensure_built, load_environment
    from reqbench.core.errors import ReqbenchError

    try:
        spec = load_environment(BLOCK, origin=str(LOCK), base_dir=HERE)
        built = ensure_built(spec, HERE, cache=CACHE)
    except ReqbenchError as exc:  # no mirror or registry reachable: the proof cannot be made here
        return f"Harbor's environment could not be built here: {exc}"
    assert built.root is not None and built.python is not None
    return [str(built.root), *[f"{h}={i}" for h, i in built.binds],
            *[f"{k}={v}" for k, v in built.env.items()]], built.python


def harbor_run(code: str, args: Sequence[str] = (), *, binds: Sequence[Path] = ()) -> subprocess.CompletedProcess[str]:
    """Run `code` (``python -c``) with Harbor importable; `binds` are visible read-only at their paths."""
    given = os.environ.get("REQBENCH_HARBOR_PYTHON")
    if given:
        return subprocess.run([given, "-c", code, *args], capture_output=True, text=True, timeout=300)
    found = _built()
    if isinstance(found, str):
        pytest.skip(found)
    from reqbench.core.environments import ensure_built, load_environment
    from reqbench.core.environments.buildbox import box_args, built_box

    built = ensure_built(load_environment(BLOCK, origin=str(LOCK), base_dir=HERE), HERE, cache=CACHE)
    argv = box_args(built_box(built.root, built.binds, built.env),
                    extra=[(Path(b).resolve(), str(Path(b).resolve())) for b in binds])
    return subprocess.run([*argv, "--", str(built.python), "-c", code, *args], capture_output=True, text=True,
                          timeout=300)


def harbor_location() -> Path:
    """Where the ``harbor`` package lies on the host (inside the built root), for its shipped files."""
    proc = harbor_run("import harbor, pathlib; print(pathlib.Path(harbor.__file__).parent)")
    assert proc.returncode == 0, proc.stderr
    inside = Path(proc.stdout.strip())
    if os.environ.get("REQBENCH_HARBOR_PYTHON"):
        return inside
    built = _built()
    assert not isinstance(built, str)
    root = Path(built[0][0])
    for host, _, at in (b.partition("=") for b in built[0][1:]):
        if at and str(inside).startswith(at + "/"):
            return Path(host) / inside.relative_to(at)
    return root / inside.relative_to("/")
