"""How the deterministic user words things: disclosures, answers and feedback, by persona dimension.

Pure functions of (instance data, persona, seeded RNG); the deterministic simulator decides *what* to say
and these decide *how*. Wording is our own; the choice among templates is the only use of randomness.
"""

from __future__ import annotations

import random
import re

from reqbench.protocols.journey.models import Instance, SubtaskSpec
from reqbench.protocols.journey.online import TestRun
from reqbench.protocols.journey.personas import (
    ControlStyle,
    DetailPreference,
    Expertise,
    Persona,
    VerificationStyle,
)

_WORD = re.compile(r"[a-z0-9_]+")
_STOP = {"the", "a", "an", "to", "of", "and", "or", "in", "on", "for", "is", "it", "be", "do", "you", "i",
         "should", "would", "what", "which", "how", "with", "that", "this", "are", "can", "we", "my", "me"}


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]


def questions_in(reply: str) -> list[str]:
    """Sentences of the assistant's reply that end in a question mark (questions to the user)."""
    return [s for s in sentences(reply) if s.endswith("?")]


def _technical(persona: Persona) -> bool:
    return persona.expertise in (Expertise.INTERMEDIATE, Expertise.EXPERT)


def describe(instance: Instance, sub: SubtaskSpec, persona: Persona) -> str:
    """A subtask's disclosure at the persona's expertise and detail preference."""
    plain = sub.plain or sub.title
    if _technical(persona):
        text = sub.request
        if persona.detail_preference is DetailPreference.MINIMAL:
            text = sentences(sub.request)[0]
    else:
        text = plain
    if persona.detail_preference is DetailPreference.DETAILED and sub.acceptance_criteria:
        text += "\nIt's done when:\n" + "\n".join(f"- {c}" for c in sub.acceptance_criteria)
    if persona.control_style is ControlStyle.DIRECTIVE:
        text += f"\nMake the change in {', '.join(instance.files_of(sub))}."
    return text


def opening(instance: Instance, persona: Persona, rng: random.Random) -> str:
    if persona.expertise is Expertise.NONE:
        return rng.choice(["Hi! I use this little program and I'd like it to do more.",
                           "Hello, I have a small program here and need some help improving it."])
    return rng.choice(["Hi. Some background: ", "Hello! Context first: "]) + (instance.spec.overview
                                                                            or instance.spec.title)


def pivot_correction(sub: SubtaskSpec, text: str, rng: random.Random) -> str:
    lead = rng.choice(["Actually, I've changed my mind about what I asked before.",
                       "Hmm, thinking about it again, that's not really what I need.",
                       "Sorry, scratch my last request."])
    return f"{lead} What I really want: {text}"


def answer(instance: Instance, persona: Persona, question: str, candidates: list[SubtaskSpec]) -> str:
    """Answer one question from the hidden request of the best-matching open subtask, at the persona's
    expertise: a non-coder restates the need and defers; a product manager adds the closest acceptance
    criterion; a developer or architect quotes the closest sentence of the technical request."""
    if not candidates:
        return "I don't have anything more specific on that; use your judgement."
    q = words(question)
    sub = max(candidates, key=lambda s: (len(q & words(" ".join([s.title, s.request, s.plain,
                                                                    *s.acceptance_criteria]))),
                                          -candidates.index(s)))
    crit = max(sub.acceptance_criteria or [""], key=lambda c: len(q & words(c)))
    if persona.expertise is Expertise.NONE:
        return f"I'm not sure about the technical side. What I need is: {sub.plain or sub.title} You decide."
    if persona.expertise is Expertise.LOW:
        extra = f" In particular: {crit}" if crit else ""
        return f"From the product side: {sub.plain or sub.title}{extra}"
    best = max(sentences(sub.request), key=lambda s: len(q & words(s)))
    if persona.expertise is Expertise.EXPERT and crit:
        return f"{best} Also: {crit}"
    return best


def feedback(instance: Instance, persona: Persona, failing: list[SubtaskSpec], run: TestRun,
             regressions: list[str], rng: random.Random) -> str:
    """Report what is still wrong, in the persona's verification style.

    symptoms: what the user notices when trying the feature, no test names; acceptance: the unmet
    subtasks' acceptance criteria; tests: number of failing tests per feature and one test name;
    review: the failing node ids (up to five per subtask) and any regressed node ids.
    """
    style = persona.verification_style
    parts: list[str] = []
    for sub in failing:
        bad = run.failing(sub.f2p)
        if style is VerificationStyle.SYMPTOMS:
            lead = rng.choice(["I tried it, but this still doesn't work: ", "It's still not right: ",
                               "When I try it, it doesn't do what I asked: "])
            parts.append(lead + (sub.plain or sub.title))
        elif style is VerificationStyle.ACCEPTANCE:
            crit = "; ".join(sub.acceptance_criteria) or sub.title
            parts.append(f"'{sub.title}' is not accepted yet. Please make sure: {crit}")
        elif style is VerificationStyle.TESTS:
            parts.append(f"I ran the tests: {len(bad)} still fail for {sub.title}, "
                         f"e.g. {bad[0].rsplit('::', 1)[-1]}.")
        else:
            bad += [n for n in run.failing(instance.p2p_of(sub)) if n not in bad]
            parts.append(f"{sub.id} ({sub.title}) still fails: " + ", ".join(bad[:5]))
    if regressions and style is VerificationStyle.REVIEW:
        parts.append("Regressions - these passed before and fail now: " + ", ".join(regressions[:5]))
    elif regressions and style is VerificationStyle.TESTS:
        parts.append(f"Also, {len(regressions)} test(s) that used to pass now fail, "
                     f"e.g. {regressions[0].rsplit('::', 1)[-1]}.")
    elif regressions:
        parts.append("Also, something that used to work is broken now.")
    return "\n".join(parts)


def acknowledge(subs: list[SubtaskSpec], persona: Persona, rng: random.Random) -> str:
    names = ", ".join(s.title for s in subs)
    if persona.expertise is Expertise.NONE:
        return rng.choice([f"Great, {names} works now, thanks!", f"Oh nice, {names} is working."])
    return rng.choice([f"Verified: {names} looks good.", f"Thanks, {names} is done."])


def give_up(sub: SubtaskSpec, rng: random.Random) -> str:
    return rng.choice([f"Let's leave {sub.title} for now and move on.",
                       f"Forget about {sub.title}, it's taking too long."])
