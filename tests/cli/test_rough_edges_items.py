"""The rest of issue 19's CLI rough edges, each with a test named after it (the first ones are in
test_rough_edges.py, suite errors in test_suite_errors.py, the specpath reference check in
tests/protocols/specpath/test_validate_reference.py)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.core.errors import InputError
from reqbench.schemas import SCHEMAS, json_schema
from tests.cli.generic_helpers import reqbench
from tests.cli.test_rough_edges import toy_run  # noqa: F401 (fixture)

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
RUNS_PAGE = (REPO / "docs" / "runs.md").read_text(encoding="utf-8")
WORKSPACES_PAGE = (REPO / "docs" / "workspaces.md").read_text(encoding="utf-8")
EXAMPLES = REPO / "src" / "reqbench" / "examples"
COMMON = {"workspace", "prompt", "prompt_file", "stage"}


def test_readme_report_json_keys_match_output(toy_run: Path) -> None:  # noqa: F811
    """docs/runs.md: `report --json` prints `{PROTOCOL: summary, "run": {..., "counts": {...}}, "summary": {...}}`."""
    line = next(line for line in RUNS_PAGE.splitlines() if "`reqbench report --json` prints" in line)
    shape = re.search(r"prints `(\{.*?\})`", line)
    assert shape is not None and re.findall(r'"(\w+)"', shape.group(1)) == ["run", "counts", "summary"]
    proc = reqbench("report", str(toy_run), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data) == {"toy", "run", "summary"} and isinstance(data["toy"], dict)
    assert {"planned", "scored"} <= set(data["run"]["counts"])


def _documented_placeholders() -> dict[str, set[str]]:
    table = WORKSPACES_PAGE[WORKSPACES_PAGE.index("| protocol | input-file placeholders |"):].split("\n\n")[0]
    rows = [r.split("|")[1:3] for r in table.splitlines()[2:]]
    return {name.strip(" `"): set(re.findall(r"\{(\w+)\}", cell)) for name, cell in rows}


@pytest.mark.parametrize(("suite", "extra"), [("demo:specpath/slugkit", ["--condition", "direct"]),
                                              ("demo:pace/cachetools-slru", []),
                                              ("demo:takeover", ["--condition", "C1"])])
def test_command_placeholders_documented_per_protocol(tmp_path: Path, suite: str, extra: list[str]) -> None:
    """A row's real placeholders (the error for an unknown one lists them) are the docs' for its
    protocol; `{task_file}` is not offered where the protocol has no task file."""
    documented = _documented_placeholders()
    assert set(documented) == {"takeover", "specpath", "journey", "pace"}
    protocol = suite.split(":")[1].split("/")[0]
    proc = reqbench("run", suite, *extra, "--agent", "command", "--agent-opt", "template=echo {nosuch}",
                    "--out", str(tmp_path / "run"), timeout=300)
    assert proc.returncode == 2, proc.stderr
    available = re.search(r"available: ([^)]*)\)", " ".join(proc.stderr.split()))
    assert available is not None, proc.stderr
    names = set(re.findall(r"\{(\w+)\}", available.group(1)))
    assert COMMON <= names and names - COMMON <= documented[protocol]
    if protocol != "takeover":
        assert "task_file" not in names and "task_file" not in documented[protocol]


def test_schema_for_every_file_format() -> None:
    """Every file a person writes into a suite has a `reqbench schema` (the takeover suite included)."""
    suite_files = {"takeover-suite", "takeover-normalized-project", "takeover-annotation",
                   "takeover-selected-targets", "specpath-suite", "specpath-family", "journey-suite",
                   "journey-instance", "journey-persona", "pace-suite", "pace-case"}
    assert suite_files <= set(SCHEMAS)
    runner = CliRunner()
    out = runner.invoke(app, ["schema", "takeover-suite"])
    assert out.exit_code == 0
    schema = json.loads(out.stdout)
    assert {"protocol", "name", "project", "repository", "checks", "delivery"} <= set(schema["properties"])


def _objects(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return [schema, *schema.get("$defs", {}).values()]


def test_schema_fields_show_defaults() -> None:
    """Every optional field of every schema states its default; specpath's `verifier.pythonpath` default
    `["src"]` (a default factory, which pydantic leaves out) is among them."""
    for name in SCHEMAS:
        for obj in _objects(json_schema(name)):
            for key, prop in (obj.get("properties") or {}).items():
                if key not in obj.get("required", []):
                    assert "default" in prop, f"schema {name}: {obj.get('title')}.{key} shows no default"
    verifier = json_schema("specpath-family")["$defs"]["VerifierSpec"]["properties"]
    assert verifier["pythonpath"]["default"] == ["src"]
    assert verifier["hidden_dir"]["default"] == "hidden"
    out = CliRunner().invoke(app, ["schema", "specpath-family"])
    printed = json.loads(out.stdout)["$defs"]["VerifierSpec"]["properties"]["pythonpath"]
    assert printed["default"] == ["src"]


def test_pace_validate_exits_2(tmp_path: Path) -> None:
    case = tmp_path / "case"
    shutil.copytree(EXAMPLES / "pace" / "cachetools-slru", case)
    (case / "case.yaml").write_text((case / "case.yaml").read_text() + "wieght: 1\n")
    for command in (["pace", "validate"], ["validate"]):
        proc = reqbench(*command, str(case))
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        assert "case.yaml: unknown key 'wieght'" in proc.stdout + proc.stderr


def test_messages_never_hard_wrap_inside_a_command(tmp_path: Path) -> None:
    """At 40 columns a message is still one line: the command it quotes can be copied as it is."""
    case = tmp_path / "case"
    shutil.copytree(EXAMPLES / "pace" / "cachetools-slru", case)
    (case / "case.yaml").write_text((case / "case.yaml").read_text() + "wieght: 1\n")
    proc = reqbench("pace", "validate", str(case), COLUMNS="40")
    line = next(x for x in proc.stdout.splitlines() if "wieght" in x)
    assert line.endswith("protocol, provenance, reference_patch, title)") and len(line) > 40
    proc = reqbench("run", "demo:pace/cachetools-slru", "--agent", "command", "--out", str(tmp_path / "r"),
                    COLUMNS="40")
    assert proc.returncode == 2
    assert "template='my-agent --prompt-file {prompt_file} --repo {workspace}'" in proc.stderr


def test_base_url_hint_points_at_existing_option(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's missing endpoint names `reqbench run --base-url` (an option `run` has); a judge's or
    the PACE synthesis's names only the environment, since their commands have no such option."""
    from reqbench.core.agents.llm_agent import make_llm_agent
    from reqbench.core.judges.llm import make_llm_judge
    from reqbench.protocols.pace.llm import chat

    for name in ("REQBENCH_BASE_URL", "OPENAI_BASE_URL", "REQBENCH_LLM_CACHE", "REQBENCH_OFFLINE"):
        monkeypatch.delenv(name, raising=False)
    messages = [{"role": "user", "content": "hi"}]

    def error(call: Any) -> str:
        with pytest.raises(InputError) as err:
            call()
        return str(err.value)

    agent = make_llm_agent("openai/m")
    assert "pass `reqbench run --base-url URL`" in error(lambda: agent.client.complete(messages, model="m"))
    assert "--base-url" in CliRunner().invoke(app, ["run", "--help"], terminal_width=200).stdout
    judge = make_llm_judge("m")
    for text in (error(lambda: judge.client.complete(messages, model="m")), error(lambda: chat(messages, "m"))):
        assert "set REQBENCH_BASE_URL (or OPENAI_BASE_URL)" in text and "--base-url" not in text


def test_readme_says_how_to_get_reqbench_on_path() -> None:
    start = README[:README.index("## Install")]
    assert "make demo" in start and "source .venv/bin/activate" in start and ".venv/bin/reqbench" in start
