"""`make demo-real`: run every real suite with the control agents, print the reports, sizes and a closing
table, and exit 1 unless `reference` gets full marks and `null` zero on every suite.

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
from reqbench.protocols.pace.case import load_suite as load_pace_suite
from reqbench.protocols.pace.sizes import case_size
from reqbench.protocols.specpath.calibration import calibrate_family
from reqbench.protocols.specpath.calibration_gate import calibration_source, remember
from reqbench.protocols.specpath.sizes import family_size
from reqbench.protocols.specpath.suite import families
from reqbench.protocols.takeover.sizes import suite_size

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


def sizes_table() -> Table:
    table = Table(title="real specpath families: sizes computed from the files")
    for col in ("family", "files", "+lines", "-lines", "probes", "probe tests", "atoms", "histories"):
        table.add_column(col, justify="left" if col == "family" else "right", no_wrap=col == "family")
    for fam in families(SUITES["specpath"]).values():
        s = family_size(fam)
        table.add_row(s.family, str(s.files), str(s.added), str(s.removed), str(s.probes),
                      str(s.probe_cases), str(s.atoms), str(s.histories))
    return table


def pace_sizes_table() -> Table:
    table = Table(title="real pace cases: sizes computed from the files")
    for col in ("case", "files", "+lines", "-lines", "Code Points", "criteria", "integration/registration"):
        table.add_column(col, justify="left" if col == "case" else "right", no_wrap=col == "case")
    for case in load_pace_suite(SUITES["pace"])[1]:
        s = case_size(case)
        table.add_row(s.case, str(s.files), str(s.added), str(s.removed), str(s.points), str(s.criteria),
                      str(s.integration_points))
    return table


def takeover_sizes_table() -> Table:
    s = suite_size(SUITES["takeover"], with_repository=True)
    table = Table(title="real takeover suite: sizes computed from the files")
    for col in ("suite", "messages", "atoms", "events", "event types", "targets", "delivery", "hidden tests",
                "repo .py lines"):
        table.add_column(col, justify="left" if col == "suite" else "right", no_wrap=col == "suite")
    table.add_row(s.suite, str(s.messages), str(s.atoms), str(s.events), str(len(s.events_by_type)),
                  str(s.targets), str(s.delivery_targets), str(s.hidden_tests), str(s.repository_python_lines))
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/demo-real"))
    args = parser.parse_args()
    console = Console()
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
    console.print(sizes_table())
    console.print(pace_sizes_table())
    console.print(takeover_sizes_table())
    console.print(headline_table(headlines))
    for failure in failures:
        console.print(f"[red]demo-real failed:[/red] {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
