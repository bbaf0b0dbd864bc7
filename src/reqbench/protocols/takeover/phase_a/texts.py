"""The two Phase-A texts an agent reads besides its task and history: the instructions and the response JSON
Schema (ReqMemBench D.3; FORMAT.md f.6), where they come from, and how they differ from the release.

Two sources:

* **packaged** (the offline default): reqbench's own paraphrase of the instructions and its own copy of the
  ``rq-agent-response-v1`` schema (DESIGN §9: a text written by others is never shipped). Wherever the
  paraphrase is used it is named as a difference (`PhaseATexts.statement`: the run's provenance and every
  report, ``takeover build``), with what differs (`PARAPHRASE_DIFFERS`, `SCHEMA_DIFFERS`).
* **given**: a folder holding ``instructions.md`` and ``response.schema.json`` as a released package's
  ``public/`` folder holds them (``--agent-opt takeover.phase_a.texts=DIR``, `texts_from_folder`), or the
  two files (``takeover build --instructions FILE --response-schema FILE``, `load_phase_a_texts`): the
  release's own texts, read as input files.

Either pair reaches the agent in the package form the release's builder writes (`PhaseATexts.instructions_file`,
`PhaseATexts.schema_file`), so the files of a released package reach it byte for byte; texts whose digests
equal the ones the release's package manifests record (`RELEASED_SHA256`) are named as the released texts.
A given text is validated first: one `InputError` naming the file and the rule.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_text

RESPONSE_SCHEMA_ID = "rq-agent-response-v1"
INSTRUCTIONS_FILE = "instructions.md"
SCHEMA_FILE = "response.schema.json"
PACKAGED = "packaged"
"""The origin of reqbench's own texts (`PhaseATexts.instructions_origin` / `schema_origin`)."""

RELEASED_SHA256 = {
    INSTRUCTIONS_FILE: "a255504b36387e2ad10f56e95fe6c0703f401bb5b0789c717b598081afe4bce3",
    SCHEMA_FILE: "d8f72198348a41a6dde0d1a50db05f74191de1c0a0aa3b20e2c6e920caec902c",
}
"""sha256 of the two public files of every ReqMemBench Phase-A package, as the release's package manifests
record them (``public_files``; "ReqMemBench Phase A Reasoning Instructions v1" and ``rq-agent-response-v1``)."""

PARAPHRASE_DIFFERS = (
    "in wording and heading (same four reasoning tasks and output rules), and it does not state what the "
    "paraphrase adds: that history.jsonl is oldest first, that post-task states include new requirements, and "
    "that a REQ_<UPPERCASE> reference rejects the whole answer (the release says only not to invent internal "
    "benchmark identifiers)")
"""How the released instructions differ from reqbench's paraphrase (named wherever the paraphrase is used)."""

SCHEMA_DIFFERS = "in its title and two descriptions only (the constraints are the same)"
"""How the released schema differs from reqbench's (`test_released_phase_a_texts` checks the rest is equal)."""


@dataclass(frozen=True)
class PhaseATexts:
    """The instructions text and response schema shared by every Phase-A package of a build or a run, with
    where each came from (`PACKAGED` or the file it was read from)."""

    instructions: str
    response_schema: dict[str, Any]
    instructions_origin: str = PACKAGED
    schema_origin: str = PACKAGED

    @property
    def instructions_file(self) -> str:
        """``instructions.md`` as a package holds it: the text, trailing whitespace stripped, plus "\\n"."""
        return self.instructions.rstrip() + "\n"

    @property
    def schema_file(self) -> str:
        """``response.schema.json`` as a package holds it: the schema re-dumped with indent 2, plus "\\n"."""
        return json.dumps(self.response_schema, ensure_ascii=False, indent=2) + "\n"

    def digests(self) -> dict[str, str]:
        """sha256 of both files as the agent reads them."""
        return {INSTRUCTIONS_FILE: sha256_text(self.instructions_file), SCHEMA_FILE: sha256_text(self.schema_file)}

    def statement(self) -> str:
        """One sentence for provenance and reports: which texts the agent read, and how they differ from the
        release's when they do."""
        digests = self.digests()
        parts = ((INSTRUCTIONS_FILE, self.instructions_origin, PARAPHRASE_DIFFERS),
                 (SCHEMA_FILE, self.schema_origin, SCHEMA_DIFFERS))
        return "; ".join(_part(name, origin, digests[name], differs) for name, origin, differs in parts)

    def provenance(self) -> dict[str, Any]:
        """What a run records (a resume must find the same digests)."""
        return {"label": "Phase-A texts", "instructions": self.instructions_origin,
                "response_schema": self.schema_origin,
                "sha256": self.digests(), "statement": self.statement()}


