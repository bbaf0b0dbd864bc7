"""Resource caps of a sandboxed process tree, and the one exec that applies them (`TreeLimits`).

* **Processes**: a pids cgroup (`cgroups`) caps how many processes the tree may hold (a fork bomb hits
  EAGAIN, not the host): ``REQBENCH_SANDBOX_PIDS``, default 1024.
* **Memory**: a memory cgroup caps what the whole tree holds in memory (anonymous memory, tmpfs files
  such as its ``/tmp``, kernel memory), swap included (memsw / ``memory.swap.max``), so no tree can take
  the machine and every other row down; over the cap the kernel kills a member and the result says so
  (`ProcessResult.oom_killed`). The cap is ``SandboxOptions.memory_bytes``, else
  ``REQBENCH_SANDBOX_MEMORY`` (bytes, or with a K/M/G/T suffix; 0 turns it off), else `default_memory`:
  min(8 GiB, half the physical memory, half the lowest memory limit on the harness's own cgroup), so a
  tree can never take the harness's own room. Where no memory cgroup can be made, each process gets
  ``RLIMIT_DATA`` at the cap instead (said once in the log): weaker, as it caps each process rather than
  the tree (the pids cap bounds how many) and does not count shared or tmpfs memory, but it counts the
  heap and every private writable mapping. ``RLIMIT_AS`` would count address space merely reserved, and
  runtimes reserve far more than they use (V8 reserves a multi-GiB pointer cage, Go and the JVM their
  whole heap range, sanitizers terabytes of shadow): it breaks Node, Go and Java tools at any sane cap.
* **Core dumps** off (``RLIMIT_CORE`` 0) and **file size** capped (``RLIMIT_FSIZE``,
  ``REQBENCH_SANDBOX_FSIZE``, default 4 GiB), so a single write cannot fill the disk.
* **OOM preference**: the tree's ``oom_score_adj`` is raised to `OOM_SCORE_ADJ`, so when the machine
  itself runs out (many trees at once) the kernel kills sandboxed processes before the harness. Where the
  harness holds ``CAP_SYS_RESOURCE`` that is also the floor the tree cannot go below; elsewhere it can
  go back only as far as the harness's own floor.

All of it is applied by ONE ``/bin/sh`` exec in front of the sandbox (`TreeLimits.prefix`): the shell
writes its own pid into each group, sets the rlimits with the POSIX ``ulimit`` builtin (soft and hard)
and execs bubblewrap (or the command), so nothing the command starts runs outside the caps.
"""

from __future__ import annotations

import logging
import os
import re
import resource
import shlex
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

from reqbench.core.errors import InputError
from reqbench.core.sandbox import group_supply
from reqbench.core.sandbox.cgroups import Group, Parent, memory_ceiling, parents

log = logging.getLogger(__name__)

MEMORY_ENV = "REQBENCH_SANDBOX_MEMORY"
MEMORY_CEILING_BYTES = 8 * 1024**3
"""The default memory cap never exceeds this (see `default_memory`)."""
OOM_SCORE_ADJ = 500
_SUFFIX = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_SIZE_RE = re.compile(r"\s*(\d+)\s*([KMGT]?)(?:i?B)?\s*", re.IGNORECASE)


def parse_size(text: str, *, item: str) -> int:
    """Bytes of ``123``, ``512M``, ``8G``, ``8GiB`` (binary units); InputError naming `item` otherwise."""
    match = _SIZE_RE.fullmatch(text)
    if match is None:
        raise InputError(f"{text!r} is not a size (bytes, or a number with K, M, G or T)", item=item)
    return int(match.group(1)) * _SUFFIX[match.group(2).upper()]


