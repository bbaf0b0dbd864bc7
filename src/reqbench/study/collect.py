"""Reading a study back: the suite (loaded once) and, per configuration, its selected outcomes and counts.

Only configurations whose run directory exists are read (a study interrupted before a configuration's
first row has none yet); a configuration's rows are the selected attempts of its run store under the
``original`` grading (`RunStore.outcomes`), exactly what ``reqbench report runs/<name>`` reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reqbench import api
from reqbench.core.errors import InputError
from reqbench.core.execute.suite import Suite
from reqbench.core.execute.types import Outcomes
from reqbench.core.protocol_study import ProtocolStudy, StudyConfig, StudyRows
from reqbench.core.store import RunStore
from reqbench.core.store.selection import ORIGINAL
from reqbench.protocols.lookup import protocol_for_suite
from reqbench.study.layout import StudyDir
from reqbench.study.spec import Configuration, StudyFile


@dataclass(frozen=True)
class ConfigRows:
    """One configuration as stored: its settings, run directory, selected outcomes and counts."""

    config: Configuration
    run_dir: Path
    outcomes: Outcomes
    counts: dict[str, int]


@dataclass(frozen=True)
class StudyData:
    """A study read back for reporting."""

    study: StudyDir
    spec: StudyFile
    suite: Suite
    configs: dict[str, ConfigRows]

    @property
    def protocol(self) -> str:
        return self.suite.protocol.name

    @property
    def protocol_study(self) -> ProtocolStudy:
        """What the study's protocol offers studies (`SuiteProtocol.study`): its paired value and tables."""
        return self.suite.protocol.study()

    def rows(self) -> StudyRows:
        """The configurations' stored rows as the protocol's study tables take them (study order)."""
        return StudyRows(self.suite, {name: StudyConfig(name, c.config.agent, c.config.model_label(), c.outcomes)
                                      for name, c in self.configs.items()}, self.spec.freeze_user_from)


def collect(path: Path, grading: str = ORIGINAL) -> StudyData:
    """Read the study in `path` (`InputError` when it is not a study or its suite cannot be loaded)."""
    study = StudyDir.open(path)
    spec = study.spec()
    suite_path = api.resolve_suite(spec.suite)
    if not suite_path.is_dir():
        raise InputError("the study's suite is not there any more; restore it to report the study",
                         file=str(suite_path))
    suite = protocol_for_suite(suite_path).load(suite_path)
    configs: dict[str, ConfigRows] = {}
    for config in spec.configurations:
        if not study.has_run(config.name):
            continue
        with RunStore.open(study.run_dir(config.name), read_only=True) as store:
            configs[config.name] = ConfigRows(config, store.run_dir, store.outcomes(grading=grading),
                                              store.counts())
    return StudyData(study, spec, suite, configs)
