"""Coverage during construction (SWE-Journey appendix A.2): task angles, seed selection, coverage report.

* **Task angles**: planning samples each stage's angles from a *frozen* distribution over 20 angles, with
  the defect-fixing weight capped and the two rarest angles floored (A.2). The paper derives its taxonomy
  from benchmark content and does not print the weights; `ANGLES` is ours (names include those the paper
  mentions: feature addition, interface-contract adjustment, data processing, observability, environment
  setup, repository collaboration, defect fixing). Cap and floor values are ours too (`DEFECT_CAP`,
  `RARE_FLOOR`).
* **Seed selection**: greedy set cover over seed labels (knowledge domains and angles), preferring rare
  labels, at most three instances per repository (A.2).
* **Coverage**: which of the sampled angles a plan used, and the knowledge domains it covers.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

DEFECT = "defect fixing"
ANGLES: dict[str, float] = {
    DEFECT: 0.30, "feature addition": 0.14, "interface-contract adjustment": 0.07, "data processing": 0.07,
    "input validation": 0.06, "error handling": 0.05, "configuration options": 0.05, "observability": 0.04,
    "performance": 0.03, "refactoring": 0.03, "serialization and persistence": 0.03, "query and filtering": 0.03,
    "compatibility": 0.02, "command-line interface": 0.02, "concurrency": 0.015, "security hardening": 0.015,
    "internationalisation": 0.01, "documentation sync": 0.01, "environment setup": 0.002,
    "repository collaboration": 0.001,
}
DEFECT_CAP = 0.15
"""Upper bound on the defect-fixing share after normalisation (ours; the paper caps it without a value)."""
RARE_FLOOR = 0.02
"""Lower bound on the two rarest angles' shares (ours; the paper floors them without a value)."""
PER_REPOSITORY = 3
"""A.2: seed selection limits each repository to three instances."""


def angle_distribution() -> dict[str, float]:
    """The frozen sampling distribution: `ANGLES` with defect fixing capped at `DEFECT_CAP` and the two
    rarest angles floored at `RARE_FLOOR`, the other angles rescaled so the total stays 1."""
    total = sum(ANGLES.values())
    base = {a: w / total for a, w in ANGLES.items()}
    rare = sorted(base, key=lambda a: (base[a], a))[:2]
    fixed = {DEFECT: min(base[DEFECT], DEFECT_CAP), **{a: max(base[a], RARE_FLOOR) for a in rare}}
    rest = {a: w for a, w in base.items() if a not in fixed}
    scale = (1.0 - sum(fixed.values())) / sum(rest.values())
    return {a: fixed.get(a, rest.get(a, 0.0) * scale) for a in ANGLES}


def sample_angles(stages: int, per_stage: int, seed: int) -> list[list[str]]:
    """Angles for each plan stage, drawn without repetition inside a stage, reproducible from `seed`."""
    rng = random.Random(seed)
    dist = angle_distribution()
    out = []
    for _ in range(stages):
        pool = dict(dist)
        chosen = []
        for _ in range(min(per_stage, len(pool))):
            names = sorted(pool)
            pick = rng.choices(names, weights=[pool[n] for n in names])[0]
            chosen.append(pick)
            del pool[pick]
        out.append(chosen)
    return out


def select_seeds(pool: Sequence[tuple[str, str, Iterable[str]]], count: int) -> list[str]:
    """Greedy set cover (A.2): `pool` is ``(seed_id, repository, labels)``. Each step takes the seed whose
    labels not yet covered are worth most, a label's worth being 1 / (number of seeds carrying it), so rare
    labels win; ties by seed id. At most `PER_REPOSITORY` seeds per repository. Once everything is covered,
    remaining picks go to the highest total label worth."""
    labels = {sid: set(ls) for sid, _, ls in pool}
    repo_of = {sid: repo for sid, repo, _ in pool}
    freq = Counter(label for ls in labels.values() for label in ls)
    covered: set[str] = set()
    chosen: list[str] = []
    per_repo: Counter[str] = Counter()

    def worth(ls: set[str]) -> float:
        return sum(1.0 / freq[label] for label in ls)

    while len(chosen) < count:
        open_ = [s for s in sorted(labels) if s not in chosen and per_repo[repo_of[s]] < PER_REPOSITORY]
        if not open_:
            break
        best = max(open_, key=lambda s: (worth(labels[s] - covered), worth(labels[s]), -open_.index(s)))
        chosen.append(best)
        per_repo[repo_of[best]] += 1
        covered |= labels[best]
    return chosen


def coverage_report(sampled: list[list[str]], used: list[list[str]], domains: Iterable[str]) -> dict[str, Any]:
    """Per stage, the sampled angles the plan used; overall angle coverage; the knowledge domains covered."""
    stages = [{"sampled": s, "used": sorted(set(u)), "covered": [a for a in s if a in set(u)]}
              for s, u in zip(sampled, used, strict=True)]
    wanted = [a for s in sampled for a in s]
    hit = [a for st in stages for a in st["covered"]]
    return {"stages": stages, "sampled_angles_covered": f"{len(hit)}/{len(wanted)}",
            "angles": sorted({a for u in used for a in u}), "knowledge_domains": sorted(set(domains))}
