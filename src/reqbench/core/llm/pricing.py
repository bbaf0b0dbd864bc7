"""Model prices and the cost of one call: model -> USD per 1M input / output tokens.

The built-in table is deliberately small and marked as a default: prices change, so a user points
``REQBENCH_PRICES`` (or ``LLMConfig.prices_file``) at a YAML/JSON file of the same shape to override
or extend it::

    my-model:     {input_per_1m: 0.50, output_per_1m: 1.50}
    openai/gpt-x: {input_per_1m: 2.00, output_per_1m: 8.00}

A run adds its own prices on top (``reqbench run --price MODEL=IN/OUT`` and ``--prices FILE``,
`parse_price` / `read_price_file`); they are stored with the run's options, so a resumed run prices alike.

Lookup tries the model name as given, then without its provider prefix (``openai/NAME`` -> ``NAME``), then
without a trailing release date (``claude-haiku-4-5-20251001`` -> ``claude-haiku-4-5``). An unknown model
costs ``None`` (unknown), never 0: a budget in dollars cannot be enforced on a model whose price nobody
told us, and reporting $0 would be a lie -- so the gateway refuses such a model under a dollar budget
unless the run allows unpriced models (``--allow-unpriced``, recorded and reported). `unpriced_refusal` is
that rule for every caller: preflight refuses the run before its first row, and the built-in ``llm``
agent, whose calls do not pass the gateway, before each call.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from reqbench.core.errors import InputError
from reqbench.core.suggest import did_you_mean


@dataclass(frozen=True)
class Price:
    input_per_1m: float
    output_per_1m: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input_per_1m + completion_tokens * self.output_per_1m) / 1_000_000


DEFAULT_PRICES: dict[str, Price] = {
    # Scripted loopback models used by the tests and the offline demo cost nothing.
    "scripted": Price(0.0, 0.0),
    # Public list prices (USD per 1M tokens) at the time of writing; override with REQBENCH_PRICES.
    "gpt-4o": Price(2.50, 10.00),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "claude-sonnet-4-5": Price(3.00, 15.00),
    "claude-haiku-4-5": Price(1.00, 5.00),
    "claude-3-5-haiku": Price(0.80, 4.00),
}
_DATED = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")


def load_prices(path: Path | str | None = None) -> dict[str, Price]:
    """The default table overlaid with the user's file (`path`, else ``$REQBENCH_PRICES`` if set)."""
    table = dict(DEFAULT_PRICES)
    src = path if path is not None else os.environ.get("REQBENCH_PRICES")
    if src:
        table.update(read_price_file(Path(src)))
    return table


PRICE_FIELDS = ("input_per_1m", "output_per_1m")
"""The fields of one entry of a price file (USD per 1M input / output tokens)."""


def read_price_file(file: Path) -> dict[str, Price]:
    """The prices of a YAML/JSON file ``{model: {input_per_1m, output_per_1m}}`` (InputError otherwise)."""
    try:
        text = file.read_text(encoding="utf-8")
        raw: Any = json.loads(text) if file.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read price table: {exc}", file=str(file)) from None
    if not isinstance(raw, dict):
        raise InputError("price table must map model names to {input_per_1m, output_per_1m}",
                         file=str(file))
    table: dict[str, Price] = {}
    for model, entry in raw.items():
        unknown = sorted(set(entry) - set(PRICE_FIELDS)) if isinstance(entry, dict) else []
        if unknown:
            raise InputError(f"unknown field {unknown[0]!r}{did_you_mean(str(unknown[0]), PRICE_FIELDS)}; an "
                             "entry has input_per_1m and output_per_1m (USD per 1M tokens)",
                             file=str(file), item=str(model))
        try:
            table[str(model)] = _price(float(entry["input_per_1m"]), float(entry["output_per_1m"]))
        except (TypeError, KeyError, ValueError):
            raise InputError("each entry needs numeric, non-negative input_per_1m and output_per_1m",
                             file=str(file), item=str(model)) from None
    return table


