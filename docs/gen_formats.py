"""The file-format reference page (``docs/reference/formats.md``), generated from the registered schemas.

One section per name `reqbench schema` lists (reqbench's own ``reqbench.schemas`` entry points; a plugin's
formats are left out so the page is the same on every machine): the model's description, a table of its
top-level fields (type, default, description) and the complete JSON Schema, folded. The schema is the one
`reqbench schema NAME` prints (`reqbench.schemas.json_schema`). `make docs` runs it
(``python docs/gen_formats.py docs/reference/formats.md``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HEADER = """# File formats

Generated from the models behind `reqbench schema NAME` by `docs/gen_formats.py` (`make docs`). Every
field carries its description; a default shown here is the default a file gets when the field is left out.
`reqbench schema` lists the names, `reqbench schema NAME` prints the JSON Schema.
"""


def own_schemas() -> list[str]:
    from reqbench.core import registry

    return [n for n in registry.names("schemas") if registry.entry_value("schemas", n).startswith("reqbench.")]


def type_of(prop: dict[str, Any]) -> str:
    """A short type for a JSON Schema property: ``string``, ``list[Atom]``, ``integer | null``, ..."""
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    if "enum" in prop:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    for key in ("anyOf", "oneOf", "allOf"):
        if key in prop:
            return " \\| ".join(type_of(p) for p in prop[key])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list[{type_of(prop.get('items') or {})}]"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"map[string, {type_of(prop['additionalProperties'])}]"
    return str(kind)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def section(name: str) -> str:
    from reqbench.schemas import json_schema

    schema = json_schema(name)
    required = set(schema.get("required") or [])
    parts = [f"## `{name}`", ""]
    if schema.get("description"):
        parts += [_cell(schema["description"]), ""]
    parts += [f"`reqbench schema {name}`", ""]
    props: dict[str, Any] = schema.get("properties") or {}
    if props:
        parts += ["| field | type | default | description |", "|---|---|---|---|"]
        for field, prop in props.items():
            default = "required" if field in required else (
                f"`{_cell(json.dumps(prop['default']))}`" if "default" in prop else "")
            parts.append(f"| `{field}` | {_cell(type_of(prop))} | {default} | {_cell(prop.get('description', ''))} |")
        parts.append("")
    body = json.dumps(schema, indent=2, ensure_ascii=False)
    parts += [f'??? example "JSON Schema of {name}"', "", "    ```json"]
    parts += [f"    {line}" for line in body.splitlines()]
    parts += ["    ```", ""]
    return "\n".join(parts)


def formats_reference() -> str:
    names = own_schemas()
    index = "\n".join(f"- [`{n}`](#{n})" for n in names)
    return HEADER + "\n" + index + "\n\n" + "\n".join(section(n) for n in names)


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else "docs/reference/formats.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(formats_reference(), encoding="utf-8")
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
