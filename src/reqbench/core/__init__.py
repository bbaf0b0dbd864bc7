"""Everything that cuts across protocols, exactly once: the suite interface and the runner (`execute`), typed
summaries (`summary`), the run store (`store`), sandbox, checks, workspaces, agents, judges, model access
(`llm`), statistics and the registry of protocols, agents, judges and schemas (`registry`). Imports
nothing from `reqbench.protocols`, `reqbench.report` or `reqbench.cli`; checked with ``mypy --strict``."""

from reqbench.core.dataclass_code import install as _install_dataclass_code

_install_dataclass_code()  # the library's classes, for programs that import it without the command line
