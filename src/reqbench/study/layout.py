"""A study directory on disk: ``study.json`` (the study file as run, suite path absolute), ``study.lock``,
one ordinary run directory per configuration under ``runs/<name>/`` (DESIGN §13), and with
``freeze_user_from`` the pilot's frozen simulated users, ``frozen-user.json``.

``study.json`` also records the study file it was created from (``source``), so a resume can say which
configurations were added to that file since (`study.source`).

``study.json`` is written atomically (temp file + rename) before any run directory is created, and again
when `reqbench study add` appends configurations, so a kill at any point leaves either the old or the new
study, never a mix; the rows themselves live in the run directories' stores (one transaction per attempt).
``reqbench report``, ``view``, ``export``, ``regrade`` and ``doctor`` work on each ``runs/<name>`` as on any run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from reqbench import __version__
from reqbench.core.errors import InputError
from reqbench.core.hashing import read_json, write_json
from reqbench.core.locks import exclusive
from reqbench.core.store import is_run_dir
from reqbench.study.spec import Configuration, StudyFile, parse_study

STUDY_FILE = "study.json"
LOCK_FILE = "study.lock"
RUNS_DIR = "runs"
FROZEN_USER_FILE = "frozen-user.json"


def is_study_dir(path: Path) -> bool:
    return (Path(path) / STUDY_FILE).is_file()


@dataclass(frozen=True)
class StudyDir:
    """An existing study directory."""

    path: Path

    @property
    def spec_file(self) -> Path:
        return self.path / STUDY_FILE

    def run_dir(self, name: str) -> Path:
        return self.path / RUNS_DIR / name

    @property
    def frozen_user_file(self) -> Path:
        """The pilot's frozen simulated users (``freeze_user_from``), written once its rows are finished."""
        return self.path / FROZEN_USER_FILE

    def has_run(self, name: str) -> bool:
        return is_run_dir(self.run_dir(name))

    def spec(self) -> StudyFile:
        try:
            data = read_json(self.spec_file)
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read the study ({exc})", file=str(self.spec_file)) from None
        return parse_study(data.get("study") if isinstance(data, dict) else None, str(self.spec_file))

    def source(self) -> Path | None:
        """The study file the study was created from (None for a study created without one)."""
        try:
            data = read_json(self.spec_file)
        except (OSError, ValueError):
            return None
        found = data.get("source") if isinstance(data, dict) else None
        return Path(found) if isinstance(found, str) and found else None

    def write(self, spec: StudyFile, source: Path | None = None) -> None:
        """Write ``study.json``; the study file it came from is kept (`source`, else the one recorded)."""
        origin = source if source is not None else self.source()
        write_json(self.spec_file, {"reqbench_version": __version__, "study": spec.model_dump(mode="json"),
                                    **({"source": str(Path(origin).absolute())} if origin is not None else {})})

    @classmethod
    def open(cls, path: Path) -> StudyDir:
        if not is_study_dir(path):
            raise InputError("not a study directory (no study.json); create one with `reqbench study run "
                             "STUDY.yaml --out DIR`", file=str(path))
        return cls(Path(path).absolute())

    @classmethod
    def create(cls, path: Path, spec: StudyFile, source: Path | None = None) -> StudyDir:
        """A new study directory (`path` must not exist, or be an empty directory); `source`: the study file."""
        path = Path(path).absolute()
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            what = "is a study directory; continue it with `reqbench study run --resume " + str(path) + "`" \
                if is_study_dir(path) else "exists and is not empty; choose another --out"
            raise InputError(what, file=str(path))
        try:
            (path / RUNS_DIR).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create the study directory ({exc.strerror or exc})", file=str(path)) from None
        study = cls(path)
        study.write(spec, source)
        return study

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold ``study.lock`` (`fcntl.flock`) while running or changing the study: one process at a time. The
        kernel drops the lock when the process dies (even by SIGKILL), so a killed study never blocks
        its own ``--resume``."""
        with exclusive(self.path / LOCK_FILE, "the study is being run by another process; wait for it or stop it",
                       owner=self.path):
            yield


def merge_configurations(spec: StudyFile, added: list[Configuration]) -> tuple[StudyFile, list[str]]:
    """The study with `added` appended, and the names that are new. A configuration identical to an existing
    one of the same name is reused (its rows are kept, never re-run); a different one under a taken name is
    an error naming it."""
    existing = {c.name: c for c in spec.configurations}
    new: list[Configuration] = []
    for config in added:
        known = existing.get(config.name)
        if known is not None:
            if known != config:
                raise InputError("a configuration of this name exists with other settings; choose another "
                                 "name (a configuration's rows are never re-run under new settings)",
                                 item=f"configuration {config.name!r}")
            continue
        if any(c.name == config.name for c in new):
            raise InputError("configuration name given twice", item=f"configuration {config.name!r}")
        new.append(config)
    merged = spec.model_copy(update={"configurations": [*spec.configurations, *new]})
    return merged, [c.name for c in new]
