"""History operators: the five core histories and two controls, generated from a compact family spec.

Each operator changes one structural property of the direct history (SpecPath Table 2 and "path
construction"):

* ``direct``       one turn activating every final atom;
* ``duplicate``    direct, then a turn restating every atom (inert repetition; restating all atoms avoids
                   reading the repeat as narrowing the unrepeated ones);
* ``split``        one final atom per turn (integration across turns);
* ``override``     the obsolete decoy is requested with the other final atoms, then a revision deactivates
                   it and activates its replacement (replacement);
* ``cancellation`` direct, then a temporary decoy, then a turn withdrawing it (retraction);
* ``paraphrase-direct``           the reviewed single-turn restatement (wording control);
* ``length-matched-no-revision``  direct plus neutral turns matching cancellation exactly in turn count
                                  and whitespace-token count, turn by turn (added-context control).

Hand-written histories in `family.yaml` take precedence; every generated history must pass `check`.
"""

from __future__ import annotations

from itertools import cycle

from reqbench.protocols.specpath.models import GenerateSpec
from reqbench.protocols.specpath.replay import History, Turn


def token_count(text: str) -> int:
    """Whitespace-token count, the length proxy the length-matched control equalises."""
    return len(text.split())


def _join(*parts: str) -> str:
    return " ".join(p.strip() for p in parts if p.strip())


def _say(gen: GenerateSpec, ids: list[str]) -> str:
    return _join(*(gen.phrasings[a] for a in ids))


def direct(gen: GenerateSpec, final: list[str]) -> History:
    return History("direct", (Turn(_join(gen.opening, _say(gen, final)), activate=tuple(final)),))


def duplicate(gen: GenerateSpec, final: list[str]) -> History:
    first = direct(gen, final).turns[0]
    again = Turn(_join(gen.restate_lead, _say(gen, final)), restate=tuple(final))
    return History("duplicate", (first, again))


def split(gen: GenerateSpec, final: list[str]) -> History:
    turns = [Turn(_join(gen.opening if i == 0 else gen.split_lead, gen.phrasings[a]), activate=(a,))
             for i, a in enumerate(final)]
    return History("split", tuple(turns))


def override(gen: GenerateSpec, final: list[str]) -> History:
    spec = gen.override
    first_ids = [spec.decoy if a == spec.replaced_by else a for a in final]
    first = Turn(_join(gen.opening, _say(gen, first_ids)), activate=tuple(first_ids))
    revise = Turn(_join(spec.revision, gen.phrasings[spec.replaced_by]),
                  deactivate=(spec.decoy,), activate=(spec.replaced_by,))
    return History("override", (first, revise))


def cancellation(gen: GenerateSpec, final: list[str]) -> History:
    spec = gen.cancellation
    first = direct(gen, final).turns[0]
    temporary = Turn(_join(gen.split_lead, gen.phrasings[spec.decoy]), activate=(spec.decoy,))
    cancel = Turn(spec.cancel.strip(), deactivate=(spec.decoy,))
    return History("cancellation", (first, temporary, cancel))


def paraphrase_direct(gen: GenerateSpec, final: list[str]) -> History:
    return History("paraphrase-direct", (Turn(gen.paraphrase.strip(), activate=tuple(final)),))


def _exact_subset(sizes: list[int], total: int) -> list[int] | None:
    """Indices of distinct items whose sizes sum to `total` (0/1 subset sum), or None."""
    reach: dict[int, list[int]] = {0: []}
    for i, size in enumerate(sizes):
        for have, picked in list(reach.items()):
            if have + size <= total and have + size not in reach:
                reach[have + size] = [*picked, i]
    return reach.get(total)


def _exact_multiset(sizes: list[int], total: int) -> list[int] | None:
    """Fewest items (repeats allowed) whose sizes sum to `total`, or None."""
    best: list[list[int] | None] = [[]] + [None] * total
    for have in range(1, total + 1):
        for i, size in enumerate(sizes):
            prev = best[have - size] if 0 < size <= have else None
            cur = best[have]
            if prev is not None and (cur is None or len(prev) + 1 < len(cur)):
                best[have] = [*prev, i]
    return best[total]


def neutral_text(filler: list[str], tokens: int, avoid: frozenset[str] = frozenset()) -> str:
    """Exactly `tokens` whitespace tokens of neutral filler.

    Whole filler sentences are combined so that their token counts add up exactly (distinct sentences
    when possible, else the fewest sentences with repeats); when no combination fits, the stream of
    filler sentences is cut at `tokens` and the cut token closed with an ellipsis (count unchanged).
    """
    if tokens <= 0 or not filler:
        return ""
    fresh = [s for s in filler if s not in avoid]
    for pool in (fresh, filler):
        sizes = [token_count(s) for s in pool]
        pick = _exact_subset(sizes, tokens)
        if pick is not None:
            return " ".join(pool[i].strip() for i in sorted(pick))
    sizes = [token_count(s) for s in filler]
    pick = _exact_multiset(sizes, tokens)
    if pick is not None:
        return " ".join(filler[i].strip() for i in sorted(pick))
    words: list[str] = []
    for sentence in cycle(filler):
        words.extend(sentence.split())
        if len(words) >= tokens:
            break
    cut = words[:tokens]
    if len(words) > tokens and not cut[-1].endswith((".", "!", "?")):
        cut[-1] = cut[-1].rstrip(",;:") + "…"
    return " ".join(cut)


def length_matched(gen: GenerateSpec, final: list[str], target: History) -> History:
    """Direct followed by neutral no-op turns matching `target` (cancellation) turn by turn in tokens."""
    first = direct(gen, final).turns[0]
    turns = [first]
    used: set[str] = set()
    for turn in target.turns[1:]:
        text = neutral_text(gen.filler, token_count(turn.text), frozenset(used))
        used.update(s for s in gen.filler if s.strip() in text)
        turns.append(Turn(text))
    return History("length-matched-no-revision", tuple(turns))


def generate_all(gen: GenerateSpec, final: list[str]) -> dict[str, History]:
    """Every history of a family, by condition name, in the order of `models.ALL_CONDITIONS`."""
    out = {h.condition: h for h in (direct(gen, final), duplicate(gen, final), split(gen, final),
                                     override(gen, final), cancellation(gen, final),
                                     paraphrase_direct(gen, final))}
    out["length-matched-no-revision"] = length_matched(gen, final, out["cancellation"])
    return out
