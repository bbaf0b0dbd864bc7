"""Per-turn checkpoints of a journey session in the run store, so a session continues where it stopped.

SWE-Journey sessions are long (up to 40 turns, §3.4 / B.1); a harness failure or a killed process in turn
30 must not cost the 29 turns before it, nor ask the assistant or the simulated user again what they
already answered. After each step of a turn the session writes a checkpoint:

* ``open``: the base repository's hidden-test results and the simulator's opening message and state;
* ``t<k>a`` (after assistant turn k): its reply, status, usage, the session's own state
  (``checkpoint()``) and the workspace snapshot, packed as a deterministic tarball into the run's
  content-addressed artifact store (equal trees are stored once);
* ``t<k>u`` (after turn k's hidden tests and the simulator's reaction): the test results, the user's
  next message and the simulator's state.

A new attempt of the row (``--resume`` after a kill, the re-evaluation of a ``pending`` row, a retry
after a provider failure) restores the last complete turn and, when the assistant part of the next turn
is there, re-runs only its hidden tests. Checkpoints live in the store's key/value cache (kind
``journey-turn``, first write wins) under an *epoch*: a session that cannot restore its assistant (no
``checkpoint``/``restore``) starts over in a new epoch, so old and new checkpoints never mix. Only local
rows see the run store (`core.store.active`); rows on a remote executor run whole, without checkpoints.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

from reqbench.core.execute.shipping import pack_suite
from reqbench.core.store.active import active_store
from reqbench.core.store.runstore import RunStore
from reqbench.core.workspace import remove_tree

KIND = "journey-turn"


class Checkpoints:
    """The checkpoints of one row's session (disabled when no run store is bound)."""

    def __init__(self, row_key: str, store: RunStore | None = None, *, enabled: bool = True) -> None:
        self.row_key = row_key
        self.store = (store or active_store()) if enabled else None
        self.epoch = 0
        if self.store is not None:
            while self.store.get_cached(KIND, self._key("open", self.epoch + 1)) is not None:
                self.epoch += 1

    @property
    def enabled(self) -> bool:
        return self.store is not None

    def _key(self, part: str, epoch: int | None = None) -> str:
        return f"{self.row_key}|e{self.epoch if epoch is None else epoch}|{part}"

    def get(self, part: str) -> dict[str, Any] | None:
        if self.store is None or self.epoch == 0:
            return None
        value = self.store.get_cached(KIND, self._key(part))
        return value if isinstance(value, dict) else None

    def put(self, part: str, value: dict[str, Any]) -> None:
        if self.store is not None:
            self.store.put_cached(KIND, self._key(part), value)

    def start_epoch(self) -> None:
        """A fresh session: later `put`s go to a new epoch (the old one stays, unread)."""
        self.epoch += 1

    def put_blob(self, blob: bytes) -> None:
        """Keep a packed snapshot (`pack_tree`) in the run's content-addressed artifact store."""
        if self.store is not None:
            self.store.artifacts.put(blob)

    def tree_blob(self, sha: str) -> bytes:
        assert self.store is not None
        return self.store.artifacts.get(sha)


def pack_tree(tree: Path) -> bytes:
    """`tree` as a deterministic gzip tarball (equal trees give equal bytes, hence one stored blob)."""
    return pack_suite(tree)[1]


def restore_tree(blob: bytes, dest: Path) -> Path:
    """Unpack a snapshot packed by `pack_tree` into the new directory `dest`, exactly as it was taken.

    Not through `materialize`'s archive sources: those refuse links that leave the tree (a suite's archive
    must not carry them), while a symlink the assistant made is content of its workspace, copied as a
    symlink like every snapshot (`core.workspace.trees`); refusing it would let an assistant make its own
    session impossible to resume. tarfile's ``tar`` filter still keeps every member inside `dest`, never
    written through a link, with no special files and no setuid bits.
    """
    dest.mkdir(parents=True)
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
            tar.extractall(dest, filter="tar")
    except BaseException:
        remove_tree(dest)
        raise
    return dest
