"""Subtasks from test results along a release chain (the derivation `journey scaffold` writes down).

Input: the per-node results of one hidden test suite (the final release's tests) on every release of a
chain, oldest first. Output: the release steps that become subtasks and their node sets, following the
calibration rules (`journey.calibrate`) so a scaffolded instance calibrates by construction:

* only nodes that pass at the final release count (a node failing there can never be a target);
* a node is **F2P of step k** when it fails at every kept release before k and passes at k and at every
  later kept release; a node passing at every kept release is **P2P** (behaviour the project already
  had); any other node (it passes, breaks and passes again) is *unstable* and left out;
* a step no node tells apart from its predecessor is **folded** into the next step (its change becomes
  part of the next subtask's reference patch); an empty last step folds the step before it into itself.
  Folding removes releases from the chain, which only relaxes the rules above, so it is repeated until
  every kept step has F2P nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from reqbench.core.errors import InputError


@dataclass(frozen=True)
class Step:
    """One subtask: the change from release `start` to release `end` (indices into the chain)."""

    start: int
    end: int
    f2p: list[str]

    @property
    def folded(self) -> list[int]:
        """Releases inside the step that no test told apart (their changes are part of this one)."""
        return list(range(self.start + 1, self.end))


@dataclass(frozen=True)
class Plan:
    steps: list[Step]
    p2p: list[str]
    unstable: list[str] = field(default_factory=list)
    failing_at_end: int = 0


def _classify(results: list[dict[str, bool]], states: list[int], nodes: list[str]
              ) -> tuple[dict[int, list[str]], list[str], list[str]]:
    """(state -> nodes first stable there, nodes passing everywhere, unstable nodes) over `states`."""
    f2p: dict[int, list[str]] = {s: [] for s in states[1:]}
    p2p: list[str] = []
    unstable: list[str] = []
    for node in nodes:
        passes = [results[s].get(node, False) for s in states]
        if all(passes):
            p2p.append(node)
            continue
        first = passes.index(True)
        if all(passes[first:]) and first > 0:
            f2p[states[first]].append(node)
        else:
            unstable.append(node)
    return f2p, p2p, unstable


def plan(results: list[dict[str, bool]]) -> Plan:
    """The subtasks of a chain of ≥ 2 releases from each release's results (``node -> passed``)."""
    if len(results) < 2:
        raise InputError("a release chain needs at least two releases", item="releases")
    last = len(results) - 1
    nodes = [n for n, ok in results[last].items() if ok]
    if not nodes:
        raise InputError("no test passes at the final release: is the tree importable as the project imports "
                         "it (a src/ layout needs pythonpath [src]) and are the tests where the command "
                         "looks?", item="releases")
    states = list(range(len(results)))
    while True:
        f2p, p2p, unstable = _classify(results, states, nodes)
        empty = [s for s in states[1:-1] if not f2p[s]]
        if not empty and not f2p[last] and len(states) > 2:
            empty = [states[-2]]  # the last step has nothing of its own: fold the step before into it
        if not empty:
            break
        states = [s for s in states if s not in empty]
    if not f2p[last]:
        raise InputError("no upstream test tells the first and the last release apart (nothing fails at "
                         "the first release and passes at the last)", item="releases")
    steps = [Step(a, b, f2p[b]) for a, b in zip(states, states[1:], strict=False)]
    failing = sum(1 for ok in results[last].values() if not ok)
    return Plan(steps=steps, p2p=p2p, unstable=unstable, failing_at_end=failing)
