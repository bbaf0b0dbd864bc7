"""The allow-list file-system view of a sandboxed process, as bubblewrap arguments.

Nothing of the host is visible unless it is bound here (DESIGN §10; the integrity issue's rule "bind
what is needed", not "bind / and hide a list"):

* system directories read-only (`SYSTEM_PATHS`; top-level symlinks such as ``/bin -> usr/bin`` are
  recreated as symlinks);
* the harness's Python toolchain read-only (``sys.prefix``, ``sys.base_prefix``, the interpreter's
  directory), the ``bin``/``sbin`` directories on PATH, and the paths listed in
  ``$REQBENCH_SANDBOX_RO`` (``os.pathsep``-separated: toolchains installed elsewhere, e.g. ``/opt/node``);
* when the caller trusts the command line (a user's `command` template, a check; never a command the
  agent chose), every existing regular file it names by absolute path, read-only (a script, an input);
* a private ``/tmp``, ``/dev/shm``, a minimal ``/dev`` and a ``/proc`` of the process's own PID
  namespace, and (for a launch without a scratch folder of its own) a size-limited tmpfs holding HOME
  and TMPDIR (`scratch`);
* the caller's writable paths (the working directory, a private HOME) and read-only binds (input files,
  a check's hidden tests).

Masked even inside a bound directory (an empty tmpfs on top, which a process without capabilities
cannot unmount): the installed reqbench package (it may carry bundled suites with their answers), the
source cache (``$REQBENCH_CACHE``), and whatever the caller passes as `hide`.

The host part of a view (system and toolchain binds, package and cache masks: `HostPart`) is the same
for every launch of a process, so `host_part` builds it once per distinct input -- the interpreter
(``sys.prefix``, ``sys.base_prefix``, ``sys.executable``), the sandbox's PATH, ``$REQBENCH_SANDBOX_RO``,
the package and cache locations, and the identity (device, inode, type, link target) of every path it
looks at -- and builds it afresh when any of them changed (a path appeared, vanished or was replaced).
The launch's own part (working directory, writable paths, read-only binds, named files, `hide`) is
never cached.

In a task environment (`environment.EnvironmentMount`) the system directories come from the environment's
root when it has one (part of the host part's key; none of the host's toolchain is bound below a folder
the root gives), its layers are bound at their in-sandbox paths with the launch's own part, and masks
still apply to the host's toolchain.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.kernelpath import real_path
from reqbench.core.sandbox import scratch
from reqbench.core.sandbox.environment import EnvironmentMount

SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
EXTRA_RO_ENV = "REQBENCH_SANDBOX_RO"
TMP_SIZE_BYTES = 2 * 1024**3
"""Size of the private /tmp (memory-backed; a flood of it is ENOSPC for the agent, not the host)."""
BASE_ARGS = ("--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL",
             "--hostname", "sandbox", "--size", str(TMP_SIZE_BYTES), "--tmpfs", "/tmp",
             "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm")
_QUOTING = re.compile(r"['\"\\]")
_SHLEX_BLANKS = re.compile(r"[ \t\r\n]+")
"""The only characters `shlex.split` treats specially (comments off) and the blanks it splits on."""
HOST_PART_CACHE_SIZE = 16
"""Distinct host parts kept (one per PATH/interpreter/environment combination a process uses)."""


def _under(path: Path | str, parent: Path | str) -> bool:
    """`path` is `parent` or lies below it (both absolute and normalised; compared as strings, because
    ``Path.parents`` made building a view cost milliseconds)."""
    p, q = os.fspath(path), os.fspath(parent)
    return p == q or p.startswith(q if q.endswith("/") else q + "/")


def _absolute(path: Path | str) -> Path:
    return Path(os.path.abspath(path))


@dataclass(frozen=True)
class HostPart:
    """The launch-independent part of a view (module docstring); immutable, so sharing it is safe."""

    args: tuple[str, ...]
    """bubblewrap options binding the system directories and the toolchain."""
    bound: tuple[str, ...]
    """Directories `args` binds read-only (a named file below one needs no bind of its own)."""
    toolchain: tuple[Path, ...]
    masks: tuple[Path, ...]
    """The reqbench package and the source cache, where a bound directory exposes them."""


_host_parts: dict[tuple[object, ...], HostPart] = {}


def host_part(env_path: str, environment: EnvironmentMount | None = None) -> HostPart:
    """The `HostPart` of a sandbox whose PATH is `env_path` (system directories from `environment`'s root
    when it has one): cached, keyed on everything it depends on."""
    package, cache = _mask_candidates()
    root = environment.root if environment is not None else None
    extra = os.environ.get(EXTRA_RO_ENV, "")
    looked_at = dict.fromkeys([sys.prefix, sys.base_prefix, sys.executable, os.path.dirname(sys.executable),
                               *(e for e in env_path.split(os.pathsep) if os.path.isabs(e)),
                               *(e for e in extra.split(os.pathsep) if os.path.isabs(e)), package, cache])
    key = (sys.prefix, sys.base_prefix, sys.executable, env_path, extra, package, cache,
           *map(_link_identity, SYSTEM_PATHS), *map(_identity, looked_at),
           None if root is None else (os.fspath(root), environment and environment.writable,
                                      _identity(os.fspath(root))))
    part = _host_parts.get(key)
    if part is None:
        if len(_host_parts) >= HOST_PART_CACHE_SIZE:
            _host_parts.clear()
        part = _host_parts[key] = _build_host_part(env_path, [Path(package), Path(cache)],
                                                   environment if root is not None else None)
    return part


def _identity(path: str) -> tuple[int, int, int] | None:
    """What a view depends on about `path`: device, inode and type of what it names, links followed
    (None where nothing exists): a replaced directory or a re-pointed link changes it."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_mode


