"""Threat: a task that brings its own root file system (debian/image kinds) still shows the agent the
host's system directories (``/etc``, ``/usr``: the harness's configuration and tools), or lets the agent
change the root that later rows and the checks use.

A minimal root built by hand (dash, cat, stat, touch and their libraries, an ``/etc/os-release`` of its
own): launched in it, ``/etc`` and ``/usr`` are the root's, the host's are not reachable; read-only for a
check; an agent's overlay of it takes writes that vanish with the overlay; the built tree never changes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from reqbench.core.sandbox import run_sandboxed
from reqbench.core.sandbox.environment import EnvironmentMount
from reqbench.core.sandbox.envoverlay import EnvironmentOverlay
from tests.security.envbuild import tree_digest

TOOLS = ("dash", "cat", "stat", "touch")
MARKER = "ID=reqbench-test-root"


def _libraries(program: str) -> list[str]:
    out = subprocess.run(["ldd", program], capture_output=True, text=True, check=True).stdout
    return [w for line in out.splitlines() for w in line.split() if w.startswith("/")]


def _root(folder: Path) -> Path:
    root = folder / "root"
    for sub in ("usr/bin", "etc", "opt"):
        (root / sub).mkdir(parents=True)
    for name in ("bin", "lib", "lib64"):
        (root / name).symlink_to(f"usr/{name}")
    for tool in TOOLS:
        program = shutil.which(tool)
        if program is None:
            pytest.skip(f"{tool} is not installed")
        shutil.copy2(os.path.realpath(program), root / "usr" / "bin" / tool)
        for lib in _libraries(os.path.realpath(program)):
            real = os.path.realpath(lib)
            for name in {lib, real}:
                inside = root / "usr" / name.lstrip("/").removeprefix("usr/")
                inside.parent.mkdir(parents=True, exist_ok=True)
                if not inside.exists():
                    shutil.copy2(real, inside)
    (root / "usr" / "bin" / "sh").symlink_to("dash")
    (root / "etc" / "os-release").write_text(MARKER + "\n")
    return root


@pytest.fixture()
def root_mount(tmp_path: Path) -> EnvironmentMount:
    return EnvironmentMount("0" * 64, _root(tmp_path))


def test_the_roots_system_replaces_the_hosts(require_bwrap: None, tmp_path: Path,
                                             root_mount: EnvironmentMount) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    assert Path("/etc/passwd").is_file()  # the host has one; the root does not
    proc = run_sandboxed("cat /etc/os-release; cat /etc/passwd; ls /usr/bin/python3; echo done", ws,
                         environment=root_mount)
    out = proc.stdout.decode() + proc.stderr.decode()
    assert MARKER in out and "done" in out, out
    assert "root:x:0:0" not in out
    assert proc.start_error is None


def test_a_check_cannot_write_the_root_and_an_agents_writes_vanish(require_bwrap: None, tmp_path: Path,
                                                                   root_mount: EnvironmentMount) -> None:
    assert root_mount.root is not None
    before = tree_digest(root_mount.root)
    ws = tmp_path / "ws"
    ws.mkdir()
    ro = run_sandboxed("touch /etc/planted", ws, environment=root_mount)
    assert ro.exit_code != 0 and b"Read-only" in ro.stderr
    seen: list[bytes] = []

    def row() -> None:
        overlay = EnvironmentOverlay(root_mount, tmp_path / "row" / ".environment")
        try:
            mounted = overlay.mount()
            run_sandboxed("touch /etc/planted; echo x > /usr/bin/touch", ws, environment=mounted)
            proc = run_sandboxed("cat /etc/os-release /etc/planted /usr/bin/touch", ws, environment=mounted)
            seen.append(proc.stdout + proc.stderr)
        finally:
            overlay.close()

    thread = threading.Thread(target=row)
    thread.start()
    thread.join()
    overlaid = seen[0] == MARKER.encode() + b"\nx\n"  # its writes, in its row only
    assert overlaid or b"Read-only file system" in seen[0], seen
    assert tree_digest(root_mount.root) == before
    after = run_sandboxed("cat /etc/os-release; cat /etc/planted; touch --version", ws, environment=root_mount)
    assert MARKER.encode() in after.stdout and b"No such file" in after.stderr and b"touch (GNU" in after.stdout
