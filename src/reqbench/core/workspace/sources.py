"""Where a repository comes from (`RepoSource`) and how it becomes a pristine baseline tree.

Five kinds, written as a spec string in suite files and on the command line:

* ``dir:PATH`` or a bare ``PATH`` -- a directory, used in place as the baseline (it is only read);
* ``git:PATH@COMMIT`` -- the tree of COMMIT in the repository at PATH (the work tree is ignored);
* ``archive:PATH`` -- a ``.zip`` or tar archive, checked member by member (see `archives`);
* ``pypi:NAME==VERSION[#sha256=HEX]`` -- the sdist of that release, fetched once with
  ``pip download --no-deps --no-binary :all:`` into the cache and hash-checked on every use;
* ``pypi-diff:NAME==A..B[#paths=GLOB,...]`` -- release A plus the upstream change A..B restricted to
  the path filter (`pypi_diff`); `RepoSource.change_patch` gives that change as a patch.

Suite files name a repository either by such a spec or by a folder relative to the suite;
`is_source_spec` tells the two apart and `source_tree` resolves either to a directory.

Everything but ``dir`` is unpacked once into the cache (``$REQBENCH_CACHE``, default
``~/.cache/reqbench``) under a content address (git tree id, archive sha256), written atomically, and
treated as read-only from then on.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from reqbench.core import tempdirs
from reqbench.core.cache_location import cache_root
from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_text, sha256_file
from reqbench.core.workspace import pypi_diff
from reqbench.core.workspace.archives import extract_archive, is_archive_name
from reqbench.core.workspace.git import git_env, run_git
from reqbench.core.workspace.trees import remove_tree

SOURCE_PREFIXES = ("pypi:", "pypi-diff:", "git:", "archive:")
"""Spec prefixes that name a fetched or unpacked source rather than a folder of a suite."""
SourceKind = Literal["dir", "git", "archive", "pypi", "pypi-diff"]
_PYPI_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9][A-Za-z0-9.+!_-]*)$")
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")


class RepoSource(BaseModel):
    """A repository to materialise workspaces from (dir, git commit, archive or PyPI sdist)."""

    model_config = ConfigDict(frozen=True)

    kind: SourceKind = Field(description="dir | git | archive | pypi | pypi-diff")
    location: str = Field(description="Directory, repository or archive path (absolute), or the PyPI "
                                      "requirement NAME==VERSION")
    ref: str | None = Field(default=None, description="git: the commit-ish as written in the spec")
    commit: str | None = Field(default=None, description="git: the resolved commit id")
    sha256: str | None = Field(default=None, description="archive/pypi: expected sha256 of the file")

    @classmethod
    def parse(cls, spec: str, base_dir: Path | None = None) -> RepoSource:
        """Parse a source spec; relative paths are resolved against `base_dir` (the suite folder;
        the current directory when omitted)."""
        spec = spec.strip()
        if not spec:
            raise InputError("empty repository spec", item="repo")
        kind, sep, rest = spec.partition(":")
        if kind == "pypi-diff":
            return cls(kind="pypi-diff", location=pypi_diff.parse(spec).spec.removeprefix(pypi_diff.PREFIX))
        if not sep or kind not in ("dir", "git", "archive", "pypi"):
            kind, rest = ("archive" if is_archive_name(spec) else "dir"), spec
        if kind == "pypi":
            req, _, pin = rest.partition("#")
            sha = None
            if pin:
                if not pin.startswith("sha256=") or not _SHA_RE.match(pin[7:].lower()):
                    raise InputError("pin must be '#sha256=<64 hex digits>'", item=spec)
                sha = pin[7:].lower()
            if not _PYPI_RE.match(req.strip()):
                raise InputError("expected pypi:NAME==VERSION", item=spec)
            return cls(kind="pypi", location=req.strip(), sha256=sha)
        ref = None
        if kind == "git":
            path_part, at, ref = rest.rpartition("@")
            if not at or not path_part or not ref:
                raise InputError("expected git:PATH@COMMIT", item=spec)
            rest = path_part
        sha = None
        if kind == "archive" and "#sha256=" in rest:
            rest, _, sha = rest.partition("#sha256=")
            if not _SHA_RE.match(sha.lower()):
                raise InputError("pin must be '#sha256=<64 hex digits>'", item=spec)
            sha = sha.lower()
        path = Path(rest).expanduser()
        if not path.is_absolute():
            path = Path(base_dir if base_dir is not None else Path.cwd()) / path
        return cls(kind=cast(SourceKind, kind), location=str(path.resolve()), ref=ref, sha256=sha)

    @property
    def spec(self) -> str:
        """The spec string this source round-trips to."""
        if self.kind == "git":
            return f"git:{self.location}@{self.commit or self.ref}"
        pin = f"#sha256={self.sha256}" if self.sha256 else ""
        return f"{self.kind}:{self.location}{pin}"

    def baseline(self) -> Path:
        """The pristine tree for this source (fetched/unpacked into the cache on first use)."""
        if self.kind == "dir":
            path = Path(self.location)
            if not path.is_dir():
                raise InputError("repository directory not found", file=self.location)
            return path
        if self.kind == "git":
            return _git_baseline(Path(self.location), self.commit or self.ref or "HEAD")
        if self.kind == "archive":
            return _archive_baseline(Path(self.location), self.sha256)
        if self.kind == "pypi-diff":
            return pypi_diff.patched_tree(pypi_diff.parse(self.spec), _pypi_release, cache_root(), _publish)
        return _archive_baseline(_pypi_sdist(self.location, self.sha256), None)

    def change_patch(self) -> str:
        """pypi-diff: the upstream change A..B (restricted to the filter) as a git-style patch."""
        if self.kind != "pypi-diff":
            raise InputError("only a pypi-diff: source is a change", item=self.spec)
        return pypi_diff.change_patch(pypi_diff.parse(self.spec), _pypi_release, cache_root())

    def resolved(self) -> RepoSource:
        """This source with its git commit / file sha256 filled in (for the run record)."""
        if self.kind == "git" and self.commit is None:
            commit = _rev_parse(Path(self.location), self.ref or "HEAD", "commit")
            return self.model_copy(update={"commit": commit})
        if self.kind == "archive" and self.sha256 is None:
            return self.model_copy(update={"sha256": _checked_sha(Path(self.location), None)})
        if self.kind == "pypi" and self.sha256 is None:
            sdist = _pypi_sdist(self.location, None)
            return self.model_copy(update={"sha256": sha256_file(sdist)})
        return self


def is_source_spec(text: str) -> bool:
    """True when `text` names a repository source (``pypi:``, ``pypi-diff:``, ``git:``, ``archive:``)
    rather than a path relative to a suite folder."""
    return text.strip().startswith(SOURCE_PREFIXES)


def source_tree(root: Path, text: str) -> Path:
    """The directory `text` names: a source's pristine tree (fetched into the cache on first use,
    hash-checked, read-only), or the folder `root / text`."""
    return RepoSource.parse(text, base_dir=root).baseline() if is_source_spec(text) else Path(root) / text


def read_patch(root: Path, text: str, what: str = "patch") -> str:
    """The patch `text` names: a ``pypi-diff:`` upstream change, or a patch file relative to `root`."""
    if pypi_diff.is_pypi_diff(text):
        return RepoSource.parse(text).change_patch()
    path = root / text
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{what} unreadable ({exc.strerror})", file=str(path)) from None


def _publish(build, dest: Path) -> Path:  # type: ignore[no-untyped-def]
    """Build a cache entry in a temp dir next to `dest`, then rename it into place atomically."""
    if dest.is_dir():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = tempdirs.make("staging", dest.parent, hidden=True)
    try:
        build(tmp / "tree")
        try:
            os.rename(tmp / "tree", dest)
        except OSError:
            if not dest.is_dir():  # a concurrent writer won the race otherwise
                raise
    finally:
        remove_tree(tmp)
    return dest


def _rev_parse(repo: Path, ref: str, kind: str) -> str:
    if not repo.exists():
        raise InputError("git repository not found", file=str(repo))
    git_dir = repo / ".git" if (repo / ".git").exists() else repo
    proc = run_git(["rev-parse", "--verify", "--quiet", f"{ref}^{{{kind}}}"], git_env(git_dir),
                   check=False)
    if proc.returncode != 0:
        if run_git(["rev-parse", "--git-dir"], git_env(git_dir), check=False).returncode != 0:
            raise InputError("not a git repository", file=str(repo))
        raise InputError(f"unknown commit {ref!r}", file=str(repo))
    return proc.stdout.decode().strip()


def _git_baseline(repo: Path, ref: str) -> Path:
    tree = _rev_parse(repo, ref, "tree")
    git_dir = repo / ".git" if (repo / ".git").exists() else repo

    def build(out: Path) -> None:
        out.mkdir()
        with tempdirs.folder("index") as tmp:
            env = git_env(git_dir, work_tree=out, index=Path(tmp) / "index")
            run_git(["read-tree", tree], env)
            run_git(["checkout-index", "-a", "-f"], env, cwd=out)

    return _publish(build, cache_root() / "git-trees" / tree)


def _checked_sha(path: Path, expected: str | None) -> str:
    if not path.is_file():
        raise InputError("archive not found", file=str(path))
    actual = sha256_file(path)
    if expected and actual != expected:
        raise InputError(f"sha256 mismatch: expected {expected}, file has {actual}", file=str(path))
    return actual


def _archive_baseline(path: Path, expected: str | None) -> Path:
    sha = _checked_sha(path, expected)
    return _publish(lambda out: extract_archive(path, out), cache_root() / "archives" / sha)


def _pypi_release(requirement: str, expected: str | None) -> tuple[Path, str]:
    """The unpacked, hash-checked sdist of `requirement` and the sdist's sha256 (for `pypi_diff`)."""
    sdist = _pypi_sdist(requirement, expected)
    return _archive_baseline(sdist, None), sha256_file(sdist)


