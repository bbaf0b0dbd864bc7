"""Running git on private, configuration-free repositories: `git_env`, `run_git`, `init_bare`.

Every git call of reqbench goes through `run_git`: user and system configuration are switched off and a
fixed set of ``-c`` options makes the output byte-stable (no autocrlf, no quoting changes, no fsmonitor).
`init_bare` lays out a bare repository in Python (``HEAD``, ``config``, ``objects/``, ``refs/``), which is
all git needs for a ``GIT_DIR``, so no ``git init`` process is paid per diff or patch. `shared_repository`
is one such skeleton per process and set of files, in a private (0700) temporary directory that names
its owner (`core.tempdirs`), removed at exit or, when the process was killed, by the next one's sweep:
``git apply`` and ``git diff-tree`` only read their ``GIT_DIR`` (objects come from
``GIT_OBJECT_DIRECTORY``), so a patch or diff creates no repository directories of its own.
"""

from __future__ import annotations

import atexit
import functools
import os
import subprocess
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.errors import HarnessError
from reqbench.core.workspace.fileio import remove_tree

_SKELETON = {"HEAD": "ref: refs/heads/main\n",
             "config": "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"}


def init_bare(git_dir: Path, files: dict[str, str] | None = None) -> Path:
    """Create the bare repository `git_dir` (and the extra text `files` inside it); returns `git_dir`."""
    git_dir = Path(git_dir)
    for sub in ("refs/heads", "refs/tags", "objects", "info"):
        (git_dir / sub).mkdir(parents=True, exist_ok=True)
    for name, text in {**_SKELETON, **(files or {})}.items():
        (git_dir / name).write_text(text)
    return git_dir


def shared_repository(files: tuple[tuple[str, str], ...] = ()) -> Path:
    """This process's read-only bare skeleton holding the text `files` (``(name, text)`` pairs); a forked
    child (which may also have changed its user) makes its own."""
    return _shared(tuple(sorted(files)), os.getpid(), os.geteuid())


@functools.cache
def _shared(files: tuple[tuple[str, str], ...], pid: int, uid: int) -> Path:
    top = tempdirs.make("git")
    atexit.register(_remove_own, top, pid)
    return init_bare(top / "g.git", dict(files))


def _remove_own(top: Path, pid: int) -> None:
    if os.getpid() == pid:  # a forked child exiting never removes its parent's skeleton
        remove_tree(top)


def git_env(git_dir: Path, work_tree: Path | None = None, index: Path | None = None,
            objects: Path | None = None) -> dict[str, str]:
    """Environment for git on a private object store, immune to user/system config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_DIR": str(git_dir), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
                "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    if objects is not None:
        env["GIT_OBJECT_DIRECTORY"] = str(objects)
    if work_tree is not None:
        env["GIT_WORK_TREE"] = str(work_tree)
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    return env


_GIT_OPTS = ["-c", "core.autocrlf=false", "-c", "core.quotepath=false", "-c", "gc.auto=0",
             "-c", "core.fsmonitor=false", "-c", "diff.noprefix=false", "-c", "core.safecrlf=false",
             "-c", "core.protectNTFS=false", "-c", "core.protectHFS=false"]


def run_git(args: list[str], env: dict[str, str], *, cwd: Path | None = None,
            input: bytes | None = None, check: bool = True,
            config: list[str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run git with reqbench's fixed options (plus ``-c`` `config` entries, which take precedence)."""
    extra = [arg for item in config or [] for arg in ("-c", item)]
    try:
        proc = subprocess.run(["git", *_GIT_OPTS, *extra, *args], env=env, cwd=cwd, input=input,
                              capture_output=True, check=False)
    except FileNotFoundError:
        raise HarnessError("git is not installed; reqbench needs git for diffs and patches") from None
    if check and proc.returncode != 0:
        raise HarnessError(f"git {args[0]} failed: {proc.stderr.decode(errors='replace').strip()}")
    return proc
