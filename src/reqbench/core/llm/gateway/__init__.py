"""The model gateway of a run (DESIGN §11): every agent's model traffic, recorded, budgeted, replayable.

* `server` -- `Gateway`: a loopback HTTP server (TCP on 127.0.0.1 and a unix socket) speaking OpenAI
  Chat Completions, OpenAI Responses and Anthropic Messages, streaming and tools included; it forwards
  to the configured `Upstream` (`upstream`) with a key the agent never sees, or replays offline;
* `handler` -- the HTTP side: token before body, bodies read under a cap;
* `limits` / `quota` -- the sizes a hostile agent cannot pass: request bodies, JSON values, each row's
  store bound for recorded model traffic;
* `models` -- which models a row may call (the run's model and the tool's auxiliary models);
* `request_rules` -- fields billed beyond a call's reservation (``n``, ``best_of``, ``background``,
  ``service_tier``), refused;
* `provider_tools` -- tools the provider runs outside the sandbox (hosted search, MCP, code execution, URL
  downloads), refused unless the run passes ``--allow-provider-tools``;
* `leases` -- per-row tokens and `RowBudget` enforcement (tokens, dollars, calls) by reservation;
* `recorder` -- where calls are written (the run store's ``model_calls`` table) and replay matching;
* `apis` / `sse` -- the three wire formats: routes, usage, errors, and streams synthesised from a
  complete response;
* `scope` -- which row the current thread works for, and `row_gateway`, the gateway+lease a CLI
  preset runs its tool against.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reqbench.core.lazy import lazy_attributes

if TYPE_CHECKING:
    from reqbench.core.llm.gateway.leases import BUDGET_EXHAUSTED, RESOURCE_LIMIT, Lease, RowBudget
    from reqbench.core.llm.gateway.limits import GatewayLimits
    from reqbench.core.llm.gateway.models import ModelPolicy
    from reqbench.core.llm.gateway.recorder import MemoryRecorder, ModelCall, StoreRecorder
    from reqbench.core.llm.gateway.server import Gateway
    from reqbench.core.llm.gateway.upstream import Upstream

_WHERE = {"BUDGET_EXHAUSTED": "leases", "RESOURCE_LIMIT": "leases", "Lease": "leases", "RowBudget": "leases",
          "GatewayLimits": "limits", "ModelPolicy": "models", "MemoryRecorder": "recorder", "ModelCall": "recorder",
          "StoreRecorder": "recorder", "Gateway": "server", "Upstream": "upstream"}
"""Name -> the module defining it, imported on first use: a run whose agents call no model never imports
the HTTP server and client (``http.server``, ``httpx``), which would add to every command's start-up."""


__getattr__ = lazy_attributes(__name__, {name: f"{__name__}.{module}" for name, module in _WHERE.items()})

__all__ = ["BUDGET_EXHAUSTED", "RESOURCE_LIMIT", "Gateway", "GatewayLimits", "Lease", "MemoryRecorder",
           "ModelCall", "ModelPolicy", "RowBudget", "StoreRecorder", "Upstream"]
