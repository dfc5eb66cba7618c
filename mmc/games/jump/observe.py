"""The network's input planes of the jump game.

Input planes, ``float32[NUM_PLANES, H, W]``, in the viewer's coordinates: row ``r'`` counts ranks from the viewer's
home edge (White's view flips the ranks, files unchanged, as chess does), so that both players race "up"::

    0  OWN_PIECES        the viewer's pieces
    1  OPPONENT_PIECES   the opponent's pieces
    2  OWN_TARGET        the viewer's target region (the two ranks at the top of its view)
    3  OPPONENT_TARGET   the opponent's target region (the two ranks at the bottom)
    4  CHAIN_PIECE       1 on the square of the piece whose chain is under way (all 0 between moves)
    5  CHAIN_VISITED     1 on the squares that piece has stood on in this move, its start and its own included
    6  PLIES_LEFT        plies left before the cap, min(max_plies, the variant's cap) - ply, over MAX_CAP = 400
                         (a constant plane: the same value means the same number of moves on every board)
    7  CELLS             1 on every cell of the board
    8  REACH             1 on the empty squares a legal action of the viewer lands on now: a step or a hop (during
                         its own chain, its piece's next hops; during the opponent's chain, none)
    9  CAPTURE           1 on the opponent's pieces one of those hops would capture (none where hops capture nothing)

Planes 8 and 9 tell the network the variant's rule in what it means for the next action, read with the rule's own
functions (``legal_moves_into``, ``step_target``, ``hop_landing``, ``hop_capture``): the directions a piece moves in
(4 or 8) and whether a hop captures. Without them ``jump`` and ``jump_halma``, trained side by side, look alike, and
``jump_diagonal``'s diagonal moves show nowhere in the input (BENCHMARKS.md, "Issue 47: the rule in the planes for
jump").

6x6 and 8x8 boards share the layout, so one fully-convolutional network reads every variant. The view of the
player not to move (an environment's waiting agent) follows the same layout from its own side; a chain under way
is the opponent's then.
"""

from __future__ import annotations

import numpy as np

from mmc.games.jit import kernel
from mmc.games.jump.chain import CHAIN, END, HOP, MAX_MOVES, legal_moves_into, visited
from mmc.games.jump.rules import H_CAP, H_HEIGHT, H_WIDTH, TARGET_OFF, hop_capture, hop_landing, step_target
from mmc.games.jump.state import State, _array, table
from mmc.games.jump.variants import MAX_CAP

__all__ = [
    "CAPTURE",
    "CELLS",
    "CHAIN_PIECE",
    "CHAIN_VISITED",
    "NUM_PLANES",
    "OPPONENT_PIECES",
    "OPPONENT_TARGET",
    "OWN_PIECES",
    "OWN_TARGET",
    "PLIES_LEFT",
    "REACH",
    "fill_planes",
    "observation_planes",
]

OWN_PIECES, OPPONENT_PIECES, OWN_TARGET, OPPONENT_TARGET, CHAIN_PIECE, CHAIN_VISITED, PLIES_LEFT, CELLS = range(8)
REACH, CAPTURE = 8, 9
NUM_PLANES = 10


@kernel(inline="always")
def _row(rank, side, height):
    """The planes' row of board rank ``rank`` from ``side``'s view (White's view flips the ranks)."""
    return rank if side > 0 else height - 1 - rank


@kernel
def fill_planes(board, side, tab, repetitions, clock, ply, max_plies, out):
    """Write ``side``'s view of a position into ``out`` (``float32[NUM_PLANES, H, W]``, zeroed first). ``ply`` and
    ``max_plies`` give the plies left; ``repetitions`` and ``clock`` are unused (no position repeats). The one
    implementation of the planes: :func:`observation_planes` and the search tree both call it."""
    out[:] = 0.0
    height = tab[H_HEIGHT]
    width = tab[H_WIDTH]
    chain = board[CHAIN]
    for r in range(height):
        pr = _row(r, side, height)
        for f in range(width):
            sq = 8 * r + f
            piece = board[sq] * side
            if piece > 0:
                out[OWN_PIECES, pr, f] = 1.0
            elif piece < 0:
                out[OPPONENT_PIECES, pr, f] = 1.0
            target = tab[TARGET_OFF + sq] * side
            if target > 0:
                out[OWN_TARGET, pr, f] = 1.0
            elif target < 0:
                out[OPPONENT_TARGET, pr, f] = 1.0
            if chain >= 0 and visited(board, sq):
                out[CHAIN_VISITED, pr, f] = 1.0
            out[CELLS, pr, f] = 1.0
    if chain >= 0:
        out[CHAIN_PIECE, _row(chain // 8, side, height), chain % 8] = 1.0
    cap = min(max_plies, tab[H_CAP])
    out[PLIES_LEFT] = max(cap - ply, 0) / MAX_CAP
    if chain >= 0 and board[chain] != side:
        return
    moves = np.empty(MAX_MOVES, dtype=np.int32)
    for i in range(legal_moves_into(board, side, tab, moves)):
        move = moves[i]
        if move >= END:
            continue
        sq, d = move & 63, (move >> 6) & 7
        if move & HOP == 0:
            to = step_target(board, tab, sq, d)
        else:
            to = hop_landing(board, tab, sq, d)
            taken = hop_capture(board, tab, sq, d)
            if taken >= 0:
                out[CAPTURE, _row(taken // 8, side, height), taken % 8] = 1.0
        out[REACH, _row(to // 8, side, height), to % 8] = 1.0


def observation_planes(state: State, out: np.ndarray | None = None, *, color: int | None = None) -> np.ndarray:
    """The input planes ``float32[NUM_PLANES, H, W]`` of ``color``'s view (default: the player to move), written into
    ``out`` if given."""
    v = state.variant
    if out is None:
        out = np.zeros((NUM_PLANES, v.height, v.width), dtype=np.float32)
    side = int(state.turn if color is None else color)
    fill_planes(_array(state), side, table(state.variant_name), 0, 0, state.ply, state.max_plies, out)
    return out
