"""Overlay workspaces: the pristine baseline as the read-only lower layer, a per-workspace upper directory
that holds exactly what was written, merged in the calling thread's own mount namespace.

Materialising is then one ``mount`` (about a millisecond, whatever the size of the tree) instead of a copy,
and the change set is read from the upper directory alone (`overlay_changes`), so a diff costs what
changed. The baseline is never written: overlayfs copies a file up before the first write, chmod or
timestamp change, and deletions are recorded in the upper directory as *whiteouts* (character devices
0/0) and *opaque* directories (the ``trusted.overlay.opaque`` attribute), which `overlay_changes` turns
into deletions.

Where the merged view exists: the first overlay a thread mounts moves that thread (not the process) into
a private mount namespace (``unshare(CLONE_NEWNS)``, every mount made private so nothing propagates to
the host). The thread itself, the threads it starts and every process it spawns (git, the sandbox's
bubblewrap, an agent CLI) see the merged view; every other thread and process sees an empty directory.
A row runs in one thread from start to end, so that is all a row needs; a `Workspace` refuses to be
diffed, patched or closed from another namespace instead of silently reading an empty tree. A process
killed mid-row leaves no mount behind (the namespace dies with its thread); `release_under` unmounts what
a finished row left mounted.

Mount options: ``redirect_dir=off`` (renaming a directory that comes from the baseline fails with
``EXDEV``, and ``mv`` falls back to copy and delete; no redirect attributes to interpret), ``metacopy=off``
(a copied-up file carries its data), ``index=off``, ``xino=off`` and ``volatile`` (the upper directory is
thrown away with the workspace, so it is never synced: unmounting takes milliseconds, not a sync).

Availability (`overlay_available`): Linux, ``overlay`` in ``/proc/filesystems``, ``CAP_SYS_ADMIN`` (root),
and a probe mount that succeeds; ``REQBENCH_OVERLAY=0`` switches overlays off (read on every call, so a
benchmark can measure the copy beside it). Without it `materialize` copies, as before.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import re
import stat
import threading
from dataclasses import dataclass
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.errors import HarnessError
from reqbench.core.workspace.fileio import agent_error, list_dir
from reqbench.core.workspace.limits import TreeMeter
from reqbench.core.workspace.objects import BlobRef
from reqbench.core.workspace.patches import entry_ref
from reqbench.core.workspace.trees import TreeEntry, is_ignored, remove_tree, special_kind

ENV_SWITCH = "REQBENCH_OVERLAY"
OPTIONS = "redirect_dir=off,metacopy=off,index=off,xino=off,volatile"
OPAQUE = "trusted.overlay.opaque"

_CLONE_NEWNS = 0x00020000
_MS_REC, _MS_PRIVATE = 0x4000, 1 << 18
_MNT_DETACH = 2
_local = threading.local()


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"{what}: {os.strerror(code)}")


def namespace() -> str:
    """The calling thread's mount namespace (``mnt:[inode]``)."""
    return os.readlink("/proc/thread-self/ns/mnt")


