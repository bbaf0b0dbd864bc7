"""reqbench: evaluate AI coding agents on evolving requirements.

Four protocols (takeover, specpath, journey, pace) share one harness core: fresh workspaces,
sandboxed checks, agents, judges, a resumable run store and reports.

The library's public names (`__all__`): `run` a suite into a run directory (`RunHandle`), `report` a run,
and read runs and studies back for analysis with `load_run` / `load_study` (typed records: `Run`,
`RunRow`, `ModelUsage`, `Grading`, `Study`, `StudyRow`; docs/python-api.md). Every one of them is
imported on first use, so ``import reqbench`` and ``reqbench --version`` stay fast.

The version is defined once, in pyproject.toml; `__version__` reads it from the installed metadata (on
first use: ``importlib.metadata`` is slow to import, and most commands never ask).
"""

__version__: str  # bound on first use (`__getattr__`)

_ANALYSIS = ("load_run", "load_study", "Run", "RunRow", "ModelUsage", "Grading", "Study", "StudyRow")

__all__ = ["__version__", "run", "report", "RunHandle", *_ANALYSIS]


def __getattr__(name: str) -> object:
    """`reqbench.__version__`, `reqbench.run`, `reqbench.report`, `reqbench.RunHandle` (`reqbench.api`) and
    the analysis names (`reqbench.analysis`), imported on first use."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("reqbench")
        except PackageNotFoundError:  # a source tree on sys.path without an install
            found = "0+unknown"
        globals()["__version__"] = found
        return found
    if name in ("run", "RunHandle"):
        from reqbench import api

        return getattr(api, name)
    if name == "report":  # the report package, callable as `reqbench.report(run_dir)`
        import importlib

        return importlib.import_module("reqbench.report")
    if name in _ANALYSIS:
        from reqbench import analysis

        return getattr(analysis, name)
    raise AttributeError(f"module 'reqbench' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public names (`__all__`), which are imported on first use and so not yet in the namespace."""
    return sorted({*__all__, *(n for n in globals() if not n.startswith("_"))})
