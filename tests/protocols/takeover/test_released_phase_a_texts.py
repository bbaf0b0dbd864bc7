"""Released Phase-A texts (ReqMemBench D.3, FORMAT.md f.6; DESIGN §9: read as input files, never shipped):
``--agent-opt takeover.phase_a_texts=DIR`` shows a released package's ``instructions.md`` and
``response.schema.json`` to the agent byte for byte, validates its answer against that schema, records their
digests (a resume refuses a change), and a run without them names reqbench's paraphrase as a difference.

Tests that read the release (``../shared/reference/reqmembench``) skip where it is absent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from reqbench.api import report, run
from reqbench.core.agents import registry
from reqbench.core.bundled import bundled_suite
from reqbench.core.errors import InputError
from reqbench.core.execute.types import RunOptions
from reqbench.core.store import RunStore
from reqbench.protocols.takeover.phase_a.response import check_response
from reqbench.protocols.takeover.phase_a.texts import RELEASED_SHA256, packaged_texts
from reqbench.protocols.takeover.run.context import SuiteContext
from reqbench.protocols.takeover.run.options import split_options
from reqbench.protocols.takeover.scoring.target import gold_response

from .ledger_factory import FIXTURE, REFERENCE, RELEASE

SUITE = bundled_suite("takeover")
PUBLIC = FIXTURE / "DERIVED_public_packages" / "44132019_T001" / "C1" / "public"
"""Derived package files whose sha256 equal the real package manifest's (INDEX.md)."""
TRANSCRIBED_INSTRUCTIONS = next((REFERENCE / "schemas" / "outputs_new").rglob("instructions.md"), None) \
    if REFERENCE.is_dir() else None
RELEASED_SCHEMA = REFERENCE / "schemas" / "schema" / "rq_agent_response.schema.json"
MANIFEST = (FIXTURE / "outputs_new" / "rq_agent_inputs" / RELEASE / "44132019" / "44132019_T001" / "C2" / "private"
            / "package_manifest.json")
needs_release = pytest.mark.skipif(not PUBLIC.is_dir(), reason=f"ReqMemBench reference not found at {REFERENCE}")
KEY = "takeover.phase_a_texts"


@pytest.fixture(autouse=True)
def _spy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.AGENTS, "phase-a-spy", ("tests.protocols.takeover.phase_a_spy", "make_spy"))


def _gold_replies(tmp_path: Path, repeat_an_id: bool = False) -> tuple[Path, dict[str, dict[str, Any]]]:
    """{task message id: gold C1 answer} of every target of the bundled suite; with `repeat_an_id`, the first
    answer that cites evidence cites its first message twice."""
    ctx = SuiteContext.load(SUITE, tmp_path / "cache")
    answers: dict[str, dict[str, Any]] = {}
    for target in ctx.target_ids():
        message_id = str(json.loads(ctx.public_files(target, "C1")["task.json"])["task"]["message_id"])
        answers[message_id] = gold_response(ctx.instances(target), "C1")
    if repeat_an_id:
        req = next(r for a in answers.values() for r in a["requirements"] if r["evidence_message_ids"])
        req["evidence_message_ids"].insert(0, req["evidence_message_ids"][0])
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({k: json.dumps(v) for k, v in answers.items()}))
    return path, answers


def _run(tmp_path: Path, name: str, replies: Path | None = None, **texts: str) -> tuple[Path, Path]:
    seen = tmp_path / f"{name}-seen"
    options = {"copy_to": str(seen), **({"replies": str(replies)} if replies else {}), **texts}
    run(SUITE, agent="phase-a-spy", out=tmp_path / name, conditions=("diag-C1",), judge="exact",
        agent_options=options)
    return tmp_path / name, seen


def _results(run_dir: Path) -> dict[str, dict[str, Any]]:
    with RunStore.open(run_dir, read_only=True) as store:
        return {row.task_id: out.result.stored() for row, out in store.outcomes()}


