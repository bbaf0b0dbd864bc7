"""Fine-grained capability metrics (SWE-Journey §4.2, B.3): asking right, finding right, fixing right.

Per assistant turn, three judged stages produce labels; programs compute the rates:

* **Asking** -- does the user-facing reply solicit information, a decision or approval (``solicits``), and
  does it address an open need on the task's main line (``on_plan``)?
  Ask% = soliciting turns / turns. Rel% = soliciting *and* on-plan turns / turns (so Rel% <= Ask%).
* **Finding** -- where did the turn commit its changes, relative to the user's guidance and the
  subtasks at hand: ``hit``, ``miss`` (off-locus) or ``no_locus`` (nothing committed)? Separately, is the
  turn *overconfident-wrong* (claims success in a wrong direction)?
  Hit% = hit / (hit + miss), Miss% = miss / (hit + miss): no-locus turns are excluded from both.
  OC% = overconfident-wrong turns / turns; independent of Miss (a turn may count as either, both or
  neither).
* **Fixing** -- from visible reasoning: are recognised problems ``skipped`` (dismissed without grounds),
  ``grounded`` or is the turn ``clean``; a skipped problem is rated ``critical`` when ignoring it breaks a
  requirement. Skip% = skipped / turns with reasoning; Crit% = critical skips / turns with reasoning.
  Unavailable (None) when the assistant exposes no reasoning text.
* **User confidence** -- the simulator's self-reported confidence after the last turn (mean over sessions
  in the report).

Two implementations: `judged_capabilities` (any judge that answers the core judge contract, e.g.
``llm:MODEL`` or ``replay:FILE``; the paper's method) and `heuristic_capabilities`, the ``word-overlap``
judge, an **offline approximation** that is clearly labelled as such (``method: heuristic``): a question
is a reply sentence ending in '?', on-plan means it shares two content words with an active subtask's
hidden text, a hit means an edited file is one of the active subtasks' files, overconfident-wrong means
the reply claims completion while an active subtask's F2P nodes still fail; fixing is unavailable.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from reqbench.core import registry
from reqbench.core.errors import InputError
from reqbench.core.judges.base import Judge, JudgePending, JudgeRejected, JudgeRequest, judge_with_retries
from reqbench.core.judges.factory import make_judge
from reqbench.core.judges.spec import JudgeSpec, build_judge, heuristic, parse_judge_spec
from reqbench.protocols.journey.models import Instance
from reqbench.protocols.journey.session import SessionRecord, TurnRecord
from reqbench.protocols.journey.simulators.phrasing import questions_in, words

_CLAIM = re.compile(r"\b(done|implemented|fixed|complete[d]?|works|working|all tests pass(?:ed)?)\b", re.I)


@dataclass
class TurnLabels:
    solicits: bool
    on_plan: bool
    locus: str
    """``hit`` | ``miss`` | ``no_locus``."""
    overconfident_wrong: bool
    problem: str | None = None
    """``skipped`` | ``grounded`` | ``clean``; None when the turn has no visible reasoning."""
    critical: bool = False


def _hidden_text(instance: Instance, ids: list[str]) -> str:
    subs = [instance.subtask(s) for s in ids]
    return " ".join(" ".join([s.title, s.plain, s.request, *s.acceptance_criteria]) for s in subs)


def heuristic_turn(instance: Instance, turn: TurnRecord, disclosed: set[str] | None = None) -> TurnLabels:
    """Offline approximation of the three judged stages for one turn (see module docstring).

    `disclosed` (subtasks whose real request was stated by this turn) limits the overconfidence check to
    goals the assistant could know; by default every active subtask counts."""
    qs = questions_in(turn.reply)
    target = words(_hidden_text(instance, turn.active))
    on_plan = any(len(words(q) & target) >= 2 for q in qs)
    files = {f for sid in turn.active for f in instance.files_of(instance.subtask(sid))}
    if not turn.changed_files:
        locus = "no_locus"
    else:
        locus = "hit" if set(turn.changed_files) & files else "miss"
    known = [s for s in turn.active if disclosed is None or s in disclosed]
    unfinished = any(not all(turn.probes.get(n, False) for n in instance.subtask(s).f2p) for s in known)
    return TurnLabels(solicits=bool(qs), on_plan=on_plan, locus=locus,
                      overconfident_wrong=bool(_CLAIM.search(turn.reply)) and unfinished)


def rates(labels: list[TurnLabels], confidence: int | None) -> dict[str, float | None]:
    """Ask%, Rel%, Hit%, Miss%, OC%, Skip%, Crit% as fractions (definitions in the module docstring)."""
    n = len(labels)
    located = [x for x in labels if x.locus != "no_locus"]
    reasoned = [x for x in labels if x.problem is not None]

    def frac(num: int, den: int) -> float | None:
        return num / den if den else None

    return {
        "ask": frac(sum(x.solicits for x in labels), n),
        "rel": frac(sum(x.solicits and x.on_plan for x in labels), n),
        "hit": frac(sum(x.locus == "hit" for x in located), len(located)),
        "miss": frac(sum(x.locus == "miss" for x in located), len(located)),
        "oc": frac(sum(x.overconfident_wrong for x in labels), n),
        "skip": frac(sum(x.problem == "skipped" for x in reasoned), len(reasoned)),
        "crit": frac(sum(x.problem == "skipped" and x.critical for x in reasoned), len(reasoned)),
        "user_confidence": float(confidence) if confidence is not None else None,
    }


def heuristic_capabilities(record: SessionRecord, instance: Instance,
                           confidence: int | None) -> dict[str, Any]:
    """Capability rates from the offline heuristic (an approximation, labelled ``method: heuristic``)."""
    labels, disclosed = [], set()
    for t in record.turns:
        disclosed.update(t.disclosed)
        labels.append(heuristic_turn(instance, t, disclosed))
    return {"method": "heuristic", **rates(labels, confidence)}


# ---- the LLM-judged version -------------------------------------------------------------------------

_ASK = ("Read the assistant's reply to the user. 'solicits': does the reply ask the user for information, "
        "a decision or an approval (yes/no)? 'on_plan': does at least one such question address an open "
        "need of the subtasks listed as the main line (yes/no; 'no' when nothing is solicited).")
_FIND = ("Judge where the assistant committed its work this turn. 'localization': 'hit' if the edited "
         "code is where the user's guidance and the listed subtasks require it, 'miss' if the edits are "
         "off that locus, 'no_locus' if the turn committed to no location. 'overconfident_wrong': 'yes' if "
         "the reply asserts success or certainty about something the test results show is wrong.")
_FIX = ("Read the assistant's visible reasoning. 'problem_handling': 'skipped' if it noticed a problem and "
        "dismissed it without grounds, 'grounded' if every noticed problem was handled or dismissed with "
        "evidence, 'clean' if it noticed none. 'critical': 'yes' only if a skipped problem would break one "
        "of the listed requirements.")
_ALLOWED = {"solicits": {"yes", "no"}, "on_plan": {"yes", "no"}, "localization": {"hit", "miss", "no_locus"},
            "overconfident_wrong": {"yes", "no"}, "problem_handling": {"skipped", "grounded", "clean"},
            "critical": {"yes", "no"}}


_STAGES = {"asking": ("journey_asking", _ASK, ["solicits", "on_plan"]),
           "finding": ("journey_finding", _FIND, ["localization", "overconfident_wrong"]),
           "fixing": ("journey_fixing", _FIX, ["problem_handling", "critical"])}


def stage_requests(instance: Instance, turn: TurnRecord, reasoning: str = "") -> dict[str, JudgeRequest]:
    """The judge requests of one turn: asking and finding always, fixing only with visible reasoning."""
    subs = [{"id": s.id, "request": s.request, "acceptance_criteria": list(s.acceptance_criteria)}
            for s in (instance.subtask(x) for x in turn.active)]
    failing = [n for s in turn.active for n in instance.subtask(s).f2p if not turn.probes.get(n, False)]
    data: dict[str, Any] = {"user_message": turn.user_message, "assistant_reply": turn.reply,
                            "main_line": subs, "edited_files": turn.changed_files,
                            "diff_excerpt": turn.diff[:6000], "failing_tests": failing}
    out = {}
    for stage, (contract, instructions, candidates) in _STAGES.items():
        if stage == "fixing":
            if not reasoning.strip():
                continue
            data = {**data, "reasoning": reasoning[:8000]}
        labels = sorted({lab for c in candidates for lab in _ALLOWED[c]})
        out[stage] = JudgeRequest(contract=contract, instructions=instructions, data=data,
                                  candidates=candidates, labels=labels)
    return out


def _labels(judge: Judge, request: JudgeRequest) -> dict[str, str]:
    got = judge_with_retries(judge, request).labels
    bad = [c for c in request.candidates if got[c] not in _ALLOWED[c]]
    if bad:
        raise JudgeRejected(f"{request.contract}: labels outside the allowed set for {bad}")
    return got


def judged_turn(instance: Instance, turn: TurnRecord, judge: Judge, reasoning: str = "") -> TurnLabels:
    """The three judged stages of B.3 for one turn. Raises `JudgePending` / `JudgeRejected` when the
    judge cannot comply (the caller falls back to the heuristic and says so)."""
    reqs = stage_requests(instance, turn, reasoning)
    ask, find = _labels(judge, reqs["asking"]), _labels(judge, reqs["finding"])
    labels = TurnLabels(solicits=ask["solicits"] == "yes",
                        on_plan=ask["solicits"] == "yes" and ask["on_plan"] == "yes",
                        locus=find["localization"], overconfident_wrong=find["overconfident_wrong"] == "yes")
    if "fixing" in reqs:
        fix = _labels(judge, reqs["fixing"])
        labels.problem = fix["problem_handling"]
        labels.critical = fix["problem_handling"] == "skipped" and fix["critical"] == "yes"
    return labels


def judged_capabilities(record: SessionRecord, instance: Instance, judge: Judge,
                        confidence: int | None, reasoning: list[str] | None = None) -> dict[str, Any]:
    """Capability rates from an LLM judge (B.3), and each turn's labels (``turn_labels``, what a judging
    repetition compares). `reasoning[i]` is turn i's visible reasoning, if any."""
    texts = reasoning or [""] * len(record.turns)
    labels = [judged_turn(instance, t, judge, r) for t, r in zip(record.turns, texts, strict=True)]
    return {"method": f"judge:{judge.judge_id}", **rates(labels, confidence),
            "turn_labels": [asdict(x) for x in labels]}


