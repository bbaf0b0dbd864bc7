"""Registry of file formats: `reqbench schema NAME` prints the JSON Schema of ``SCHEMAS[NAME]``.

Each entry is ``"module:PydanticModel"`` and imported lazily, so listing names costs nothing and a
protocol's models load only when asked for. Protocols register their formats here (one line each).
"""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel

from reqbench.core.errors import InputError

SCHEMAS: dict[str, str] = {
    "run-meta": "reqbench.core.store.models:RunMeta",
    "run-result-row": "reqbench.core.store.models:RunResultRow",
    "judge-call": "reqbench.core.store.models:JudgeCall",
    "pace-case": "reqbench.protocols.pace.models:CaseFile",
    "pace-suite": "reqbench.protocols.pace.models:SuiteFile",
    "pace-checklist": "reqbench.protocols.pace.models:Checklist",
    "takeover-normalized-project": "reqbench.protocols.takeover.models:NormalizedProjectModel",
    "takeover-annotation": "reqbench.protocols.takeover.models:AnnotationModel",
    "takeover-selected-targets": "reqbench.protocols.takeover.models:SelectedTargetsModel",
    "takeover-response": "reqbench.protocols.takeover.response:AgentResponse",

    "specpath-family": "reqbench.protocols.specpath.models:FamilySpec",
    "specpath-suite": "reqbench.protocols.specpath.models:SuiteSpec",
    "specpath-result": "reqbench.protocols.specpath.results:ResultRecord",

    "journey-instance": "reqbench.protocols.journey.models:InstanceSpec",
    "journey-suite": "reqbench.protocols.journey.models:SuiteSpec",
    "journey-persona": "reqbench.protocols.journey.personas:Persona",
}


def schema_model(name: str) -> type[BaseModel]:
    if name not in SCHEMAS:
        raise InputError(f"unknown schema (known: {', '.join(sorted(SCHEMAS))})", item=name)
    module_name, _, attr = SCHEMAS[name].partition(":")
    model = getattr(importlib.import_module(module_name), attr)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"schema {name!r} points at {SCHEMAS[name]}, which is not a pydantic model")
    return model


def json_schema(name: str) -> dict[str, Any]:
    return schema_model(name).model_json_schema()
