"""Journey comparison tables (SWE-Journey §4.1, Table 2, B.2): Proc/Final F2P, Final P2P, Average, turns and
cost by configuration x persona; Spearman's rho between the personas' rankings of the configurations; the
paired single-shot vs interactive comparison over configurations (`journey.comparisons`); with frozen
simulated users, the share of user reactions each configuration replayed from the pilot."""

from __future__ import annotations

from collections.abc import Sequence

from reqbench.core.stats.intervals import DEFAULT_BOOT, DEFAULT_SEED, cluster_bootstrap
from reqbench.core.summary import Cell, Metric, Table
from reqbench.protocols.journey.comparisons import persona_rank_correlations, single_shot_vs_interactive
from reqbench.study.collect import Outcomes, StudyData
from reqbench.study.readers import relabelled
from reqbench.study.readers.journey import METRICS, provenance_notes, replayed, session_values, summaries
from reqbench.study.table import StudyTable

ESTIMATOR = (f"mean over scored sessions (SWE-Journey Table 2); 95% percentile cluster bootstrap over instances "
             f"({DEFAULT_BOOT} resamples, seed {DEFAULT_SEED}); fewer than 2 instances: no interval; n = sessions")


def _interval(per_instance: dict[str, list[float]]) -> tuple[float, float] | None:
    """Cluster bootstrap of the session mean, resampling instances with all their sessions."""
    if len(per_instance) < 2:
        return None

    def mean(sample: Sequence[list[float]]) -> float:
        values = [v for cluster in sample for v in cluster]
        return sum(values) / len(values) if values else float("nan")

    iv = cluster_bootstrap(list(per_instance.values()), mean)
    return iv.lo, iv.hi


def _cells(outcomes: Outcomes, condition: str, summary: dict[str, object]) -> dict[str, Cell]:
    sessions = [(row.task_id, session_values(row, o)) for row, o in outcomes if row.condition == condition]
    out: dict[str, Cell] = {}
    for key, label in METRICS.items():
        per: dict[str, list[float]] = {}
        for instance, values in sessions:
            if values.get(key) is not None:
                per.setdefault(instance, []).append(float(values[key]))  # type: ignore[arg-type]
        value = summary.get(key)
        out[label] = Metric(float(value) if isinstance(value, int | float) else None, _interval(per),
                            sum(len(v) for v in per.values()))
    return out


FROZEN = ("reactions = the simulated user's reactions (opening message + one per assistant turn) in the "
          "configuration's scored sessions; replayed = reactions taken from the pilot because the matching key "
          "(position, user state, hidden-test results, previous results, assistant failure) was the pilot's; "
          "diverged = sessions with at least one live reaction")


def frozen_table(data: StudyData) -> StudyTable | None:
    """The share of simulated-user reactions replayed from the pilot, per configuration."""
    pilot = data.spec.freeze_user_from
    if pilot is None:
        return None
    rows: dict[str, dict[str, Cell]] = {}
    for name, stored in data.configs.items():
        found = [r for _, o in stored.outcomes if (r := replayed(o)) is not None]
        reactions, replays = sum(r[0] for r in found), sum(r[1] for r in found)
        rows[name] = {"role": "pilot" if name == pilot else "replays the pilot", "sessions": len(found),
                      "reactions": reactions, "replayed": replays,
                      "replayed share": Metric(replays / reactions if reactions else None, None, reactions),
                      "sessions diverged": sum(1 for r in found if r[2])}
    return StudyTable(Table(f"frozen simulated users (pilot {pilot}): replayed reactions by configuration", rows),
                      FROZEN)


def tables(data: StudyData) -> list[StudyTable]:
    main: dict[str, dict[str, Cell]] = {}
    for name, stored in data.configs.items():
        for condition, summary in summaries(stored.outcomes).items():
            main[f"{name} / {condition}"] = _cells(stored.outcomes, condition, summary)
    pooled = summaries([item for name, c in data.configs.items() for item in relabelled(name, c.outcomes)])
    caveat = provenance_notes(pooled)["main caveat"]  # the run report's note (rule-based simulated user)
    out = [StudyTable(Table("journey results by configuration x persona", main),
                      f"{ESTIMATOR}; note: {caveat}" if caveat else ESTIMATOR)]
    frozen = frozen_table(data)
    out += [frozen] if frozen is not None else []
    if len(data.configs) < 2:
        return out
    ranks = {k: {"rho": v["rho"], "p": v["p"], "n": v["n"]} for k, v in persona_rank_correlations(pooled).items()}
    if ranks:
        out.append(StudyTable(Table("Spearman rho between conditions' rankings of the configurations (Average)",
                                    ranks), "Spearman's rho with average ranks for ties, two-sided p (exact "
                                            "permutation p up to 9 configurations, else t approximation); n = "
                                            "configurations in both conditions"))
    paired = {k: {"mean paired difference": v["mean_paired_difference"], "rho": v["rho"], "p": v["p"],
                  "n": v["n"]} for k, v in single_shot_vs_interactive(pooled).items()}
    if paired:
        out.append(StudyTable(Table("single-shot vs interactive (Average; condition minus single-shot)", paired),
                              "mean of per-configuration paired differences (SWE-Journey B.2); Spearman's rho "
                              "between the two rankings (p exact up to 9 configurations); n = configurations"))
    return out
