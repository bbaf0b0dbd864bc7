"""PRD reconstruction: one standalone PRD from a production record (paper §2 "Intent Preserving PRD
Reconstruction", appendix "PRD Reconstruction Protocol" and the O.2 prompt "Requirement reconstruction").

A production record is what a development session left behind: the matched requirement documents, the
user's request, the user's later clarifications (in order), the assistant's messages, the task title and
the changed-file list. The paper's rules, which the prompt states and this module enforces where code can:

* documents and the user's request set the scope; later user clarifications refine it and supersede
  earlier statements where the change is explicit;
* the task title and changed-file metadata only check alignment — they never create requirements;
* names introduced solely by generated code (the assistant's messages) never become mandatory;
* the PRD asks for work from the base repository (no progress statements) in the supported sections
  (goals, scope, functional requirements, business rules, technical constraints, acceptance criteria,
  open items), omitting sections without evidence.

The answer must be Markdown with at least one of those sections and no other level-2 heading; otherwise it
is re-asked once with the reason, then refused (`InputError`). The result is a draft for the construction
pipeline (`pace synthesize`), never a frozen case input by itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reqbench.core.errors import InputError
from reqbench.protocols.pace.llm import chat

RECONSTRUCT = """Turn the supplied evidence into a standalone PRD.
Use the matched requirement documents and the user's request to establish scope. Preserve later user
clarifications and explicit changes to the requirement; a later clarification supersedes an earlier
statement only where the change is explicit. Use the task title and the changed-file metadata only to check
alignment; they must not create new requirements.
Rewrite progress statements as work to be implemented from the base repository. Preserve supported business
rules, interfaces, values and boundary conditions. Do not make a name mandatory merely because generated
code (the assistant's messages) introduced it. Do not invent business context or acceptance conditions.
Return Markdown only, with level-2 headings from this list and in this order, omitting any section without
evidence: ## Goals, ## Scope, ## Functional requirements, ## Business rules, ## Technical constraints,
## Acceptance criteria, ## Open items."""

SECTIONS = (
    "Goals",
    "Scope",
    "Functional requirements",
    "Business rules",
    "Technical constraints",
    "Acceptance criteria",
    "Open items",
)


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    role: str = Field(description="`user` or `assistant`.", pattern="^(user|assistant)$")
    content: str = Field(description="The message text.")


class ProductionRecord(BaseModel):
    """A production record (paper §2): the evidence a PRD is reconstructed from."""

    model_config = ConfigDict(extra="forbid")
    task_title: str = Field("", description="Task metadata: the title (checks alignment only).")
    documents: list[str] = Field(default_factory=list, description="Matched requirement documents.")
    conversation: list[Turn] = Field(description="The user-agent conversation in order; the first user "
                                                 "turn is the request, later user turns are clarifications.")
    changed_files: list[str] = Field(default_factory=list, description="Changed-file metadata of the "
                                     "accepted diff (checks alignment only).")


def load_record(path: Path) -> ProductionRecord:
    """Read a production record (JSON or YAML); one clear error on bad input."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read the production record ({exc.strerror})", file=str(path)) from None
    except yaml.YAMLError as exc:
        raise InputError(f"not valid JSON/YAML ({str(exc).splitlines()[0]})", file=str(path)) from None
    try:
        record = ProductionRecord.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise InputError(f"{where}: {err['msg']}" if where else err["msg"], file=str(path)) from None
    if not any(t.role == "user" for t in record.conversation) and not record.documents:
        raise InputError("the record has neither a document nor a user turn to establish scope",
                         file=str(path), item="conversation")
    return record


def evidence_message(record: ProductionRecord) -> str:
    """The user message: scope evidence first, alignment-only metadata last, each part labelled."""
    parts = [f"## Requirement document {i}\n{doc}" for i, doc in enumerate(record.documents, 1)]
    users = 0
    for turn in record.conversation:
        if turn.role == "user":
            users += 1
            label = "User request" if users == 1 else f"User clarification {users - 1} (later)"
        else:
            label = "Assistant message (generated; its names are not requirements)"
        parts.append(f"## {label}\n{turn.content}")
    parts.append("## Task title (alignment only)\n" + (record.task_title or "(none)"))
    parts.append("## Changed files (alignment only)\n" + ("\n".join(record.changed_files) or "(none)"))
    return "\n\n".join(parts)


_H2 = re.compile(r"^##\s+(.+?)\s*$", re.M)


def check_prd(text: str) -> str | None:
    """Why `text` is not an acceptable reconstructed PRD, or None: it needs at least one supported section
    and no level-2 heading outside the supported list."""
    heads = [h.strip().rstrip(":") for h in _H2.findall(text)]
    known = {s.lower() for s in SECTIONS}
    unknown = [h for h in heads if h.lower() not in known]
    if unknown:
        return f"sections outside the supported list: {unknown}"
    if not heads:
        return "no supported section (## Goals, ## Scope, ...)"
    return None


def reconstruct_prd(record: ProductionRecord, model: str) -> str:
    """Run the reconstruction prompt (one re-ask on a malformed answer) and return the PRD Markdown."""
    messages = [{"role": "system", "content": RECONSTRUCT}, {"role": "user", "content": evidence_message(record)}]
    for attempt in range(2):
        text = chat(messages, model).strip()
        if text.startswith("```"):
            text = text.split("\n", 1)[-1].rsplit("```", 1)[0].strip()
        problem = check_prd(text)
        if problem is None:
            return text + "\n"
        if attempt == 0:
            messages += [{"role": "assistant", "content": text},
                         {"role": "user", "content": f"The PRD was rejected: {problem}. Answer again."}]
    raise InputError(f"the reconstructed PRD was rejected twice ({problem})", item="PRD reconstruction")
