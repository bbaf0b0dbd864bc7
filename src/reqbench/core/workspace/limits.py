"""Caps on what an agent may leave in its workspace, enforced *while* a tree is walked.

An agent controls every byte of its workspace. Without caps, a million tiny files, a 2 GB file or a
thousand nested directories turn its failure into a harness exception (and the row into attrition).
`WorkspaceLimits` names the caps; a `TreeMeter` counts one walk and raises `WorkspaceLimitExceeded` the
moment a cap is passed, so an oversized tree is rejected without being walked to the end.

Caps bound what the agent *adds*: `WorkspaceLimits.beyond` raises each cap by what the baseline already
holds, so a large pristine repository never counts against the agent.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from reqbench.core.errors import WorkspaceLimitExceeded

MiB = 1 << 20
GiB = 1 << 30


@dataclass(frozen=True)
class WorkspaceLimits:
    """Caps on one tree; ``None`` switches a cap off.

    `max_entries` counts every entry (files, links, directories, skipped special files); sizes are the
    apparent sizes (`st_size`), so a sparse file counts at its full length.
    """

    max_entries: int | None = 100_000
    max_total_bytes: int | None = GiB
    max_file_bytes: int | None = 100 * MiB
    max_depth: int | None = 64
    max_path_bytes: int | None = 3072
    """Longest relative path (in bytes): deeper paths would pass ``PATH_MAX`` below a workspace root."""

    def beyond(self, stats: TreeStats) -> WorkspaceLimits:
        """These caps on top of what the tree `stats` describes (the baseline is never the agent's)."""
        def plus(cap: int | None, used: int) -> int | None:
            return None if cap is None else cap + used

        def at_least(cap: int | None, used: int) -> int | None:
            return None if cap is None else max(cap, used)

        return replace(self, max_entries=plus(self.max_entries, stats.entries),
                       max_total_bytes=plus(self.max_total_bytes, stats.total_bytes),
                       max_file_bytes=at_least(self.max_file_bytes, stats.largest_file),
                       max_depth=at_least(self.max_depth, stats.depth),
                       max_path_bytes=at_least(self.max_path_bytes, stats.longest_path))


def show(rel: str, limit: int = 200) -> str:
    """A relative path for a message: quoted, at most `limit` bytes, undecodable bytes as ``\\xNN``."""
    raw = os.fsencode(rel)
    text = raw[:limit].decode("utf-8", "backslashreplace")
    return repr(text + ("..." if len(raw) > limit else ""))


UNLIMITED = WorkspaceLimits(None, None, None, None, None)
"""No caps: for trusted trees (suite folders, cached baselines)."""

DEFAULT_LIMITS = WorkspaceLimits()


@dataclass
class TreeStats:
    """What one walk saw: entry count, total bytes, largest file, deepest directory, skipped entries."""

    entries: int = 0
    total_bytes: int = 0
    largest_file: int = 0
    depth: int = 0
    longest_path: int = 0
    skipped: list[str] = field(default_factory=list)
    """Relative paths (with their kind) of entries that are not content: FIFOs, sockets, devices."""


class TreeMeter:
    """Counts one walk into `stats` and raises `WorkspaceLimitExceeded` as soon as a cap is passed."""

    def __init__(self, limits: WorkspaceLimits | None = None) -> None:
        self.limits = limits or UNLIMITED
        self.stats = TreeStats()

    def entry(self, rel: str) -> None:
        self.stats.entries += 1
        cap = self.limits.max_entries
        if cap is not None and self.stats.entries > cap:
            raise WorkspaceLimitExceeded(f"workspace has more than {cap} entries (at {show(rel)})",
                                         limit="max_entries")
        length = len(rel) if rel.isascii() else len(os.fsencode(rel))  # bytes of the name on disk
        if length > self.stats.longest_path:
            self.stats.longest_path = length
        cap = self.limits.max_path_bytes
        if cap is not None and length > cap:
            raise WorkspaceLimitExceeded(f"relative path of {length} bytes (limit {cap}): {show(rel)}",
                                         limit="max_path_bytes")

    def directory(self, rel: str, depth: int) -> None:
        self.entry(rel)
        self.stats.depth = max(self.stats.depth, depth)
        cap = self.limits.max_depth
        if cap is not None and depth > cap:
            raise WorkspaceLimitExceeded(f"workspace nests directories deeper than {cap} levels "
                                         f"(at {show(rel)})", limit="max_depth")

    def file(self, rel: str, size: int) -> None:
        self.entry(rel)
        self.stats.total_bytes += size
        if size > self.stats.largest_file:
            self.stats.largest_file = size
        cap = self.limits.max_file_bytes
        if cap is not None and size > cap:
            raise WorkspaceLimitExceeded(f"file {show(rel)} has {size} bytes (limit {cap})",
                                         limit="max_file_bytes")
        cap = self.limits.max_total_bytes
        if cap is not None and self.stats.total_bytes > cap:
            raise WorkspaceLimitExceeded(f"workspace holds more than {cap} bytes (at {show(rel)})",
                                         limit="max_total_bytes")

    def special(self, rel: str, kind: str) -> None:
        self.entry(rel)
        self.stats.skipped.append(f"{show(rel, 300)} ({kind})")
