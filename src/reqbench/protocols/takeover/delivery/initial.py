"""Initial repositories of delivery targets: the code base as it stood when the request arrived.

`initial_patches` is the one place that decides which work a target's starting point includes: every
timeline patch and every *other* delivery target's reference patch whose message comes strictly before
the target's message (message order = position in normalized_project.json, never numeric id order).
A target that names a complete snapshot (`initial_repository`, e.g. the release's ``pre_repo.zip``;
paper B.3: each executable environment is linked to its target and pre-request boundary) starts from
that snapshot instead, and no patch is applied.
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.hashing import read_json, sha256_bytes, sha256_file, sha256_text
from reqbench.core.workspace import apply_patch, copy_tree, tree_hash
from reqbench.core.workspace.sources import _publish
from reqbench.protocols.takeover.rq4_delivery.archives import extract_archive
from reqbench.protocols.takeover.suite_file import DeliveryTarget, TakeoverSuite, repository_tree


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


def snapshot_key(suite_dir: Path, d: DeliveryTarget) -> str:
    """Content address of a target's snapshot; `InputError` when a zip's bytes differ from the sha256
    the suite records for it (checked before anything is extracted)."""
    assert d.initial_repository is not None
    path = Path(suite_dir) / d.initial_repository
    if path.is_dir():
        return tree_hash(path)
    digest = sha256_file(path)
    if d.initial_repository_sha256 is not None and digest != d.initial_repository_sha256:
        raise InputError(f"initial_repository sha256 is {digest}, suite.yaml records "
                         f"{d.initial_repository_sha256}", file=str(path), item=f"delivery target {d.target_id}")
    return digest


def _snapshot_repository(suite_dir: Path, d: DeliveryTarget, cache_dir: Path) -> Path:
    assert d.initial_repository is not None
    source = Path(suite_dir) / d.initial_repository
    dest = Path(cache_dir) / f"{d.target_id}-snapshot-{snapshot_key(suite_dir, d)[:16]}"

    def fill(repo: Path) -> None:
        if source.is_dir():
            copy_tree(source, repo)
        else:
            extract_archive(source, repo)

    return _publish(fill, dest)


def build_initial_repository(suite_dir: Path, suite: TakeoverSuite, target_id: str,
                             cache_dir: Path) -> Path:
    """Materialise (once, content-addressed under `cache_dir`) the initial repository of a target: its
    snapshot when it names one, else the repository plus `initial_patches`.

    The result is read-only by convention: callers materialise fresh workspaces from it.
    """
    suite_dir = Path(suite_dir)
    d = suite.delivery_target(target_id)
    if d is not None and d.initial_repository is not None:
        return _snapshot_repository(suite_dir, d, cache_dir)
    patches = initial_patches(suite_dir, suite, target_id)
    base = repository_tree(suite_dir, suite)
    key_parts = [tree_hash(base)]
    key_parts += [sha256_bytes((suite_dir / p).read_bytes()) for p in patches]
    key = sha256_text("\n".join(key_parts))[:16]

    def fill(repo: Path) -> None:
        copy_tree(base, repo)
        for p in patches:
            apply_patch(repo, (suite_dir / p).read_text(encoding="utf-8"))

    return _publish(fill, Path(cache_dir) / f"{target_id}-{key}")
