"""Where rows' scratch trees live: in memory where the machine offers it, else the run directory.

A row makes and removes a few dozen directories and files: two workspaces, the check's scratch tree,
the sandbox's private HOME and TMPDIR. On a disk file system each costs 0.05-0.5 ms of journalled
metadata work, in a tmpfs a few microseconds, and at ~0.2 s of verifier time per row that difference
is most of the harness's share (``benchmarks/bench_specpath_overhead.py``). So a run's attempt
directories live in `run_scratch(run_dir)`, below `scratch_base()`:

* ``$REQBENCH_SCRATCH`` when set: a directory, or ``run`` for the run directory's ``work/`` (as before);
* else ``/dev/shm/reqbench-<uid>`` when ``/dev/shm`` is a tmpfs with at least `MIN_FREE_BYTES` free;
* else the run directory's ``work/``.

Safety: ``/dev/shm`` is writable by every user, so the base is made private (mode 0700) and checked on
every use (a real directory, not a link, owned by this user, mode 0700); one someone else prepared is
refused, and the run directory is used instead. A sandbox never sees the host's ``/dev/shm`` (each has
a private one), only the workspace bound into it. Memory: workspaces of large repositories are overlays
where available (only what is written is stored), and the pages a sandboxed process writes count
against its memory cap (`core.sandbox.limits`). Each run has its own folder, named after its run
directory and the process running it (`core.tempdirs`), so the scratch a killed run left behind is
removed by the next reqbench process that works there (a run sweeps the base when it starts), never
while its process lives.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.hashing import sha256_text

MIN_FREE_BYTES = 2 * 1024**3
SHM = Path("/dev/shm")
RUN_SCRATCH = "work"
"""The run directory's own scratch folder (also `RunOptions.work_dir` for protocols' caches)."""


def _is_tmpfs(path: Path) -> bool:
    try:
        mounts = Path("/proc/self/mounts").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(len(f) > 2 and f[1] == str(path) and f[2] == "tmpfs" for f in map(str.split, mounts.splitlines()))


def private_dir(path: Path) -> bool:
    """Make `path` (mode 0700) if missing; True iff it is a real directory owned by this user with mode 0700."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return False
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) == 0o700


def scratch_base() -> Path | None:
    """The private base of every run's scratch (see the module docstring), or None for the run directory."""
    wanted = os.environ.get("REQBENCH_SCRATCH", "").strip()
    if wanted == "run":
        return None
    if wanted:
        base = Path(wanted).absolute()
        base.parent.mkdir(parents=True, exist_ok=True)
    else:
        try:
            usable = SHM.is_dir() and _is_tmpfs(SHM) and os.access(SHM, os.W_OK | os.X_OK)
            free = os.statvfs(SHM).f_bavail * os.statvfs(SHM).f_frsize if usable else 0
        except OSError:
            return None
        if free < MIN_FREE_BYTES:
            return None
        base = SHM / f"reqbench-{os.geteuid()}"
    return base if private_dir(base) else None


def run_scratch(run_dir: Path) -> Path:
    """The scratch folder of the run in `run_dir`: its own folder below `scratch_base()`, named after the
    run directory and this process (`core.tempdirs.keyed`), or the run directory's ``work/``."""
    base = scratch_base()
    if base is None:
        return run_dir / RUN_SCRATCH
    return tempdirs.keyed("run", sha256_text(str(Path(run_dir).resolve()))[:16], base)
