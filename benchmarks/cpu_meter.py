"""`CpuMeter`: the CPU time of a whole command's process tree, the processes in bubblewrap's namespaces
included, measured by a cgroup the command joins before it starts anything.

On a loaded machine a wall-clock figure moves with whatever else runs (at load 8 on 2 cores a process
gets a quarter of a core), while the CPU time a command needs moves far less: it is the work done. A
child's ``getrusage`` misses the processes a sandbox's PID-namespace init reaps after its parent left, so
the meter counts through a cgroup instead: cgroup v1 ``cpuacct.usage`` or v2 ``cpu.stat`` (``usage_usec``).
Where no such group can be made (no permission, no controller), `CpuMeter.make` returns None and the
benchmarks print wall-clock figures only.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class CpuMeter:
    """One cgroup counting the CPU time of every process started through `prefix` (see module docstring)."""

    def __init__(self, path: Path, version: int) -> None:
        self.path, self.version = path, version
        self._last = self._usage()

    @classmethod
    def make(cls) -> CpuMeter | None:
        own = {}
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, where = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                own[name] = where
        for line in Path("/proc/self/mounts").read_text().splitlines():
            fields = line.split()
            if len(fields) < 4:
                continue
            mount = Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1]))
            if fields[2] == "cgroup" and "cpuacct" in fields[3].split(","):
                version, where = 1, own.get("cpuacct", "/")
            elif fields[2] == "cgroup2":
                version, where = 2, own.get("", "/")
            else:
                continue
            path = mount / where.lstrip("/") / f"bench-cpu-{os.getpid()}"
            try:
                path.mkdir()
            except OSError:
                continue
            return cls(path, version)
        return None

    def prefix(self) -> list[str]:
        """argv prefix that moves the command into the group before it execs."""
        return ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', str(self.path)]

    def _usage(self) -> float:
        if self.version == 1:
            return int((self.path / "cpuacct.usage").read_text()) / 1e9
        for line in (self.path / "cpu.stat").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
        return 0.0

    def take(self) -> float:
        """CPU seconds used by the group's processes since the last `take` (they have all ended)."""
        now = self._usage()
        used, self._last = now - self._last, now
        return used

    def close(self) -> None:
        try:
            self.path.rmdir()
        except OSError:
            pass


@contextmanager
def meter_closed(meter: CpuMeter | None) -> Iterator[CpuMeter | None]:
    """`meter`, its group removed when the block ends however it ends."""
    try:
        yield meter
    finally:
        if meter is not None:
            meter.close()
