"""Model prices and the cost of one call: model -> USD per 1M input / output tokens.

The built-in table is deliberately small and marked as a default: prices change, so a user points
``REQBENCH_PRICES`` (or ``LLMConfig.prices_file``) at a YAML/JSON file of the same shape to override
or extend it::

    my-model:     {input_per_1m: 0.50, output_per_1m: 1.50}
    openai/gpt-x: {input_per_1m: 2.00, output_per_1m: 8.00}

Lookup tries the model name as given, then without its provider prefix (``openai/NAME`` -> ``NAME``).
An unknown model costs ``None`` (unknown), never 0: a budget in dollars cannot be enforced on a model
whose price nobody told us, and reporting $0 would be a lie.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from reqbench.core.errors import InputError


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
}


def load_prices(path: Path | str | None = None) -> dict[str, Price]:
    """The default table overlaid with the user's file (`path`, else ``$REQBENCH_PRICES`` if set)."""
    table = dict(DEFAULT_PRICES)
    src = path if path is not None else os.environ.get("REQBENCH_PRICES")
    if not src:
        return table
    file = Path(src)
    try:
        text = file.read_text(encoding="utf-8")
        raw: Any = json.loads(text) if file.suffix == ".json" else yaml.safe_load(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise InputError(f"cannot read price table: {exc}", file=str(file)) from None
    if not isinstance(raw, dict):
        raise InputError("price table must map model names to {input_per_1m, output_per_1m}",
                         file=str(file))
    for model, entry in raw.items():
        try:
            table[str(model)] = Price(float(entry["input_per_1m"]), float(entry["output_per_1m"]))
        except (TypeError, KeyError, ValueError):
            raise InputError("each entry needs numeric input_per_1m and output_per_1m", file=str(file),
                             item=str(model)) from None
    return table


def price_for(model: str, table: dict[str, Price]) -> Price | None:
    """Price of `model`, trying the full name, then the name without its provider prefix."""
    if model in table:
        return table[model]
    bare = model.split("/", 1)[1] if "/" in model else model
    return table.get(bare)


def call_cost(model: str, prompt_tokens: int, completion_tokens: int,
              table: dict[str, Price]) -> float | None:
    """USD cost of one call, or None when the model's price is unknown."""
    price = price_for(model, table)
    return None if price is None else price.cost(prompt_tokens, completion_tokens)
