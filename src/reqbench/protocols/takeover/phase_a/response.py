"""The Phase-A response contract ``rq-agent-response-v1`` (ReqMemBench D.3, FORMAT.md f.6).

One JSON object answers RQ1-RQ3 for one target and history condition::

    {"requirements": [{requirement_ref, requirement_summary, evidence_message_ids, pre_task_state}],
     "decision": "ACT" | "CLARIFY",
     "post_task_states": [{requirement_ref, requirement_summary, change_type, removed_attribute_keys,
                           state}] | null,
     "clarifications": [{requirement_ref, requirement_summary, dimension, field, missing_information,
                         question}]}

A state is exactly ``{attributes: object, scope: object, lifecycle_status: string|null,
ambiguity: null|[object], execution: null|object}``.

`check_response` reports **one sentence per problem** (structure, the reserved ``REQ_<UPPERCASE>``
reference form, unique references, evidence visible in the condition's history, the ACT/CLARIFY
branch rules). A response with any problem is an *agent failure* (scored 0 on higher-is-better
metrics, C.2), never a crash. A valid response is frozen with the sha256 of its canonical JSON.

Message ids are compared as ``str(id)`` (as the released instance builder does), so ``15`` and
``"15"`` name the same message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from reqbench.core.hashing import sha256_json

RESPONSE_SCHEMA_VERSION = "rq-agent-response-v1"
STATE_DIMENSIONS = ("attributes", "scope", "lifecycle_status", "ambiguity", "execution")
RESERVED_REF = re.compile(r"REQ_[A-Z0-9][A-Z0-9_]*")


class Decision(StrEnum):
    """The RQ3 action decision."""

    ACT = "ACT"
    """The visible evidence determines a unique post-task state: return it."""
    CLARIFY = "CLARIFY"
    """A material fact is missing: name it and ask for it; no post-task state."""


class ClarificationDimension(StrEnum):
    VALUE = "VALUE"
    SCOPE = "SCOPE"
    LIFECYCLE = "LIFECYCLE"
    BEHAVIOR = "BEHAVIOR"
    DEPENDENCY = "DEPENDENCY"
    EXECUTION = "EXECUTION"


_STRICT = ConfigDict(extra="forbid")  # the rules run first, in `check_response`


class RequirementState(BaseModel):
    model_config = _STRICT
    attributes: dict[str, Any] = Field(description="Currently established parameters and constraints.")
    scope: dict[str, Any] = Field(description="persistence, components and contexts of the requirement.")
    lifecycle_status: str | None = Field(description="ACTIVE, DEFERRED, REMOVED, or null when unknown.")
    ambiguity: list[dict[str, Any]] | None = Field(description="Open issues (records), or null.")
    execution: dict[str, Any] | None = Field(description="Latest implementation evidence, or null.")


class RequirementItem(BaseModel):
    model_config = _STRICT
    requirement_ref: str = Field(description="The agent's own stable reference (not REQ_<UPPERCASE>).")
    requirement_summary: str = Field(description="One-line summary of the requirement.")
    evidence_message_ids: list[int | str] = Field(description="Visible history message ids cited.")
    pre_task_state: RequirementState = Field(description="State valid just before the current request.")


class PostTaskStateItem(BaseModel):
    model_config = _STRICT
    requirement_ref: str = Field(description="Reference of the affected requirement.")
    requirement_summary: str = Field(description="One-line summary of the requirement.")
    change_type: str = Field(description="The agent's label of the change (kept, not scored).")
    removed_attribute_keys: list[str] = Field(description="Attribute names the request removes.")
    state: RequirementState = Field(description="Complete closed-world post-task state.")


class ClarificationItem(BaseModel):
    model_config = _STRICT
    requirement_ref: str = Field(description="Reference of the blocked requirement.")
    requirement_summary: str = Field(description="One-line summary of the requirement.")
    dimension: ClarificationDimension = Field(description="Which state dimension is blocked.")
    field: str | None = Field(description="The blocked field, or null.")
    missing_information: str = Field(description="The material fact that is missing.")
    question: str = Field(description="The question that would obtain it.")


class AgentResponse(BaseModel):
    """The ``rq-agent-response-v1`` object (structure only; the rules live in `check_response`)."""

    model_config = _STRICT
    requirements: list[RequirementItem] = Field(description="Relevant historical requirements (RQ1/RQ2).")
    decision: Decision = Field(description="ACT or CLARIFY (RQ3).")
    post_task_states: list[PostTaskStateItem] | None = Field(description="ACT: non-empty; CLARIFY: null.")
    clarifications: list[ClarificationItem] = Field(description="CLARIFY: non-empty; ACT: empty.")


@dataclass(frozen=True)
class FrozenResponse:
    """A valid response, frozen: the typed object, the raw JSON and its canonical sha256."""

    response: AgentResponse
    raw: dict[str, Any]
    sha256: str


@dataclass
class ResponseCheck:
    """Result of `check_response`: either `frozen` is set, or `problems` lists every violation."""

    frozen: FrozenResponse | None
    problems: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return self.frozen is not None


def check_response_text(text: str | None, visible_message_ids: Iterable[int | str],
                        schema: dict[str, Any] | None = None) -> ResponseCheck:
    """`check_response` on raw file text; ``None`` (no file) and non-JSON text are agent failures."""
    if text is None:
        return ResponseCheck(None, ["no response was submitted"])
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        return ResponseCheck(None, [f"the response is not JSON ({exc.msg} at line {exc.lineno})"])
    return check_response(raw, visible_message_ids, schema)


def check_response(raw: Any, visible_message_ids: Iterable[int | str],
                   schema: dict[str, Any] | None = None) -> ResponseCheck:
    """Validate `raw` against ``rq-agent-response-v1`` for a condition whose history shows
    `visible_message_ids`; return the frozen response or one sentence per problem. A response that passes
    these rules must also be valid against `schema`, the JSON Schema the agent was shown (reqbench's or the
    released one, `phase_a.texts`), when given: one sentence per violation, naming that file."""
    problems: list[str] = []
    visible = {str(m) for m in visible_message_ids}
    if not isinstance(raw, dict):
        return ResponseCheck(None, [f"the response must be a JSON object, not {_kind(raw)}"])
    _keys(raw, "response", ("requirements", "decision", "post_task_states", "clarifications"), problems)
    reqs = raw.get("requirements")
    if "requirements" in raw and not isinstance(reqs, list):
        problems.append(f"requirements must be an array, not {_kind(reqs)}")
    elif isinstance(reqs, list):
        _check_requirements(reqs, visible, problems)
    decision = raw.get("decision")
    if "decision" in raw and decision not in ("ACT", "CLARIFY"):
        problems.append(f"decision must be ACT or CLARIFY, not {json.dumps(decision)}")
    posts = raw.get("post_task_states")
    if "post_task_states" in raw and posts is not None and not isinstance(posts, list):
        problems.append(f"post_task_states must be an array or null, not {_kind(posts)}")
    elif isinstance(posts, list):
        _check_posts(posts, problems)
    clars = raw.get("clarifications")
    if "clarifications" in raw and not isinstance(clars, list):
        problems.append(f"clarifications must be an array, not {_kind(clars)}")
    elif isinstance(clars, list):
        _check_clarifications(clars, problems)
    if decision == "ACT":
        if not (isinstance(posts, list) and posts):
            problems.append("decision ACT requires a non-empty post_task_states array")
        if isinstance(clars, list) and clars:
            problems.append("decision ACT requires an empty clarifications array")
    elif decision == "CLARIFY":
        if posts is not None and "post_task_states" in raw:
            problems.append("decision CLARIFY requires post_task_states to be null")
        if isinstance(clars, list) and not clars:
            problems.append("decision CLARIFY requires at least one clarification")
    if not problems and schema is not None:
        problems = schema_problems(raw, schema)
    if problems:
        return ResponseCheck(None, problems)
    return ResponseCheck(FrozenResponse(AgentResponse.model_validate(raw), raw, sha256_json(raw)))


def schema_problems(raw: Any, schema: dict[str, Any]) -> list[str]:
    """Every violation of `schema` (JSON Schema draft 2020-12) by `raw`, as ``response.schema.json: PATH:
    MESSAGE`` in document order."""
    errors = sorted(_validator(json.dumps(schema, sort_keys=True)).iter_errors(raw),
                    key=lambda e: list(map(str, e.absolute_path)))
    return [f"response.schema.json: {'/'.join(map(str, e.absolute_path)) or 'the response'}: {e.message}"
            for e in errors]


@lru_cache(maxsize=8)
def _validator(schema_json: str) -> Any:
    """One validator per schema (the rows of a run share it)."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(schema_json))


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
            type(None): "null", int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _keys(obj: dict[str, Any], where: str, required: tuple[str, ...], problems: list[str]) -> None:
    for key in required:
        if key not in obj:
            problems.append(f"{where}: missing field {key!r}")
    for key in obj:
        if key not in required:
            problems.append(f"{where}: unexpected field {key!r}")


