"""Reward files are read exactly as Harbor reads them, and the multi-step rules match Harbor's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reqbench.protocols.harbor.rewards import (
    RewardError,
    combine_steps,
    headline_reward,
    min_reward_failure,
    read_rewards,
)


def _dir(tmp_path: Path, **files: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (tmp_path / name.replace("_", ".")).write_text(text)
    return tmp_path


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "-inf", "Infinity", "", "one", "1 2"])
def test_reward_text_refuses_non_finite_empty_and_non_numbers(tmp_path: Path, text: str) -> None:
    with pytest.raises(RewardError):
        read_rewards(_dir(tmp_path, reward_txt=text))


@pytest.mark.parametrize("text", ['{"reward": NaN}', '{"reward": Infinity}', '{"reward": 1e309}',
                                  '{"reward": "1"}', '{"reward": true}', "[1]", "1", "{}", ""])
def test_reward_json_refuses_what_harbor_refuses(tmp_path: Path, text: str) -> None:
    with pytest.raises(RewardError):
        read_rewards(_dir(tmp_path, reward_json=text))


def test_reward_files_as_harbor_reads_them(tmp_path: Path) -> None:
    assert read_rewards(_dir(tmp_path / "a", reward_txt=" 0.75\n")) == {"reward": 0.75}
    both = _dir(tmp_path / "b", reward_txt="1", reward_json='{"reward": 0.25, "style": 1}')
    assert read_rewards(both) == {"reward": 0.25, "style": 1.0}  # reward.json wins
    with pytest.raises(RewardError, match="no reward written"):
        read_rewards(_dir(tmp_path / "c"))


def test_a_reward_file_that_is_a_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").write_text("1")
    os.symlink(tmp_path / "elsewhere", tmp_path / "reward.txt")
    with pytest.raises(RewardError, match="regular file"):
        read_rewards(tmp_path)


def test_min_reward_gates_like_harbor() -> None:
    assert min_reward_failure({"reward": 0.5}, 0.5) is None
    assert min_reward_failure({"reward": 0.4}, 0.5) == "reward=0.4 below min_reward 0.5"
    assert min_reward_failure(None, 0.0) is not None  # a verifier error counts as -inf
    assert min_reward_failure({"a": 1.0}, {"a": 1.0, "b": 0.0}) == "b=-inf below min_reward 0.0"
    assert min_reward_failure(None, None) is None


def test_multi_step_strategies() -> None:
    steps = [{"reward": 1.0, "x": 1.0}, None, {"reward": 0.0}]
    assert combine_steps("mean", steps) == {"reward": 0.5, "x": 0.5}  # missing key 0, None left out
    assert combine_steps("final", steps) == {"reward": 0.0}
    assert combine_steps("final", [{"reward": 1.0}, None]) is None
    assert headline_reward({"reward": 0.3, "x": 1.0}) == 0.3
    assert headline_reward({"a": 1.0, "b": 0.0}) == 0.5
    assert headline_reward(None) == 0.0