def _env_pids(name: str, default: int) -> int:
    """``$NAME`` as a number of processes (at least 1), else `default`; InputError naming it otherwise."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or int(text) < 1:
        raise InputError(f"{text!r} is not a number of processes (a whole number, at least 1)", item=f"${name}")
    return int(text)


def _env_size(name: str, default: int) -> int:
    """``$NAME`` as a size (`parse_size`, above 0), else `default`."""
    text = os.environ.get(name, "").strip()
    size = parse_size(text, item=f"${name}") if text else default
    if size <= 0:
        raise InputError(f"{text!r} is not a size above 0", item=f"${name}")
    return size


MAX_PIDS = _env_pids("REQBENCH_SANDBOX_PIDS", 1024)
MAX_FILE_BYTES = _env_size("REQBENCH_SANDBOX_FSIZE", 4 * 1024**3)
"""``$REQBENCH_SANDBOX_FSIZE``: bytes, or with a K/M/G/T suffix (as ``$REQBENCH_SANDBOX_MEMORY``)."""


def format_size(n: int) -> str:
    """``209715200`` -> ``200 MiB`` (the largest binary unit that keeps one decimal at most)."""
    for unit, size in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            return f"{n / size:.1f}".removesuffix(".0") + f" {unit}"
    return f"{n} bytes"


def physical_memory() -> int:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


@cache
def default_memory() -> int:
    """The cap of a tree without an explicit one: ``$REQBENCH_SANDBOX_MEMORY`` (0: none), else min(8 GiB,
    half the physical memory, half the lowest memory limit on the harness's own cgroup)."""
    env = os.environ.get(MEMORY_ENV, "").strip()
    if env:
        return parse_size(env, item=f"${MEMORY_ENV}")
    bounds = [MEMORY_CEILING_BYTES, physical_memory() // 2]
    where = next((p for p in parents() if "memory" in p.controllers), None)
    ceiling = memory_ceiling(where) if where is not None else None
    if ceiling is not None:
        bounds.append(ceiling // 2)
    return min(bounds)


@cache
def _say_fallback(cap: int) -> None:
    log.info("no writable memory cgroup: each sandboxed process gets RLIMIT_DATA = %s instead of a cap "
             "on its whole tree (RLIMIT_AS would break runtimes that reserve address space)", format_size(cap))


def _clamped(resource_id: int, wanted: int) -> int:
    """`wanted`, or the harness's own hard limit where that is lower (the sandbox cannot be given more)."""
    hard = resource.getrlimit(resource_id)[1]
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


def _group_parents(memory_bytes: int | None) -> list[Parent]:
    """Where a tree with this memory cap (None: none) gets its groups: a memory-only hierarchy only with a cap."""
    return [p for p in parents() if p.controllers != ("memory",) or memory_bytes is not None]


def _memory_cap(memory_bytes: int | None) -> int | None:
    """The memory cap a tree asking for `memory_bytes` gets (None: `default_memory`; 0: none, as None)."""
    cap = default_memory() if memory_bytes is None else memory_bytes
    if cap < 0:
        raise InputError(f"{cap} is not a memory cap (bytes >= 0)", item="sandbox memory_bytes")
    return cap or None


def make_ahead(memory_bytes: int | None = None) -> None:
    """Have the groups of the next tree with this cap (None: `default_memory`) made in the background
    (`group_supply`), e.g. while the command plans, so even its first launch finds them made."""
    cap = _memory_cap(memory_bytes)
    for parent in _group_parents(cap):
        group_supply.prepare(parent, pids=MAX_PIDS, memory=cap)


@dataclass
class TreeLimits:
    """The caps of one sandboxed process tree and the cgroups that hold them (see module docstring)."""

    memory_bytes: int | None
    """The memory cap (None: none)."""
    memory_by: Literal["cgroup", "rlimit"] | None
    groups: list[Group] = field(default_factory=list)

    @classmethod
    def create(cls, memory_bytes: int | None = None) -> TreeLimits:
        """Groups for one tree (where the machine allows them) with the pids cap and `memory_bytes`
        (None: `default_memory`; 0: no memory cap)."""
        limits = cls(_memory_cap(memory_bytes), None)
        for parent in _group_parents(limits.memory_bytes):
            group = group_supply.take(parent, pids=MAX_PIDS, memory=limits.memory_bytes)
            if group is not None:
                limits.groups.append(group)
        if limits.memory_bytes is not None:
            if any("memory" in g.controllers for g in limits.groups):
                limits.memory_by = "cgroup"
            else:
                limits.memory_by = "rlimit"
                _say_fallback(limits.memory_bytes)
        return limits

    def prefix(self) -> list[str]:
        """argv prefix: one ``/bin/sh`` that joins every group, sets the rlimits and execs the rest."""
        steps = [f"echo $$ > {shlex.quote(str(g.procs))}" for g in self.groups]
        steps += ["ulimit -c 0",  # ulimit units: -f and -c 512-byte blocks, -d KiB (POSIX, dash, bash)
                  f"ulimit -f {_clamped(resource.RLIMIT_FSIZE, MAX_FILE_BYTES) // 512}"]
        if self.memory_by == "rlimit" and self.memory_bytes is not None:
            steps.append(f"ulimit -d {_clamped(resource.RLIMIT_DATA, self.memory_bytes) // 1024}")
        script = (f"{{ echo {OOM_SCORE_ADJ} > /proc/self/oom_score_adj; }} 2>/dev/null; "
                  + " && ".join([*steps, 'exec "$@"']))
        return ["/bin/sh", "-c", script, "sh"]

    def end(self) -> bool:
        """Kill every member, read the OOM counts, hand the emptied groups over for removal
        (`group_supply.retire`); True when the OOM killer killed a member for the memory cap (idempotent:
        False once ended)."""
        oom = False
        for group in self.groups:
            group.kill_all()
            oom = oom or group.oom_kills() > 0
            group_supply.retire(group)
        self.groups = []
        return oom
