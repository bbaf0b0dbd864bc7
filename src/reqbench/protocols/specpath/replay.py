"""Trace replay and contract normalisation: SpecPath equations (1)-(3).

A history's hidden trace Z_H = ((A_t, D_t, R_t))_t is replayed from M_0 = {} by
``M_t = (M_{t-1} \\ D_t) ∪ A_t`` (eq. 2); a restatement leaves M_t unchanged. Restating or deactivating an
atom that is not active is a construction error (the trace would describe something the text cannot
mean). The final contract is ``C* = M* ∪ P`` (eq. 1) and two histories are contract-equivalent when the
normalised final contracts are equal (eq. 3). Normalisation drops presentation order and keeps exactly
atom identity, scope, polarity and observation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reqbench.protocols.specpath.models import Polarity


@dataclass(frozen=True)
class Atom:
    id: str
    scope: str
    condition: str
    polarity: Polarity
    observation: str
    probes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Turn:
    """A visible turn `text` with its hidden labels (A_t, D_t, R_t) as atom ids."""

    text: str
    activate: tuple[str, ...] = ()
    deactivate: tuple[str, ...] = ()
    restate: tuple[str, ...] = ()


@dataclass(frozen=True)
class History:
    """One condition's history: its name and ordered turns."""

    condition: str
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class NormAtom:
    """What normalisation keeps of an atom: identity, scope, polarity, observation (eq. 3)."""

    id: str
    scope: str
    polarity: str
    observation: str


class ReplayError(Exception):
    """The hidden trace is not a valid program (names the history, the 1-based turn and the atom)."""

    def __init__(self, condition: str, turn: int, atom: str, rule: str) -> None:
        self.condition, self.turn, self.atom, self.rule = condition, turn, atom, rule
        super().__init__(f"history {condition!r} turn {turn}: atom {atom!r}: {rule}")


@dataclass
class ReplayResult:
    """The state after every turn: `states[t]` is M_t (states[0] = M_0 = empty)."""

    condition: str
    states: list[frozenset[str]] = field(default_factory=list)

    @property
    def final(self) -> frozenset[str]:
        return self.states[-1]


def replay(history: History, known: set[str] | None = None) -> ReplayResult:
    """Replay a trace by eq. (2); raise `ReplayError` on an invalid step.

    Within one turn deactivation applies before activation, so an override turn may deactivate the old
    atom and activate its replacement. Restatements are checked against M_{t-1} (what was active before
    the turn spoke).
    """
    state: frozenset[str] = frozenset()
    result = ReplayResult(history.condition, [state])
    for t, turn in enumerate(history.turns, start=1):
        for atom in (*turn.activate, *turn.deactivate, *turn.restate):
            if known is not None and atom not in known:
                raise ReplayError(history.condition, t, atom, "unknown atom id")
        for atom in turn.restate:
            if atom not in state:
                raise ReplayError(history.condition, t, atom, "restates an atom that is not active")
        for atom in turn.deactivate:
            if atom not in state:
                raise ReplayError(history.condition, t, atom, "deactivates an atom that is not active")
        state = (state - frozenset(turn.deactivate)) | frozenset(turn.activate)
        result.states.append(state)
    return result


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def normalize(atoms: list[Atom]) -> frozenset[NormAtom]:
    """Norm(·): an order-free set keeping identity, scope, polarity and observation (whitespace-folded)."""
    return frozenset(NormAtom(a.id, _clean(a.scope), a.polarity.value, _clean(a.observation))
                     for a in atoms)


def final_contract(history: History, catalog: dict[str, Atom], fixed: list[Atom]) -> frozenset[NormAtom]:
    """Norm(Replay(Z_H) ∪ P): the normalised final contract a history resolves to (eqs. 1 and 3)."""
    active = replay(history, set(catalog)).final
    return normalize([catalog[a] for a in sorted(active)] + list(fixed))
