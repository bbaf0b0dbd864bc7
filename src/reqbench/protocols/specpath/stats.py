"""The dataset-statistics tables of a SpecPath suite (SpecPath Tables 1 and 2), computed from its files.

`reqbench stats` prints them (`SpecpathProtocol.dataset_stats`):

* **families** (Table 1): per family its final atoms, fixed obligations, decoys, verifier probes and
  probe tests, what the reference patch touches (`sizes.family_size`) and its histories;
* **histories per condition** (Table 2): per condition the history operator that builds it, how many
  families supply it, its turn counts (min/median/max) and the trace operations its turns encode
  (activations A_t, deactivations D_t, restatements R_t) summed over the families.
"""

from __future__ import annotations

from reqbench.core.stats.distribution import spread
from reqbench.core.summary import Cell, Summary, SummaryTable
from reqbench.protocols.specpath.family import Family
from reqbench.protocols.specpath.models import ALL_CONDITIONS, CORE_CONDITIONS
from reqbench.protocols.specpath.sizes import family_size

FAMILIES, CONDITIONS = "families (SpecPath Table 1)", "histories per condition (Table 2)"

OPERATORS = {
    "direct": "none (one turn activates every final atom)",
    "duplicate": "inert repetition",
    "split": "integration across turns",
    "override": "replacement",
    "cancellation": "retraction",
    "paraphrase-direct": "wording control",
    "length-matched-no-revision": "added-context control",
}
"""What each condition's history operator changes (`operators`)."""


def _families(families: list[Family]) -> SummaryTable:
    rows: dict[str, dict[str, Cell]] = {}
    for fam in families:
        size = family_size(fam)
        rows[fam.id] = {"atoms": len(fam.atoms), "fixed": len(fam.fixed), "decoys": len(fam.decoys),
                        "probes": size.probes, "probe tests": size.probe_cases, "reference files": size.files,
                        "+lines": size.added, "-lines": size.removed, "histories": len(fam.histories)}
    return SummaryTable(FAMILIES, rows)


def _conditions(families: list[Family]) -> SummaryTable:
    names = [*ALL_CONDITIONS, *sorted({c for f in families for c in f.histories} - set(ALL_CONDITIONS))]
    rows: dict[str, dict[str, Cell]] = {}
    for cond in names:
        histories = [f.histories[cond] for f in families if cond in f.histories]
        turns = spread([len(h.turns) for h in histories], ("min", "median", "max"))
        rows[cond] = {
            "kind": "core" if cond in CORE_CONDITIONS else "control" if cond in ALL_CONDITIONS else "extra",
            "operator": OPERATORS.get(cond, ""), "histories": len(histories),
            **{f"turns {k}": v for k, v in turns.items()},
            "activations": sum(len(t.activate) for h in histories for t in h.turns),
            "deactivations": sum(len(t.deactivate) for h in histories for t in h.turns),
            "restatements": sum(len(t.restate) for h in histories for t in h.turns),
        }
    return SummaryTable(CONDITIONS, rows)


def dataset_stats(families: list[Family]) -> Summary:
    """Tables 1-2 of a suite's loaded families (`suite.families`)."""
    overview: dict[str, Cell] = {
        "families": len(families), "atoms": sum(len(f.atoms) for f in families),
        "fixed obligations": sum(len(f.fixed) for f in families),
        "probes": sum(len(f.probes) for f in families),
        "histories": sum(len(f.histories) for f in families)}
    return Summary(overview=overview, tables=[_families(families), _conditions(families)])

