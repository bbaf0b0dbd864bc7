"""Judge specs: the one parser of ``--judge`` strings, for every protocol and command.

A spec is ``NAME`` or ``NAME:ARG``. ``NAME`` is an entry of the ``reqbench.judges`` registry group
(`reqbench.core.registry`), and every name has exactly one meaning wherever it is accepted:

* ``exact`` -- the contract's own deterministic rule (`ExactJudge`); a contract without one refuses it.
* ``replay:FILE`` -- answers recorded earlier, in the one replay format (`reqbench.core.judges.replay`).
* ``llm:MODEL`` -- a model answers the contract.
* ``token-overlap`` -- PACE's reference-evidence token-recall heuristic (PACE checklists only;
  ``offline`` is its older name).
* ``word-overlap`` -- SWE-Journey's capability heuristic (shared words, edited files; journey only).

A heuristic judge (an offline approximation, not a semantic judgment) marks its factory with `heuristic`;
reports name it wherever its numbers are drawn (`is_heuristic`).

A protocol that judges only some of them says so with `accepts`; an unknown name or a name the protocol
does not accept is one `InputError` listing what is accepted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, TypeVar

from reqbench.core import registry
from reqbench.core.errors import InputError
from reqbench.core.suggest import did_you_mean

F = TypeVar("F", bound=Callable[..., Any])
_HEURISTIC = "__reqbench_heuristic__"
_NAME = re.compile(r"[A-Za-z0-9_-]+")

ARG_HINTS = {"replay": "replay:FILE", "llm": "llm:MODEL"}
"""How a judge that needs an argument is shown in error messages and help texts."""


def shown(names: Collection[str]) -> str:
    """Judge names as a user types them (``llm:MODEL``, ``replay:FILE``), comma-separated."""
    return ", ".join(ARG_HINTS.get(n, n) for n in sorted(names))


@dataclass(frozen=True)
class JudgeSpec:
    name: str
    arg: str | None = None

    def __str__(self) -> str:
        return self.name if self.arg is None else f"{self.name}:{self.arg}"


def parse_judge_spec(text: str, *, accepts: Collection[str] | None = None, what: str = "") -> JudgeSpec:
    """Parse `text` into a `JudgeSpec` whose name is registered (and, given `accepts`, one of those names;
    `what` says what is being judged, for the error)."""
    name, colon, arg = (text or "").strip().partition(":")
    known = registry.names("judges")
    if name not in known:
        raise InputError(f"unknown judge {text!r}{did_you_mean(name, known)}; known judges: {shown(known)}",
                         item="--judge")
    if accepts is not None and name not in accepts:
        raise InputError(f"judge {name!r} does not judge {what or 'this'}; use one of: {shown(accepts)}",
                         item="--judge")
    return JudgeSpec(name, arg if colon else None)


def build_judge(spec: JudgeSpec) -> Any:
    """The object the registered factory of `spec.name` builds from `spec.arg` (its own checks apply)."""
    return registry.load("judges", spec.name)(spec.arg or None)


def heuristic(factory: F) -> F:
    """Mark a judge factory as a heuristic (an offline approximation reports must label as one)."""
    setattr(factory, _HEURISTIC, True)
    return factory


def is_heuristic(judge_ids: str) -> bool:
    """Whether any of the comma-separated judge ids (``token-overlap/v1``, ``word-overlap``, ``llm:m``, an
    older id that starts with a registered name) was judged by a judge whose factory is `heuristic`."""
    marked = [name for name, factory in registry.loadable("judges").items() if getattr(factory, _HEURISTIC, False)]
    for judge_id in (j.strip() for j in judge_ids.split(",")):
        head = _NAME.match(judge_id)
        if head and any(head.group(0).startswith(name) for name in marked):
            return True
    return False
