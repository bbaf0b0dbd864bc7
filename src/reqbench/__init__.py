"""reqbench: evaluate AI coding agents on evolving requirements.

Four protocols (takeover, specpath, journey, pace) share one harness core: fresh workspaces,
sandboxed checks, agents, judges, a resumable run store and reports.

The version is defined once, in pyproject.toml; `__version__` reads it from the installed metadata (on
first use: ``importlib.metadata`` is slow to import, and most commands never ask).
"""

import sys

__version__: str  # bound on first use (`__getattr__`)


def __getattr__(name: str) -> object:
    """`reqbench.__version__`, and `reqbench.run`, `reqbench.report`, `reqbench.RunHandle` (`reqbench.api`),
    imported on first use so `import reqbench` and `reqbench --version` stay fast."""
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
        import reqbench.report  # noqa: F401  (binds the submodule)

        return sys.modules["reqbench.report"]
    raise AttributeError(f"module 'reqbench' has no attribute {name!r}")