def private_namespace() -> str:
    """Move the calling thread into its own mount namespace (once per thread; every mount private)."""
    if getattr(_local, "namespace", None) != namespace():
        libc = _libc()
        _check(libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
        _check(libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
        _local.namespace = namespace()
    return str(_local.namespace)


def _mount(lower: Path, upper: Path, work: Path, target: Path) -> None:
    for p in (lower, upper, work, target):
        if any(c in os.fspath(p) for c in ",:\\"):  # the option string cannot carry these
            raise OSError(errno.EINVAL, f"overlay cannot use the path {p}")
    opts = f"lowerdir={lower},upperdir={upper},workdir={work},{OPTIONS}"
    _check(_libc().mount(b"overlay", os.fsencode(target), b"overlay", 0, os.fsencode(opts)),
           f"mount overlay on {target}")


def _probe() -> bool:
    """One throw-away overlay mounted and unmounted in a throw-away thread's namespace."""
    ok: list[bool] = []

    def run() -> None:
        try:
            with tempdirs.folder("overlay-probe") as tmp:
                dirs = [Path(tmp) / n for n in ("lower", "upper", "work", "merged")]
                for d in dirs:
                    d.mkdir()
                (dirs[0] / "probe").write_text("x")
                private_namespace()
                _mount(*dirs)
                try:
                    (dirs[3] / "probe").write_text("y")
                    ok.append((dirs[0] / "probe").read_text() == "x" and (dirs[2].parent / "upper" / "probe").is_file())
                finally:
                    _check(_libc().umount2(os.fsencode(dirs[3]), _MNT_DETACH), "umount")
        except OSError:
            ok.append(False)

    thread = threading.Thread(target=run, name="reqbench-overlay-probe")
    thread.start()
    thread.join()
    return bool(ok and ok[0])


@functools.cache
def _supported() -> bool:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    try:
        if "overlay" not in Path("/proc/filesystems").read_text().split():
            return False
    except OSError:
        return False
    return _probe()


def overlay_available() -> bool:
    """True when `materialize` may mount an overlay (see the module docstring)."""
    if os.environ.get(ENV_SWITCH, "").strip().lower() in ("0", "false", "no", "off"):
        return False
    return _supported()


@dataclass(frozen=True)
class OverlayMount:
    """One mounted overlay: `target` shows `lower` under `upper` in the mount namespace `namespace`."""

    lower: Path
    upper: Path
    work: Path
    target: Path
    namespace: str

    def check_namespace(self, what: str) -> None:
        if namespace() != self.namespace:
            raise HarnessError(f"{what}: the overlay workspace {self.target} is mounted in another thread's "
                               "mount namespace (a workspace belongs to the thread that materialised it)")

    def unmount(self) -> None:
        self.check_namespace("close")
        _check(_libc().umount2(os.fsencode(self.target), _MNT_DETACH), f"umount {self.target}")


def mount_overlay(lower: Path, meta: Path, target: Path) -> OverlayMount:
    """Mount `lower` (never written) at the empty directory `target`, with upper and work directories
    in `meta` (beside the workspace, never inside it)."""
    upper, work = meta / "upper", meta / "work"
    upper.mkdir(parents=True)
    work.mkdir()
    ns = private_namespace()
    _mount(lower, upper, work, target)
    return OverlayMount(Path(lower), upper, work, Path(target), ns)


def release_under(root: Path) -> list[str]:
    """Unmount every overlay the calling thread's namespace has mounted at or below `root` (what a row left
    mounted); returns their mount points. Other namespaces are never touched."""
    if getattr(_local, "namespace", None) != namespace():
        return []
    top = os.path.abspath(root)
    found = []
    for line in Path("/proc/thread-self/mountinfo").read_bytes().splitlines():
        fields = line.split(b" ")
        if len(fields) < 5 or b" - overlay " not in line:
            continue
        point = os.fsdecode(re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m.group(1), 8)]), fields[4]))
        if point == top or point.startswith(top + "/"):
            found.append(point)
    for point in sorted(found, key=len, reverse=True):
        _libc().umount2(os.fsencode(point), _MNT_DETACH)
    return found


# ---------------------------------------------------------------------------------------------------
# The change set, read from the upper directory


def _is_whiteout(st: os.stat_result) -> bool:
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == 0


def _opaque(path: str) -> bool:
    try:
        return os.getxattr(path, OPAQUE, follow_symlinks=False) == b"y"
    except OSError:
        return False