def _link_identity(path: str) -> tuple[object, ...]:
    """`_identity`, and whether `path` itself is a link and to what (a system directory that is a link
    is recreated as one)."""
    try:
        return _identity(path), os.readlink(path)
    except OSError:
        return _identity(path), None


def _mask_candidates() -> tuple[str, str]:
    import reqbench  # the installed package itself (bundled suites live inside it)
    from reqbench.core.cache_location import cache_root

    return os.path.dirname(reqbench.__file__), os.fspath(cache_root())


def _build_host_part(env_path: str, mask_candidates: list[Path],
                     environment: EnvironmentMount | None = None) -> HostPart:
    if environment is not None:  # the environment's root gives the system directories
        root_args, root_bound = environment.root_args()
        part = _toolchain_part(env_path, mask_candidates, root_args, [Path(b) for b in root_bound], {},
                               environment.root_tops())
        own = [Path(b) for b in part.bound[len(root_bound):]]  # the host's toolchain, not the root's folders
        return dataclasses.replace(part, masks=tuple(_masks(mask_candidates, own)))
    args: list[str] = []
    bound: list[Path] = []
    links: dict[str, str] = {}
    for name in SYSTEM_PATHS:
        path = Path(name)
        if path.is_symlink():
            links[name] = os.readlink(path)
            args += ["--symlink", links[name], name]
        elif path.is_dir():
            args += ["--ro-bind", name, name]
            bound.append(path)
    return _toolchain_part(env_path, mask_candidates, args, bound, links)


def _toolchain_part(env_path: str, mask_candidates: list[Path], args: list[str], bound: list[Path],
                    links: dict[str, str], replaced: frozenset[str] = frozenset()) -> HostPart:
    """The host part: the system `args` binding `bound` (recreating `links`), then the toolchain -- but none
    of it below a top-level entry an environment's root gives (`replaced`: its own ``/usr`` wins)."""
    toolchain = _toolchain(env_path)
    for root in toolchain:
        if any(_under(root, b) for b in bound):
            continue
        if replaced and {_top(root), _top(real_path(root))} & replaced:
            continue
        if _reached_through(root, links, bound):  # e.g. PATH's /bin -> usr/bin: /usr is bound already
            bound.append(root)
            continue
        args += _ro_bind(root)
        bound.append(root)
    return HostPart(tuple(args), tuple(map(os.fspath, bound)), tuple(toolchain),
                    tuple(_masks(mask_candidates, bound)))


def _top(path: Path | str) -> str:
    return os.fspath(path)[1:].partition("/")[0]


def _reached_through(root: Path, links: Mapping[str, str], bound: Iterable[Path]) -> bool:
    """`root` starts with a system link the view recreates (``/bin`` -> ``usr/bin``), that link is the only
    one on its way, and where it leads is bound already: inside, `root` then names the very directory it
    names on the host, so a bind of its own would only mount it a second time."""
    top, _, rest = os.fspath(root)[1:].partition("/")
    target = links.get("/" + top)
    if target is None:
        return False
    inside = os.path.normpath(os.path.join("/", target, rest))
    return real_path(root) == inside and any(_under(inside, b) for b in bound)


def _toolchain(env_path: str) -> list[Path]:
    roots = [Path(sys.prefix), Path(sys.base_prefix), _absolute(Path(sys.executable).parent),
             Path(os.path.realpath(sys.executable)).parent]
    for entry in env_path.split(os.pathsep):
        if entry and os.path.isabs(entry) and Path(entry).name in ("bin", "sbin") and Path(entry).is_dir():
            roots.append(_absolute(entry))
    for entry in os.environ.get(EXTRA_RO_ENV, "").split(os.pathsep):
        if entry and os.path.isabs(entry) and Path(entry).exists():
            roots.append(_absolute(entry))
    return _minimal(roots)


