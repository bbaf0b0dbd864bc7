"""The JSON Schema of a task file's ``environment:`` field, spelled out from `EnvironmentSpec` on demand.

Task-file models type the field as a plain mapping (validated by `load_environment` when a run needs it),
so loading a suite never imports `reqbench.core.environments`, whose package brings in every builder.
`environment_schema` is their ``json_schema_extra``: it runs only when a schema is generated
(``reqbench schema <task-file>``) and replaces the mapping's schema by the block's own, its definitions
inlined so the field stands alone inside any document.
"""

from __future__ import annotations

from typing import Any


def _inlined(node: Any, defs: dict[str, Any]) -> Any:
    """`node` with every ``{"$ref": "#/$defs/NAME"}`` replaced by that definition (the block has no cycles)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inlined(defs[ref.removeprefix("#/$defs/")], defs) | {
                k: _inlined(v, defs) for k, v in node.items() if k != "$ref"}
        return {k: _inlined(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inlined(v, defs) for v in node]
    return node


def environment_schema(schema: dict[str, Any]) -> None:
    """``json_schema_extra`` of an optional ``environment`` field: the block's schema, or null."""
    from reqbench.core.environments.model import EnvironmentSpec

    block = EnvironmentSpec.model_json_schema()
    defs = block.pop("$defs", {})
    spelled = _inlined(block, defs)
    spelled.pop("description", None)  # the field's own description stays
    for key in ("anyOf", "type", "additionalProperties"):
        schema.pop(key, None)
    schema["anyOf"] = [spelled, {"type": "null"}]
