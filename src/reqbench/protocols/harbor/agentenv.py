"""The task's Dockerfile ``ENV`` in the agent's environment, as in Harbor: an image's ``ENV`` is part of the
container every ``docker compose exec`` runs in (``harbor/environments/docker/docker.py``), so the
agent's commands, ``solve.sh`` and ``test.sh`` all see it. Here the variables join the environment mount
of each agent step: the row's overlay of the task's environment, or, on the host toolchain, a mount that
only sets them (`core.sandbox.environment.EnvironmentMount.variables`; ``PATH`` is a prefix). ``solve.sh``
gets them as its own variables (`trial`), under ``[solution].env``."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from reqbench.core.sandbox.environment import EnvironmentMount, agent_environment

if TYPE_CHECKING:
    from reqbench.protocols.base import RowContext

VARIABLES_ONLY = "harbor-dockerfile-env"
"""The key of the mount that only sets the variables (no root, no layers: the host's system directories)."""


def with_variables(mount: EnvironmentMount, variables: dict[str, str]) -> EnvironmentMount:
    """`mount` also setting `variables` (the mount's own ``PATH`` prefix and variables win)."""
    own = dict(mount.variables)
    extra = tuple((k, v) for k, v in sorted(variables.items()) if k not in own)
    return dataclasses.replace(mount, variables=extra + mount.variables)


class _RowEnvironmentWithVariables:
    """The row's environment whose agent mount also sets the task's variables (checks are unchanged)."""

    def __init__(self, inner: Any, variables: dict[str, str]) -> None:
        self._inner, self._variables = inner, variables

    def agent_mount(self) -> EnvironmentMount:
        return with_variables(self._inner.agent_mount(), self._variables)

    @contextmanager
    def for_agent(self) -> Iterator[None]:
        with agent_environment(self.agent_mount()):
            yield

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@contextmanager
def agent_context(ctx: RowContext, variables: dict[str, str]) -> Iterator[RowContext]:
    """`ctx` whose agent steps see `variables` (unchanged when there are none)."""
    if not variables:
        yield ctx
    elif ctx.environment is not None:
        view: Any = _RowEnvironmentWithVariables(ctx.environment, variables)  # what RowContext.step uses of it
        yield dataclasses.replace(ctx, environment=view)
    else:
        with agent_environment(EnvironmentMount(VARIABLES_ONLY, None, variables=tuple(sorted(variables.items())))):
            yield ctx

