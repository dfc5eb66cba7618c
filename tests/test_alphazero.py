"""The AlphaZero loop strings self-play, training and gating together and keeps its promises."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from mmc.alphazero import AlphaZeroConfig, alphazero
from mmc.nn import NetworkConfig, build_network
from mmc.play import gate
from mmc.search import SearchConfig
from mmc.train import TrainConfig


@pytest.mark.parametrize("threshold", [0.0, 1.0])
def test_generations_train_gate_and_leave_the_start_network_alone(threshold: float) -> None:
    net = build_network(NetworkConfig(blocks=1, filters=8), seed=0)
    before = {k: v.clone() for k, v in net.state_dict().items()}
    config = AlphaZeroConfig(generations=2, games=4, concurrent=4, max_plies=30, arena_games=4,
                             arena_simulations=4, gate_threshold=threshold)  # fmt: skip
    steps = list(alphazero(net, "gardner", config, SearchConfig(simulations=8), TrainConfig(epochs=2),
                           np.random.default_rng(0)))  # fmt: skip
    assert [s.index for s in steps] == [0, 1]
    champion = net
    for step in steps:
        assert len(step.losses) == 2 and all(np.isfinite(loss.total) for loss in step.losses)
        assert len(step.self_play.records) == 4
        assert step.arena is not None and step.arena.games == 4
        assert step.accepted == gate(step.arena, threshold)
        assert (step.champion is not champion) == step.accepted
        champion = step.champion
    if threshold == 0.0:
        assert all(step.accepted for step in steps)
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())


def test_config_is_checked() -> None:
    with pytest.raises(ValueError, match="games"):
        AlphaZeroConfig(games=0)
    with pytest.raises(ValueError, match="gate_threshold"):
        AlphaZeroConfig(gate_threshold=1.5)
