"""Per-command cgroups: where the harness can make one, and the group one sandboxed process tree lives in.

**Where** (`parents`, decided once per process from ``/proc/self/mounts`` and ``/proc/self/cgroup``): a
controller mounted as a cgroup v1 hierarchy (``/sys/fs/cgroup/pids``, ``/sys/fs/cgroup/memory``) gets
its own group there; the controllers of the v2 hierarchy share one group, because a process is in
exactly one v2 cgroup (there the controller must be enabled in the parent's ``cgroup.subtree_control``).
The group is made below the harness's *own* cgroup of that hierarchy, else below the nearest ancestor
where it can be, so whatever limit the machine's operator put on the harness still bounds every tree it
starts; the hierarchy's root is the last resort.

**The group** (`Group`): its limits are written before any process joins it; a process joins it
itself, before it execs the sandbox (`limits.TreeLimits.prefix`), so nothing it starts runs outside.
When the command ends every member is killed and the group removed (`Group.remove`), after its OOM
kill count was read (`Group.oom_kills`: v1 ``memory.oom_control``, v2 ``memory.events``; not
``memory.failcnt``, which also counts every reclaim at the limit, e.g. the page cache of a checkout).

**Sealed** (`Group.seal`): bubblewrap shows no ``/sys``, but a process may create a user namespace of its
own, with a cgroup namespace rooted at its group, and mount cgroupfs there; the group's files would
then be writable by it (the files belong to root, and the sandbox runs as the harness's uid, root).
The harness therefore gives the group and its files to an id the sandbox does not have (`SEALED_ID`),
which leaves the sandbox neither owner nor privileged over them: it can raise no limit, move no process
and make no sub-group.
"""

from __future__ import annotations

import logging
import os
import re
import select
import signal
import time
import uuid
from dataclasses import dataclass
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)

SEALED_ID = 65534
"""uid/gid the group's files are given to when the harness runs as root (the kernel's overflow id)."""
KILL_PATIENCE_SECONDS = 2.0
"""How long `Group.kill_all` keeps killing before it gives up on the group."""
KILL_ROUND_SECONDS = 0.02
"""The longest `Group.kill_all` waits for the members it killed before it reads the group again."""
_WRITABLE: dict[tuple[int, tuple[str, ...]], list[str]] = {}
"""(version, controllers) -> the writable files of such a group (`Group.seal`)."""
_UNLIMITED_V1 = 1 << 62
"""v1 reports "no limit" as a page-rounded LONG_MAX; anything from here up is no limit."""


@dataclass(frozen=True)
class Mount:
    path: Path
    version: int
    options: frozenset[str]
    """v1: the mount options (controller names among them)."""


@dataclass(frozen=True)
class Parent:
    """A directory per-command groups are made in, and which wanted controllers they get there."""

    path: Path
    version: int
    controllers: tuple[str, ...]
    mount: Path


def parse_mounts(text: str) -> list[Mount]:
    """The cgroup (v1) and cgroup2 mounts of a ``/proc/self/mounts`` text."""
    out = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
            path = Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1]))  # \040
            out.append(Mount(path, 2 if fields[2] == "cgroup2" else 1, frozenset(fields[3].split(","))))
    return out


def parse_own(text: str) -> dict[str, str]:
    """Controller -> the harness's cgroup path, from a ``/proc/self/cgroup`` text ("" is the v2 one)."""
    own: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for name in parts[1].split(",") if parts[1] else [""]:
                own.setdefault(name, parts[2])
    return own


def chain(mount: Path, own: str) -> list[Path]:
    """`own` (a cgroup path) below `mount`, then each ancestor up to the mount itself."""
    parts = [p for p in own.split("/") if p not in ("", ".", "..")]
    return [mount.joinpath(*parts[:n]) for n in range(len(parts), -1, -1)]


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _can_make_groups(path: Path) -> bool:
    probe = path / f"reqbench-probe-{uuid.uuid4().hex[:8]}"
    try:
        probe.mkdir()
        probe.rmdir()
    except OSError:
        return False
    return True


