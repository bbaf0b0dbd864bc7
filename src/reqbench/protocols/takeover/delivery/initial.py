"""Initial repositories of delivery targets: the code base as it stood when the request arrived.

`initial_patches` is the one place that decides which work a target's starting point includes: every
timeline patch and every *other* delivery target's reference patch whose message comes strictly before
the target's message (message order = position in normalized_project.json, never numeric id order).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.hashing import read_json, sha256_bytes, sha256_text
from reqbench.core.workspace import apply_patch, copy_tree, tree_hash
from reqbench.protocols.takeover.delivery.config import TakeoverSuite, repository_tree


def message_positions(suite_dir: Path, suite: TakeoverSuite) -> dict[str, int]:
    """str(message_id) -> 0-based position P(m) in the normalized project's message array."""
    path = Path(suite_dir) / suite.project / "normalized_project.json"
    messages = read_json(path)["messages"]
    return {str(m["message_id"]): i for i, m in enumerate(messages)}


def target_messages(suite_dir: Path, suite: TakeoverSuite) -> dict[str, int | str]:
    """target_id -> the message id of its request, from selected_target_times.json."""
    path = Path(suite_dir) / suite.project / "selected_target_times.json"
    return {t["target_id"]: t["message_id"] for t in read_json(path)["selected_targets"]}


def initial_patches(suite_dir: Path, suite: TakeoverSuite, target_id: str) -> list[str]:
    """Patch files (relative to the suite) that build `target_id`'s initial repository, in order."""
    pos = message_positions(suite_dir, suite)
    msg = target_messages(suite_dir, suite)
    if target_id not in msg:
        raise InputError("is not a selected target", file="suite.yaml", item=target_id)
    limit = pos[str(msg[target_id])]
    tagged: list[tuple[int, int, str]] = []
    for order, t in enumerate(suite.timeline):
        if str(t.message_id) not in pos:
            raise InputError(f"timeline patch names unknown message {t.message_id!r}", file="suite.yaml",
                             item=t.patch)
        tagged.append((pos[str(t.message_id)], order, t.patch))
    for order, d in enumerate(suite.delivery):
        if d.target_id != target_id:
            tagged.append((pos[str(msg[d.target_id])], len(suite.timeline) + order, d.reference_patch))
    return [p for at, _, p in sorted(tagged) if at < limit]


def build_initial_repository(suite_dir: Path, suite: TakeoverSuite, target_id: str,
                             cache_dir: Path) -> Path:
    """Materialise (once, content-addressed under `cache_dir`) the initial repository of a target.

    The result is read-only by convention: callers materialise fresh workspaces from it.
    """
    suite_dir = Path(suite_dir)
    patches = initial_patches(suite_dir, suite, target_id)
    base = repository_tree(suite_dir, suite)
    key_parts = [tree_hash(base)]
    key_parts += [sha256_bytes((suite_dir / p).read_bytes()) for p in patches]
    key = sha256_text("\n".join(key_parts))[:16]
    dest = Path(cache_dir) / f"{target_id}-{key}"
    if dest.is_dir():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target_id}.", dir=dest.parent))
    try:
        build = tmp / "repo"
        copy_tree(base, build)
        for p in patches:
            apply_patch(build, (suite_dir / p).read_text(encoding="utf-8"))
        try:
            os.rename(build, dest)
        except OSError:
            if not dest.is_dir():  # lost a race to an identical build: keep theirs
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest
