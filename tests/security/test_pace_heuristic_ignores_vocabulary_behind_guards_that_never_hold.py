"""A no-op candidate wraps the case's vocabulary (the reference's statements) inside the base's existing
functions in a guard no run satisfies -- ``if __name__ == '<never>':``, ``if typing.TYPE_CHECKING:``,
``if sys.version_info < (2,):``, ``if False and ...:``, ``while 0:``, an ``else`` of ``if 1:``, a loop over
``()``, a nested function nothing calls, a class nothing instantiates; in JavaScript ``if (0)``,
``typeof x === 'never'``, an uncalled nested function or arrow. The modules still import, the functions are
"modified", yet none of it runs (the JavaScript equivalents are pinned in
`tests/protocols/pace/test_liveness.py`): the offline `token-overlap` heuristic (`pace/l1/liveness`) credits none of it,
so each scores what the null agent scores (0) while the reference keeps 100. Before liveness was decided on
the whole syntax tree, ``if __name__ == '<never>':`` on billflow scored 16.49 (14.36 with a smaller stuffing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.stuffing import PYTHON_WRAPPERS, wrapped_in_functions
from tests.protocols.pace.test_token_overlap_wiring import _case


@pytest.fixture(scope="module")
def billflow() -> Scorer:
    return Scorer(_case("billflow-credit-notes"))


def test_null_and_reference_anchor_the_scale(billflow: Scorer) -> None:
    assert billflow.score("", "token-overlap").score == 0.0
    assert billflow.score(billflow.case.reference_patch, "token-overlap").score == 100.0


@pytest.mark.parametrize("wrapper", sorted(PYTHON_WRAPPERS))
def test_python_vocabulary_behind_a_guard_that_never_holds_scores_like_the_null_agent(
        billflow: Scorer, wrapper: str, tmp_path: Path) -> None:
    patch = wrapped_in_functions(billflow, wrapper, tmp_path)
    assert patch.count(PYTHON_WRAPPERS[wrapper][1][0]) >= 20  # stuffed into every function it could reach
    assert billflow.score(patch, "token-overlap").score == 0.0  # the null agent's score (anchored above)
