"""Reward files, read exactly as Harbor's verifier reads them (`harbor/verifier/verifier.py`), plus the two
multi-step rules (`harbor/trial/multi_step.py`, `harbor/trial/trial.py`).

- ``reward.json`` wins over ``reward.txt`` when both exist; neither is an error.
- An empty file is an error. ``reward.txt`` is one number (`float()` of the whole text); ``reward.json`` an
  object of numbers. Non-numbers (strings, booleans), NaN and +/-inf (also 1e309, which JSON reads as inf)
  are errors.
- Files are read only as regular files reached without a link, at most `MAX_REWARD_BYTES`.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path

REWARD_TEXT = "reward.txt"
REWARD_JSON = "reward.json"
MAX_REWARD_BYTES = 65_536
"""A reward file larger than this is an error (Harbor sets no bound; a number never needs one)."""

Rewards = dict[str, float]
NO_REWARD = "no reward written"
"""The verdict of a verifier that ended without writing either reward file (Harbor's RewardFileNotFoundError)."""


class RewardError(ValueError):
    """The verifier left no usable reward (Harbor: RewardFileEmptyError, VerifierOutputParseError, no file)."""


def _read(path: Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise RewardError(f"{path.name}: cannot be read as a regular file ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise RewardError(f"{path.name}: not a regular file")
        data = handle.read(MAX_REWARD_BYTES + 1)
    if len(data) > MAX_REWARD_BYTES:
        raise RewardError(f"{path.name}: larger than {MAX_REWARD_BYTES} bytes")
    if not data:
        raise RewardError(f"{path.name}: the reward file is empty")
    return data.decode("utf-8", errors="replace")


def parse_reward_text(text: str) -> Rewards:
    """``reward.txt``: one finite number, as ``{"reward": value}``."""
    try:
        value = float(text)
    except ValueError:
        raise RewardError(f"{REWARD_TEXT}: not a number: {text[:40]!r}") from None
    if not math.isfinite(value):
        raise RewardError(f"{REWARD_TEXT}: non-finite reward {value!r}")
    return {"reward": value}


def parse_reward_json(text: str) -> Rewards:
    """``reward.json``: an object whose every value is a finite JSON number."""
    try:
        data = json.loads(text)
    except ValueError:
        raise RewardError(f"{REWARD_JSON}: not JSON") from None
    if not isinstance(data, dict) or not data:
        raise RewardError(f"{REWARD_JSON}: expected a non-empty object of rewards")
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise RewardError(f"{REWARD_JSON}: non-numeric reward {key}={value!r}")
        if not math.isfinite(value):
            raise RewardError(f"{REWARD_JSON}: non-finite reward {key}={value!r}")
    return {str(k): float(v) for k, v in data.items()}


def read_rewards(verifier_dir: Path) -> Rewards:
    """The rewards the verifier wrote into `verifier_dir` (harness-owned, fresh for this verifier run)."""
    json_path, text_path = verifier_dir / REWARD_JSON, verifier_dir / REWARD_TEXT
    if os.path.lexists(json_path):
        return parse_reward_json(_read(json_path))
    if os.path.lexists(text_path):
        return parse_reward_text(_read(text_path))
    raise RewardError(f"{NO_REWARD}: the verifier wrote neither {REWARD_TEXT} nor {REWARD_JSON}")


def min_reward_failure(rewards: Rewards | None, min_reward: float | dict[str, float] | None) -> str | None:
    """Why a step's rewards stop the remaining steps (Harbor's ``min_reward``), or None. A float gates the
    ``reward`` key; a dict every key it names; a missing reward or key counts as -inf."""
    if min_reward is None:
        return None
    gates = {"reward": float(min_reward)} if isinstance(min_reward, int | float) else min_reward
    for key, threshold in gates.items():
        actual = (rewards or {}).get(key, float("-inf"))
        if actual < threshold:
            return f"{key}={actual} below min_reward {threshold}"
    return None


def combine_steps(strategy: str, per_step: list[Rewards | None]) -> Rewards | None:
    """The task's rewards from its steps' (Harbor's ``multi_step_reward_strategy``). ``final``: the last
    step's verbatim (a step stopped by min_reward is the last one run). ``mean``: per key, the mean over
    the steps that have rewards, a key a step lacks counting 0; steps without rewards are left out."""
    if strategy == "final":
        return per_step[-1] if per_step else None
    present = [r for r in per_step if r is not None]
    keys = sorted({k for r in present for k in r})
    if not keys:
        return None
    return {k: sum(r.get(k, 0.0) for r in present) / len(present) for k in keys}


def verdict(rewards: Rewards | None, errors: list[str]) -> str:
    """How the task ended: ``reward`` (the verifier wrote one), `NO_REWARD` (the last verifier run wrote
    no file: a skeleton test, a script that died first) or ``verifier error`` (a file it wrote is not a
    reward, or it timed out). A task without rewards scores 0 but is never a pass."""
    if rewards:
        return "reward"
    return NO_REWARD if errors and errors[-1].startswith(NO_REWARD) else "verifier error"


def headline_reward(rewards: Rewards | None) -> float:
    """The one number a row scores: the ``reward`` key (Harbor's one-dimensional convention), else the
    mean of the keys; no rewards at all (a verifier error) scores 0, as a failed trial does."""
    if not rewards:
        return 0.0
    if "reward" in rewards:
        return rewards["reward"]
    return sum(rewards.values()) / len(rewards)
