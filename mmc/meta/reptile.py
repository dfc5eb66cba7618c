"""First-order Reptile's outer update, the "jack of all trades" (JOAT) meta-aggregate of the seed project.

Nichol, Achiam and Schulman, "On First-Order Meta-Learning Algorithms" (2018), serial/batched Reptile:
after each task ``i`` of a batch trains a copy of the meta-parameters ``theta`` into ``theta'_i``,

    theta <- theta + epsilon * (mean_i theta'_i - theta)

``epsilon = 1`` is the seed's plain average of the task networks; ``epsilon = 0`` keeps ``theta``.

Batch norm: the running mean and variance are buffers, not parameters, but they describe the
activations of the weights they sit next to, so they take the same update (interpolated towards the
tasks' mean statistics); ``num_batches_tracked`` keeps ``theta``'s count plus the mean of the tasks'
increments. Every other buffer must be equal across networks (otherwise ``ValueError``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from torch import Tensor

__all__ = ["meta_aggregate", "sample_tasks"]


def meta_aggregate(
    theta: Mapping[str, Tensor], adapted: Sequence[Mapping[str, Tensor]], epsilon: float
) -> dict[str, Tensor]:
    """The Reptile update of state dict ``theta`` towards the mean of the task state dicts ``adapted``.

    Returns a new state dict (``theta`` is not modified). ``ValueError`` if ``adapted`` is empty, if the
    state dicts have different keys or shapes, or if ``epsilon`` is outside [0, 1].
    """
    if not adapted:
        raise ValueError("meta_aggregate needs at least one adapted network")
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon}")
    keys = list(theta)
    for i, task in enumerate(adapted):
        if list(task) != keys:
            raise ValueError(f"adapted network {i} has keys {sorted(set(task) ^ set(keys))} that theta does not share")
    result: dict[str, Tensor] = {}
    for key in keys:
        base = theta[key]
        tasks = [task[key] for task in adapted]
        if any(t.shape != base.shape for t in tasks):
            raise ValueError(f"{key}: shapes differ between theta {tuple(base.shape)} and the adapted networks")
        if base.is_floating_point():
            mean = torch.stack([t.to(base.dtype) for t in tasks]).mean(dim=0)
            result[key] = base + epsilon * (mean - base)
        elif key.endswith("num_batches_tracked"):
            increments = torch.stack([t - base for t in tasks]).float().mean()
            result[key] = base + torch.round(increments).to(base.dtype)
        else:
            if any(not torch.equal(t, base) for t in tasks):
                raise ValueError(f"{key}: a non-float buffer differs between theta and the adapted networks")
            result[key] = base.clone()
    return result


def sample_tasks(variants: Sequence[str], probs: Sequence[float] | None, batch: int,
                 rng: np.random.Generator) -> list[str]:  # fmt: skip
    """A task batch: ``batch`` distinct variants drawn without replacement with probabilities ``probs``
    (uniform when ``None``); all of them, in the given order, when ``batch >= len(variants)``."""
    if batch < 1:
        raise ValueError(f"task batch must be >= 1, got {batch}")
    if probs is not None and (len(probs) != len(variants) or min(probs) < 0 or not np.isclose(sum(probs), 1.0)):
        raise ValueError(f"probs must be {len(variants)} non-negative numbers summing to 1, got {list(probs)}")
    if batch >= len(variants):
        return list(variants)
    chosen = rng.choice(len(variants), size=batch, replace=False, p=None if probs is None else np.asarray(probs))
    return [variants[i] for i in sorted(chosen)]
