"""Everything that cuts across protocols, exactly once: the suite interface and the runner (`execute`), typed
summaries (`summary`), the run store (`store`), sandbox, checks, workspaces, agents, judges, model access
(`llm`), statistics and the registry of protocols, agents, judges and schemas (`registry`). Imports
nothing from `reqbench.protocols`, `reqbench.report` or `reqbench.cli`; checked with ``mypy --strict``."""

from reqbench.core.code_cache import install as _install_code_cache

_install_code_cache()  # for programs that import the library without the command line (`core.code_cache`)
