"""reqbench: evaluate AI coding agents on evolving requirements.

Four protocols (takeover, specpath, journey, pace) share one harness core: fresh workspaces,
sandboxed checks, agents, judges, a resumable run store and reports.
"""

__version__ = "0.1.0"