def find_parents(mounts: list[Mount], own: dict[str, str], wanted: tuple[str, ...]) -> list[Parent]:
    """Where per-command groups for the `wanted` controllers can be made (see the module docstring)."""
    found: list[Parent] = []
    in_v2 = []
    for name in wanted:
        v1 = next((m for m in mounts if m.version == 1 and name in m.options), None)
        if v1 is None:
            in_v2.append(name)
            continue
        place = next((d for d in chain(v1.path, own.get(name, "/")) if d.is_dir() and _can_make_groups(d)),
                     None)
        if place is not None:
            found.append(Parent(place, 1, (name,), v1.path))
    v2 = next((m for m in mounts if m.version == 2), None)
    if v2 is not None and in_v2:
        for d in chain(v2.path, own.get("", "/")):
            enabled = tuple(c for c in in_v2 if c in _read(d / "cgroup.subtree_control").split())
            if enabled and _can_make_groups(d):
                found.append(Parent(d, 2, enabled, v2.path))
                break
    return found


@cache
def parents(wanted: tuple[str, ...] = ("pids", "memory")) -> tuple[Parent, ...]:
    """`find_parents` for this process (cached: the machine's hierarchies do not change under it); the
    groups a killed harness left there are swept once (`sweep_stale`)."""
    found = find_parents(parse_mounts(_read(Path("/proc/self/mounts"))),
                         parse_own(_read(Path("/proc/self/cgroup"))), wanted)
    for parent in found:
        gone = sweep_stale(parent)
        if gone:
            log.info("removed %d empty cgroups a killed harness left in %s", len(gone), parent.path)
    for name in wanted:
        where = next((p for p in found if name in p.controllers), None)
        if where is None:
            log.info("no writable %s cgroup: sandboxed process trees get no %s cgroup", name, name)
        else:
            log.debug("%s cgroups of sandboxed trees are made in %s (v%d)", name, where.path, where.version)
    return tuple(found)


STALE_SECONDS = 600.0
"""An empty per-command group older than this was left by a harness that died: a live group is joined
within milliseconds of being made and removed when its command ends."""
_GROUP_NAME = re.compile(r"reqbench-[0-9a-f]{32}")


def sweep_stale(parent: Parent, now: float | None = None) -> list[str]:
    """Remove the per-command groups a killed harness left below `parent`: named like ours, without a
    member process, made more than `STALE_SECONDS` ago. Returns the names removed (the kernel refuses
    to remove a group that has members or sub-groups, so a live one is never lost)."""
    now = time.time() if now is None else now
    removed: list[str] = []
    try:
        entries = list(os.scandir(parent.path))
    except OSError:
        return removed
    for entry in entries:
        if not _GROUP_NAME.fullmatch(entry.name) or not entry.is_dir(follow_symlinks=False):
            continue
        procs = Path(entry.path) / "cgroup.procs"
        try:
            if now - entry.stat(follow_symlinks=False).st_mtime < STALE_SECONDS or procs.read_text().strip():
                continue
            os.rmdir(entry.path)
        except OSError:
            continue
        removed.append(entry.name)
    return removed


def _kill(pid: int) -> int | None:
    """SIGKILL `pid` through a pidfd, which is returned for `_wait_exited` (None: no pidfd here, or the
    process is already gone; it is then killed by pid, or not at all)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return None  # gone (the group will no longer list it)
    except (AttributeError, OSError):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        return None
    try:
        signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError:
        pass  # it exited between the two calls: its pidfd is readable already
    return fd


def _wait_exited(fds: list[int], seconds: float) -> None:
    """Wait until every pidfd in `fds` is readable (its process exited), at most `seconds`."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    waiting, deadline = len(fds), time.monotonic() + seconds
    while waiting:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        for fd, _ in poller.poll(max(1, int(left * 1000))):
            poller.unregister(fd)
            waiting -= 1


def memory_ceiling(parent: Parent) -> int | None:
    """The lowest memory limit on `parent` and its ancestors (None: none), which bounds its groups too."""
    name = "memory.limit_in_bytes" if parent.version == 1 else "memory.max"
    values = []
    for d in chain(parent.mount, str(parent.path.relative_to(parent.mount))):
        text = _read(d / name).strip()
        if text.isdigit() and int(text) < _UNLIMITED_V1:
            values.append(int(text))
    return min(values) if values else None


