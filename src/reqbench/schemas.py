"""Registry of file formats: `reqbench schema NAME` prints the JSON Schema of ``SCHEMAS[NAME]``.

Formats register through the ``reqbench.schemas`` entry-point group (`reqbench.core.registry`): each is a
``module:PydanticModel`` imported lazily, so listing names costs nothing and a protocol's models load only
when asked for. reqbench's own are declared in its pyproject; a plugin adds its own the same way.
"""

from __future__ import annotations

import importlib
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, NoDefault
from pydantic_core import core_schema

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


class _WithFactoryDefaults(GenerateJsonSchema):
    """Shows the defaults of `default_factory` fields too (pydantic leaves them out): a default a reader
    cannot see is a default they cannot know about — specpath's ``verifier.pythonpath: ["src"]`` made a
    flat-layout family fail its own reference."""

    def get_default_value(self, schema: core_schema.WithDefaultSchema) -> Any:
        factory = schema.get("default_factory")
        if "default" in schema or factory is None or schema.get("default_factory_takes_data"):
            return super().get_default_value(schema)
        try:
            return factory()  # type: ignore[call-arg]
        except Exception:  # a factory that needs context: the schema says nothing rather than guess
            return NoDefault


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of format `name`, every optional field with its default."""
    return schema_model(name).model_json_schema(schema_generator=_WithFactoryDefaults)
