"""A row's (or a journey session's) throw-away, writable view of a task's environment: overlays over it.

An agent may install packages, patch a library or replace the interpreter of its environment: that is
its own business, but it must neither reach the checks nor the next row (DESIGN §14). So an agent never
gets the environment's tree, not even read-write-protected: it gets, per row, an overlay of each of the
environment's folders (its root and every layer), lower = the built tree in the cache (never written),
upper = a fresh folder in the row's scratch (memory-backed, so what the agent writes there is charged to
its memory cap), mounted in the row thread's own mount namespace (`workspace.overlay`). The sandbox binds
the merged folders read-write (`EnvironmentMount.writable`); `close` unmounts them and removes the upper
folders, so nothing the agent did survives the row. Checks never see these: they bind the pristine tree
read-only (`EnvironmentMount.pristine`).

Where overlays cannot be mounted (not root, no overlayfs, ``REQBENCH_OVERLAY=0``) the agent gets the
pristine environment read-only instead: a write into it fails (EROFS) and nothing is thrown away because
nothing was kept.
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

from reqbench.core.sandbox.environment import EnvironmentMount


class EnvironmentOverlay:
    """Overlays over one environment in `folder` (made on first use by the thread that uses it)."""

    def __init__(self, pristine: EnvironmentMount, folder: Path) -> None:
        self.pristine = pristine
        self.folder = Path(folder)
        self._mounted: list[object] = []
        self._mount: EnvironmentMount | None = None
        self._thread: int | None = None

    def mount(self) -> EnvironmentMount:
        """The writable mount (overlays mounted on the first call), or the pristine one where overlays
        cannot be mounted."""
        from reqbench.core.workspace.overlay import overlay_available

        if self._mount is not None:
            return self._mount
        if not overlay_available():
            self._mount = self.pristine
            return self._mount
        self._thread = threading.get_ident()
        root = self._overlay(self.pristine.root, "root") if self.pristine.root is not None else None
        layers = tuple((self._overlay(host, f"layer{i}"), inside)
                       for i, (host, inside) in enumerate(self.pristine.layers))
        self._mount = dataclasses.replace(self.pristine, root=root, layers=layers, writable=True)
        return self._mount

    def _overlay(self, lower: Path, name: str) -> Path:
        from reqbench.core.workspace.overlay import mount_overlay

        meta, target = self.folder / f"{name}-meta", self.folder / name
        target.mkdir(parents=True)
        self._mounted.append(mount_overlay(Path(lower), meta, target))
        return target

    def close(self) -> None:
        """Unmount the overlays (from the thread that mounted them) and remove everything written."""
        from reqbench.core.workspace.discard import discard
        from reqbench.core.workspace.overlay import OverlayMount

        if self._thread is not None and self._thread != threading.get_ident():
            return  # another thread's namespace: the runner's `release_under` unmounts them in the row thread
        for mounted in reversed(self._mounted):
            if isinstance(mounted, OverlayMount):
                try:
                    mounted.unmount()
                except OSError:
                    pass
        self._mounted.clear()
        self._mount = None
        if self.folder.exists():
            discard(self.folder)