@dataclass
class Group:
    """One cgroup of one sandboxed command (see the module docstring)."""

    path: Path
    version: int
    controllers: tuple[str, ...]

    @classmethod
    def make(cls, parent: Parent, *, pids: int | None, memory: int | None) -> Group | None:
        """A new group below `parent` with the given caps of its controllers, sealed; None (logged) when
        the kernel refuses."""
        group = cls(parent.path / f"reqbench-{uuid.uuid4().hex}", parent.version, parent.controllers)
        try:
            group.path.mkdir()
        except OSError as exc:
            log.info("cannot create a cgroup below %s (%s)", parent.path, exc)
            return None
        try:
            group._limit(pids, memory)
            group.seal()
        except OSError as exc:
            log.info("cannot set up the cgroup %s (%s)", group.path, exc)
            group.remove()
            return None
        return group

    def _limit(self, pids: int | None, memory: int | None) -> None:
        if "pids" in self.controllers and pids is not None:
            (self.path / "pids.max").write_text(str(pids))
        if "memory" in self.controllers and memory is not None:
            if self.version == 1:
                (self.path / "memory.limit_in_bytes").write_text(str(memory))
                (self.path / "memory.oom_control").write_text("0")  # kill at the cap, even where a parent
                # has its OOM killer off (a v1 group inherits that, and its tree would hang at the cap)
                swap = self.path / "memory.memsw.limit_in_bytes"  # memory + swap: no escape into swap
            else:
                (self.path / "memory.max").write_text(str(memory))
                swap = self.path / "memory.swap.max"
            if swap.exists():
                swap.write_text(str(memory) if self.version == 1 else "0")

    def seal(self) -> None:
        """Give the group and its files to `SEALED_ID` (root only; see the module docstring)."""
        if os.geteuid() != 0:
            return
        fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.chown(fd, SEALED_ID, SEALED_ID)
            key = (self.version, self.controllers)
            if key not in _WRITABLE:  # every group of a hierarchy has the same files: list them once
                _WRITABLE[key] = [name for name in os.listdir(fd)
                                  if os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode & 0o222]
            for name in _WRITABLE[key]:  # a read-only file has no write handler, whoever owns it
                os.chown(name, SEALED_ID, SEALED_ID, dir_fd=fd, follow_symlinks=False)
        finally:
            os.close(fd)

    @property
    def procs(self) -> Path:
        return self.path / "cgroup.procs"

    def oom_kills(self) -> int:
        """How many members the kernel's OOM killer killed for this group's memory limit."""
        if "memory" not in self.controllers:
            return 0
        text = _read(self.path / ("memory.oom_control" if self.version == 1 else "memory.events"))
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0

    def kill_all(self) -> None:
        """SIGKILL every member until none is left.

        Each round kills the members listed and then waits for exactly them to exit, on their pidfds
        (the kernel wakes the wait the moment the last one is gone; a sandbox's PID-namespace init is
        usually still exiting when its command has ended), at most `KILL_ROUND_SECONDS`, before the
        group is read again for members started meanwhile. Without pidfds it sleeps 1, 2, 4 ... ms."""
        deadline = time.monotonic() + KILL_PATIENCE_SECONDS
        pause = 0.001
        while True:
            try:
                pids = [int(p) for p in self.procs.read_text().split()]
            except OSError:
                return
            left = deadline - time.monotonic()
            if not pids or left <= 0:
                return
            fds = [fd for fd in map(_kill, pids) if fd is not None]
            try:
                if len(fds) == len(pids):
                    _wait_exited(fds, min(left, KILL_ROUND_SECONDS))
                else:  # a member without a pidfd: a short sleep, then longer
                    time.sleep(min(pause, left))
                    pause = min(pause * 2, KILL_ROUND_SECONDS)
            finally:
                for fd in fds:
                    os.close(fd)

    def remove(self) -> None:
        """Kill what is left and remove the group (a warning when the kernel keeps it)."""
        self.kill_all()
        try:
            self.path.rmdir()
        except FileNotFoundError:
            pass
        except OSError as exc:
            log.warning("could not remove cgroup %s: %s", self.path, exc)
