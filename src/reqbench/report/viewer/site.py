"""`Site`: what the viewer shows -- the runs found under a folder (each a `RunContext`) and, for a study, its
`StudyView`. The page modules take it as their argument; it imports no page and no server, so the pages and
the server (`server.Viewer`, which routes requests over a site) both build on it without a cycle.
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.store.runstore import DB_NAME, RunStore, is_run_dir
from reqbench.report.provenance import shown_path
from reqbench.report.viewer.run_context import RunContext
from reqbench.report.viewer.study_model import StudyView


class Site:
    """Every run directory under `root` (or `root` itself when it is one), opened read-only; with `study`,
    what the study page shows. `server.Viewer` routes requests over it."""

    def __init__(self, root: Path, study: StudyView | None = None) -> None:
        self.root = Path(root).absolute()
        self.study = study
        self.label = shown_path(str(self.root))
        """The folder as shown on pages (no machine layout: relative to the working directory, or ~/...)."""
        dirs = [self.root] if is_run_dir(self.root) else sorted(p.parent for p in self.root.rglob(DB_NAME))
        if not dirs:
            raise InputError("no run directory here (no run.sqlite under it)", file=str(self.root))
        self.runs: dict[str, RunContext] = {}
        for d in dirs:
            name = d.name if d == self.root else d.relative_to(self.root).as_posix()
            self.runs[name] = RunContext(name, RunStore.open(d, read_only=True))

    def close(self) -> None:
        for run in self.runs.values():
            run.store.close()
