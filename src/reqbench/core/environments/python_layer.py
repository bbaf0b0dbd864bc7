"""The ``python`` kind: a virtual environment that runs where it is bound, ``/opt/reqbench-env/python``.

With a host interpreter (``host``, a version, a path) the venv is written on the host (`venvs`; pip:
``python -m venv``) and filled with ``uv pip install`` (pip: ``pip install``), using the
user's own package caches, so building costs what a plain ``uv pip install`` costs. Byte code is compiled at
build time (``--compile-bytecode``; pip does it by default): a read-only venv cannot cache it, so every check
would otherwise compile its modules (pytest's among them) anew, about 0.27 s of CPU per row. Script shebangs and
activate scripts that still name the build folder are rewritten to the bind path (`layers.rehome`). The
base interpreter's installation is bound read-only beside the venv when it lies outside the system
directories. With ``root`` the venv is made inside the build sandbox, with the root's ``/usr/bin/python3``,
directly at its final path.

Requirements: the ``requirements`` strings, ``-r requirements_file``, a ``lock`` (installed with
``--no-deps``: it must pin everything) and, with ``install_project``, the dependencies and ``extras`` the
project's pyproject.toml declares (read statically; ``dynamic`` dependencies are refused).
"""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path

from reqbench.core.environments.buildbox import Box, run_in_box
from reqbench.core.environments.interpreters import base_interpreter, interpreter_prefix
from reqbench.core.environments.layers import Layer, rehome, run_logged
from reqbench.core.environments.model import PYTHON_MOUNT, PythonSpec, resolved_file
from reqbench.core.environments.venvs import write_venv
from reqbench.core.errors import InputError

_INPUTS = "/opt/reqbench-inputs"
_UV_INSIDE = "/opt/reqbench-uv/uv"
_SYSTEM_PREFIXES = ("/usr/", "/bin/", "/lib/", "/lib64/")


def find_uv() -> str | None:
    """The uv binary: the one of the installed ``uv`` package, else ``uv`` on PATH."""
    try:
        import uv  # type: ignore[import-untyped,unused-ignore]

        found = str(uv.find_uv_bin())
        if os.path.isfile(found):
            return found
    except (ImportError, FileNotFoundError):
        pass
    return shutil.which("uv")


def project_requirements(pyproject: Path, extras: list[str], origin: str) -> list[str]:
    """``[project].dependencies`` plus the named optional groups of `pyproject`."""
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"cannot read {pyproject}: {exc}", file=origin, item="environment.python.project") from exc
    if "dependencies" in project.get("dynamic", []):
        raise InputError("the project's dependencies are dynamic; list them in requirements instead",
                         file=origin, item="environment.python.install_project")
    deps = list(project.get("dependencies", []))
    groups = project.get("optional-dependencies", {})
    for extra in extras:
        if extra not in groups:
            raise InputError(f"the project declares no extra {extra!r} (known: {', '.join(sorted(groups)) or 'none'})",
                             file=origin, item="environment.python.extras")
        deps += groups[extra]
    return [str(d) for d in deps]


def _install_args(spec: PythonSpec, base: Path, origin: str, place: dict[Path, str] | None) -> tuple[list[str], bool]:
    """(arguments after ``pip install``, whether the lock asks for --no-deps). `place` maps host files to
    in-sandbox paths when installing inside the build sandbox (filled here)."""

    def name(rel: str, item: str) -> str:
        path = resolved_file(base, rel, origin=origin, item=item)
        if place is None:
            return str(path)
        place[path] = f"{_INPUTS}/{len(place)}-{path.name}"
        return place[path]

    args = list(spec.requirements)
    if spec.requirements_file:
        args += ["-r", name(spec.requirements_file, "environment.python.requirements_file")]
    if spec.install_project:
        pyproject = resolved_file(base, str(Path(spec.project) / "pyproject.toml"), origin=origin,
                                  item="environment.python.project")
        args += project_requirements(pyproject, spec.extras, origin)
    no_deps = False
    if spec.lock:
        if args:
            raise InputError("a lock installs with --no-deps and must pin everything; do not combine it with "
                             "requirements, requirements_file or install_project", file=origin,
                             item="environment.python.lock")
        args, no_deps = ["-r", name(spec.lock, "environment.python.lock")], True
    return args, no_deps