def _masks(candidates: Iterable[Path], bound: Iterable[Path | str]) -> list[Path]:
    """The directories among `candidates` (as named and as resolved) that lie under a `bound` root."""
    roots = list(bound)
    out: list[Path] = []
    for path in candidates:
        for form in {_absolute(path), Path(os.path.realpath(path))}:
            if form.is_dir() and any(_under(form, r) for r in roots) and form not in out:
                out.append(form)
    return out


@dataclass
class View:
    """What one sandboxed process may see; `bwrap_args` renders it."""

    cwd: Path
    writable: list[Path]
    readonly: dict[Path, Path] = field(default_factory=dict)
    """Caller's read-only binds, source -> destination inside."""
    writable_at: dict[Path, Path] = field(default_factory=dict)
    """Caller's read-write binds at another path, source -> destination inside."""
    hide: list[Path] = field(default_factory=list)
    network: bool = False
    argv: Sequence[str] = ()
    env_path: str = ""
    host: HostPart | None = None
    """The host part for `env_path` when the caller already has it (`host_part`)."""
    environment: EnvironmentMount | None = None
    """The task's environment: its root (in the host part) and its layers (`environment`)."""
    scratch_bytes: int | None = None
    """Mount the HOME/TMPDIR tmpfs of this many bytes at `scratch.INSIDE` (None: the caller's folder)."""

    def toolchain(self) -> list[Path]:
        """Read-only toolchain roots: the Python prefixes, PATH's bin dirs, ``$REQBENCH_SANDBOX_RO``."""
        return list(host_part(self.env_path).toolchain)

    def named_files(self) -> list[Path]:
        """Existing regular files named by absolute path on the command line (scripts, inputs)."""
        words: list[str] = []
        for arg in self.argv:
            if not _QUOTING.search(arg):  # what shlex.split gives without quotes or escapes, 20x faster
                words += [w for w in _SHLEX_BLANKS.split(arg) if w]
                continue
            try:
                words += shlex.split(arg)
            except ValueError:
                words.append(arg)
        out: list[Path] = []
        for word in words:
            for part in word.split("=")[-1:]:  # --opt=/path forms
                if os.path.isabs(part) and os.path.isfile(part):
                    path = _absolute(part)
                    if path not in out:
                        out.append(path)
        return out

    def masked(self, bound: Iterable[Path]) -> list[Path]:
        """Directories to mask: the reqbench package, the source cache and `hide`, where a bind exposes them."""
        return _masks([*map(Path, _mask_candidates()), *self.hide], bound)

    def bwrap_args(self) -> list[str]:
        """bubblewrap options (without the command) that build this view."""
        host = self.host or host_part(self.env_path, self.environment)
        args = [*BASE_ARGS, *(("--share-net",) if self.network else ()), *host.args]
        if self.environment is not None:
            args += self.environment.layer_args(list(host.bound))
        for path in self.named_files():
            if not any(_under(path, b) for b in host.bound):
                args += _ro_bind(path)
        masks = [*host.masks, *(m for m in _masks(self.hide, host.bound) if m not in host.masks)]
        if self.environment is not None:  # the package or the cache inside a folder the environment shows
            masks += [m for m in self.environment.masks_for([*map(Path, _mask_candidates()), *self.hide])
                      if m not in masks]
        for mask in masks:
            args += ["--tmpfs", str(mask)]
        if self.scratch_bytes is not None:
            args += scratch.bwrap_args(self.scratch_bytes)
        for path in self.writable:
            args += ["--bind", str(path), str(path)]
        for src, dst in self.writable_at.items():
            args += ["--bind", str(src), str(dst)]
        for src, dst in self.readonly.items():
            args += ["--ro-bind", str(src), str(dst)]
        return [*args, "--chdir", str(self.cwd)]


def _ro_bind(path: Path) -> list[str]:
    """Bind `path` read-only at its own name and, when a symlink lies on the way, at its real name."""
    real = real_path(path)
    args = ["--ro-bind", real, str(path)]
    if real != str(path):
        args += ["--ro-bind", real, real]
    return args


def _minimal(paths: Iterable[Path]) -> list[Path]:
    """Existing paths without those lying under another one of the list (order kept)."""
    existing = [p for p in dict.fromkeys(paths) if p.exists()]
    return [p for p in existing if not any(o != p and _under(p, o) for o in existing)]


def readonly_mapping(paths: Mapping[Path, Path]) -> dict[Path, Path]:
    return {_absolute(s): _absolute(d) for s, d in paths.items()}
