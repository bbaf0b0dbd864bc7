"""Which base interpreter a venv is built on, and what of the host must be visible for it to run.

``host`` is the interpreter reqbench itself runs on (its base, not reqbench's own venv); a version such
as ``3.12`` is ``python3.12`` on the host's PATH; an absolute path is taken as written. ``root`` lives in the
environment's root file system and is resolved inside it (`python_layer`).

What PATH or a path names may be a launcher (a pyenv shim, a wrapper script) rather than an interpreter:
a venv linked to it would run the interpreter behind it with that interpreter's own prefix, so packages
meant for the environment would be installed into the host's interpreter. A venv is therefore always made
on the executable the interpreter reports for itself (`sys.executable`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

from reqbench.core.errors import InputError


def base_interpreter(interpreter: str) -> Path:
    """The resolved executable of `interpreter` ('host', a version or an absolute path)."""
    if interpreter == "host":
        exe = getattr(sys, "_base_executable", None) or sys.executable
        return Path(os.path.realpath(exe))
    if interpreter.startswith("/"):
        path = Path(interpreter)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise InputError(f"interpreter {interpreter} is not an executable file",
                             item="environment.python.interpreter")
        return own_executable(Path(os.path.realpath(path)))
    found = shutil.which(f"python{interpreter}")
    if found is None:
        raise InputError(f"no python{interpreter} on PATH; install it or name an interpreter by its path",
                         item="environment.python.interpreter")
    return own_executable(Path(os.path.realpath(found)))


@cache
def own_executable(launcher: Path) -> Path:
    """The resolved interpreter `launcher` runs: itself, or what a launcher such as a pyenv shim starts."""
    try:
        out = subprocess.run([str(launcher), "-I", "-S", "-c", "import sys; print(sys.executable)"],
                             capture_output=True, text=True, timeout=60, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        said = (getattr(exc, "stderr", None) or "").strip()[-300:]
        raise InputError(f"cannot run interpreter {launcher}: {exc}" + (f" ({said})" if said else ""),
                         item="environment.python.interpreter") from exc
    if not out or not os.path.isabs(out):
        raise InputError(f"interpreter {launcher} reports no executable of its own",
                         item="environment.python.interpreter")
    return Path(os.path.realpath(out))


def interpreter_prefix(exe: Path) -> Path:
    """The installation prefix of `exe` (``sys.base_prefix`` as that interpreter reports it)."""
    if exe == base_interpreter("host"):
        return Path(sys.base_prefix)
    try:
        out = subprocess.run([str(exe), "-I", "-S", "-c", "import sys; print(sys.base_prefix)"], capture_output=True,
                             text=True, timeout=60, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"cannot run interpreter {exe}: {exc}", item="environment.python.interpreter") from exc
    return Path(out)
