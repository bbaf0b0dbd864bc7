"""The repetition tables of `reqbench study report` (PACE-Bench Table 11 / Obs. 5), for any protocol whose
study hook gives a per-row measurement (`ProtocolStudy.paired`):

* **execution vs judging variation** -- per configuration, the mean case SD and mean case range across
  execution repeats and across judging repetitions (`reqbench study rejudge`), and their ratios;
* **score by record** -- per configuration, each execution record (repeat) and judging record
  (``rejudge-k``): the mean measurement over its scored rows and n, plus the protocol's own record
  columns (`ProtocolStudy.record_columns`, e.g. complete deliveries);
* **judge label stability** -- per configuration, agreement of the judge's labels across judging
  repetitions (only for protocols whose study hook gives the labels: `ProtocolStudy.judge_labelled`).

Shown only when some configuration has two execution records or two judging records. Definitions:
`study.repetition`.
"""

from __future__ import annotations

from reqbench.core.execute.types import Outcomes
from reqbench.core.protocol_study import ProtocolStudy, StudyTable
from reqbench.core.store import RunStore
from reqbench.core.summary import Cell, Metric, SummaryTable
from reqbench.study.collect import StudyData
from reqbench.study.repetition import ConfigRecords, labels, read_records, spread, stability, values

VARIATION = ("case SD: sample SD (n - 1) of a unit's values over the records, averaged over the units scored "
             "in every record; case range: max - min, averaged likewise. Execution: unit = case (task, "
             "condition), records = the study's repeats (original grading). Judging: unit = row (task, "
             "condition, repeat), records = the rejudge-k gradings (same frozen submission, fresh judge "
             "calls). Ratio = execution / judging (PACE-Bench §4.5 Obs. 5)")
RECORDS = "mean of the per-row {measure} over the record's scored rows (n); run r = repeat r, original grading"
STABILITY = ("items = (row, judged item) labelled in every judging record; unanimous = share labelled alike in "
             "all records; agreement, kappa (Cohen's; {weights}) and severe (opposite-extreme inversions) per "
             "pair of records, averaged over the pairs")


def _records(data: StudyData) -> dict[str, ConfigRecords]:
    out: dict[str, ConfigRecords] = {}
    for name, stored in data.configs.items():
        with RunStore.open(stored.run_dir, read_only=True) as store:
            out[name] = read_records(store)
    return out


def _measure(study: ProtocolStudy) -> str:
    """The name of the protocol's paired measurement (the repetition tables exist only when it has one)."""
    return study.paired.name if study.paired is not None else "measurement"


def _metric(value: float | None, n: int) -> Metric:
    return Metric(value, None, n)


def _ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def variation_table(study: ProtocolStudy, found: dict[str, ConfigRecords]) -> StudyTable:
    rows: dict[str, dict[str, Cell]] = {}
    for name, rec in found.items():
        ex = spread([values(study, o, by_repeat=False) for o in rec.execution.values()])
        ju = spread([values(study, o, by_repeat=True) for o in rec.judging.values()])
        rows[name] = {"execution records": ex.records, "execution case SD": _metric(ex.mean_sd, ex.units),
                      "execution case range": _metric(ex.mean_range, ex.units),
                      "judging records": ju.records, "judging case SD": _metric(ju.mean_sd, ju.units),
                      "judging case range": _metric(ju.mean_range, ju.units),
                      "SD ratio": _ratio(ex.mean_sd, ju.mean_sd), "range ratio": _ratio(ex.mean_range, ju.mean_range)}
    return StudyTable(SummaryTable(f"execution vs judging variation of {_measure(study)}", rows), VARIATION)


def _record_row(study: ProtocolStudy, outcomes: Outcomes) -> dict[str, Cell]:
    found = values(study, outcomes, by_repeat=True)
    mean = sum(found.values()) / len(found) if found else None
    return {_measure(study): _metric(mean, len(found)), **study.record_columns(outcomes)}


def records_table(study: ProtocolStudy, found: dict[str, ConfigRecords]) -> StudyTable:
    rows: dict[str, dict[str, Cell]] = {}
    for name, rec in found.items():
        for repeat, outcomes in rec.execution.items():
            rows[f"{name} / run {repeat + 1}"] = _record_row(study, outcomes)
        for label, outcomes in rec.judging.items():
            rows[f"{name} / {label}"] = _record_row(study, outcomes)
    measure = _measure(study)
    return StudyTable(SummaryTable(f"{measure} by record", rows), RECORDS.format(measure=measure))


def stability_table(study: ProtocolStudy, found: dict[str, ConfigRecords]) -> StudyTable | None:
    if not study.judge_labelled:
        return None
    order = study.label_order
    rows: dict[str, dict[str, Cell]] = {}
    for name, rec in found.items():
        if len(rec.judging) < 2:
            continue
        s = stability([labels(study, o) for o in rec.judging.values()], order)
        rows[name] = {"judging records": s.records, "items": s.items, "unanimous": s.unanimous,
                      "agreement": s.agreement, "kappa": s.kappa,
                      **({"severe": s.severe} if order else {}), "pairs": s.pairs}
    if not rows:
        return None
    weights = f"linear weights over {' < '.join(order)}" if order else "unweighted"
    return StudyTable(SummaryTable("judge label stability across judging repetitions", rows),
                      STABILITY.format(weights=weights))


def repetition_tables(data: StudyData) -> list[StudyTable]:
    """The three tables, or [] when no configuration has two records of either kind."""
    study = data.protocol_study
    if study.paired is None or not data.configs:
        return []
    found = _records(data)
    if not any(len(r.execution) >= 2 or len(r.judging) >= 2 for r in found.values()):
        return []
    tables = [variation_table(study, found), records_table(study, found)]
    audit = stability_table(study, found)
    return tables + ([audit] if audit is not None else [])
