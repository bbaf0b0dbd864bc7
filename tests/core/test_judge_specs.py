"""One judge spec parser and one meaning per judge name, in every protocol (`core.judges.spec`)."""

from __future__ import annotations

import pytest

from reqbench.core.errors import InputError
from reqbench.core.judges.exact import ExactJudge
from reqbench.core.judges.factory import make_judge
from reqbench.core.judges.spec import JudgeSpec, parse_judge_spec


def test_a_spec_is_a_registered_name_with_an_optional_argument() -> None:
    assert parse_judge_spec("exact") == JudgeSpec("exact")
    assert parse_judge_spec("llm:openai/m:1") == JudgeSpec("llm", "openai/m:1")
    assert str(parse_judge_spec("replay:f.jsonl")) == "replay:f.jsonl"


def test_an_unknown_judge_is_one_error_listing_every_known_judge() -> None:
    with pytest.raises(InputError) as info:
        parse_judge_spec("oracle")
    message = str(info.value)
    for shown in ("exact", "llm:MODEL", "replay:FILE", "token-overlap", "word-overlap"):
        assert shown in message


def test_a_judge_the_protocol_cannot_use_names_the_ones_it_can() -> None:
    with pytest.raises(InputError, match=r"does not judge PACE checklists; use one of: llm:MODEL, replay:FILE"):
        parse_judge_spec("exact", accepts=("token-overlap", "replay", "llm"), what="PACE checklists")


def test_heuristics_never_answer_judge_requests_and_exact_is_the_contract_rule() -> None:
    assert isinstance(make_judge("exact"), ExactJudge)
    for heuristic in ("token-overlap", "offline", "word-overlap"):
        with pytest.raises(InputError, match="does not answer judge requests"):
            make_judge(heuristic)


def test_pace_refuses_exact_and_keeps_its_documented_older_name() -> None:
    from reqbench.protocols.pace.judges import make_point_judge
    from reqbench.protocols.pace.judges.token_overlap import TokenOverlapJudge

    assert isinstance(make_point_judge("", dict), TokenOverlapJudge)
    assert make_point_judge("offline", dict).judge_id == "token-overlap/v1"  # its documented older name
    for other in ("exact", "word-overlap"):
        with pytest.raises(InputError, match="does not judge PACE checklists"):
            make_point_judge(other, dict)


def test_journey_defaults_to_word_overlap_and_refuses_exact() -> None:
    from reqbench.protocols.journey.capability import WordOverlap, session_judge

    assert isinstance(session_judge(""), WordOverlap) and isinstance(session_judge("word-overlap"), WordOverlap)
    for other in ("exact", "token-overlap", "offline"):
        with pytest.raises(InputError, match="does not judge SWE-Journey capabilities"):
            session_judge(other)


def test_heuristic_judges_are_known_by_their_marked_factories() -> None:
    """A report names a heuristic judge wherever its numbers are shown: the ids results carry (with a
    version, an older name, several joined) are recognised; real judges are not."""
    from reqbench.core.judges.spec import is_heuristic

    for judge_id in ("token-overlap", "token-overlap/v1", "offline", "offline-heuristic", "word-overlap",
                     "replay:x.jsonl, token-overlap/v1"):
        assert is_heuristic(judge_id), judge_id
    for judge_id in ("exact", "llm:gpt-5", "replay:answers.jsonl", "", "unknown"):
        assert not is_heuristic(judge_id), judge_id
