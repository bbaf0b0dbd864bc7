"""The journey report names who played the user and who judged the capabilities (SWE-Journey B.1: an LLM
simulator; §4.2/B.3: LLM-judged capability metrics), and every table a stand-in affects says so; single-shot
and the four personas are the default conditions (B.2, A.3)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import yaml

from reqbench.core.bundled import bundled_suite
from reqbench.core.execute.types import Row, RowStatus
from reqbench.protocols.journey.models import DEFAULT_CONDITIONS, SuiteSpec
from reqbench.protocols.journey.report import markdown_table, provenance_notes, simulated_user, summarize_rows
from reqbench.protocols.journey.summary import summary


def _row(cond: str, simulator: str, caps: dict, model: str = "") -> tuple[Row, SimpleNamespace]:
    result = {"simulator": simulator, "final_f2p": 1.0, "final_p2p": 0.5, "capabilities": caps,
              **({"simulator_model": model} if model else {})}
    return Row("i1", cond, "a", 0), SimpleNamespace(status=RowStatus.SCORED, result=result)


def test_simulated_user_labels() -> None:
    assert simulated_user("deterministic") == "rule-based (deterministic)"
    assert simulated_user("llm", "glm-x") == "LLM (glm-x)"
    assert simulated_user("none") == "none (single-shot)"


def test_rule_based_user_and_word_overlap_judge_are_named_in_the_header_and_every_affected_table() -> None:
    rows = [_row("software-architect", "deterministic", {"method": "heuristic", "ask": 0.5}),
            _row("single-shot", "none", {"method": "heuristic", "ask": 0.0})]
    data = summarize_rows(rows)
    assert data["software-architect"]["simulated_user"] == "rule-based (deterministic)"
    assert data["single-shot"]["simulated_user"] == "none (single-shot)"
    typed = summary(data)
    assert typed.overview == {"simulated user": "none (single-shot); rule-based (deterministic)",
                              "capability judge": "word-overlap heuristic (offline approximation)"}
    main, caps = (t.title for t in typed.tables)
    assert main == ("main results (interactive rows: rule-based simulated user, not the paper's LLM "
                    "simulator (B.1))")
    assert caps == ("capability metrics (word-overlap heuristic, not the paper's LLM judge (B.3); user "
                    "confidence from the rule-based simulated user)")
    assert typed.tables[0].rows["software-architect"]["average"] == 0.75  # (1.0 + 0.5) / 2
    text = markdown_table(data)
    assert text.startswith("Simulated user: none (single-shot); rule-based (deterministic). Capability judge: "
                           "word-overlap heuristic (offline approximation).")
    assert text.count("Note: ") == 2


def test_an_llm_user_and_an_llm_judge_carry_no_caveat() -> None:
    rows = [_row("non-coder", "llm", {"method": "judge:llm:judge-m", "ask": 0.5}, model="glm-x")]
    notes = provenance_notes(summarize_rows(rows))
    assert notes == {"simulated user": "LLM (glm-x)", "capability judge": "judge:llm:judge-m",
                     "main caveat": "", "capability caveat": ""}
    typed = summary(summarize_rows(rows))
    assert [t.title for t in typed.tables] == ["main results", "capability metrics"]


def test_single_shot_and_the_four_personas_are_the_default_conditions() -> None:
    assert DEFAULT_CONDITIONS == ("non-coder", "product-manager", "new-developer", "software-architect",
                                  "single-shot")
    assert SuiteSpec(protocol="journey", instances=["x"]).conditions == list(DEFAULT_CONDITIONS)
    real = Path(__file__).resolve().parents[3] / "suites" / "real" / "journey" / "suite.yaml"
    bundled = bundled_suite("journey") / "suite.yaml"
    for suite_file in (real, bundled):
        spec = SuiteSpec.model_validate(yaml.safe_load(suite_file.read_text()))
        assert sorted(spec.conditions) == sorted(DEFAULT_CONDITIONS), suite_file