class _Lower:
    """The baseline's entries looked up without following a symlink on the way (a path through a baseline
    symlink is not a baseline entry: reading it could reach any file of the host)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._kinds: dict[str, str | None] = {"": "dir"}

    def kind(self, rel: str) -> str | None:
        """``dir``, ``file``, ``link``, ``other`` or None (absent, or below something not a directory)."""
        if rel in self._kinds:
            return self._kinds[rel]
        parent = rel.rpartition("/")[0]
        kind: str | None = None
        if self.kind(parent) == "dir":
            try:
                mode = os.lstat(self.root / rel).st_mode
            except OSError:
                mode = None
            if mode is not None:
                kind = ("dir" if stat.S_ISDIR(mode) else "link" if stat.S_ISLNK(mode)
                        else "file" if stat.S_ISREG(mode) else "other")
        self._kinds[rel] = kind
        return kind

    def entries(self, rel: str) -> list[str]:
        """Every file and symlink of the baseline at or below `rel` (tree rules apply)."""
        kind = self.kind(rel)
        if kind is None or kind == "other":
            return []
        if kind != "dir":
            return [rel]
        out, stack = [], [rel]
        while stack:
            prefix = stack.pop()
            for entry in os.scandir(self.root / prefix):
                sub = f"{prefix}/{entry.name}" if prefix else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if not is_ignored(entry.name, True):
                        stack.append(sub)
                elif not is_ignored(entry.name, False) and (entry.is_file(follow_symlinks=False)
                                                             or entry.is_symlink()):
                    out.append(sub)
        return out


def _ref(root: Path, rel: str, st: os.stat_result, skipped: list[str]) -> BlobRef | None:
    if stat.S_ISLNK(st.st_mode):
        entry = TreeEntry(rel, root / rel, "link")
    elif stat.S_ISREG(st.st_mode):
        entry = TreeEntry(rel, root / rel, "file", bool(st.st_mode & stat.S_IXUSR), st.st_size)
    else:
        return None
    return entry_ref(entry, skipped)


def overlay_changes(mount: OverlayMount, meter: TreeMeter) -> tuple[dict[str, BlobRef], dict[str, BlobRef]]:
    """(baseline refs, workspace refs) of every path that may differ, read from the upper directory: its
    files and symlinks (new or changed), its whiteouts and opaque directories (deletions of what the
    baseline holds there), and baseline entries a different kind of entry replaced. A superset of the
    real changes, narrowed by blob id. The upper directory is walked under `meter`."""
    upper, lower = mount.upper, _Lower(mount.lower)
    new: dict[str, BlobRef] = {}
    candidates: set[str] = set()
    stack: list[tuple[str, int]] = [("", 0)]
    while stack:
        prefix, depth = stack.pop()
        for entry in list_dir(os.fspath(upper / prefix) if prefix else os.fspath(upper), prefix):
            rel = f"{prefix}/{entry.name}" if prefix else entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                raise agent_error(exc, rel) from None
            if stat.S_ISDIR(st.st_mode):
                if is_ignored(entry.name, True):
                    continue
                meter.directory(rel, depth + 1)
                if _opaque(entry.path) or lower.kind(rel) != "dir":
                    candidates.update(lower.entries(rel))  # the baseline's side is hidden
                stack.append((rel, depth + 1))
                continue
            if is_ignored(entry.name, False):
                continue
            if _is_whiteout(st):
                candidates.update(lower.entries(rel))
                continue
            if stat.S_ISLNK(st.st_mode):
                meter.entry(rel)
            elif stat.S_ISREG(st.st_mode):
                meter.file(rel, st.st_size)
            else:
                meter.special(rel, special_kind(st.st_mode))
                continue
            candidates.update(lower.entries(rel))
            ref = _ref(upper, rel, st, meter.stats.skipped)
            if ref is not None:
                new[rel] = ref
    base: dict[str, BlobRef] = {}
    ignored: list[str] = []
    for rel in candidates:  # baseline entries only (`_Lower.entries` never crosses a symlink)
        try:
            st = os.lstat(lower.root / rel)
        except OSError:
            continue
        ref = _ref(lower.root, rel, st, ignored)
        if ref is not None:
            base[rel] = ref
    return base, new


def remove_meta(meta: Path) -> None:
    """Remove an overlay's upper and work directories (overlayfs leaves ``work/work`` with mode 000)."""
    remove_tree(meta)
