"""Agreement and stability of PACE verdicts (paper §4.4 Table 5, §4.5, appendix "Repetition analysis").

Records are read from files in one of two shapes: a mapping ``{case_id: {point_id: verdict}}``, or a list
of `reqbench pace score --json` results (each with ``case_id``, ``score``, ``complete``, ``verdicts``).

* `agreement`  exact agreement, linearly weighted kappa (Missing < Partial < Covered, weights 1/0.5/0)
               and the severe Covered-Missing inversion rate against a consensus record;
* `stability`  per-case sample SD and range of repeated scores, averaged over cases, for repeated
               judging of fixed patches vs repeated executions, and their ratios;
* `judging_records` per judging record the covered-point rate and complete deliveries, and the mean
               pairwise weighted kappa and severe-disagreement rate across records;
* `repeat_passk` point-level (Covered) and case-level (complete delivery) pass@k and pass^k.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.hashing import read_json
from reqbench.core.stats.agreement import exact_agreement, severe_disagreement_rate, weighted_kappa
from reqbench.core.stats.passk import pass_curves

ORDER = ("Missing", "Partial", "Covered")


def load_record(path: Path) -> dict[str, Any]:
    """{"verdicts": {(case, point): label}, "scores": {case: score}, "complete": {case: bool}}."""
    try:
        data = read_json(Path(path))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read verdict record ({type(exc).__name__})", file=str(path)) from exc
    verdicts: dict[tuple[str, str], str] = {}
    scores: dict[str, float | None] = {}
    complete: dict[str, bool] = {}
    items = (
        data
        if isinstance(data, list)
        else [{"case_id": c, "verdicts": v} for c, v in data.items()]
        if isinstance(data, dict) and "case_id" not in data
        else [data]
    )
    for item in items:
        if not isinstance(item, dict) or "case_id" not in item or not isinstance(item.get("verdicts"), dict):
            raise InputError("each record needs case_id and a verdicts mapping", file=str(path))
        case = str(item["case_id"])
        for point, label in item["verdicts"].items():
            if label not in (*ORDER, "Unresolved"):
                raise InputError(
                    f"verdict {label!r} is not Covered/Partial/Missing/Unresolved",
                    file=str(path),
                    item=f"{case}/{point}",
                )
            verdicts[(case, str(point))] = label
        if "score" in item:
            scores[case] = item["score"]
            complete[case] = bool(item.get("complete"))
    return {"verdicts": verdicts, "scores": scores, "complete": complete}


def agreement(judged: dict[tuple[str, str], str], consensus: dict[tuple[str, str], str]) -> dict[str, Any]:
    """Exact agreement, weighted kappa and severe inversions over the consensus points.

    Every consensus point must be judged (a missing one is an input error, not a silent drop); an
    Unresolved judged verdict counts as a disagreement for exact agreement and is excluded from kappa.
    """
    missing = sorted(k for k in consensus if k not in judged)
    if missing:
        raise InputError(
            f"{len(missing)} consensus point(s) not judged, e.g. {missing[0][0]}/{missing[0][1]}"
        )
    keys = sorted(consensus)
    a = [judged[k] for k in keys]
    b = [consensus[k] for k in keys]
    resolved = [(x, y) for x, y in zip(a, b, strict=True) if x in ORDER and y in ORDER]
    ra, rb = [x for x, _ in resolved], [y for _, y in resolved]
    return {
        "n": len(keys),
        "exact_agreement": exact_agreement(a, b),
        "weighted_kappa": weighted_kappa(ra, rb, ORDER) if resolved else None,
        "severe_disagreement": severe_disagreement_rate(a, b, "Missing", "Covered"),
        "unresolved": len(keys) - len(resolved),
    }


def _case_spread(records: list[dict[str, float | None]]) -> tuple[float, float, int]:
    cases = sorted(set.intersection(*(set(r) for r in records)))
    sds, ranges = [], []
    for c in cases:
        vals = [r[c] for r in records]
        if any(v is None for v in vals):
            continue
        nums = [float(v) for v in vals if v is not None]
        sds.append(statistics.stdev(nums) if len(nums) > 1 else 0.0)
        ranges.append(max(nums) - min(nums))
    if not sds:
        raise InputError("no case is scored in every record")
    return statistics.fmean(sds), statistics.fmean(ranges), len(sds)


def stability(
    judging: list[dict[str, float | None]], execution: list[dict[str, float | None]]
) -> dict[str, Any]:
    """Mean per-case SD and range for repeated judging vs repeated executions, and their ratios
    (execution / judging)."""
    if len(judging) < 2 or len(execution) < 2:
        raise InputError("stability needs at least two judging records and two execution records")
    j_sd, j_rng, j_n = _case_spread(judging)
    e_sd, e_rng, e_n = _case_spread(execution)
    return {
        "judging": {
            "mean_case_sd": j_sd,
            "mean_case_range": j_rng,
            "cases": j_n,
            "means": [_mean(r) for r in judging],
        },
        "execution": {
            "mean_case_sd": e_sd,
            "mean_case_range": e_rng,
            "cases": e_n,
            "means": [_mean(r) for r in execution],
        },
        "sd_ratio": e_sd / j_sd if j_sd else None,
        "range_ratio": e_rng / j_rng if j_rng else None,
    }


def judging_records(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Repeated judging of fixed patches, record by record and pairwise (paper §4.5 Table 11, appendix
    "Detailed Repetition Analysis").

    Table 11 reports, beside the case SD/range comparison, per judging record the covered-point rate and
    the complete deliveries ("3/43 / 2/43 / 3/43"), and across records the linearly weighted Cohen's
    kappa "averaged over the three judging pairs" and the severe (Covered-Missing) disagreement rate.
    Here: covered-point rate = Covered / judged points of the record; complete = complete cases / scored
    cases; kappa and severe rate per pair over the points both records judged (Unresolved excluded from
    kappa), then their plain mean over all unordered pairs.
    """
    from itertools import combinations

    per_record = []
    for r in records:
        labels = list(r["verdicts"].values())
        per_record.append({
            "points": len(labels),
            "covered_point_rate": labels.count("Covered") / len(labels) if labels else None,
            "complete_deliveries": f"{sum(1 for c in r['complete'].values() if c)}/{len(r['complete'])}"
            if r["complete"] else None,
            "mean_score": _mean(r["scores"]) if r["scores"] else None,
        })
    kappas, severe = [], []
    for a, b in combinations(records, 2):
        keys = sorted(set(a["verdicts"]) & set(b["verdicts"]))
        pairs = [(a["verdicts"][k], b["verdicts"][k]) for k in keys]
        resolved = [(x, y) for x, y in pairs if x in ORDER and y in ORDER]
        if resolved:
            kappas.append(weighted_kappa([x for x, _ in resolved], [y for _, y in resolved], ORDER))
        if pairs:
            severe.append(severe_disagreement_rate([x for x, _ in pairs], [y for _, y in pairs],
                                                   "Missing", "Covered"))
    return {
        "records": per_record,
        "pairs": len(kappas),
        "mean_pairwise_weighted_kappa": statistics.fmean(kappas) if kappas else None,
        "mean_pairwise_severe_disagreement": statistics.fmean(severe) if severe else None,
    }


def _mean(r: dict[str, float | None]) -> float | None:
    vals = [v for v in r.values() if v is not None]
    return statistics.fmean(vals) if vals else None


def repeat_passk(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Point-level (Covered) and case-level (complete) pass@k / pass^k over records in the given order."""
    points = [{f"{c}/{p}": v == "Covered" for (c, p), v in r["verdicts"].items()} for r in records]
    out: dict[str, Any] = {"runs": len(records), "points": pass_curves(points)}
    if all(r["complete"] for r in records):
        out["cases"] = pass_curves([dict(r["complete"]) for r in records])
    return out