def _pypi_sdist(requirement: str, expected: str | None) -> Path:
    """The cached sdist of `requirement`, downloaded on first use; its sha256 is recorded then and
    checked on every later use (a changed cache file is an error, never silently re-fetched)."""
    name, version = requirement.split("==", 1)
    folder = cache_root() / "pypi" / f"{name.lower()}-{version}"
    record = folder / "sdist.sha256"
    files = [p for p in folder.glob("*") if is_archive_name(p.name)] if folder.is_dir() else []
    if not files:
        folder.mkdir(parents=True, exist_ok=True)
        with tempdirs.folder("download", folder) as tmp:
            proc = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                 "--disable-pip-version-check", "-q", "-d", tmp, requirement],
                capture_output=True, text=True, check=False)
            got = [p for p in Path(tmp).iterdir() if is_archive_name(p.name)]
            if proc.returncode != 0 or len(got) != 1:
                reason = (proc.stderr.strip().splitlines() or ["no sdist downloaded"])[-1]
                raise InputError(f"could not download the sdist ({reason})", item=f"pypi:{requirement}")
            sha = _checked_sha(got[0], expected)
            os.replace(got[0], folder / got[0].name)
            atomic_write_text(record, sha + "\n")
        files = [folder / got[0].name]
    if len(files) != 1:
        raise InputError("cache holds more than one sdist", file=str(folder))
    recorded = record.read_text().strip() if record.is_file() else None
    actual = sha256_file(files[0])
    if recorded and actual != recorded:
        raise InputError(f"cached sdist changed since download (sha256 {actual}, recorded {recorded})",
                         file=str(files[0]))
    if expected and actual != expected:
        raise InputError(f"sha256 mismatch: expected {expected}, sdist has {actual}", file=str(files[0]))
    return files[0]
