"""Instructions shown to agents in the takeover conditions, written for reqbench.

They follow the rules of ReqMemBench appendix D.2/D.3 (what each stage may see and do) in our own words;
the original texts are not reproduced. Placeholders are filled by `render`.
"""

from __future__ import annotations

DIRECT_DELIVERY = """\
# Take over this project

You are taking over a software project that another developer has been building for a client.
The client's newest message is in `{task_file}`; everything the client and the developer said before
it is in `{history_file}` (JSON lines, oldest first).

What to do:
1. Read the history and work out which requirements are still in force: later messages may have
   changed, postponed, withdrawn or clarified earlier ones.
2. Implement the newest request in the project in the current directory, keeping every requirement
   the request does not change.
3. Run the project's own tests before you finish.

Rules: work only inside the current directory; do not look for evaluation files, other runs or the
network. The project as you leave it is what gets evaluated.
"""

ORACLE_CODING = """\
# Implement the target requirement state

`{state_file}` lists the requirements this change concerns, each with a reference, a one-line summary
and the complete state it must have after the change. That file is authoritative: do not reopen the
decision or reconstruct requirements from anywhere else.

Implement that state in the project in the current directory, keeping everything else working. Build
and test the project before you finish. Work only inside the current directory; do not look for
evaluation files, other runs or the network. The project as you leave it is what gets evaluated.
"""

TWO_PHASE_CODING = """\
# Implement the request you analysed

The client's newest message is in `{task_file}`, the earlier conversation in `{history_file}`, and your
frozen analysis of it (decision and target requirement states) in `{response_file}`. Implement the
request in the project in the current directory as your analysis describes, keeping every requirement
that still applies. Build and test before you finish. Work only inside the current directory; do not
look for evaluation files, other runs or the network; do not edit the frozen analysis.
"""

ORACLE_PRE_STATE = """\
# Update the requirement state for a new request

`{state_file}` is the complete and correct state, just before the client's newest message, of every
requirement that message concerns. Its references, summaries and states are authoritative; there is no
history to consult and none may be assumed.

Answer with one JSON object following `{schema_file}`:
1. Copy each requirement into `requirements` with its reference, summary and `pre_task_state`
   unchanged, and `evidence_message_ids: []`.
2. Apply only the newest request (`{task_file}`). If it determines a unique result, answer
   `"decision": "ACT"` with the complete post-task state of every affected requirement: keep fields
   that still hold, drop superseded ones and list dropped attribute names in `removed_attribute_keys`.
3. If a material fact needed for a unique update is missing, answer `"decision": "CLARIFY"` with
   `"post_task_states": null` and concrete questions in `clarifications`.

Print only the JSON object.
"""


def render(template: str, **paths: str) -> str:
    """Replace `{name}` for each given name; other braces (e.g. JSON in a verbatim text) stay as they are."""
    for name, value in paths.items():
        template = template.replace("{" + name + "}", value)
    return template
