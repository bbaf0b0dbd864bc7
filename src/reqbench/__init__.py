"""reqbench: evaluate AI coding agents on evolving requirements.

Four protocols (takeover, specpath, journey, pace) share one harness core: fresh workspaces,
sandboxed checks, agents, judges, a resumable run store and reports.

The version is defined once, in pyproject.toml; `__version__` reads it from the installed metadata.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("reqbench")
except PackageNotFoundError:  # a source tree on sys.path without an install
    __version__ = "0+unknown"