def _part(name: str, origin: str, digest: str, differs: str) -> str:
    what = {INSTRUCTIONS_FILE: "Phase-A instructions", SCHEMA_FILE: "response schema"}[name]
    short = digest[:12]
    if digest == RELEASED_SHA256[name]:
        return f"released {what} ({origin}, sha256 {short}, as in the release)"
    if origin == PACKAGED:
        adjective = "paraphrased" if name == INSTRUCTIONS_FILE else "reqbench's"
        return f"{adjective} {what} (sha256 {short}); the released text differs {differs}"
    return f"{what} from {origin} (sha256 {short}; not the released text)"


def _resource(name: str) -> str:
    return resources.files("reqbench.protocols.takeover").joinpath("resources", name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def packaged_texts() -> PhaseATexts:
    """reqbench's own instructions and schema (the offline default)."""
    return PhaseATexts(_resource("phase_a_instructions.md"), json.loads(_resource("phase_a_response.schema.json")))


def read_instructions(path: Path, item: str | None = None) -> str:
    """A UTF-8, non-empty instructions file (`InputError` naming the file and the rule otherwise)."""
    text = _read(path, "instructions", item)
    if not text.strip():
        raise InputError("instructions file is empty", file=str(path), item=item)
    return text


def read_response_schema(path: Path, item: str | None = None) -> dict[str, Any]:
    """A response schema file: JSON, an object with ``$id`` `RESPONSE_SCHEMA_ID`, a valid JSON Schema."""
    text = _read(path, "response schema", item)
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"response schema is not valid JSON ({exc.msg} at line {exc.lineno})", file=str(path),
                         item=item) from None
    if not isinstance(schema, dict) or schema.get("$id") != RESPONSE_SCHEMA_ID:
        raise InputError(f"response schema must be an object with $id {RESPONSE_SCHEMA_ID!r}", file=str(path),
                         item=item)
    problem = schema_error(schema)
    if problem is not None:
        raise InputError(f"response schema is not a valid JSON Schema ({problem})", file=str(path), item=item)
    return schema


def _read(path: Path, what: str, item: str | None) -> str:
    if not path.is_file():
        raise InputError(f"{what} file does not exist", file=str(path), item=item)
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} file is not UTF-8 (byte {exc.start})", file=str(path), item=item) from None
    except OSError as exc:
        raise InputError(f"cannot read the {what} file ({exc.strerror})", file=str(path), item=item) from None


def schema_error(schema: dict[str, Any]) -> str | None:
    """Why `schema` is not a JSON Schema (draft 2020-12), or None."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return f"{exc.message} at {'/'.join(map(str, exc.path)) or 'the top level'}"
    return None


def load_phase_a_texts(instructions: Path | None = None, response_schema: Path | None = None,
                       item: str | None = None) -> PhaseATexts:
    """reqbench's own texts, each replaced by the file given for it (validated, `read_instructions`,
    `read_response_schema`)."""
    own = packaged_texts()
    return PhaseATexts(
        read_instructions(instructions, item) if instructions else own.instructions,
        read_response_schema(response_schema, item) if response_schema else own.response_schema,
        str(instructions) if instructions else PACKAGED, str(response_schema) if response_schema else PACKAGED)


def texts_from_folder(folder: Path, item: str | None = None) -> PhaseATexts:
    """Both texts from a folder laid out as a released package's ``public/`` folder (``instructions.md`` and
    ``response.schema.json``); `InputError` naming the folder or file and the rule."""
    if not folder.is_dir():
        raise InputError("Phase-A texts folder does not exist (give a released package's public/ folder, which "
                         f"holds {INSTRUCTIONS_FILE} and {SCHEMA_FILE})", file=str(folder), item=item)
    for name in (INSTRUCTIONS_FILE, SCHEMA_FILE):
        if not (folder / name).is_file():
            raise InputError(f"Phase-A texts folder has no {name} (a released package's public/ folder holds "
                             f"{INSTRUCTIONS_FILE} and {SCHEMA_FILE})", file=str(folder / name), item=item)
    return load_phase_a_texts(folder / INSTRUCTIONS_FILE, folder / SCHEMA_FILE, item)


@lru_cache(maxsize=8)
def _cached_folder(folder: str, stamp: tuple[int, int, int, int], item: str | None) -> PhaseATexts:
    return texts_from_folder(Path(folder), item)


def cached_texts_from_folder(folder: Path, item: str | None = None) -> PhaseATexts:
    """`texts_from_folder`, read again only when either file changed (rows of a run read it once)."""
    stats = [(folder / n).stat() if (folder / n).is_file() else None for n in (INSTRUCTIONS_FILE, SCHEMA_FILE)]
    if stats[0] is None or stats[1] is None:
        return texts_from_folder(folder, item)  # the error names the missing file
    stamp = (stats[0].st_mtime_ns, stats[0].st_size, stats[1].st_mtime_ns, stats[1].st_size)
    return _cached_folder(str(folder.resolve()), stamp, item)
