"""What building one part of an environment yields, and the shared helpers of the layer builders.

The build tools that run on the host (``uv pip install``, ``pip``, ``npm ci``, ``mmdebstrap``) run
third-party code: an sdist's build backend, an npm package's install scripts, a package's maintainer
scripts. The suite is trusted input; its dependencies are not. So those tools get `build_tool_environment`,
the harness's variables less every one named like a credential (`core.execute.credentials.is_credential_name`:
``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``REQBENCH_API_KEY``, ``GITHUB_TOKEN``, ``SSH_AUTH_SOCK``, ...),
while the package tools' own settings (``PIP_*``, ``UV_*``, ``npm_config_*``, ``NPM_TOKEN``,
``NODE_AUTH_TOKEN``: an index or registry the user configured, with its login) and proxies pass, since the
install needs them. A registry login the user gives the package tool is seen by what that tool installs, as
it is outside reqbench; a model provider's key never is.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.execute.credentials import is_credential_name

PACKAGE_TOOL_PREFIXES = ("PIP_", "UV_", "NPM_CONFIG_")
"""Settings of the package tools themselves (upper-cased before comparing), passed even when named like a
credential (``UV_INDEX_PASSWORD``, ``npm_config__authToken``)."""
PACKAGE_TOOL_NAMES = frozenset({"NPM_TOKEN", "NODE_AUTH_TOKEN"})
"""Registry logins an ``.npmrc`` conventionally reads (``//registry/:_authToken=${NPM_TOKEN}``)."""


def build_tool_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's variables) less every credential that is not a package tool's own."""
    source = os.environ if base is None else base
    return {name: value for name, value in source.items()
            if not is_credential_name(name) or name.upper().startswith(PACKAGE_TOOL_PREFIXES)
            or name.upper() in PACKAGE_TOOL_NAMES}


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
    """Run a build tool on the host with `build_tool_environment` (plus `env`, set by reqbench itself); a
    failure is an `InputError` naming `what` with the output's tail."""
    tool_env = build_tool_environment()
    tool_env.update(env or {})
    try:
        proc = subprocess.run(list(argv), cwd=cwd, env=tool_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
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
