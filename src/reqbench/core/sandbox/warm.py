"""`warm_up`: what a process's first sandboxed launch would otherwise do on its own path, done ahead.

A process decides once which isolation the machine gives (`isolation.available_isolation`: a
bubblewrap probe, one process start in new namespaces), where per-command cgroups can be made
(`cgroups.parents`: a probe group made and removed per hierarchy, stale groups swept), the default
memory cap (`limits.default_memory`) and the host part of its views (`view.host_part`). Each is cached
for the process; the first tree's cgroups are made ahead too (`group_supply`). `reqbench run` calls
`warm_up` in a daemon thread first thing (`cli.generic_run`), so this work overlaps the command's
imports, suite validation and planning instead of sitting on the path to the first row and inside it.

Nothing is decided differently: each step is the very call a launch makes, and what it caches is checked
on use exactly as before (the host part is keyed on the identity of every path it depends on).
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core.sandbox.cgroups import parents
from reqbench.core.sandbox.isolation import available_isolation
from reqbench.core.sandbox.launch import scrubbed_env
from reqbench.core.sandbox.limits import default_memory, make_ahead
from reqbench.core.sandbox.view import host_part


def warm_up() -> bool:
    """Fill this process's sandbox caches (see module docstring); True when bubblewrap isolates here."""
    bwrap = available_isolation() == "bwrap"
    parents()
    default_memory()
    make_ahead()  # the first tree's groups (`group_supply`)
    if bwrap:  # every launch's environment has the same PATH (`launch.scrubbed_env`)
        host_part(scrubbed_env(None, Path("/"), Path("/"), "")["PATH"])
    return bwrap