def _text(value: Any, where: str, problems: list[str], *, nullable: bool = False) -> None:
    if nullable and value is None:
        return
    if not isinstance(value, str) or not value:
        problems.append(f"{where} must be a non-empty string, not {_kind(value)}")


def _ref(item: dict[str, Any], where: str, problems: list[str]) -> str | None:
    ref = item.get("requirement_ref")
    if "requirement_ref" not in item:
        return None
    _text(ref, f"{where}.requirement_ref", problems)
    if isinstance(ref, str) and RESERVED_REF.fullmatch(ref):
        problems.append(f"{where}.requirement_ref {ref!r} uses the reserved internal-ID form "
                        f"REQ_<UPPERCASE>; use your own reference such as {ref.lower()!r}")
    return ref if isinstance(ref, str) and ref else None


def _unique_refs(refs: list[tuple[str, str | None]], where: str, problems: list[str]) -> None:
    seen: dict[str, str] = {}
    for loc, ref in refs:
        if ref is None:
            continue
        if ref in seen:
            problems.append(f"{loc}.requirement_ref {ref!r} repeats {seen[ref]} (references must be "
                            f"unique within {where})")
        else:
            seen[ref] = loc


def _check_requirements(reqs: list[Any], visible: set[str], problems: list[str]) -> None:
    refs: list[tuple[str, str | None]] = []
    for i, item in enumerate(reqs):
        where = f"requirements[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{where} must be an object, not {_kind(item)}")
            continue
        _keys(item, where, ("requirement_ref", "requirement_summary", "evidence_message_ids",
                            "pre_task_state"), problems)
        refs.append((where, _ref(item, where, problems)))
        if "requirement_summary" in item:
            _text(item["requirement_summary"], f"{where}.requirement_summary", problems)
        ids = item.get("evidence_message_ids")
        if "evidence_message_ids" in item:
            _check_evidence(ids, f"{where}.evidence_message_ids", visible, problems)
        if "pre_task_state" in item:
            _check_state(item["pre_task_state"], f"{where}.pre_task_state", problems)
    _unique_refs(refs, "requirements", problems)


