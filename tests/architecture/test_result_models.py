"""Every protocol's row result is a model that declares what it stores: undeclared keys are refused (in its
nested parts too), every field says what it holds, and a field left free-form (``dict[str, Any]``) says why
in a comment above it. The generic row facts (`report.rowfacts`) read the model's answers, never a key.

Threats guarded: a protocol storing keys no schema documents (read later by key, by guess); a report that
recognises a protocol by the shape of its dict."""

from __future__ import annotations

import inspect
import re
import typing
from pathlib import Path

from pydantic import BaseModel

from reqbench.core.execute.results import ProtocolResult
from reqbench.protocols.base import available_protocols

SRC = Path(__file__).resolve().parents[2] / "src" / "reqbench"
FREE_FORM = re.compile(r"dict\[str, Any\]")


def _models() -> list[type[BaseModel]]:
    """The result models of the installed protocols and every model nested in them."""
    found: list[type[BaseModel]] = [ProtocolResult]
    todo = [p.result_model for p in available_protocols() if getattr(p, "result_model", None) is not None]
    while todo:
        model = todo.pop()
        if model in found:
            continue
        found.append(model)
        for field in model.model_fields.values():
            todo += [a for a in _leaves(field.annotation) if isinstance(a, type) and issubclass(a, BaseModel)]
    return found


def _leaves(annotation: object) -> list[object]:
    args = typing.get_args(annotation)
    return [leaf for arg in args for leaf in _leaves(arg)] if args else [annotation]


def test_the_installed_protocols_declare_result_models() -> None:
    names = {p.name for p in available_protocols() if getattr(p, "result_model", None) is not None}
    assert {"takeover", "specpath", "journey", "pace", "harbor"} <= names


def test_every_result_model_refuses_undeclared_keys_and_describes_its_fields() -> None:
    models = _models()
    assert len(models) > 8  # the nested parts were found
    assert [m.__name__ for m in models if m.model_config.get("extra") != "forbid"] == []
    undescribed = [f"{m.__name__}.{name}" for m in models for name, f in m.model_fields.items() if not f.description]
    assert undescribed == []


def test_a_free_form_field_says_why() -> None:
    unexplained = []
    for model in _models():
        lines = inspect.getsource(model).splitlines()
        for i, line in enumerate(lines):
            if FREE_FORM.search(line) and re.match(r"\s+\w+: ", line) and not lines[i - 1].strip().startswith("#"):
                unexplained.append(f"{model.__name__}: {line.strip()[:60]}")
    assert unexplained == []


def test_row_facts_index_no_result() -> None:
    text = (SRC / "report" / "rowfacts.py").read_text(encoding="utf-8")
    assert re.findall(r"result\.get\(|result\[|\.model_extra|isinstance\(result", text) == []
