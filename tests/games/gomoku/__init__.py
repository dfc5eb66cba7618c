"""Tests of the k-in-a-row family, and the helpers they share: seeded random games and positions."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from mmc.games.gomoku import State, apply_move, initial_state, legal_moves, outcome

ORACLE_VARIANTS = ("tictactoe", "gomoku_6x6", "gomoku_8x8", "gomoku_9x9", "connect4")
"""The variants Fairy-Stockfish plays (freestyle and gravity, at most 12 files x 10 ranks)."""


def random_game(variant: str, rng: np.random.Generator, near: float = 0.0) -> Iterator[State]:
    """Every state of one seeded random game from the start until :func:`outcome` ends it (the last included).

    With probability ``near`` a move is drawn among the legal cells next to a stone (when there are any), so that
    stones cluster and lines, overlines and blocked lines come often; otherwise uniformly among all legal cells.
    """
    state = initial_state(variant)
    yield state
    while outcome(state) is None:
        moves = legal_moves(state)
        close = [m for m in moves if _has_neighbour(state, m)] if rng.random() < near else []
        pool = close or moves
        state = apply_move(state, pool[int(rng.integers(len(pool)))])
        yield state


def _has_neighbour(state: State, cell: int) -> bool:
    board = state.board
    for step in (1, 15, 16, 17):
        for neighbour in (cell + step, cell - step):
            if 0 <= neighbour < 240 and board[neighbour] != 0:
                return True
    return False


def random_positions(variant: str, count: int, seed: int, *, near: float = 0.0, late: float = 0.0) -> list[State]:
    """``count`` positions of seeded random games that are not over, each at a random ply of its game at or after the
    fraction ``late`` of it (``late=0.5``: in the second half)."""
    rng = np.random.default_rng(seed)
    positions: list[State] = []
    while len(positions) < count:
        going = list(random_game(variant, rng, near))[:-1]
        first = int(late * len(going))
        if going[first:]:
            positions.append(going[int(rng.integers(first, len(going)))])
    return positions
