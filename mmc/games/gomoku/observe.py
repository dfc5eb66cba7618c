"""The network's input planes of a k-in-a-row position.

``float32[NUM_PLANES, H, W]``, row ``r`` the board's rank ``r`` (rank 1 first), column ``f`` its file: the board
as it stands, from no player's side (the rules have no direction but gravity's, which both players share)::

    0   the mover's stones
    1   the opponent's stones
    2   1 on every cell of the board (what lies beyond it is the network's zero padding: one network reads every
        board size of the family)
    3   1 on the cells a stone may go on now (the legal moves: with gravity the lowest empty cell of each column)
    4   1 on the last stone placed, of either colour (none at the start or in a position read from text)
    5   1 everywhere if the mover is black (the first player)
    6   1 on the legal cells where the mover's stone would make a winning line now
    7   1 on the legal cells where the opponent's stone would make a winning line now (the mover's must-blocks)

Planes 6 and 7 tell the network the variant's rule (k, the exact and caro conditions, gravity's legal cells) in
what it means for the next move, read with the rule's own line test (``_kernels.makes_line``): a network that
meta-trains across boards and values of k reads the same two planes on every board, without them it sees
positions that look alike under different rules (issue 47; BENCHMARKS.md, "Issue 47: the rule in the planes for
gomoku").

The planes of the player not to move (an environment's waiting agent) follow the same layout from its side (the
legal cells do not depend on who is to move).
"""

from __future__ import annotations

import numpy as np

from mmc.games.gomoku import _kernels as K
from mmc.games.gomoku.state import State, kernel_board, table
from mmc.games.gomoku.variants import T_HEIGHT, T_WIDTH
from mmc.games.jit import kernel

__all__ = [
    "BLACK_TO_MOVE_PLANE",
    "BLOCK_PLANE",
    "BOARD_PLANE",
    "LAST_STONE_PLANE",
    "LEGAL_PLANE",
    "NUM_PLANES",
    "OPPONENT_STONES_PLANE",
    "OWN_STONES_PLANE",
    "WIN_PLANE",
    "fill_planes",
    "observation_planes",
]

OWN_STONES_PLANE = 0
OPPONENT_STONES_PLANE = 1
BOARD_PLANE = 2
LEGAL_PLANE = 3
LAST_STONE_PLANE = 4
BLACK_TO_MOVE_PLANE = 5
WIN_PLANE = 6
BLOCK_PLANE = 7
NUM_PLANES = 8


@kernel
def fill_planes(board, side, tab, repetitions, clock, ply, max_plies, out):
    """Write the input planes of ``side``'s view of ``board`` into ``out`` (``float32[NUM_PLANES, H, W]``, zeroed
    first). The one implementation of the planes: :func:`observation_planes` and the search tree both call it."""
    out[:] = 0.0
    height = tab[T_HEIGHT]
    width = tab[T_WIDTH]
    moves = np.empty(K.MAX_MOVES, dtype=np.int32)
    n = K.legal_moves_into(board, side, tab, moves)
    for i in range(n):
        rank, file = moves[i] >> 4, moves[i] & 15
        out[LEGAL_PLANE, rank, file] = 1.0
        if K._winning_directions(board, moves[i], side, tab, True) != 0:  # makes_line inlined: 10 % off the planes
            out[WIN_PLANE, rank, file] = 1.0
        if K._winning_directions(board, moves[i], -side, tab, True) != 0:
            out[BLOCK_PLANE, rank, file] = 1.0
    for rank in range(height):
        for file in range(width):
            stone = board[16 * rank + file] * side
            if stone > 0:
                out[OWN_STONES_PLANE, rank, file] = 1.0
            elif stone < 0:
                out[OPPONENT_STONES_PLANE, rank, file] = 1.0
            out[BOARD_PLANE, rank, file] = 1.0
    if board[K.LAST_RANK] >= 0:
        out[LAST_STONE_PLANE, board[K.LAST_RANK], board[K.LAST_FILE]] = 1.0
    if side > 0:
        out[BLACK_TO_MOVE_PLANE] = 1.0


def observation_planes(state: State, out: np.ndarray | None = None, *, color: int | None = None) -> np.ndarray:
    """The input planes ``float32[NUM_PLANES, H, W]`` of ``color``'s view (default: the player to move), written into
    ``out`` if given (zeroed first)."""
    v = state.variant
    if out is None:
        out = np.zeros((NUM_PLANES, v.height, v.width), dtype=np.float32)
    side = int(state.turn if color is None else color)
    fill_planes(kernel_board(state), side, table(state.variant_name), 0, 0, state.ply, state.max_plies, out)
    return out
