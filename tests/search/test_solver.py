"""MCTS-Solver (``SearchConfig.solver``): a proven mate takes the visits and is the move played."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from mmc.games.chess import apply_move, from_fen
from mmc.games.chess.actions import NUM_POLICY_PLANES
from mmc.games.chess.puzzles import mating_moves
from mmc.nn import NetworkConfig, build_network
from mmc.search import Forest, LeafBatch, NetworkLeafEvaluator, SearchConfig, _tree, search, select_move

# Gardner: Qb4, among others, mates; Qc4 stalemates. Then two mates in one of benchmarks/data/mates.csv.
POSITIONS = [
    ("gardner", "k4/3Q1/1K3/5/5 w - - 0 1"),
    ("gardner", "r2qk/p1pb1/n4/1PP1K/2q2 b - - 0 1"),
    ("baby", "k2r1/p1p2/P1p2/2P1P/RQ2K w - - 0 1"),
]


def uniform(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """Equal priors, value 0."""
    n, _, h, w = batch.planes.shape
    return np.zeros((n, NUM_POLICY_PLANES * h * w), dtype=np.float32), np.zeros(n, dtype=np.float32)


def confident(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    """Equal priors, and every move rated +0.84 for its mover (the trained value head of BENCHMARKS.md's diagnosis)."""
    logits, values = uniform(batch)
    return logits, values - np.float32(0.84)


EVALUATORS = {
    "uniform": uniform,
    "confident": confident,
    "untrained": NetworkLeafEvaluator(build_network(NetworkConfig(game="chess", blocks=2, filters=32), seed=0)),
}


def mate_share(variant: str, fen: str, evaluator: str, config: SearchConfig) -> tuple[float, bool]:
    """The share of the root's visits on mating moves, and whether the move played mates."""
    state = from_fen(variant, fen)
    mates = {m.uci() for m in mating_moves(state, 1)}
    rng = np.random.default_rng(0)
    (result,) = search([state], EVALUATORS[evaluator], config, rng)
    on_mate = np.array([m.uci() in mates for m in result.moves])
    played = select_move(result, config, ply=0, rng=rng).uci()
    return float(result.visit_counts[on_mate].sum() / result.visit_counts.sum()), played in mates


@pytest.mark.parametrize(("variant", "fen"), POSITIONS)
@pytest.mark.parametrize("evaluator", sorted(EVALUATORS))
def test_solver_puts_the_visits_on_the_mate_and_plays_it(variant: str, fen: str, evaluator: str) -> None:
    # The self-play settings: 24 simulations, temperature on (ply 0 < temperature_plies).
    config = SearchConfig(simulations=24)
    solved, solved_plays_mate = mate_share(variant, fen, evaluator, replace(config, solver=True))
    plain, _ = mate_share(variant, fen, evaluator, config)
    assert solved_plays_mate
    assert solved >= 0.9
    assert plain < solved


@pytest.mark.parametrize(("variant", "fen"), POSITIONS)
def test_gumbel_solver_plays_the_mate(variant: str, fen: str) -> None:
    config = SearchConfig(simulations=24, gumbel=True, gumbel_considered=32, solver=True)
    share, plays_mate = mate_share(variant, fen, "confident", config)
    assert plays_mate
    assert share >= 0.5


def test_proofs_follow_the_reused_subtree_and_are_off_by_default() -> None:
    # Black to move in the first position: after most replies White mates in one, found below the root.
    state = from_fen("gardner", "k4/3Q1/1K3/5/5 b - - 0 1")
    config = SearchConfig(simulations=200, solver=True)
    forest = Forest("gardner", 1, config, state.max_plies)
    forest.set_root(0, state)
    forest.search(np.arange(1), uniform, np.random.default_rng(0), add_noise=False)
    root = forest.root(0)
    assert root.proven is not None
    best = int(np.argmax(root.visit_counts))
    node = forest.nodes.first_child[0, _tree.ROOT_INDEX] + best
    start, k = forest.nodes.first_child[0, node], forest.nodes.num_children[0, node]
    kept = forest.nodes.proven[0, start : start + k].copy()
    assert (kept == _tree.PROVEN_WIN).any(), "White's mate below the root was proven"
    assert root.proven[best] == _tree.PROVEN_LOSS
    move = root.moves[best]
    forest.advance(0, move, apply_move(state, move))
    np.testing.assert_array_equal(forest.root(0).proven, kept)
    assert forest.nodes.proven[0, _tree.ROOT_INDEX] == _tree.PROVEN_LOSS  # White, now to move, wins
    off = Forest("gardner", 1, SearchConfig(simulations=64), state.max_plies)
    off.set_root(0, state)
    off.search(np.arange(1), uniform, np.random.default_rng(0), add_noise=False)
    assert not off.nodes.proven.any()
