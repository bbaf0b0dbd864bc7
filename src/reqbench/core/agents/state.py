"""Harness-owned folders for the files a tool and the harness share (`state_folder`), bounded and removed.

An agent step's HOME and TMPDIR are a size-limited tmpfs inside its sandbox (`core.sandbox.scratch`):
nothing of them reaches the host. Some files must outlive the sandbox, though: the prompt the harness
writes for a `command` template, and a preset tool's own files that the harness reads back (trajectories,
chat histories, OpenHands' conversation state) or that the tool resumes its session from in the next
turn (Claude Code's config folder, ``CODEX_HOME``). They live in one private (0700) folder per run or
session, made here:

* inside a run, in the run's trash folder (`workspace.discard.current_trash`, part of the run's
  memory-backed scratch, ``/dev/shm/reqbench-<uid>``); outside a run, below
  `execute.scratch.scratch_base`, else the system's temporary folder; its name records the owning process
  (`core.tempdirs`), so what a killed harness leaves goes with the next reqbench process's sweep;
* **bounded**: the tool writes it from inside the sandbox, so during a turn every page is charged to the
  tree's memory cap; after each turn `overflow` measures it (allocated bytes, at least `ENTRY_BYTES` per
  entry, at most `MAX_DEPTH` folders deep, never through a link) against the agent scratch bound
  (``$REQBENCH_AGENT_SCRATCH_BYTES``, 1 GiB): over it, the turn is the agent's error and `empty` clears
  the folder, so no session carries more than the bound from one turn to the next;
* **removed** by `release` with `fileio.remove_tree` (iterative, link-safe; moved to the run's trash for
  background removal when possible): a removal that fails is logged and never fails the row.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.sandbox.limits import format_size
from reqbench.core.sandbox.scratch import SCRATCH_ENV, scratch_bytes
from reqbench.core.workspace import discard
from reqbench.core.workspace.fileio import remove_tree

log = logging.getLogger(__name__)

ENTRY_BYTES = 1024
"""What every entry counts at least (the kernel's inode and name), so countless empty files are bytes too."""
MAX_DEPTH = 256
"""Deeper folders are over the bound: nothing a tool keeps nests deeper, and paths stay measurable."""


def make_state_folder(name: str, *, keep: bool = False) -> Path:
    """A new private folder for agent `name`'s shared files (see the module docstring); `release` it. One
    to `keep` (``keep_scratch``, for debugging) is never made in the run's trash, which goes with the run,
    and never swept (`core.tempdirs.make`)."""
    from reqbench.core.execute.scratch import scratch_base

    trash = None if keep else discard.current_trash()
    return tempdirs.make(kind_of(name), trash or scratch_base(), keep=keep)


def kind_of(name: str) -> str:
    """The temporary-folder kind of agent `name`'s state folder: the name itself when it is lower-case
    letters, digits and hyphens (every preset's), else ``agent-`` and what is left of it."""
    if re.fullmatch(r"[a-z][a-z0-9-]{0,40}", name):
        return name
    cleaned = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40]
    return f"agent-{cleaned}" if cleaned else "agent"


def release(folder: Path) -> None:
    """Remove `folder` link-safely (in the background inside a run); never raises, logs what is left."""
    try:
        discard.discard(folder)
    except Exception as exc:  # noqa: BLE001 - removal is housekeeping: it never decides a row
        log.warning("could not remove the agent folder %s: %s", folder, exc)
        return
    if os.path.lexists(folder):
        log.warning("could not remove everything in the agent folder %s", folder)


@contextmanager
def state_folder(name: str, *, keep: bool = False) -> Iterator[Path]:
    """`make_state_folder` for the block, released at its end unless `keep` (then its path is logged)."""
    folder = make_state_folder(name, keep=keep)
    try:
        yield folder
    finally:
        if keep:
            log.info("kept the scratch folder of %s: %s", name, folder)
        else:
            release(folder)


def overflow(folder: Path, bound: int | None = None) -> str:
    """Why `folder` holds more than `bound` bytes (None: the agent scratch bound), or "" when it does not.
    A folder that cannot be measured (too deep, closed to the harness) counts as over it."""
    bound = scratch_bytes() if bound is None else bound
    total, stack = 0, [(os.fspath(folder), 0)]
    what = f"the agent's state folder holds more than the scratch bound of {format_size(bound)} (${SCRATCH_ENV})"
    while stack:
        path, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"{what}: folders nested deeper than {MAX_DEPTH}"
        try:
            with os.scandir(path) as entries:
                for entry in entries:
                    st = entry.stat(follow_symlinks=False)
                    total += max(st.st_blocks * 512, ENTRY_BYTES)
                    if total > bound:
                        return what
                    if stat.S_ISDIR(st.st_mode):
                        stack.append((entry.path, depth + 1))
        except OSError as exc:
            return f"{what}: it cannot be measured ({exc.strerror or exc})"
    return ""


def empty(folder: Path) -> None:
    """Remove everything in `folder` (link-safely), keeping the folder itself."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        remove_tree(os.path.join(folder, name))
