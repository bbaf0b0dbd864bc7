"""Reading runs and studies back for analysis: `load_run` and `load_study` return typed records (`Run`,
`RunRow` with the protocol's typed result, `ModelUsage`, `Grading`, `Study`), with ``.rows()`` and
``.to_records()`` everywhere and ``.to_pandas()`` where pandas is installed. Re-exported as
``reqbench.load_run`` / ``reqbench.load_study``; see docs/python-api.md.

The names are imported on first use (`core.lazy`), so ``import reqbench.analysis`` costs nothing until one
is read.
"""

from reqbench.core.lazy import lazy_attributes

WHERE = {
    "load_run": "reqbench.analysis.run", "Run": "reqbench.analysis.run",
    "load_study": "reqbench.analysis.study", "Study": "reqbench.analysis.study",
    "StudyRow": "reqbench.analysis.study", "Configuration": "reqbench.analysis.study",
    "RunRow": "reqbench.analysis.records", "ModelUsage": "reqbench.analysis.records",
    "Grading": "reqbench.analysis.records",
}
"""Public name -> the module that defines it."""

__all__ = sorted(WHERE)
__getattr__ = lazy_attributes(__name__, WHERE)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
