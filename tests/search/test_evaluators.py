"""The network leaf evaluator in float32 and bfloat16: the same priors and values within the stated tolerance."""

from __future__ import annotations

import numpy as np
import pytest

from mmc.core.seeding import root
from mmc.games.chess import observation_planes
from mmc.games.chess.actions import action_space
from mmc.loops.alphazero import play_games
from mmc.nn import NetworkConfig, build_network
from mmc.play import replay
from mmc.search import BF16_TOLERANCE, LeafBatch, NetworkLeafEvaluator, SearchConfig
from mmc.train import TrainConfig, trained_copy


def _positions(variant: str) -> tuple[LeafBatch, list[np.ndarray]]:
    """The positions of a few real games (self-play of a fresh network) and each one's legal policy indices."""
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8, value_hidden=8), seed=1)
    played = play_games(net, variant, 4, SearchConfig(simulations=4), root(3), concurrent=4, max_plies=60)
    states = [s for record in played.records for s in replay(record)[:-1]][:200]
    planes = np.stack([observation_planes(s) for s in states])
    space = action_space(variant)
    legal = [space.policy_index[space.legal_actions(s)] for s in states]
    boards = np.zeros((len(states), 64), np.int8)
    return LeafBatch(variant, planes, boards, np.ones(len(states), np.int8)), legal


def _priors(logits: np.ndarray, legal: list[np.ndarray]) -> list[np.ndarray]:
    out = []
    for row, index in zip(logits, legal, strict=True):
        z = row[index] - row[index].max()
        out.append(np.exp(z) / np.exp(z).sum())
    return out


@pytest.mark.slow  # 7 s a case
@pytest.mark.parametrize(("blocks", "filters", "trained"), [(2, 32, False), (2, 32, True), (4, 64, False)])
def test_bf16_priors_and_values_match_fp32_within_the_tolerance(blocks: int, filters: int, trained: bool) -> None:
    batch, legal = _positions("gardner")
    net = build_network(NetworkConfig(game="chess", blocks=blocks, filters=filters, value_hidden=64), seed=0)
    if trained:  # weights moved away from their initialisation: larger logits, sharper priors
        examples = play_games(net, "gardner", 8, SearchConfig(simulations=8), root(4), 8, 60).examples
        net = trained_copy(net, examples, TrainConfig(epochs=4, learning_rate=0.05), root(5)).net
    full, half = NetworkLeafEvaluator(net), NetworkLeafEvaluator(net, precision="bf16")
    (logits, values), (logits16, values16) = full(batch), half(batch)
    assert logits16.dtype == values16.dtype == np.float32 and logits16.shape == logits.shape
    prior_gap = max(np.abs(a - b).max() for a, b in zip(_priors(logits, legal), _priors(logits16, legal), strict=True))
    assert prior_gap <= BF16_TOLERANCE and np.abs(values - values16).max() <= BF16_TOLERANCE
    assert np.abs(logits - logits16).max() > 0  # it did compute in bfloat16


def test_a_bad_precision_is_refused() -> None:
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8, value_hidden=8), seed=0)
    with pytest.raises(ValueError, match="precision must be one of fp32, bf16, got 'fp16'"):
        NetworkLeafEvaluator(net, precision="fp16")
    with pytest.raises(ValueError, match="needs freeze=True"):
        NetworkLeafEvaluator(net, freeze=False, precision="bf16")
    with pytest.raises(ValueError, match=r"SearchConfig\.precision must be one of fp32, bf16"):
        SearchConfig(precision="int8")
