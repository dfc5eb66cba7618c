"""Tests of mmc.train, and the helpers they share: seeded random positions and their examples."""

from __future__ import annotations

import numpy as np

from mmc.games.chess import State, apply_move, from_fen, initial_state, legal_moves, outcome
from mmc.train import ExampleBuilder, Examples


def random_positions(variant: str, count: int, seed: int, fen: str | None = None, max_plies: int = 20) -> list[State]:
    """``count`` positions of seeded random games from the start (or ``fen``), 0 to ``max_plies`` plies in.

    None of them is over: every one has a legal move and no outcome yet.
    """
    rng = np.random.default_rng(seed)
    positions: list[State] = []
    while len(positions) < count:
        state = initial_state(variant) if fen is None else from_fen(variant, fen)
        for _ in range(rng.integers(0, max_plies + 1)):
            moves = legal_moves(state)
            child = apply_move(state, moves[rng.integers(len(moves))])
            if outcome(child) is not None:
                break
            state = child
        positions.append(state)
    return positions


def random_policy(state: State, rng: np.random.Generator) -> np.ndarray:
    """A distribution over ``legal_moves(state)`` with mass on a random subset of the moves."""
    n = len(legal_moves(state))
    policy = rng.dirichlet(np.ones(n)) * (rng.random(n) < 0.6)
    policy[rng.integers(n)] += 0.1
    return policy / policy.sum()


def examples_of(states: list[State], policies: list[np.ndarray], values: list[float] | None = None) -> Examples:
    """The examples of positions of one board size, each its own game (id = its index), value 0 unless given;
    the search value is half the value (a search that leans towards the result)."""
    builder = ExampleBuilder()
    for game_id, (state, policy) in enumerate(zip(states, policies, strict=True)):
        value = 0.0 if values is None else values[game_id]
        builder.add(state, policy, game_id, value / 2)
        winner = None if value == 0 else (state.turn if value > 0 else state.turn.other)
        builder.finish_game(game_id, winner)
    (examples,) = builder.build()
    return examples


def assert_examples_equal(a: Examples, b: Examples) -> None:
    for name in ("planes", "policy", "legal", "value", "search_value", "variant", "game_id", "ply", "plies_left"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
