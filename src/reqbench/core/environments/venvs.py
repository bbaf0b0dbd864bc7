"""A bare virtual environment written directly (PEP 405), for uv to install into.

What an interpreter needs to run as a venv is a ``pyvenv.cfg`` naming its ``home`` next to ``bin/``, the
``bin/python*`` links to the base interpreter and an empty ``lib/pythonX.Y/site-packages``; that is all
this writes (in about a millisecond; ``uv venv`` is a process start and a query of the interpreter). Every
path in it is either the base interpreter's or relative, so the folder works wherever it is bound. An
``activate`` script for interactive shells names the bind path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from pathlib import Path

from reqbench.core.errors import InputError

_ACTIVATE = """# source this file: the environment's interpreter first on PATH
VIRTUAL_ENV={mount}
export VIRTUAL_ENV
PATH="$VIRTUAL_ENV/bin:$PATH"
export PATH
"""


@cache
def interpreter_version(exe: Path) -> tuple[int, int, int]:
    """(major, minor, micro) of interpreter `exe` (this process's own base needs no process)."""
    if Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable))) == exe:
        return sys.version_info[0], sys.version_info[1], sys.version_info[2]
    try:
        out = subprocess.run([str(exe), "-I", "-S", "-c", "import sys; print(*sys.version_info[:3])"],
                             capture_output=True, text=True, timeout=60, check=True).stdout.split()
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"cannot run interpreter {exe}: {exc}", item="environment.python.interpreter") from exc
    return int(out[0]), int(out[1]), int(out[2])


def write_venv(folder: Path, exe: Path, mount: str) -> None:
    """Make `folder` (existing, empty) a venv of base interpreter `exe`, to be bound at `mount`."""
    major, minor, micro = interpreter_version(exe)
    (folder / "pyvenv.cfg").write_text(
        f"home = {exe.parent}\ninclude-system-site-packages = false\nversion = {major}.{minor}.{micro}\n"
        "relocatable = true\n", encoding="utf-8")
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    versioned = f"python{major}.{minor}"
    os.symlink(exe, bin_dir / versioned)
    for alias in ("python", f"python{major}"):
        os.symlink(versioned, bin_dir / alias)
    (bin_dir / "activate").write_text(_ACTIVATE.format(mount=mount), encoding="utf-8")
    (folder / "lib" / versioned / "site-packages").mkdir(parents=True)
    if sys.maxsize > 2**32 and os.name == "posix":
        os.symlink("lib", folder / "lib64")