def parse_price(text: str) -> tuple[str, Price]:
    """``MODEL=IN/OUT`` (USD per 1M input / output tokens) -> (model, price); InputError otherwise."""
    model, sep, rates = text.partition("=")
    inp, slash, out = rates.partition("/")
    try:
        if not (sep and slash and model.strip()):
            raise ValueError
        return model.strip(), _price(float(inp), float(out))
    except ValueError:
        raise InputError("expected MODEL=IN/OUT, USD per 1M input and output tokens (e.g. my-model=0.5/1.5)",
                         item=f"--price {text}") from None


def _price(inp: float, out: float) -> Price:
    if not (inp >= 0 and out >= 0) or inp == float("inf") or out == float("inf"):
        raise ValueError("a price is a finite, non-negative number")
    return Price(inp, out)


def price_for(model: str, table: dict[str, Price]) -> Price | None:
    """Price of `model`, trying the full name, then the name without its provider prefix."""
    if model in table:
        return table[model]
    bare = model.split("/", 1)[1] if "/" in model else model
    return table.get(bare) or table.get(_DATED.sub("", bare))


def call_cost(model: str, prompt_tokens: int, completion_tokens: int,
              table: dict[str, Price]) -> float | None:
    """USD cost of one call, or None when the model's price is unknown."""
    price = price_for(model, table)
    return None if price is None else price.cost(prompt_tokens, completion_tokens)


UNPRICED_FIX = ("give it one (--price MODEL=IN/OUT in USD per 1M tokens, or --prices FILE; in a study file, "
                "prices) or allow unpriced models (--allow-unpriced; in a study file, allow_unpriced: true)")


def unpriced_refusal(model: str, table: dict[str, Price], dollar_budget: float | None,
                     allow_unpriced: bool) -> str | None:
    """Why calls of `model` cannot run under `dollar_budget` (USD; None: no dollar budget): it has no price
    in `table` and the run does not allow unpriced models. None when they can."""
    if dollar_budget is None or allow_unpriced or price_for(model, table) is not None:
        return None
    return (f"model {model!r} has no price{did_you_mean(model, table)}, so a dollar budget "
            f"(${dollar_budget:g} per row) cannot be enforced on its calls; "
            f"{UNPRICED_FIX.replace('MODEL=', f'{model}=', 1)}")


@dataclass(frozen=True)
class RunPricing:
    """What a run says about prices: its own (over the table of `load_prices`) and whether models without a
    price may be called under a dollar budget (``--allow-unpriced``)."""

    prices: tuple[tuple[str, Price], ...] = ()
    allow_unpriced: bool = False

    def table(self) -> dict[str, Price]:
        return {**load_prices(), **dict(self.prices)}

    def over(self, table: dict[str, Price]) -> dict[str, Price]:
        """`table` (a client's own prices) with the run's prices over it."""
        return {**table, **dict(self.prices)}

    def refusal(self, model: str, dollar_budget: float | None, table: dict[str, Price] | None = None) -> str | None:
        """`unpriced_refusal` at this run's prices (over `table`, else the default table)."""
        priced = self.table() if table is None else self.over(table)
        return unpriced_refusal(model, priced, dollar_budget, self.allow_unpriced)

    @classmethod
    def from_json(cls, prices: dict[str, Any] | None, allow_unpriced: bool = False) -> RunPricing:
        """From a run's stored options (``{model: [input_per_1m, output_per_1m]}``)."""
        return cls(tuple((m, Price(float(p[0]), float(p[1]))) for m, p in sorted((prices or {}).items())),
                   allow_unpriced)


def prices_to_json(prices: dict[str, Price]) -> dict[str, list[float]]:
    """A run's prices as its options store them."""
    return {m: [p.input_per_1m, p.output_per_1m] for m, p in sorted(prices.items())}
