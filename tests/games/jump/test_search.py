"""The generic search tree on the jump game, where a player moves again while its chain goes on: a child's value
reaches the root negated only where the player changes, and a proof climbs through a chain's hops."""

from __future__ import annotations

import numpy as np
import pytest

from mmc.games.jump import State, apply_move, from_text, initial_state, legal_moves, outcome, parse_move
from mmc.search import Forest, LeafBatch, SearchConfig, search

pytestmark = pytest.mark.xdist_group("jump")


def board_value(board: np.ndarray, side: int) -> float:
    """A made-up but exact evaluation for the player to move: the ranks its pieces have come up minus the opponent's,
    over 100 (Black races up from rank 1, White down from rank 8)."""
    ranks = np.arange(64) // 8
    black = ranks[board[:64] == 1].sum()
    white = (7 - ranks[board[:64] == -1]).sum()
    return float(side * (black - white)) / 100.0


class BoardEvaluator:
    """Uniform priors and :func:`board_value` of each leaf for its player to move."""

    def __call__(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        values = np.array([board_value(b, int(s)) for b, s in zip(batch.boards, batch.sides, strict=True)])
        n, _, h, w = batch.planes.shape
        return np.zeros((n, 18 * h * w), dtype=np.float32), values.astype(np.float32)


def chain_positions(count: int, seed: int) -> list[State]:
    """Positions of random jump games with a chain under way whose children both keep and pass the turn, none of
    them a finished game."""
    rng = np.random.default_rng(seed)
    found: list[State] = []
    while len(found) < count:
        state = initial_state("jump")
        while outcome(state) is None and state.ply < 150:
            moves = legal_moves(state)
            state = apply_move(state, moves[int(rng.integers(len(moves)))])
            children = [apply_move(state, m) for m in legal_moves(state)]
            turns = {c.turn == state.turn for c in children}
            if state.path and turns == {True, False} and all(outcome(c) is None for c in children):
                found.append(state)
                break
    return found


def test_a_child_value_is_negated_only_where_the_player_changes() -> None:
    """Each root child (mid-chain: hops that go on keep the player, the end and a last hop pass the turn) evaluated
    once: its Q from the root player's view is its value, turned round exactly where the turn passed."""
    for state in chain_positions(4, seed=0):
        moves = legal_moves(state)
        forest = Forest(state.variant_name, 1, SearchConfig(simulations=1, c_puct=1e6), state.max_plies)
        forest.set_root(0, state)
        forest.search(np.arange(1), BoardEvaluator(), np.random.default_rng(0), add_noise=False,
                      simulations=len(moves))  # fmt: skip
        root = forest.root(0)
        assert root.moves == moves and (root.visit_counts == 1).all()
        expected = []
        for move in moves:
            child = apply_move(state, move)
            value = board_value(np.frombuffer(child.board, dtype=np.int8), int(child.turn))
            expected.append(value if child.turn == state.turn else -value)
        np.testing.assert_allclose(root.q_values, np.asarray(expected, dtype=np.float32), rtol=1e-6)


def test_the_solver_proves_a_win_two_hops_away() -> None:
    """Black's d3 hops over d4 and d6 to d7: all its pieces home, 2 to White's 1. The first hop is proven won
    through the node where Black moves again, and the search plays it."""
    state = from_text("jump", "b7/8/3w4/8/3w4/3b4/8/7w b 0")
    assert outcome(apply_move(apply_move(state, parse_move("d3-d5")), parse_move("d5-d7"))) is not None
    result = search([state], BoardEvaluator(), SearchConfig(simulations=200, solver=True), np.random.default_rng(0))[0]
    hop = result.moves.index(parse_move("d3-d5"))
    assert result.proven is not None and result.proven[hop] == 1
    assert int(np.argmax(result.visit_counts)) == hop
