"""Learning works: a few minutes of self-play on gardner turn an untrained network into one whose policy alone,
without search, clearly beats the random player. Seeded, so the numbers below are reproducible on one machine
(torch's CPU kernels may round differently elsewhere, hence margins rather than exact values)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mmc.alphazero import AlphaZeroConfig, alphazero
from mmc.nn import NetworkConfig, NetworkEvaluator, build_network
from mmc.nn.network import PolicyValueNet
from mmc.play import MatchResult, PolicyPlayer, RandomPlayer, play_match
from mmc.search import SearchConfig
from mmc.seeding import root
from mmc.train import TrainConfig

BUDGET = AlphaZeroConfig(generations=3, games=192, chunks=1, concurrent=192, window=4, arena_games=0)
SEARCH = SearchConfig(simulations=16, gumbel=True, gumbel_considered=8)
TRAINING = TrainConfig(epochs=8, batch_size=128, learning_rate=0.05, value_discount=1.0, threads=1)  # tuned on this


def against_random(net: PolicyValueNet) -> MatchResult:
    """100 games of the network's policy (argmax, no search) against the random player, both colours."""
    player = PolicyPlayer(NetworkEvaluator(net), name="policy")
    return play_match(player, RandomPlayer(), "gardner", 100, np.random.default_rng(123))


@pytest.mark.slow
def test_self_play_learns_to_beat_the_random_player() -> None:
    torch.set_num_threads(1)
    net = build_network(NetworkConfig(blocks=2, filters=32), seed=0)
    before = against_random(net)
    steps = list(alphazero(net, "gardner", BUDGET, SEARCH, TRAINING, root(0)))
    after = against_random(steps[-1].champion)
    first, last = steps[0].losses[0], steps[-1].losses[-1]
    assert 0.3 <= before.score <= 0.6, f"the untrained network should be about even with random: {before}"
    wdl = f"{after.wins}/{after.draws}/{after.losses}"
    assert after.score >= 0.7 and after.losses <= 5, f"trained policy vs random: W/D/L {wdl}, score {after.score}"
    assert last.total < 0.85 * first.total and last.policy < first.policy and last.value < first.value
