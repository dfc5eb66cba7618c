"""The k-in-a-row family's greedy heuristic (the ``heuristic`` of its game), Elo 0 of the family's ladder.

A move scores, for the player to move (:func:`mmc.games.gomoku.board.greedy_scores`, one compiled call):

- ``1e6`` if its stone makes a winning line now (by the variant's rule);
- else ``1e3`` if it takes a cell where the opponent's stone would make a winning line now (a block);
- else the length of the longest run of the mover's stones through the new stone, in any of the four directions.

The scores are deterministic; the greedy player picks among the best at random (its own rng).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmc.games.gomoku import _kernels as K
from mmc.games.gomoku.state import State, kernel_board, table

__all__ = ["heuristic"]


def heuristic(state: State, moves: Sequence[int]) -> np.ndarray:
    """``float64[len(moves)]``: the greedy score of each legal move (module docstring)."""
    out = np.empty(len(moves), dtype=np.float64)
    if len(moves):
        cells = np.asarray(moves, dtype=np.int32)
        K.greedy_scores(kernel_board(state), int(state.turn), table(state.variant_name), cells, out)
    return out
