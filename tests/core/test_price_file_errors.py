"""A price file's mistakes are named with the closest right name; an unpriced model's refusal suggests the
priced name it is closest to (a typo in ``--model`` is the usual cause)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.core.llm.pricing import Price, read_price_file, unpriced_refusal


def test_a_misspelled_field_is_named_with_its_correction(tmp_path: Path) -> None:
    file = tmp_path / "prices.yaml"
    file.write_text("my-model:\n  input_per_1m: 0.5\n  ouput_per_1m: 1.5\n")
    with pytest.raises(InputError) as err:
        read_price_file(file)
    text = str(err.value)
    assert "prices.yaml" in text and "my-model" in text
    assert "'ouput_per_1m'" in text and "did you mean 'output_per_1m'" in text


def test_a_well_formed_file_reads_its_prices(tmp_path: Path) -> None:
    file = tmp_path / "prices.yaml"
    file.write_text("my-model:\n  input_per_1m: 0.5\n  output_per_1m: 1.5\n")
    assert read_price_file(file) == {"my-model": Price(0.5, 1.5)}


def test_unpriced_refusal_suggests_the_closest_priced_model() -> None:
    table = {"gpt-4o-mini": Price(0.15, 0.6), "my-model": Price(0.5, 1.5)}
    why = unpriced_refusal("gpt-4o-mnii", table, 1.0, allow_unpriced=False)
    assert why is not None and "model 'gpt-4o-mnii' has no price (did you mean 'gpt-4o-mini'?)" in why
    far = unpriced_refusal("zzz", table, 1.0, allow_unpriced=False)
    assert far is not None and "did you mean" not in far
