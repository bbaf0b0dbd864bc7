"""Start-up imports only what the command line names: `--version` no command and not typer, `run`
neither the other commands nor the model gateway's HTTP stack, numpy or the study package; and a real
``reqbench run --quiet`` reaches its first row without what only the end of a run needs (rich, the report,
views, statistics) or what it never uses (archive and XML readers, calibration)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.cli.main import COMMANDS


def loaded_after(code: str) -> set[str]:
    """Module names loaded by a fresh interpreter after running `code`."""
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_version_imports_no_command_and_not_typer() -> None:
    mods = loaded_after("import sys\nfrom reqbench.cli.main import main\nsys.argv = ['reqbench', '--version']\n"
                        "main()")
    assert not {m for m in mods if m.split(".")[0] in ("typer", "pydantic", "numpy", "yaml", "rich")}
    assert not {m for m in mods if m.startswith(("reqbench.cli.", "reqbench.core.", "reqbench.protocols."))
                and m not in ("reqbench.cli.main", "reqbench.cli.screen")}


def test_the_run_command_imports_neither_other_commands_nor_unused_machinery() -> None:
    mods = loaded_after("from reqbench.cli.main import make_app\nmake_app('run')\n"
                        "from reqbench.protocols.specpath.suite import PROTOCOL\n"
                        "import reqbench.core.execute.runner, reqbench.core.execute.preflight")
    assert "reqbench.cli.generic_run" in mods
    others = {module for name, (module, _) in COMMANDS.items() if module != "reqbench.cli.generic_run"}
    assert not others & mods
    assert not {m for m in mods if m.split(".")[0] in ("httpx", "numpy", "http")}
    assert not {m for m in mods if m.startswith(("reqbench.study", "reqbench.core.llm.gateway.server", "rich.progress"))}


def test_the_lazy_names_are_the_modules_own() -> None:
    """`reqbench.protocols.base` (the plugin interface) re-exports the summary types and `reqbench.core.store`
    the exports on first use: the same objects, and an unknown name is still an AttributeError."""
    mods = loaded_after("import reqbench.protocols.base, reqbench.core.store")
    assert "reqbench.core.summary" not in mods and "reqbench.core.store.export" not in mods

    import reqbench.core.store as store
    import reqbench.protocols.base as base
    from reqbench.core import summary
    from reqbench.core.store import export
    from reqbench.protocols.base import Summary, bar_from_table

    assert (Summary, bar_from_table, base.SummaryTable) == (summary.Summary, summary.bar_from_table, summary.SummaryTable)
    assert (store.result_rows, store.export_jsonl) == (export.result_rows, export.export_jsonl)
    assert vars(base)["Summary"] is summary.Summary  # bound on first use: later lookups are plain reads
    for module in (base, store):
        with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
            module.nothing_here  # noqa: B018


def test_the_models_a_run_never_validates_are_built_on_first_use() -> None:
    """`RunResultRow` and `JudgeCall` defer their schema until used; then they validate as before."""
    from pydantic import ValidationError

    from reqbench.core.store.models import JudgeCall, RunResultRow

    call = JudgeCall(request_key="k", judge_id="exact", contract="c", request={}, response={}, started="s",
                     finished="f")
    assert call.model_dump()["judge_id"] == "exact"
    with pytest.raises(ValidationError):
        JudgeCall(request_key="k")
    assert list(RunResultRow.model_json_schema()["properties"])[:3] == ["row_key", "task_id", "condition"]


@pytest.mark.parametrize("command", ["run", "agents", "specpath"])
def test_a_named_command_is_the_one_registered(command: str) -> None:
    from typer.main import get_command

    from reqbench.cli.main import make_app

    assert list(get_command(make_app(command)).commands) == [command]  # type: ignore[attr-defined]


def test_the_full_app_lists_every_command() -> None:
    from typer.main import get_command

    from reqbench.cli.main import app

    names = set(get_command(app).commands)  # type: ignore[attr-defined]
    assert set(COMMANDS) | {"agents", "specpath", "takeover", "journey", "pace", "study"} <= names


FIRST_ROW = """
import atexit, json, sys
from reqbench.cli.main import main
from reqbench.protocols.specpath.suite import LoadedSuite

run_row, noted, seen = LoadedSuite.run_row, sys.argv[1], []

def first_row(self, row, ctx):
    if not seen:
        seen.append(sorted(sys.modules))
        with open(noted, "w") as out:
            json.dump(seen[0], out)
    return run_row(self, row, ctx)

