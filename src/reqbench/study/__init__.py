"""Studies: one suite x named configurations x conditions x repeats in one directory (DESIGN §13).

Each configuration's rows form an ordinary run directory (``DIR/runs/<name>``); the suite is validated
and loaded once; the rows of all configurations interleave in one seeded order. `report` renders the
papers' comparison tables per configuration with intervals and support, and paired differences between
configurations on the same rows with a multiple-comparison correction::

    from reqbench.study import load_study_file, run_study

    result = run_study(load_study_file(Path("study.yaml")), Path("studies/sp"))

This package sits beside `reqbench.report`: it imports core, report and the protocols' interface and lookup,
never the CLI and never a protocol's own package. What a protocol adds to a study (its paired value and its
paper-shaped tables) comes through its study hook (`SuiteProtocol.study`, `core.protocol_study`).
"""

from reqbench.study.layout import StudyDir, is_study_dir
from reqbench.study.run import StudyResult, Talk, add_configurations, resume_study, run_study
from reqbench.study.spec import Configuration, StudyFile, load_study_file, parse_configuration

__all__ = ["Configuration", "StudyDir", "StudyFile", "StudyResult", "Talk", "add_configurations",
           "is_study_dir", "load_study_file", "parse_configuration", "resume_study", "run_study"]
