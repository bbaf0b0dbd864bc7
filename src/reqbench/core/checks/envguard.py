"""The check guard as byte code of a task environment's own interpreter.

A ``{pytest}`` check in an environment runs the guard with the environment's interpreter, whose byte code
format may differ from the harness's. From source it would compile both modules at every check; instead
the environment's interpreter compiles them once per environment and process, in the sandbox with the
pristine environment (nothing of a submission runs), and hands back the ``.pyc`` bytes, which the harness
then keeps in a guard directory of their own (`guarddir.guard_dir(flavour=...)`, verified before every
use like the others). The runner is then started as ``python GUARD/reqbench_pytest.pyc``, which puts the
guard directory first on ``sys.path`` exactly as the source script does. Where the interpreter cannot
compile them (it failed, or answered something else), the source flavour is used.
"""

from __future__ import annotations

import base64
import json
import tempfile
import threading
from pathlib import Path

from reqbench.core.checks.guarddir import INI_NAME, INI_TEXT, guard_files
from reqbench.core.sandbox import run_sandboxed
from reqbench.core.sandbox.environment import EnvironmentMount

COMPILE = r"""
import base64, importlib.util, json, marshal, sys
out = {}
for name, text in json.loads(sys.stdin.read()).items():
    data = text.encode("utf-8")
    code = compile(data, name, "exec", dont_inherit=True)
    pyc = importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + importlib.util.source_hash(data)
    out[name[:-3] + ".pyc"] = base64.b64encode(pyc + marshal.dumps(code)).decode("ascii")
sys.stdout.write(json.dumps(out))
"""
_lock = threading.Lock()
_compiled: dict[tuple[str, str], dict[str, bytes] | None] = {}


def environment_guard_files(mount: EnvironmentMount) -> dict[str, bytes] | None:
    """The guard directory's files as byte code of `mount`'s interpreter (cached per environment and
    interpreter for the process), or None where it could not compile them."""
    assert mount.python is not None
    key = (mount.key, mount.python)
    with _lock:
        if key in _compiled:
            return _compiled[key]
    sources = {name: data.decode("utf-8") for name, data in guard_files(source=True).items() if name != INI_NAME}
    files = None
    with tempfile.TemporaryDirectory(prefix="reqbench-envguard-") as tmp:
        request = Path(tmp) / "sources.json"
        request.write_text(json.dumps(sources), encoding="utf-8")
        proc = run_sandboxed([mount.python, "-I", "-c", COMPILE], Path(tmp), timeout=120, environment=mount,
                             stdin_file=request, scratch_dir=_scratch(Path(tmp)))
        try:
            answer = json.loads(proc.stdout) if proc.exit_code == 0 else None
            if isinstance(answer, dict) and sorted(answer) == ["reqbench_guard.pyc", "reqbench_pytest.pyc"]:
                files = {**{n: base64.b64decode(v, validate=True) for n, v in answer.items()}, INI_NAME: INI_TEXT}
        except (ValueError, TypeError):
            files = None
    with _lock:
        return _compiled.setdefault(key, files)


def _scratch(tmp: Path) -> Path:
    folder = tmp / "scratch"
    folder.mkdir()
    return folder
