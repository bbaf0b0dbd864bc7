"""The build's own sandbox: where set-up commands, root-interpreter installs and ``reqbench env shell`` run.

bubblewrap with the network on (building is the only time an environment sees a network), a fresh PID,
IPC and UTS namespace, a private ``/tmp``, ``/dev`` and ``/proc``. A build run by root keeps only
`BUILD_CAPABILITIES` (package managers change owners and switch users); a shell and any build by another
user get a user namespace and no capabilities. ``/`` is the environment's root file system when it has one
(writable while building), else the host's system directories read-only; the environment's layers are
bound at their in-sandbox paths (writable while building). Nothing else of the host is visible: not the
reqbench cache, not the suite, not HOME. The variables are an allow-list (PATH, HOME, LANG, proxies and
certificates for the package registries).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.errors import HarnessError, InputError

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
STANDARD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
BUILD_CAPABILITIES = ("CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_SETUID", "CAP_SETGID",
                      "CAP_SETFCAP", "CAP_SETPCAP", "CAP_KILL", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT",
                      "CAP_AUDIT_WRITE")
"""What a build running as root keeps (a container engine's default set less raw sockets and device nodes):
enough for apt/dpkg to change owners and drop to their own users, never mounts or kernel changes."""
HOST_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
BUILD_CA_BUNDLE = "/opt/reqbench-build/ca-certificates.crt"
"""Where the host's certificate bundle appears in a root while it builds (removed afterwards)."""
_CA_VARIABLES = ("SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS")
_PASSED_VARIABLES = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
                     "SSL_CERT_FILE", "PIP_INDEX_URL", "UV_INDEX_URL", "npm_config_registry", "TERM")


@dataclass(frozen=True)
class Box:
    """What a build sandbox shows: a root (or None for the host's system dirs), layers and extra binds."""

    root: Path | None
    layers: tuple[tuple[Path, str], ...] = ()
    """(host folder, in-sandbox path) bound writable while building, read-only for a shell."""
    ro_binds: tuple[tuple[Path, str], ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    network: bool = True
    writable: bool = True


def bwrap() -> str:
    """The bubblewrap binary, or an `InputError` saying builds need it."""
    exe = shutil.which("bwrap")
    if exe is None:
        raise InputError("building this environment runs commands in a bubblewrap sandbox, and bwrap is not "
                         "installed (apt-get install bubblewrap)", item="environment")
    return exe


def box_args(box: Box, *, cwd: str = "/", extra: Sequence[tuple[Path, str]] = ()) -> list[str]:
    """The bwrap command line (without the command) for `box`."""
    args = [bwrap(), "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--hostname", "reqbench-build", "--cap-drop", "ALL"]
    if box.writable and os.geteuid() == 0:
        for cap in BUILD_CAPABILITIES:  # package managers change owners and drop privileges while installing
            args += ["--cap-add", cap]
    else:
        args.append("--unshare-user-try")
    if not box.network:
        args.append("--unshare-net")
    if box.root is not None:
        args += ["--bind" if box.writable else "--ro-bind", str(box.root), "/"]
    else:
        for name in SYSTEM_DIRS:
            path = Path(name)
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), name]
            elif path.is_dir():
                args += ["--ro-bind", name, name]
    args += ["--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--tmpfs", "/tmp"]
    certificates: dict[str, str] = {}
    if box.root is not None and box.network:
        if Path("/etc/resolv.conf").exists():
            args += ["--ro-bind", str(Path("/etc/resolv.conf").resolve()), "/etc/resolv.conf"]
        bundle = Path(os.environ.get("SSL_CERT_FILE") or HOST_CA_BUNDLE)
        if bundle.is_file():  # the host's trust (a registry proxy's CA) reaches the root's package tools
            args += ["--ro-bind", str(bundle.resolve()), BUILD_CA_BUNDLE]
            certificates = {name: BUILD_CA_BUNDLE for name in _CA_VARIABLES}
    for host, inside in box.layers:
        args += ["--bind" if box.writable else "--ro-bind", str(host), inside]
    for host, inside in (*box.ro_binds, *extra):
        args += ["--ro-bind", str(host), inside]
    args += ["--chdir", cwd, "--clearenv"]
    variables = {"PATH": STANDARD_PATH, "HOME": "/tmp", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}
    variables.update({k: os.environ[k] for k in _PASSED_VARIABLES if k in os.environ})
    variables.update(certificates)
    variables.update(box.env)
    for name, value in variables.items():
        args += ["--setenv", name, value]
    return args


def run_in_box(box: Box, command: Sequence[str], *, what: str, log: Path | None = None,
               timeout: float = 3600) -> None:
    """Run `command` in `box`; a non-zero exit is an `InputError` naming `what` with the output's tail."""
    argv = [*box_args(box), "--", *command]
    try:
        proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise InputError(f"did not finish within {timeout:.0f} s", item=what) from exc
    except OSError as exc:
        raise HarnessError(f"cannot start the build sandbox: {exc}") from exc
    if log is not None:
        with open(log, "ab") as fh:
            fh.write(b"$ " + " ".join(command).encode() + b"\n" + proc.stdout)
    if proc.returncode != 0:
        tail = proc.stdout.decode(errors="replace").strip().splitlines()[-5:]
        raise InputError(f"failed with exit code {proc.returncode}: " + " | ".join(tail), item=what)


def built_box(root: Path | None, binds: Sequence[tuple[Path, str]], env: Mapping[str, str]) -> Box:
    """A read-only, offline box showing a built environment (for ``reqbench env shell`` and tests)."""
    return Box(root=root, layers=tuple(binds), env=dict(env), network=False, writable=False)
