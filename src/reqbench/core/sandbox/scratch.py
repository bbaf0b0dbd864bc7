"""HOME and TMPDIR of a launch: a size-limited tmpfs inside the sandbox, never a folder of the host.

A process the caller gives no scratch folder of its own (`SandboxOptions.scratch_dir`: every agent step,
preflight's version probe) gets, under bubblewrap, one tmpfs of `scratch_bytes` mounted at `INSIDE`,
holding its HOME (``/sandbox/home``) and TMPDIR (``/sandbox/tmp``). Nothing of it exists on the host: it
lives in the sandbox's mount namespace and vanishes with it, so there is nothing to remove and nothing a
killed harness can leave behind. Its pages are memory, charged to the tree's memory cap as well
(`limits`): the tree holds at most the smaller of the two.

Writing past the bound is ENOSPC for the writer. To say so in the result, the command runs under a
small shell epilogue (`with_epilogue`): when the command ends, it reports the tmpfs's free blocks on a
pipe only the harness reads (`Report`); a tree that ended with less than `FULL_MARGIN_BYTES` free filled
its scratch (`ProcessResult.scratch_full`). The process can write to that pipe too: it can only make
itself look full, never hide that it was (any report saying full counts).

The bound is ``$REQBENCH_AGENT_SCRATCH_BYTES`` (bytes, or with a K/M/G suffix) or `DEFAULT_SCRATCH_BYTES`
(1 GiB), at least `MIN_SCRATCH_BYTES`. Without bubblewrap (unsafe modes) HOME and TMPDIR are a private
folder of the host (`host_folder`), removed with `fileio.remove_tree` afterwards and bounded by nothing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.sandbox.limits import format_size, parse_size

SCRATCH_ENV = "REQBENCH_AGENT_SCRATCH_BYTES"
DEFAULT_SCRATCH_BYTES = 1024**3
MIN_SCRATCH_BYTES = 16 * 1024**2
FULL_MARGIN_BYTES = 1024**2
"""A scratch with less than this free at the end of the command was filled."""
STARTED = "reqbench-sandbox-started"
"""The epilogue's first report line, written inside the sandbox before the command starts."""
INSIDE = Path("/sandbox")
HOME = INSIDE / "home"
TMP = INSIDE / "tmp"
REPORT_CAP = 4096
SYSTEM_BINS = ("/usr/bin", "/bin")
"""Where the epilogue takes ``stat`` from (read-only in every sandbox; never the PATH a caller set)."""


def scratch_bytes(given: int | None = None) -> int:
    """The bound of a launch's HOME+TMPDIR tmpfs: `given`, else ``$REQBENCH_AGENT_SCRATCH_BYTES``, else
    `DEFAULT_SCRATCH_BYTES` (read on every launch); below `MIN_SCRATCH_BYTES` is an `InputError`."""
    item = "sandbox scratch_bytes"
    if given is None:
        env = os.environ.get(SCRATCH_ENV, "").strip()
        item = f"${SCRATCH_ENV}"
        given = parse_size(env, item=item) if env else DEFAULT_SCRATCH_BYTES
    if given < MIN_SCRATCH_BYTES:
        raise InputError(f"{given} bytes is below the smallest HOME/TMPDIR scratch of "
                         f"{format_size(MIN_SCRATCH_BYTES)}", item=item)
    return given


def bwrap_args(size: int) -> list[str]:
    """bubblewrap options mounting the scratch tmpfs with its HOME and TMPDIR."""
    return ["--size", str(size), "--tmpfs", str(INSIDE), "--dir", str(HOME), "--dir", str(TMP)]


def with_epilogue(argv: list[str], report_fd: int) -> list[str]:
    """`argv` run by a shell that, once it ended, writes the scratch's free blocks to `report_fd` and
    exits with the command's status (128+N for a signal, as bubblewrap reports it)."""
    stat_bin = shutil.which("stat", path=os.pathsep.join(SYSTEM_BINS)) or "false"
    script = (f'echo {STARTED} > /proc/self/fd/{report_fd}; '  # before any of the command runs
              f'exec 9>&2 2>/dev/null; (exec "$@" 2>&9 9>&-); rc=$?; '  # no "Killed" from this shell
              f'{stat_bin} -f -c "%a %S" {INSIDE} > /proc/self/fd/{report_fd}; exit $rc')
    return ["/bin/sh", "-c", script, "sh", *argv]


def started(report: bytes) -> bool:
    """Whether the epilogue's shell ran inside the finished sandbox (it says so before the command runs, so
    the command can add to the report but never take this line back): without it, bubblewrap failed to
    set the sandbox up (a launcher failure the harness observed, `core.llm.ledger`)."""
    return STARTED.encode() in report.split(b"\n")


def was_full(report: bytes) -> bool:
    """Whether any line of the epilogue's `report` (``FREE_BLOCKS BLOCK_SIZE``) says the scratch was full."""
    for line in report.decode("ascii", "replace").splitlines():
        words = line.split()
        if len(words) == 2 and all(w.isdigit() for w in words):
            if int(words[0]) * int(words[1]) < FULL_MARGIN_BYTES:
                return True
    return False


@contextlib.contextmanager
def host_folder() -> Iterator[Path]:
    """A private host folder for HOME and TMPDIR where no sandbox can hold them (unsafe modes), removed
    with `fileio.remove_tree` (iterative, never through a link) afterwards (`core.tempdirs.folder`)."""
    from reqbench.core import tempdirs

    with tempdirs.folder("sbx") as folder:
        yield folder
