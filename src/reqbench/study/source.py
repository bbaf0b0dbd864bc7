"""What the study file a study was created from holds that the study does not: ``study run --resume`` runs the
study as it was created (``study.json``), so a configuration added to ``STUDY.yaml`` afterwards is not run by
it. `unadded_configurations` names each such configuration and the command that adds it (`reqbench study
add`), and each configuration whose settings changed in the file, which a resume never applies.
"""

from __future__ import annotations

from reqbench.core.errors import InputError
from reqbench.study.layout import StudyDir
from reqbench.study.spec import load_study_file


def unadded_configurations(study: StudyDir) -> list[str]:
    """One sentence per configuration of the study's source file that the study lacks or holds otherwise
    (none when the study records no source file or the file is gone)."""
    source = study.source()
    if source is None or not source.is_file():
        return []
    try:
        written = load_study_file(source)
    except InputError as exc:
        return [f"{source} no longer reads as a study file ({exc}); --resume runs the study as it was created"]
    held = {c.name: c for c in study.spec().configurations}
    notes: list[str] = []
    for config in written.configurations:
        known = held.get(config.name)
        if known is None:
            notes.append(f"configuration {config.name!r} is in {source} but not in the study, so --resume does not "
                         f"run it; add it with `reqbench study add {study.path} {source}`")
        elif known != config:
            notes.append(f"configuration {config.name!r} has other settings in {source} than in the study; --resume "
                         "keeps the study's (rows never re-run under new settings): give the new settings a new "
                         "name and add it with `reqbench study add`")
    return notes
