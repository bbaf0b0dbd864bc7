"""A no-op candidate puts the case's vocabulary (the reference's statements) into a new function in every
file the reference touches and reaches it through a chain of new functions that only call each other
(``_h3 -> _h2 -> _h1 -> _stuffed``), in a file far enough from the point's seeds that the last link shows
up in the connection inventory as an edge. Nothing calls ``_h3``, so none of it can run: the offline
`token-overlap` heuristic credits only declarations reachable from the repository's entry points or tests
(`pace/l1/reach.py`), and the chain scores what the null agent scores (0) on billflow; before it scored
20.21. Called from ``if __name__ == "__main__":`` the chain is reachable again (a control that the
difference is reachability), and from ``if __name__ == '<never>':`` it is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.stuffing import chained_functions
from tests.protocols.pace.test_token_overlap_wiring import _case


@pytest.fixture(scope="module")
def billflow() -> Scorer:
    return Scorer(_case("billflow-credit-notes"))


@pytest.mark.parametrize("entry", ["", "if __name__ == '<never>':", "if typing.TYPE_CHECKING:"])
def test_a_chain_of_functions_nothing_reachable_calls_scores_like_the_null_agent(
        billflow: Scorer, entry: str, tmp_path: Path) -> None:
    assert billflow.score(billflow.case.reference_patch, "token-overlap").score == 100.0
    patch = chained_functions(billflow, tmp_path, entry)
    assert "+def _h3():" in patch and patch.count("+def _stuffed():") >= 8
    assert billflow.score(patch, "token-overlap").score == billflow.score("", "token-overlap").score == 0.0


def test_the_same_chain_called_from_the_main_guard_is_reachable(billflow: Scorer, tmp_path: Path) -> None:
    patch = chained_functions(billflow, tmp_path, "if __name__ == '__main__':")
    assert billflow.score(patch, "token-overlap").score > 0.0
