"""Lc0's moves-left utility in the search (``SearchConfig.moves_left_slope``): the winning side takes the shorter way,
the losing side the longer; plies to the end are backed up exactly; off, nothing changes."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mmc.games import get_game, initial_state
from mmc.nn import NetworkConfig, build_network
from mmc.search import Forest, LeafBatch, NetworkLeafEvaluator, SearchConfig, _tree, search

ON = SearchConfig(simulations=8, moves_left_slope=0.05, moves_left_cap=0.1, moves_left_threshold=0.5)


def uniform(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """Equal priors, value 0, no moves-left estimate."""
    n, _, h, w = batch.planes.shape
    planes = get_game(batch.variant).num_policy_planes
    return np.zeros((n, planes * h * w), dtype=np.float32), np.zeros(n, dtype=np.float32)


def seven_plies(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Equal priors, value 0, and every position 7 plies from the end."""
    logits, values = uniform(batch)
    return logits, values, np.full(len(values), 7.0, dtype=np.float32)


def test_the_utility_favours_the_shorter_way_when_winning_and_the_longer_when_losing() -> None:
    params = Forest("gardner", 1, ON, 100).params
    utility = _tree._moves_left_utility
    assert utility(0.9, 3.0, 10.0, params) == pytest.approx(0.08)  # capped at 0.1, scaled by (0.9 - 0.5) / 0.5
    assert utility(0.9, 12.0, 10.0, params) == pytest.approx(-0.08)
    assert utility(-0.9, 3.0, 10.0, params) == pytest.approx(-0.08)  # losing: the sooner end is worse
    assert utility(-0.9, 12.0, 10.0, params) == pytest.approx(0.08)
    assert utility(0.7, 9.0, 10.0, params) == pytest.approx(0.02)  # 0.05 per ply, scaled by 0.4
    assert utility(0.5, 0.0, 10.0, params) == 0.0 and utility(-0.3, 0.0, 10.0, params) == 0.0


@pytest.mark.parametrize(("q", "slope", "chosen"), [(0.9, 0.0, 1), (0.9, 0.05, 2), (-0.9, 0.05, 1), (-0.9, 0.0, 1)])
def test_puct_takes_the_shorter_of_two_equal_wins_only_with_the_utility_on(q: float, slope: float, chosen: int) -> None:
    forest = Forest("gardner", 1, replace(ON, moves_left_slope=slope), 100)
    nodes = forest.nodes
    nodes.first_child[0, 0], nodes.num_children[0, 0], nodes.visits[0, 0] = 1, 2, 21
    nodes.ml_sum[0, 0] = 21 * 8.0
    for child, plies in ((1, 9.0), (2, 5.0)):  # child 1 ends in 9 plies on average, child 2 in 5
        nodes.visits[0, child], nodes.value_sum[0, child], nodes.prior[0, child] = 10, 10 * q, 0.5
        nodes.ml_sum[0, child] = 10 * plies
    assert _tree._puct_child(0, 0, nodes, forest.params) == chosen


@pytest.mark.parametrize("variant", ["gardner", "jump_6x6", "gomoku_8x8"])
def test_every_node_sums_its_own_estimate_and_its_childrens_plies_to_the_end(variant: str) -> None:
    state = initial_state(variant)
    forest = Forest(variant, 1, replace(ON, simulations=96), state.max_plies)
    forest.set_root(0, state)
    forest.search(np.array([0]), seven_plies, np.random.default_rng(0), add_noise=False)
    n, ply = forest.nodes, forest.slots.ply
    checked = 0
    for node in range(int(forest.trees.nnodes[0])):
        start, k = n.first_child[0, node], n.num_children[0, node]
        if n.visits[0, node] == 0 or start < 0:
            continue
        children = range(start, start + k)
        down = [int(ply[0, n.slot[0, c]] - ply[0, n.slot[0, node]]) if n.visits[0, c] else 0 for c in children]
        below = sum(float(n.ml_sum[0, c]) + int(n.visits[0, c]) * d for c, d in zip(children, down, strict=True))
        expected = 7.0 + below
        assert float(n.ml_sum[0, node]) == expected, node
        checked += 1
    assert checked > 10


def test_a_slope_needs_an_evaluator_with_moves_left_estimates() -> None:
    with pytest.raises(ValueError, match="moves_left_slope > 0 needs an evaluator with moves-left estimates"):
        search([initial_state("gardner")], uniform, ON, np.random.default_rng(0))


def test_a_network_with_the_head_searches_as_without_it_until_the_slope_is_on() -> None:
    config = NetworkConfig(game="chess", blocks=1, filters=8)
    plain = NetworkLeafEvaluator(build_network(config, seed=0))
    headed = NetworkLeafEvaluator(build_network(replace(config, moves_left=True), seed=0))
    state = initial_state("gardner")
    off = replace(ON, simulations=64, moves_left_slope=0.0)
    (a,) = search([state], plain, off, np.random.default_rng(1))
    (b,) = search([state], headed, off, np.random.default_rng(1))
    np.testing.assert_array_equal(a.visit_counts, b.visit_counts)
    assert a.value == b.value
    on = replace(off, moves_left_slope=0.05, moves_left_threshold=0.0)
    (c,) = search([state], headed, on, np.random.default_rng(1))
    assert c.visit_counts.sum() == a.visit_counts.sum()
