"""`make demo-real`: run every real suite with the control agents, print the reports, each suite's dataset
statistics (`reqbench stats`), sizes and a closing table, and exit 1 unless `reference` gets full marks and
`null` zero on every suite.

Usage: python suites/real/demo.py [--out runs/demo-real]. Sdists are fetched into $REQBENCH_CACHE
(default ~/.cache/reqbench) on first use and hash-checked on every later one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from reqbench.cli.generic import headline_table
from reqbench.cli.generic_report import print_report
from reqbench.cli.generic_run import run_suite, unmeasured_rows
from reqbench.core.execute.types import RunOptions
from reqbench.protocols.base import dataset_stats
from reqbench.protocols.journey.models import load_suite as load_journey_suite
from reqbench.protocols.pace.case import load_suite as load_pace_suite
from reqbench.protocols.pace.sizes import case_size
from reqbench.protocols.specpath.calibration import calibrate_family
from reqbench.protocols.specpath.calibration_gate import calibration_source, remember
from reqbench.protocols.specpath.sizes import family_size
from reqbench.protocols.specpath.suite import families
from reqbench.protocols.takeover.dataset.sizes import suite_size
from reqbench.report.tables import rich_tables, summary_tables

HERE = Path(__file__).resolve().parent
SUITES = {"specpath": HERE / "specpath", "journey": HERE / "journey", "pace": HERE / "pace",
          "takeover": HERE / "takeover"}
EXPECTED = {("specpath", "reference"): {"FCR direct": 1.0}, ("specpath", "null"): {"FCR direct": 0.0},
            ("journey", "reference"): {"software-architect final F2P/P2P": 1.0},
            ("journey", "null"): {"software-architect final F2P/P2P": 0.0},
            ("pace", "reference"): {"reference/prd score": 100.0}, ("pace", "null"): {"null/prd score": 0.0}}
TAKEOVER_DELIVERY = ("C1", "C2", "oracle-pre", "oracle-post", "two-phase-C1")
EXPECTED |= {("takeover", agent): {f"{c} delivery": want for c in TAKEOVER_DELIVERY}
             for agent, want in (("reference", 1.0), ("null", 0.0))}


def _first_number(value: object) -> float | None:
    """A headline value as a number; journey's 'F2P/P2P' pair is judged by its Final F2P part."""
    try:
        return float(str(value).split("/")[0])
    except ValueError:
        return None


def _table(title: str, columns: tuple[str, ...], rows: list[tuple[object, ...]]) -> Table:
    """A sizes table: the first column names the item, the others are right-aligned counts."""
    table = Table(title=f"{title}: sizes computed from the files")
    for n, col in enumerate(columns):
        table.add_column(col, justify="right" if n else "left", no_wrap=not n)
    for row in rows:
        table.add_row(*map(str, row))
    return table


def sizes_tables() -> list[Table]:
    specpath = [family_size(f) for f in families(SUITES["specpath"]).values()]
    pace = [case_size(c) for c in load_pace_suite(SUITES["pace"])[1]]
    journey = load_journey_suite(SUITES["journey"])[1]
    takeover = suite_size(SUITES["takeover"], with_repository=True)
    return [
        _table("real specpath families",
               ("family", "files", "+lines", "-lines", "probes", "probe tests", "atoms", "histories"),
               [(s.family, s.files, s.added, s.removed, s.probes, s.probe_cases, s.atoms, s.histories)
                for s in specpath]),
        _table("real journey instances", ("instance", "subtasks", "F2P nodes", "P2P nodes"),
               [(i.id, len(i.subtasks), len(i.whole_f2p), len(i.whole_p2p)) for i in journey]),
        _table("real pace cases",
               ("case", "files", "+lines", "-lines", "Code Points", "criteria", "integration/registration"),
               [(s.case, s.files, s.added, s.removed, s.points, s.criteria, s.integration_points) for s in pace]),
        _table("real takeover suite",
               ("suite", "messages", "atoms", "events", "event types", "targets", "delivery", "hidden tests",
                "repo .py lines"),
               [(takeover.suite, takeover.messages, takeover.atoms, takeover.events, len(takeover.events_by_type),
                 takeover.construction.targets, takeover.delivery_targets, takeover.hidden_tests,
                 takeover.repository_python_lines)]),
    ]


def print_stats(console: Console) -> None:
    """Each real suite's dataset-statistics tables, as `reqbench stats SUITE` prints them."""
    for protocol, suite in SUITES.items():
        console.rule(f"demo-real: {protocol} {suite.name} dataset statistics")
        for table in summary_tables(dataset_stats(suite)[1]):
            for part in rich_tables(table, console.width):
                console.print(part)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/demo-real"))
    args = parser.parse_args()
    console = Console(width=max(Console().width, 120))  # sizes and reports stay readable in a log
    headlines, failures = [], []
    for fam in families(SUITES["specpath"]).values():  # runs use only calibrated verifiers (cached on a pass)
        if calibration_source(fam) is None:
            console.rule(f"demo-real: specpath calibrate {fam.id}")
            audit = calibrate_family(fam)
            if remember(audit) is None:
                failed = [g.name for g in audit.gates if not g.passed]
                failures.append(f"specpath {fam.id}: calibration failed {failed}")
    if failures:
        for failure in failures:
            console.print(f"[red]demo-real failed:[/red] {failure}")
        return 1
    for protocol, suite in SUITES.items():
        for agent in ("reference", "null"):
            console.rule(f"demo-real: {protocol} {suite.name} --agent {agent}")
            store, loaded = run_suite(suite, RunOptions(agent=agent), args.out / f"{protocol}-{agent}",
                                      resume=True, quiet=True)
            with store:
                print_report(store, loaded)
                headline = dict(loaded.summarize(store.outcomes()).headline)
                unmeasured = unmeasured_rows(store.counts())
            headlines.append((protocol, agent, headline))
            if unmeasured:
                failures.append(f"{protocol} {agent}: unmeasured rows {unmeasured}")
            for metric, want in EXPECTED.get((protocol, agent), {}).items():
                if _first_number(headline.get(metric)) != want:
                    failures.append(f"{protocol} {agent}: {metric} = {headline.get(metric)}, expected {want}")
    print_stats(console)
    for table in sizes_tables():
        console.print(table)
    console.print(headline_table(headlines))
    for failure in failures:
        console.print(f"[red]demo-real failed:[/red] {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
