"""One meta-generation of JOAT (first-order Reptile over variants) and of its multitask baseline.

JOAT (the seed's multi-variant architecture): every task of the batch adapts a copy of theta with one
AlphaZero iteration (:func:`mmc.meta.adapt`), then ``theta <- theta + epsilon * (mean theta'_i - theta)``.
Multitask: the same self-play budget on the same variants, but one network trained once on the pooled data
(no inner/outer split). The pipeline runs the per-task pieces as separate tasks; these functions are the
same steps in one call, for notebooks and tests.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from mmc.meta.adapt import Adapted, adapt
from mmc.meta.reptile import meta_aggregate
from mmc.nn.network import PolicyValueNet
from mmc.play.selfplay import SelfPlayResult, self_play
from mmc.search import NetworkLeafEvaluator, SearchConfig
from mmc.train import EpochLosses, Examples, TrainConfig, train

__all__ = ["MetaGeneration", "joat_generation", "multitask_generation"]


@dataclass(frozen=True)
class MetaGeneration:
    """What one meta-generation produced."""

    net: PolicyValueNet = field(repr=False)
    """The new meta-parameters (JOAT's theta, or the multitask network)."""
    losses: dict[str, list[EpochLosses]]
    """JOAT: each task's inner-update losses by variant; multitask: ``{"pooled": losses}``."""
    self_play: dict[str, SelfPlayResult]
    """The games played, by variant."""


def joat_generation(
    theta: PolicyValueNet, tasks: Sequence[str], games: int, search: SearchConfig, training: TrainConfig,
    epsilon: float, rng: np.random.Generator, *, concurrent: int = 64, max_plies: int = 150,
) -> MetaGeneration:  # fmt: skip
    """Adapt a copy of ``theta`` to each task with ``games`` self-play games, then Reptile-aggregate them."""
    adapted: dict[str, Adapted] = {}
    for task, child in zip(tasks, rng.spawn(len(tasks)), strict=True):
        adapted[task] = adapt(theta, task, games, search, training, child, concurrent=concurrent, max_plies=max_plies)
    net = copy.deepcopy(theta)
    net.load_state_dict(meta_aggregate(theta.state_dict(), [a.net.state_dict() for a in adapted.values()], epsilon))
    played = {task: a.self_play for task, a in adapted.items() if a.self_play is not None}
    return MetaGeneration(net, {task: a.losses for task, a in adapted.items()}, played)


def multitask_generation(
    net: PolicyValueNet, variants: Sequence[str], games: int, search: SearchConfig, training: TrainConfig,
    rng: np.random.Generator, *, concurrent: int = 64, max_plies: int = 150,
) -> MetaGeneration:  # fmt: skip
    """Self-play ``games`` games of each variant with ``net``, then train a copy once on all of it pooled."""
    *children, train_rng = rng.spawn(len(variants) + 1)
    evaluator = NetworkLeafEvaluator(net)
    played: dict[str, SelfPlayResult] = {}
    for variant, child in zip(variants, children, strict=True):
        played[variant] = self_play(evaluator, variant, games, search, child, concurrent=min(concurrent, games),
                                    max_plies=max_plies)  # fmt: skip
    pooled: list[Examples] = [part for result in played.values() for part in result.examples]
    trained = copy.deepcopy(net)
    losses = train(trained, pooled, training, torch.Generator().manual_seed(int(train_rng.integers(2**63))))
    return MetaGeneration(trained, {"pooled": losses}, played)
