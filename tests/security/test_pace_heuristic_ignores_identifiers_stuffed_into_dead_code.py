"""A hostile candidate stuffs the reference's identifiers (and the PRD's) into code that never runs -- an
``if 0:`` block, a function nothing calls, an ``if False:`` inside an existing function -- to raise the
offline `token-overlap` heuristic. Only wired-in code counts (`pace/judges/wired.py`), so it scores no more
than the empty candidate; before that defence such a no-op patch scored 32.4 on billflow against null's 0."""

from __future__ import annotations

from pathlib import Path

from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.test_token_overlap_wiring import _case, _stuffed


def test_pace_heuristic_ignores_identifiers_stuffed_into_dead_code(tmp_path: Path) -> None:
    scorer = Scorer(_case("billflow-credit-notes"))
    empty = scorer.score("", "token-overlap").score
    for where in ("module", "function", "inside"):
        patch = _stuffed(scorer, where, tmp_path)
        assert "if 0:" in patch or "_never_called" in patch or "if False:" in patch
        assert scorer.score(patch, "token-overlap").score <= empty == 0.0, where