def build_python(spec: PythonSpec, base: Path, folder: Path, *, origin: str, root: Path | None, log: Path) -> Layer:
    """Fill `folder` (empty, to be bound at ``/opt/reqbench-env/python``) with the venv `spec` declares."""
    layer = Layer(name=folder.name, mount=PYTHON_MOUNT, path_prefix=[f"{PYTHON_MOUNT}/bin"],
                  env={"VIRTUAL_ENV": PYTHON_MOUNT}, python=f"{PYTHON_MOUNT}/bin/python")
    uv = find_uv() if spec.installer == "uv" else None
    if spec.installer == "uv" and uv is None:
        raise InputError("installer uv is not available (pip install uv, or choose installer: pip)",
                         file=origin, item="environment.python.installer")
    if spec.interpreter == "root":
        _build_in_root(spec, base, folder, origin=origin, root=root, uv=uv, log=log)
        return layer
    exe = base_interpreter(spec.interpreter)
    prefix = str(interpreter_prefix(exe))
    if root is not None and any((prefix + "/").startswith(p) for p in _SYSTEM_PREFIXES):
        raise InputError(f"the host interpreter under {prefix} cannot run inside a debian/image root; use "
                         "interpreter: root", file=origin, item="environment.python.interpreter")
    if not any((prefix + "/").startswith(p) for p in _SYSTEM_PREFIXES):
        layer.host_binds.append(prefix)
    args, no_deps = _install_args(spec, base, origin, None)
    tail = (["--no-deps"] if no_deps else []) + args
    if uv is not None:
        write_venv(folder, exe, PYTHON_MOUNT)
        if tail:
            run_logged([uv, "pip", "install", "--quiet", "--compile-bytecode", "--python",
                        str(folder / "bin" / "python"), *tail], what="environment.python", log=log)
    else:
        run_logged([str(exe), "-m", "venv", str(folder)], what="environment.python", log=log)
        if tail:
            run_logged([str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", *tail], what="environment.python", log=log)
    rehome(folder, str(folder), PYTHON_MOUNT)
    return layer


def _build_in_root(spec: PythonSpec, base: Path, folder: Path, *, origin: str, root: Path | None,
                   uv: str | None, log: Path) -> None:
    assert root is not None  # the model refuses 'root' without a root
    if not (root / "usr" / "bin" / "python3").exists():
        raise InputError("the root file system has no /usr/bin/python3 (add python3 and python3-venv to "
                         "debian.packages)", file=origin, item="environment.python.interpreter")
    place: dict[Path, str] = {}
    args, no_deps = _install_args(spec, base, origin, place)
    tail = (["--no-deps"] if no_deps else []) + args
    binds = [(path, inside) for path, inside in place.items()]
    if uv is not None:
        binds.append((Path(uv), _UV_INSIDE))
        steps = [[_UV_INSIDE, "venv", "--quiet", "--relocatable", "--python", "/usr/bin/python3", PYTHON_MOUNT]]
        if tail:
            steps.append([_UV_INSIDE, "pip", "install", "--quiet", "--compile-bytecode", "--python",
                          f"{PYTHON_MOUNT}/bin/python", *tail])
    else:
        steps = [["/usr/bin/python3", "-m", "venv", PYTHON_MOUNT]]
        if tail:
            steps.append([f"{PYTHON_MOUNT}/bin/python", "-m", "pip", "install", "--quiet", *tail])
    box = Box(root=root, layers=((folder, PYTHON_MOUNT),), ro_binds=tuple(binds),
              env={"UV_CACHE_DIR": "/tmp/uv-cache"})
    for step in steps:
        run_in_box(box, step, what="environment.python", log=log)