def _check_evidence(ids: Any, where: str, visible: set[str], problems: list[str]) -> None:
    if not isinstance(ids, list):
        problems.append(f"{where} must be an array, not {_kind(ids)}")
        return
    seen: set[str] = set()
    for j, mid in enumerate(ids):
        if isinstance(mid, bool) or not isinstance(mid, int | str):
            problems.append(f"{where}[{j}] must be a message id (integer or string), not {_kind(mid)}")
            continue
        if str(mid) in seen:
            problems.append(f"{where}[{j}] repeats message id {mid!r}")
            continue
        seen.add(str(mid))
        if str(mid) not in visible:
            problems.append(f"{where}[{j}] cites message {mid!r}, which is not in this condition's "
                            f"visible history")


def _check_state(state: Any, where: str, problems: list[str]) -> None:
    if not isinstance(state, dict):
        problems.append(f"{where} must be a state object, not {_kind(state)}")
        return
    _keys(state, where, STATE_DIMENSIONS, problems)
    for dim in ("attributes", "scope"):
        if dim in state and not isinstance(state[dim], dict):
            problems.append(f"{where}.{dim} must be an object, not {_kind(state[dim])}")
    if "lifecycle_status" in state and not (state["lifecycle_status"] is None
                                            or isinstance(state["lifecycle_status"], str)):
        problems.append(f"{where}.lifecycle_status must be a string or null, not "
                        f"{_kind(state['lifecycle_status'])}")
    amb = state.get("ambiguity")
    if "ambiguity" in state and amb is not None:
        if not isinstance(amb, list):
            problems.append(f"{where}.ambiguity must be null or an array of objects, not {_kind(amb)}")
        else:
            for k, rec in enumerate(amb):
                if not isinstance(rec, dict):
                    problems.append(f"{where}.ambiguity[{k}] must be an object, not {_kind(rec)}")
    exe = state.get("execution")
    if "execution" in state and not (exe is None or isinstance(exe, dict)):
        problems.append(f"{where}.execution must be null or an object, not {_kind(exe)}")


def _check_posts(posts: list[Any], problems: list[str]) -> None:
    refs: list[tuple[str, str | None]] = []
    for i, item in enumerate(posts):
        where = f"post_task_states[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{where} must be an object, not {_kind(item)}")
            continue
        _keys(item, where, ("requirement_ref", "requirement_summary", "change_type",
                            "removed_attribute_keys", "state"), problems)
        refs.append((where, _ref(item, where, problems)))
        for key in ("requirement_summary", "change_type"):
            if key in item:
                _text(item[key], f"{where}.{key}", problems)
        keys = item.get("removed_attribute_keys")
        if "removed_attribute_keys" in item:
            if not isinstance(keys, list):
                problems.append(f"{where}.removed_attribute_keys must be an array, not {_kind(keys)}")
            else:
                for j, key in enumerate(keys):
                    _text(key, f"{where}.removed_attribute_keys[{j}]", problems)
                if len({k for k in keys if isinstance(k, str)}) != len(keys):
                    problems.append(f"{where}.removed_attribute_keys repeats a name")
        if "state" in item:
            _check_state(item["state"], f"{where}.state", problems)
    _unique_refs(refs, "post_task_states", problems)


def _check_clarifications(clars: list[Any], problems: list[str]) -> None:
    dims = {d.value for d in ClarificationDimension}
    for i, item in enumerate(clars):
        where = f"clarifications[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{where} must be an object, not {_kind(item)}")
            continue
        _keys(item, where, ("requirement_ref", "requirement_summary", "dimension", "field",
                            "missing_information", "question"), problems)
        _ref(item, where, problems)
        for key in ("requirement_summary", "missing_information", "question"):
            if key in item:
                _text(item[key], f"{where}.{key}", problems)
        if "field" in item:
            _text(item["field"], f"{where}.field", problems, nullable=True)
        dim = item.get("dimension")
        if "dimension" in item and not (isinstance(dim, str) and dim in dims):
            problems.append(f"{where}.dimension must be one of {', '.join(sorted(dims))}, not "
                            f"{json.dumps(item['dimension'])}")
