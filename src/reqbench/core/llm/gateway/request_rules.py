"""Request fields that would make the provider bill more than the gateway reserves and charges.

A call's reservation (`apis.output_cap`, `leases`) holds one answer of at most the request's output cap, at
the price table's rates, settled with the usage of the answer the gateway receives. Some fields break one of
those three assumptions, and no agent the gateway serves needs them, so a request setting them is refused
(``parameter_not_allowed``, the field and the reason in an error body the agent's SDK shows) before it is
reserved or forwarded -- whatever the run's options:

=================  ===================================================================================
field              why it is refused (any value but the one shown passes nothing upstream)
=================  ===================================================================================
``n``              Chat Completions (and any lenient upstream): that many choices, each billed its own
                   output -- ``n=128, max_tokens=4000`` is 512,000 output tokens ($0.31 for
                   gpt-4o-mini) under a reservation of one; only 1 (or absent) passes
``best_of``        legacy Completions and vLLM's extension of Chat: that many generated, each billed;
                   only 1 (or absent) passes
``background``     Responses: the provider answers later and bills then; the gateway's answer carries
                   no usage, so the row would be charged nothing; only false (or absent) passes
``service_tier``   OpenAI ``priority`` / ``scale`` bill above the price table; ``auto``, ``default``,
                   ``flex``, Anthropic ``standard_only`` pass
=================  ===================================================================================

Values are read as leniently as a provider reads them (`apis.count`: ``"128"`` and ``128.0`` are 128), so a
string or a float cannot slip past. The legacy Completions API itself (``/v1/completions``) is not served
(`apis.ROUTES`): it never reaches the provider. Responses and Messages have no choice count; their
server-side conversation state (``previous_response_id``, ``conversation``) can hold more prompt than the
body's bytes, the one reservation edge SECURITY.md names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reqbench.core.llm.gateway.apis import count

ANSWER_MULTIPLIERS = {"n": "choices", "best_of": "completions"}
"""Fields that multiply a call's output, and what each asks the provider for."""
SERVICE_TIERS = frozenset({"auto", "default", "flex", "standard_only"})
"""``service_tier`` values billed at (or below) the price table's rates."""


def billing_refusal(body: Mapping[str, Any]) -> str | None:
    """Why `body` would be billed beyond its reservation (naming the field), or None."""
    for name, what in ANSWER_MULTIPLIERS.items():
        value = body.get(name)
        if value is not None and count(value) != 1:
            return (f"field {name!r} = {_shown(value)} asks the provider for that many {what}, each billed; the "
                    f"gateway forwards one answer per call so the row's budget bounds what is billed: omit "
                    f"{name!r} or set it to 1")
    if body.get("background") not in (None, False):
        return ("field 'background' = true has the provider answer (and bill) after this call returned, "
                "without usage the gateway could charge; send the request without it")
    tier = body.get("service_tier")
    if tier is not None and tier not in SERVICE_TIERS:
        return (f"field 'service_tier' = {_shown(tier)} is billed above the prices the row's budget charges; "
                f"use one of {', '.join(sorted(SERVICE_TIERS))} or omit it")
    return None


def _shown(value: Any) -> str:
    return repr(value)[:80]
