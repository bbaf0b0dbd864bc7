"""The model gateway of a run (DESIGN §11): every agent's model traffic, recorded, budgeted, replayable.

* `server` -- `Gateway`: a loopback HTTP server (TCP on 127.0.0.1 and a unix socket) speaking OpenAI
  Chat Completions, OpenAI Responses and Anthropic Messages, streaming and tools included; it forwards
  to the configured `Upstream` (`upstream`) with a key the agent never sees, or replays offline;
* `handler` -- the HTTP side: token before body, bodies read under a cap;
* `limits` / `quota` -- the sizes a hostile agent cannot pass: request bodies, JSON values, the run's
  store quota of recorded model traffic;
* `models` -- which models a row may call (the run's model and the tool's auxiliary models);
* `leases` -- per-row tokens and `RowBudget` enforcement (tokens, dollars, calls) by reservation;
* `recorder` -- where calls are written (the run store's ``model_calls`` table) and replay matching;
* `apis` / `sse` -- the three wire formats: routes, usage, errors, and streams synthesised from a
  complete response;
* `scope` -- which row the current thread works for, and `row_gateway`, the gateway+lease a CLI
  preset runs its tool against.
"""

from reqbench.core.llm.gateway.leases import BUDGET_EXHAUSTED, RESOURCE_LIMIT, Lease, RowBudget
from reqbench.core.llm.gateway.limits import GatewayLimits
from reqbench.core.llm.gateway.models import ModelPolicy
from reqbench.core.llm.gateway.recorder import MemoryRecorder, ModelCall, StoreRecorder
from reqbench.core.llm.gateway.server import Gateway
from reqbench.core.llm.gateway.upstream import Upstream

__all__ = ["BUDGET_EXHAUSTED", "RESOURCE_LIMIT", "Gateway", "GatewayLimits", "Lease", "MemoryRecorder",
           "ModelCall", "ModelPolicy", "RowBudget", "StoreRecorder", "Upstream"]
