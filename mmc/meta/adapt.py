"""Meta-training (JOAT) and few-shot adaptation: the inner loop of Reptile, and at most one AlphaZero iteration.

Both are "self-play with the current network, then train a copy on that data" (the seed's inner
update); they differ in what comes next: JOAT aggregates the task copies (``meta_aggregate``), adaptation
keeps the copy. Budgets count self-play games.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch

from mmc.nn.network import PolicyValueNet
from mmc.play.selfplay import SelfPlayResult, self_play
from mmc.search import NetworkLeafEvaluator, SearchConfig
from mmc.train import EpochLosses, TrainConfig, train

__all__ = ["Adapted", "adapt"]


@dataclass(frozen=True)
class Adapted:
    """A network after (at most) one AlphaZero iteration on one variant."""

    net: PolicyValueNet
    losses: list[EpochLosses]
    """Per-epoch training losses (empty for budget 0)."""
    self_play: SelfPlayResult | None
    """The games played (``None`` for budget 0)."""


def adapt(
    start: PolicyValueNet, variant: str, games: int, search: SearchConfig, training: TrainConfig,
    rng: np.random.Generator, *, concurrent: int = 64, max_plies: int = 150, progress: bool = False,
) -> Adapted:  # fmt: skip
    """Self-play ``games`` games of ``variant`` with ``start``, then train a copy of it on them once.

    ``games == 0`` returns a copy of ``start`` with identical weights. ``start`` itself is never modified.
    """
    if games < 0:
        raise ValueError(f"adaptation budget must be >= 0 games, got {games}")
    net = copy.deepcopy(start)
    if games == 0:
        return Adapted(net, [], None)
    selfplay_rng, train_rng = rng.spawn(2)
    played = self_play(NetworkLeafEvaluator(start), variant, games, search, selfplay_rng,
                       concurrent=min(concurrent, games), max_plies=max_plies, progress=progress)  # fmt: skip
    generator = torch.Generator().manual_seed(int(train_rng.integers(2**63)))
    losses = train(net, played.examples, training, generator)
    return Adapted(net, losses, played)
