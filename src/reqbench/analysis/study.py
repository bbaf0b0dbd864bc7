"""`load_study(DIR) -> Study`: a study directory read back for analysis: its configurations (settings and
their runs, each a `Run`) and every row of every configuration, as typed records.

What `Study.to_records` returns is what ``reqbench study report --csv`` writes: the configuration's
settings in front of each row's export columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reqbench.analysis.frames import Frame, frame
from reqbench.analysis.records import RunRow
from reqbench.analysis.run import Run, load_run
from reqbench.report.export_rows import ROW_TYPES
from reqbench.study.export import CONFIG_TYPES
from reqbench.study.layout import StudyDir


@dataclass(frozen=True)
class Configuration:
    """One configuration of a study: what ran its rows and what graded them, and its run (None until its
    first row is stored)."""

    name: str
    agent: str
    model: str | None
    judge: str
    agent_opts: dict[str, Any]
    run: Run | None


@dataclass(frozen=True)
class StudyRow:
    """One row of one configuration."""

    configuration: str
    row: RunRow


@dataclass(frozen=True)
class Study:
    """One study directory: its suite and configurations."""

    path: Path
    suite: str
    """The suite as the study names it (a directory or ``demo:NAME``)."""
    configurations: dict[str, Configuration]

    @property
    def protocol(self) -> str | None:
        """The protocol of the study's runs (None before any configuration has one)."""
        return next((c.run.protocol for c in self.configurations.values() if c.run is not None), None)

    def rows(self, grading: str | None = None) -> list[StudyRow]:
        """Every row of every configuration that has a run, configuration by configuration in the study's
        order (each under `grading`, default its run's latest)."""
        return [StudyRow(name, row) for name, config in self.configurations.items() if config.run is not None
                for row in config.run.rows(grading)]

    def to_records(self, grading: str | None = None) -> list[dict[str, Any]]:
        """The rows as plain dicts: the configuration columns, then the run's export columns."""
        out = []
        for item in self.rows(grading):
            config = self.configurations[item.configuration]
            out.append({"configuration": config.name, "config_agent": config.agent, "config_model": config.model,
                        "config_judge": config.judge, "config_agent_opts": dict(config.agent_opts),
                        **item.row.to_record()})
        return out

    def to_pandas(self, grading: str | None = None) -> Frame:
        """The rows as a typed pandas DataFrame (see `Run.to_pandas`); needs pandas."""
        return frame(self.to_records(grading), {**CONFIG_TYPES, **ROW_TYPES})


def load_study(path: str | Path) -> Study:
    """The study in `path` (made by ``reqbench study run``); an `InputError` when it is not one."""
    study = StudyDir.open(Path(path))
    spec = study.spec()
    configurations = {c.name: Configuration(c.name, c.agent, c.model, c.judge, dict(c.agent_opts),
                                            load_run(study.run_dir(c.name)) if study.has_run(c.name) else None)
                      for c in spec.configurations}
    return Study(study.path, str(spec.suite), configurations)
