"""Journey in a study (`SuiteProtocol.study`, `core.protocol_study`): Final F2P per session as the paired
value, on instances; the per-condition session means of `journey.report.summarize_rows` (Proc F2P, Final
F2P, Final P2P, Average, turns, cost), per session and per configuration; the comparison tables (SWE-Journey
§4.1, Table 2, B.2): those columns by configuration x persona, Spearman's rho between the personas'
rankings of the configurations and the paired single-shot vs interactive comparison over configurations
(`journey.comparisons`); the capability judge's per-turn labels for the label-stability audit; and frozen
simulated users (`journey.frozen_user`): the pilot's user turns written for the other configurations, and
the share of user reactions each configuration replayed from the pilot."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reqbench.core.execute.types import Row, RowOutcome
from reqbench.core.protocol_study import Outcomes, PairedOutcome, ProtocolStudy, StudyRows, StudyTable, relabelled
from reqbench.core.stats.intervals import DEFAULT_BOOT, DEFAULT_SEED, cluster_bootstrap
from reqbench.core.summary import Cell, Metric, SummaryTable
from reqbench.protocols.journey.comparisons import persona_rank_correlations, single_shot_vs_interactive
from reqbench.protocols.journey.frozen_user import ARTIFACT as USER_TURNS
from reqbench.protocols.journey.frozen_user import frozen_sessions
from reqbench.protocols.journey.report import provenance_notes, summarize_rows
from reqbench.protocols.journey.row_result import JourneyResult

FROZEN_USER_OPTION = "journey.frozen_user"
"""The agent option through which a study hands its frozen-user file to a configuration's runs."""
PAIRED = PairedOutcome("Final F2P", binary=False, clusters="instances", unit="instance")
METRICS = {"proc_f2p": "Proc F2P", "final_f2p": "Final F2P", "final_p2p": "Final P2P", "average": "Average",
           "turns_per_session": "turns/session", "cost_per_session": "cost/session ($)"}
"""The paper's main-table columns (SWE-Journey §4, B.2), as `summarize_rows` names them."""


def session_values(row: Row, outcome: RowOutcome) -> dict[str, float | None]:
    """One session's value of every `METRICS` column (the protocol's means over that single session); {} for
    a row that is not scored."""
    found = summarize_rows([(row, outcome)]).get(row.condition) or {}
    if not found.get("sessions"):
        return {}
    return {k: found.get(k) for k in METRICS}


def paired_value(row: Row, outcome: RowOutcome) -> float | None:
    return session_values(row, outcome).get("final_f2p")


def summaries(outcomes: list[tuple[Row, RowOutcome]]) -> dict[str, Any]:
    """The protocol's summary of `outcomes`: keyed by condition (persona or single-shot) for one
    configuration, ``CONFIG/CONDITION`` for rows of several (relabelled), the input of `journey.comparisons`."""
    return summarize_rows(outcomes)


def judge_labels(outcome: RowOutcome) -> dict[str, str]:
    """``turnN.FIELD`` -> label of the capability judge (SWE-Journey B.3) for a session it labelled."""
    caps = JourneyResult.of(outcome.result).capabilities or {}
    return {f"turn{i}.{name}": str(value) for i, turn in enumerate(caps.get("turn_labels") or [])
            for name, value in turn.items()}


def replayed(outcome: RowOutcome) -> tuple[int, int, bool] | None:
    """(reactions, replayed from the pilot, diverged) of a session run with a frozen user; None otherwise."""
    found = JourneyResult.of(outcome.result).frozen_user
    if not isinstance(found, dict):
        return None
    return int(found.get("reactions", 0)), int(found.get("replayed", 0)), found.get("first_divergence") is not None


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


def frozen_table(data: StudyRows) -> StudyTable | None:
    """The share of simulated-user reactions replayed from the pilot, per configuration."""
    pilot = data.pilot
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
    return StudyTable(SummaryTable(f"frozen simulated users (pilot {pilot}): replayed reactions by configuration",
                                   rows),
                      FROZEN)


def tables(data: StudyRows) -> list[StudyTable]:
    main: dict[str, dict[str, Cell]] = {}
    for name, stored in data.configs.items():
        for condition, summary in summaries(stored.outcomes).items():
            main[f"{name} / {condition}"] = _cells(stored.outcomes, condition, summary)
    pooled = summaries([item for name, c in data.configs.items() for item in relabelled(name, c.outcomes)])
    caveat = provenance_notes(pooled)["main caveat"]  # the run report's note (rule-based simulated user)
    out = [StudyTable(SummaryTable("journey results by configuration x persona", main),
                      f"{ESTIMATOR}; note: {caveat}" if caveat else ESTIMATOR)]
    frozen = frozen_table(data)
    out += [frozen] if frozen is not None else []
    if len(data.configs) < 2:
        return out
    ranks = {k: {"rho": v["rho"], "p": v["p"], "n": v["n"]} for k, v in persona_rank_correlations(pooled).items()}
    if ranks:
        out.append(StudyTable(SummaryTable("Spearman rho between conditions' rankings of the configurations (Average)",
                                           ranks), "Spearman's rho with average ranks for ties, two-sided p (exact "
                                            "permutation p up to 9 configurations, else t approximation); n = "
                                            "configurations in both conditions"))
    paired = {k: {"mean paired difference": v["mean_paired_difference"], "rho": v["rho"], "p": v["p"],
                  "n": v["n"]} for k, v in single_shot_vs_interactive(pooled).items()}
    if paired:
        out.append(StudyTable(SummaryTable("single-shot vs interactive (Average; condition minus single-shot)", paired),
                              "mean of per-configuration paired differences (SWE-Journey B.2); Spearman's rho "
                              "between the two rankings (p exact up to 9 configurations); n = configurations"))
    return out


class JourneyStudy(ProtocolStudy):
    """Final F2P on instances, the persona and single-shot tables, the capability judge's labels (nominal:
    yes/no, hit/miss/no_locus, skipped/grounded/clean) and frozen simulated users."""

    paired = PAIRED
    judge_labelled = True
    frozen_user_option = FROZEN_USER_OPTION
    frozen_user_artifact = USER_TURNS

    paired_value = staticmethod(paired_value)
    tables = staticmethod(tables)
    judge_labels = staticmethod(judge_labels)

    def frozen_user_document(self, sessions: list[tuple[Row, bytes]], pilot: str) -> dict[str, Any]:
        return frozen_sessions(sessions, pilot)


STUDY = JourneyStudy()