def at_exit():
    with open(noted + ".end", "w") as out:
        json.dump(sorted(sys.modules), out)

LoadedSuite.run_row = first_row
atexit.register(at_exit)
sys.argv = ["reqbench", *sys.argv[2:]]
main()
"""
"""`reqbench ARGS` with specpath's `run_row` noting every module loaded when the first row starts (in the
file named by the first argument), then running the row; and every module loaded at exit (``FILE.end``)."""

NOT_BEFORE_THE_FIRST_ROW = (
    "rich", "numpy", "tarfile", "gzip", "xml",  # printing; the report's estimators; archives; JUnit reports
    "reqbench.cli.consoles", "reqbench.cli.generic_report", "reqbench.report",  # the closing headline / report
    "reqbench.core.views", "reqbench.core.stats",  # the viewer's pages; the summary's intervals
    "reqbench.protocols.specpath.calibration", "reqbench.protocols.specpath.metrics",
    "reqbench.protocols.specpath.report", "reqbench.protocols.specpath.view",
    "reqbench.core.llm.gateway.leases", "reqbench.core.llm.gateway.models",  # a row without a model's gateway
    "reqbench.core.summary", "reqbench.core.store.export",  # the summary after the last row; the exports
)
"""Module families (a name and everything under it) that a ``--quiet`` run must not load before its first
row: what only the end of the run needs, and what it never uses."""


@pytest.mark.slow
def test_a_quiet_run_reaches_its_first_row_without_what_only_its_end_needs(tmp_path: Path) -> None:
    """A real ``reqbench run demo:specpath --agent reference --quiet`` (one condition: three rows); any of
    `NOT_BEFORE_THE_FIRST_ROW` imported at the top of a module on the way fails it. The reference check is
    remembered first (``reqbench validate``): a cold cache runs the verifier, which is calibration's."""
    env = {**os.environ, "REQBENCH_CACHE": str(tmp_path / "cache")}

    def reqbench(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", FIRST_ROW, str(tmp_path / "modules.json"), *args],
                              capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)

    assert reqbench("validate", "demo:specpath").returncode == 0
    run = reqbench("run", "demo:specpath", "--agent", "reference", "--condition", "direct", "--quiet",
                   "--out", str(tmp_path / "run"))
    assert run.returncode == 0, run.stderr
    assert "(3/3 rows scored)" in run.stdout
    mods = set(json.loads((tmp_path / "modules.json").read_text()))
    assert {"reqbench.core.execute.runner", "reqbench.core.store.runstore"} <= mods  # noted inside the run
    early = sorted(m for m in mods if m in NOT_BEFORE_THE_FIRST_ROW or m.startswith(
        tuple(f"{family}." for family in NOT_BEFORE_THE_FIRST_ROW)))
    assert not early, f"loaded before the first row: {early}"
    at_exit = set(json.loads((tmp_path / "modules.json.end").read_text()))
    assert "reqbench.protocols.specpath.metrics" in at_exit  # the headline was computed
    assert not {m for m in at_exit if m.split(".")[0] == "rich"}, "a quiet run printed its line through rich"
    assert not {m for m in at_exit if m.split(".")[0] == "numpy"}, "a quiet run's headline resampled intervals"


WIRED = """
import gc, json, sys
import typer
import reqbench.cli.generic as generic
from reqbench.cli.main import main

seen = {}

def schema(name: str = typer.Argument(None)) -> None:
    seen["enabled"], seen["frozen"] = gc.isenabled(), gc.get_freeze_count()

generic.schema = schema
sys.argv = ["reqbench", "schema"]
try:
    main()
finally:
    seen["enabled_after"], seen["after"] = gc.isenabled(), gc.get_freeze_count()
    print(json.dumps(seen))
"""
"""`reqbench schema` whose command notes the collector's state while it runs, and after `main`."""


def test_the_command_defers_collection_until_wired_and_freezes_before_teardown() -> None:
    """`main` (module docstring of `cli.main`): collection is off while the command line is wired, on while
    the command runs, and what exists is frozen before the interpreter's teardown."""
    proc = subprocess.run([sys.executable, "-c", WIRED], capture_output=True, text=True, timeout=120)
    seen = json.loads(proc.stdout.splitlines()[-1])
    assert seen["enabled"] and seen["enabled_after"]
    assert seen["frozen"] > 10_000  # start-up's objects: typer, the command's modules
    assert seen["after"] >= seen["frozen"]
