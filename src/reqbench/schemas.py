"""Registry of file formats: `reqbench schema NAME` prints the JSON Schema of ``SCHEMAS[NAME]``.

Formats register through the ``reqbench.schemas`` entry-point group (`reqbench.core.registry`): each is a
``module:PydanticModel`` imported lazily, so listing names costs nothing and a protocol's models load only
when asked for. reqbench's own are declared in its pyproject; a plugin adds its own the same way.
"""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel

from reqbench.core import registry
from reqbench.core.errors import InputError

SCHEMAS: dict[str, str] = {name: registry.entry_value("schemas", name) for name in registry.names("schemas")}
"""name -> ``module:Model`` of every registered file format (``reqbench.schemas`` entry points)."""


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
