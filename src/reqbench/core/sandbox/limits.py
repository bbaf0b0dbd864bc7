"""Resource caps of a sandboxed process tree: a pids cgroup where the machine allows one, and rlimits.

A pids cgroup (cgroup v1 ``pids`` hierarchy, or v2 with the ``pids`` controller enabled at the root)
caps how many processes the tree may hold (a fork bomb hits EAGAIN, not the host) and lets the
harness kill every member when the command ends, whatever namespace tricks it tried. Where no
writable cgroup exists, the PID namespace alone ends the tree (bubblewrap) and the cap is absent;
`PidsCgroup.create` returns None and says so once in the log.

rlimits (through util-linux ``prlimit``, so nothing runs in the forked child before exec): no core
dumps, and a maximum file size so a single write cannot fill the disk.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import time
import uuid
from dataclasses import dataclass
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)

MAX_PIDS = int(os.environ.get("REQBENCH_SANDBOX_PIDS", "1024"))
MAX_FILE_BYTES = int(os.environ.get("REQBENCH_SANDBOX_FSIZE", str(4 * 1024**3)))
_V1 = Path("/sys/fs/cgroup/pids")
_V2 = Path("/sys/fs/cgroup")


@cache
def _cgroup_parent() -> Path | None:
    candidates = []
    if (_V1 / "cgroup.procs").exists():
        candidates.append(_V1)
    controllers = _V2 / "cgroup.subtree_control"
    if controllers.is_file() and "pids" in controllers.read_text().split():
        candidates.append(_V2)
    for parent in candidates:
        probe = parent / f"reqbench-probe-{uuid.uuid4().hex[:8]}"
        try:
            probe.mkdir()
            probe.rmdir()
            return parent
        except OSError:
            continue
    log.info("no writable pids cgroup: sandboxed process trees are not capped in size")
    return None


@dataclass
class PidsCgroup:
    """One cgroup for one sandboxed command (see module docstring)."""

    path: Path

    @classmethod
    def create(cls, max_pids: int = MAX_PIDS) -> PidsCgroup | None:
        parent = _cgroup_parent()
        if parent is None:
            return None
        path = parent / f"reqbench-{uuid.uuid4().hex}"
        try:
            path.mkdir()
            (path / "pids.max").write_text(str(max_pids))
        except OSError as exc:
            log.info("cannot create a pids cgroup (%s)", exc)
            try:
                path.rmdir()
            except OSError:
                pass
            return None
        return cls(path)

    def join_prefix(self) -> list[str]:
        """argv prefix that moves itself into the cgroup and then execs the rest (race-free)."""
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.path / "cgroup.procs")]

    def kill_all(self) -> None:
        """SIGKILL every member until none is left, then remove the cgroup."""
        procs = self.path / "cgroup.procs"
        pause, waited = 0.001, 0.0
        while waited < KILL_PATIENCE_SECONDS:
            try:
                pids = [int(p) for p in procs.read_text().split()]
            except OSError:
                break
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(pause)  # killed members leave within a few ms: wait short, then longer
            waited += pause
            pause = min(pause * 2, 0.02)
        try:
            self.path.rmdir()
        except OSError as exc:
            log.warning("could not remove cgroup %s: %s", self.path, exc)


KILL_PATIENCE_SECONDS = 2.0
"""How long `PidsCgroup.kill_all` keeps killing before it gives up on the cgroup."""


def rlimit_prefix() -> list[str]:
    """``prlimit`` argv prefix (empty where util-linux prlimit is missing)."""
    binary = shutil.which("prlimit")
    if binary is None:
        return []
    return [binary, "--core=0", f"--fsize={MAX_FILE_BYTES}", "--"]