class WordOverlap:
    """The ``word-overlap`` judge: selects `heuristic_capabilities` (it answers no judge requests)."""

    judge_id = "word-overlap"


@heuristic
def make_word_overlap(arg: str | None) -> WordOverlap:
    """Registry factory of ``word-overlap``."""
    if arg:
        raise InputError(f"judge 'word-overlap' takes no argument (got {arg!r})", item="--judge")
    return WordOverlap()


DEFAULT_JUDGE = "word-overlap"


def session_judge(judge_spec: str) -> Judge | WordOverlap:
    """The judge of a run's ``--judge`` ('' = ``word-overlap``). Journey's contracts have no exact rule
    and are not PACE checklists, so ``exact`` and ``token-overlap`` are refused with the list of judges
    that apply."""
    accepts = [n for n in registry.names("judges") if n not in ("exact", "token-overlap", "offline")]
    spec = parse_judge_spec(judge_spec or DEFAULT_JUDGE, accepts=accepts, what="SWE-Journey capabilities")
    built = build_judge(spec)
    if spec.name == "llm" and spec.arg and "," not in spec.arg:  # journey's judge keeps temperature 0, seed 0
        spec = JudgeSpec("llm", f"{spec.arg},temperature=0,seed=0")
    return built if isinstance(built, WordOverlap) else make_judge(str(spec))


def session_capabilities(record: SessionRecord, instance: Instance, judge_spec: str,
                         confidence: int | None) -> dict[str, Any]:
    """Capabilities for a run's ``--judge``: ``word-overlap`` (the default) -> the heuristic
    approximation; a request-answering judge -> the judged version, falling back to the heuristic (with
    the reason recorded under ``judge_pending``) when the judge cannot label every turn."""
    judge = session_judge(judge_spec)
    if isinstance(judge, WordOverlap):
        return heuristic_capabilities(record, instance, confidence)
    try:
        return judged_capabilities(record, instance, judge, confidence, [t.reasoning for t in record.turns])
    except (JudgePending, JudgeRejected) as exc:
        return {**heuristic_capabilities(record, instance, confidence), "judge_pending": str(exc)}
