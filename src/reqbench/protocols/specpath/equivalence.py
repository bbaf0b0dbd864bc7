"""`specpath check`: every history of a family resolves to the same final contract (SpecPath eq. 3).

For each history the hidden trace is replayed (eq. 2) and normalised with P (eq. 1); the result must equal
C* = Norm(M* ∪ P) where M* is the family's list of final atoms. A history that does not is reported with
the first turn where it departs from the others for good: for every atom on which it disagrees, the last
turn that changed that atom's status (after it, the history never comes back), and the earliest of those.
Also checked here because they are properties of the visible histories, not of the verifier:

* the length-matched control has exactly cancellation's turn count and whitespace-token count;
* paraphrase-direct is a single turn;
* no turn text shows an atom id (histories are rendered without labels or identifiers).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from reqbench.protocols.specpath.family import Family
from reqbench.protocols.specpath.models import ALL_CONDITIONS
from reqbench.protocols.specpath.operators import token_count
from reqbench.protocols.specpath.replay import History, ReplayError, normalize, replay


@dataclass
class AtomDivergence:
    atom: str
    kind: str
    """``missing`` (in C* but not in the history's contract) or ``extra`` (the reverse)."""
    turn: int | None
    """Last turn that changed the atom's status; None when no turn ever touched it."""


@dataclass
class Divergence:
    reference: str
    history: str
    turn: int | None
    atoms: list[AtomDivergence]

    def sentence(self) -> str:
        where = f"turn {self.turn}" if self.turn is not None else "no turn (an atom is never activated)"
        names = ", ".join(f"{a.atom} ({a.kind})" for a in self.atoms)
        return f"history {self.history!r} diverges from {self.reference!r} at {where}: {names}"


@dataclass
class CheckReport:
    family: str
    contract: list[str]
    histories: dict[str, list[str]] = field(default_factory=dict)
    """Condition -> final active atom ids (sorted), for every history that replayed."""
    errors: list[str] = field(default_factory=list)
    divergences: list[Divergence] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and not self.divergences

    def to_dict(self) -> dict[str, Any]:
        return {"family": self.family, "ok": self.ok, "contract": self.contract,
                "histories": self.histories, "errors": self.errors,
                "divergences": [{**asdict(d), "message": d.sentence()} for d in self.divergences]}


def _last_change(states: list[frozenset[str]], atom: str) -> int | None:
    last = None
    for t in range(1, len(states)):
        if (atom in states[t]) != (atom in states[t - 1]):
            last = t
    return last


def divergence(history: History, states: list[frozenset[str]], expected: frozenset[str],
               reference: str = "C*") -> Divergence | None:
    final = states[-1]
    if final == expected:
        return None
    atoms = [AtomDivergence(a, "missing" if a in expected else "extra", _last_change(states, a))
             for a in sorted(final ^ expected)]
    turns = [a.turn for a in atoms if a.turn is not None]
    return Divergence(reference, history.condition, min(turns) if turns else None, atoms)


def _leaks(history: History, ids: list[str]) -> list[str]:
    out = []
    for t, turn in enumerate(history.turns, start=1):
        for atom in ids:
            if re.search(rf"(?<![\w-]){re.escape(atom)}(?![\w-])", turn.text):
                out.append(f"history {history.condition!r} turn {t}: text shows atom id {atom!r}")
    return out


def check_family(family: Family) -> CheckReport:
    """Replay every history, prove contract equivalence (eq. 3) or name the divergence, check controls."""
    expected_ids = frozenset(a.id for a in family.atoms)
    c_star = normalize([*family.atoms, *family.fixed])
    report = CheckReport(family.id, sorted(expected_ids))
    catalog = family.catalog
    ids = sorted(catalog) + [a.id for a in family.fixed]
    reference_name = "direct" if "direct" in family.histories else "C*"
    for cond in sorted(family.histories, key=lambda c: (ALL_CONDITIONS + (c,)).index(c)):
        history = family.histories[cond]
        report.errors.extend(_leaks(history, ids))
        if not history.turns:
            report.errors.append(f"history {cond!r} has no turns")
            continue
        try:
            result = replay(history, set(catalog))
        except ReplayError as exc:
            report.errors.append(str(exc))
            continue
        report.histories[cond] = sorted(result.final)
        contract = normalize([catalog[a] for a in result.final] + list(family.fixed))
        if contract != c_star:
            div = divergence(history, result.states, expected_ids,
                             reference="C*" if cond == reference_name else reference_name)
            if div is not None:
                report.divergences.append(div)
    report.errors.extend(_control_errors(family))
    return report


def _control_errors(family: Family) -> list[str]:
    out = []
    para = family.histories.get("paraphrase-direct")
    if para is not None and len(para.turns) != 1:
        out.append("history 'paraphrase-direct' must be a single turn")
    lm, cancel = family.histories.get("length-matched-no-revision"), family.histories.get("cancellation")
    if lm is not None and cancel is not None:
        if len(lm.turns) != len(cancel.turns):
            out.append(f"history 'length-matched-no-revision' has {len(lm.turns)} turns; cancellation has "
                       f"{len(cancel.turns)} (they must match exactly)")
        lm_tok = sum(token_count(t.text) for t in lm.turns)
        ca_tok = sum(token_count(t.text) for t in cancel.turns)
        if lm_tok != ca_tok:
            out.append(f"history 'length-matched-no-revision' has {lm_tok} whitespace tokens; cancellation "
                       f"has {ca_tok} (they must match exactly)")
        if any(t.activate or t.deactivate or t.restate for t in lm.turns[1:]):
            out.append("history 'length-matched-no-revision': turns after the first must be neutral "
                       "(no activate/deactivate/restate)")
    return out