@needs_release
def test_a_run_with_the_released_texts_shows_them_to_the_agent_byte_for_byte(tmp_path: Path) -> None:
    run_dir, seen = _run(tmp_path, "released", **{KEY: str(PUBLIC)})
    released_instructions = (PUBLIC / "instructions.md").read_bytes()
    assert TRANSCRIBED_INSTRUCTIONS is not None
    assert released_instructions == TRANSCRIBED_INSTRUCTIONS.read_bytes()  # the real file, as transcribed
    public_files = json.loads(MANIFEST.read_text())["public_files"]
    assert {k: public_files[k] for k in RELEASED_SHA256} == RELEASED_SHA256
    rows = sorted(seen.iterdir())
    assert len(rows) == 6
    for folder in rows:
        assert (folder / "instructions.md").read_bytes() == released_instructions
        assert (folder / "prompt.txt").read_bytes() == released_instructions
        assert (folder / "response.schema.json").read_bytes() == (PUBLIC / "response.schema.json").read_bytes()
    with RunStore.open(run_dir, read_only=True) as store:
        recorded = store.meta.provenance["inputs"]["phase_a_texts"]
    assert recorded["sha256"] == RELEASED_SHA256
    assert recorded["statement"].startswith("released Phase-A instructions (")
    assert "released response schema (" in recorded["statement"]


@needs_release
def test_answers_are_validated_against_the_released_schema(tmp_path: Path) -> None:
    replies, answers = _gold_replies(tmp_path, repeat_an_id=True)
    schema = json.loads(RELEASED_SCHEMA.read_text())
    repeated = [m for m, a in answers.items() if any(len(set(map(str, r["evidence_message_ids"])))
                                                     < len(r["evidence_message_ids"]) for r in a["requirements"])]
    assert len(repeated) == 1
    with pytest.raises(jsonschema.ValidationError, match="non-unique"):  # invalid per the release's schema
        jsonschema.validate(answers[repeated[0]], schema)
    for message_id, answer in answers.items():
        if message_id not in repeated:
            jsonschema.validate(answer, schema)
    run_dir, _ = _run(tmp_path, "released", replies, **{KEY: str(PUBLIC)})
    results = _results(run_dir)
    invalid = [r for r in results.values() if not r["phase_a"]["valid"]]
    assert len(invalid) == 1 and len(results) == 6
    assert any("repeats message id" in p for p in invalid[0]["phase_a"]["problems"])


def test_the_run_enforces_the_schema_it_showed_beyond_the_protocol_rules(tmp_path: Path) -> None:
    """A texts folder whose schema allows no requirement: answers that pass every protocol rule are refused by
    that schema, one sentence naming the file."""
    folder = tmp_path / "texts"
    folder.mkdir()
    own = packaged_texts()
    strict = json.loads(own.schema_file)
    strict["properties"]["requirements"]["maxItems"] = 0
    (folder / "instructions.md").write_text(own.instructions_file, encoding="utf-8")
    (folder / "response.schema.json").write_text(json.dumps(strict), encoding="utf-8")
    replies, answers = _gold_replies(tmp_path)
    run_dir, _ = _run(tmp_path, "strict", replies, **{KEY: str(folder)})
    results = _results(run_dir)
    with_requirements = [r for r in results.values() if r["response"] is None]
    assert len(with_requirements) == sum(bool(a["requirements"]) for a in answers.values()) > 0
    assert all(any(p.startswith("response.schema.json: requirements:") for p in r["phase_a"]["problems"])
               for r in with_requirements)
    assert all(check_response(a, [m for r in a["requirements"] for m in r["evidence_message_ids"]]).valid
               for a in answers.values())  # the protocol's own rules accept every one of them


def test_without_texts_the_paraphrase_is_named_as_a_difference_in_provenance_and_report(tmp_path: Path) -> None:
    run_dir, seen = _run(tmp_path, "default")
    assert {(f / "instructions.md").read_text() for f in seen.iterdir()} == {packaged_texts().instructions_file}
    facts = dict(map(tuple, report(run_dir)["run"]["provenance"]["inputs"]["phase_a_texts"].items()))
    assert facts["instructions"] == "packaged" and facts["sha256"] == packaged_texts().digests()
    assert facts["statement"].startswith("paraphrased Phase-A instructions (sha256 ")
    assert "the released text differs in wording" in facts["statement"]
    assert "the released text differs in its title and two descriptions only" in facts["statement"]
    from reqbench.report.run_report import provenance_facts

    shown = dict(map(tuple, provenance_facts(report(run_dir)["run"])))
    assert shown["Phase-A texts"] == facts["statement"]
    from reqbench.report.provenance import provenance  # the viewer's header

    with RunStore.open(run_dir, read_only=True) as store:
        assert dict(provenance(store.meta))["Phase-A texts"] == facts["statement"]


