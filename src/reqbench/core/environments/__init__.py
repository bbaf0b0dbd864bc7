"""Environments (DESIGN §14): a task's own toolchain, built once from a declared spec, kept read-only in the
cache under the hash of everything that defines it, and bound into the sandbox.

Public surface:

* `EnvironmentSpec`, `load_environment` -- the one ``environment:`` block (`model`);
* `environment_key` -- its content address (`key`);
* `ensure_built`, `find_built`, `BuiltEnvironment` -- build once, atomically, or find a built one (`cache`);
* `iter_suite_environments` -- every environment block a suite declares (`suites`).
"""

from __future__ import annotations

from reqbench.core.environments.cache import ensure_built, find_built
from reqbench.core.environments.key import environment_key
from reqbench.core.environments.model import BuiltEnvironment, EnvironmentSpec, load_environment
from reqbench.core.environments.suites import iter_suite_environments

__all__ = ["BuiltEnvironment", "EnvironmentSpec", "environment_key", "ensure_built", "find_built",
           "iter_suite_environments", "load_environment"]
