"""Which models a row's calls may use: the run's model, and the auxiliary models its tool is known to call.

A run made with ``--model gpt-4o-mini`` measures gpt-4o-mini; the request body names the model, and the
agent writes the body. So the gateway forwards a call only when the model it names is

* the run's model -- the same name, or the same name with or without a provider prefix (``openai/gpt-4o``
  and ``gpt-4o``: LiteLLM-based tools drop the prefix before they send), or
* one of the auxiliary models of the preset (`core.agents.versions.ToolPackage.auxiliary_models`,
  ``fnmatch`` patterns): models a real CLI calls on its own, such as the small model Claude Code names
  its sessions with;

and refuses it otherwise with an error body the agent's SDK shows (``model_not_allowed``). Every answered
call records the model that answered (``served_model``), and reports list the models each row used. A row
without a run model (a tool left on its own default) may call any model: nothing was asked for, and the
report shows what it used.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase


@dataclass(frozen=True)
class ModelPolicy:
    run_model: str | None = None
    """The model the run was made with (``--model``); None: the tool's own default, not enforced."""
    auxiliary: tuple[str, ...] = ()
    """Patterns of the models the tool may call besides the run's model."""

    def refusal(self, requested: str) -> str | None:
        """Why a call naming `requested` is refused, or None when it may go upstream."""
        if not self.run_model:
            return None
        if not requested:
            return f"the request names no model; this run uses {self.run_model!r}"
        if same_model(requested, self.run_model) or any(fnmatchcase(bare(requested), p) for p in self.auxiliary):
            return None
        allowed = f"; auxiliary models allowed for this agent: {', '.join(self.auxiliary)}" if self.auxiliary \
            else ""
        return f"model {requested!r} is not this run's model {self.run_model!r}{allowed}"


def bare(model: str) -> str:
    """The model's own name, without any provider prefix (``openrouter/openai/gpt-4o`` -> ``gpt-4o``)."""
    return model.rsplit("/", 1)[-1]


def same_model(a: str, b: str) -> bool:
    """Whether two names are one model: equal, or one is the other with provider prefixes added."""
    pa, pb = a.split("/"), b.split("/")
    short, long = (pa, pb) if len(pa) <= len(pb) else (pb, pa)
    return long[len(long) - len(short):] == short
