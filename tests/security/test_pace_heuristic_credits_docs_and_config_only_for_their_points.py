"""A no-op candidate writes the case's vocabulary (the reference's added lines, the PRD, a ``.toml`` file
binding every reference name) into ``NOTES.md``, ``docs/``, ``CHANGES`` and configuration. None of it is
code: documentation and configuration files count only for Code Points about documentation or
configuration (`pace/judges/wired.counts_for`), so it scores what the null agent scores (0) on billflow
while the reference keeps 100. Before that rule the configuration bindings reached six behaviour points
(18.09; 3.72 with a smaller vocabulary file)."""

from __future__ import annotations

from pathlib import Path

from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.stuffing import vocabulary_in_docs_and_config
from tests.protocols.pace.test_token_overlap_wiring import _case


def test_vocabulary_in_documentation_and_configuration_scores_like_the_null_agent(tmp_path: Path) -> None:
    scorer = Scorer(_case("billflow-credit-notes"))
    assert scorer.score(scorer.case.reference_patch, "token-overlap").score == 100.0
    patch = vocabulary_in_docs_and_config(scorer, tmp_path)
    assert all(f"b/{name}" in patch for name in ("NOTES.md", "docs/design.md", "CHANGES", "vocabulary.toml"))
    assert scorer.score(patch, "token-overlap").score == scorer.score("", "token-overlap").score == 0.0