def test_a_resume_refuses_texts_that_changed_since_the_run_started(tmp_path: Path) -> None:
    folder = tmp_path / "texts"
    folder.mkdir()
    own = packaged_texts()
    (folder / "instructions.md").write_text(own.instructions_file, encoding="utf-8")
    (folder / "response.schema.json").write_text(own.schema_file, encoding="utf-8")
    run_dir, _ = _run(tmp_path, "run", **{KEY: str(folder)})
    options = {"copy_to": str(tmp_path / "run-seen"), KEY: str(folder)}
    run(SUITE, agent="phase-a-spy", out=run_dir, conditions=("diag-C1",), judge="exact", agent_options=options,
        resume=True)  # unchanged: resumes
    (folder / "instructions.md").write_text(own.instructions_file + "One more rule.\n", encoding="utf-8")
    with pytest.raises(InputError, match="changed since it started") as changed:
        run(SUITE, agent="phase-a-spy", out=run_dir, conditions=("diag-C1",), judge="exact",
            agent_options=options, resume=True)
    assert "phase_a_texts" in str(changed.value)


def _split(**agent_options: str) -> object:
    return split_options(RunOptions(agent_options=dict(agent_options)))


def test_a_texts_folder_is_validated_with_one_error_naming_the_file_and_rule(tmp_path: Path) -> None:
    item = f"--agent-opt {KEY}"
    with pytest.raises(InputError, match="folder does not exist") as missing:
        _split(**{KEY: str(tmp_path / "nope")})
    assert item in str(missing.value)
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "instructions.md").write_text("Answer in JSON.\n", encoding="utf-8")
    with pytest.raises(InputError, match="has no response.schema.json") as no_schema:
        _split(**{KEY: str(folder)})
    assert str(folder / "response.schema.json") in str(no_schema.value)
    schema = folder / "response.schema.json"
    cases = [("{not json", "not valid JSON"), ('{"$id": "other"}', "rq-agent-response-v1"),
             ('{"$id": "rq-agent-response-v1", "type": 7}', "not a valid JSON Schema")]
    for text, rule in cases:
        schema.write_text(text, encoding="utf-8")
        with pytest.raises(InputError, match=rule) as bad:
            _split(**{KEY: str(folder)})
        assert str(schema) in str(bad.value) and item in str(bad.value)
    schema.write_text(packaged_texts().schema_file, encoding="utf-8")
    (folder / "instructions.md").write_bytes(b"  \n")
    with pytest.raises(InputError, match="instructions file is empty"):
        _split(**{KEY: str(folder)})
    with pytest.raises(InputError, match="not both"):
        _split(**{KEY: str(folder), "takeover.instructions": str(folder / "instructions.md")})


def test_a_missing_texts_folder_stops_the_run_before_anything_is_created(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="Phase-A texts folder does not exist") as missing:
        _run(tmp_path, "run", **{KEY: str(tmp_path / "missing")})
    assert KEY in str(missing.value) and str(tmp_path / "missing") in str(missing.value)
    assert not (tmp_path / "run").exists()


@needs_release
def test_the_packaged_schema_differs_from_the_release_only_in_title_and_descriptions() -> None:
    def constraints(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: constraints(v) for k, v in node.items() if k not in ("title", "description")}
        return [constraints(v) for v in node] if isinstance(node, list) else node

    released = json.loads(RELEASED_SCHEMA.read_text())
    own = packaged_texts().response_schema
    assert constraints(own) == constraints(released)
    assert own["$defs"]["requirement"]["properties"]["evidence_message_ids"]["uniqueItems"] is True
    differs = sorted(k for k in ("title", "description") if own.get(k) != released.get(k))
    assert differs == ["description", "title"]


@needs_release
def test_a_copy_of_the_release_folder_is_named_as_the_released_texts(tmp_path: Path) -> None:
    copy = tmp_path / "public"
    shutil.copytree(PUBLIC, copy)
    texts = split_options(RunOptions(agent_options={KEY: str(copy)}))[0].texts
    assert texts.digests() == RELEASED_SHA256
    assert "not the released text" not in texts.statement()
