"""What building one part of an environment yields, and the shared helpers of the layer builders."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.errors import InputError


@dataclass
class Layer:
    """One built layer: its folder name in the environment, where it is bound, what it adds to the
    sandbox's variables and PATH, the interpreter it provides and the host folders it needs bound."""

    name: str
    mount: str
    path_prefix: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    python: str | None = None
    host_binds: list[str] = field(default_factory=list)


def run_logged(argv: Sequence[str], *, what: str, log: Path, cwd: Path | None = None,
               env: dict[str, str] | None = None, timeout: float = 3600) -> None:
    """Run a build tool on the host; a failure is an `InputError` naming `what` with the output's tail."""
    try:
        proc = subprocess.run(list(argv), cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise InputError(f"did not finish within {timeout:.0f} s", item=what) from exc
    except OSError as exc:
        raise InputError(f"cannot run {argv[0]}: {exc.strerror or exc}", item=what) from exc
    with open(log, "ab") as fh:
        fh.write(b"$ " + " ".join(argv).encode() + b"\n" + proc.stdout)
    if proc.returncode != 0:
        tail = proc.stdout.decode(errors="replace").strip().splitlines()[-5:]
        raise InputError(f"{Path(argv[0]).name} failed with exit code {proc.returncode}: " + " | ".join(tail),
                         item=what)


def rehome(folder: Path, old: str, new: str) -> None:
    """Replace the build-time path `old` by the in-sandbox path `new` in the small text files of
    ``folder/bin`` and ``pyvenv.cfg`` (script shebangs, activate scripts), so the layer runs where it is bound."""
    old_b, new_b = old.encode(), new.encode()
    candidates = [folder / "pyvenv.cfg"]
    bin_dir = folder / "bin"
    if bin_dir.is_dir():
        candidates += [p for p in bin_dir.iterdir() if p.is_file() and not p.is_symlink()]
    for path in candidates:
        if not path.is_file() or path.stat().st_size > 1 << 20:
            continue
        data = path.read_bytes()
        if b"\0" in data[:1024] or old_b not in data:
            continue
        mode = path.stat().st_mode
        tmp = path.with_name(path.name + ".rehome")
        tmp.write_bytes(data.replace(old_b, new_b))
        os.chmod(tmp, mode & 0o7777)
        os.replace(tmp, path)
