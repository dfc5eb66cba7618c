"""What a side sees, and the network's input planes built from it.

Input planes, ``float32[NUM_PLANES, H, W]``, in the side to move's coordinates (row ``r'`` counts
ranks from the mover's home rank, files unchanged; see ``mmc.engine.actions``)::

    0 .. 5    the mover's pawns, knights, bishops, rooks, queens, kings
    6 .. 11   the opponent's, in the same order (only on visible squares in dark)
    12, 13    this position occurred before at least once / at least twice (0 in dark: not observable)
    14        plies since the last capture or pawn move / 100
    15        ply / ply cap
    16        1 if the mover is White
    17        1 on squares the mover sees (all squares except in dark)
    18        1 on light squares (b1, a2, ...), for the colour-bound variants

5x5 and 6x6 boards share the layout, so one fully-convolutional network reads both.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mmc.engine import _kernels as K
from mmc.engine.state import Color, State, _array, table

__all__ = ["NUM_PLANES", "observation_planes", "visible_squares"]

NUM_PLANES = 19


def visible_squares(state: State, color: Color | int) -> np.ndarray:
    """``bool[64]`` by absolute square: the side's own pieces and every square they can move to.

    This is dark chess's view (spec: "the squares their pieces can move to, including capture
    targets"); a pawn blocked head-on does not see its blocker.
    """
    return K.visible_squares(_array(state), int(color), table(state.variant_name))


@njit(cache=True)
def _fill_board_planes(board, side, height, width, seen, out):
    for r in range(height):
        pr = r if side > 0 else height - 1 - r
        for f in range(width):
            sq = 8 * r + f
            out[18, pr, f] = (r + f) % 2
            if not seen[sq]:
                continue
            out[17, pr, f] = 1.0
            p = board[sq] * side
            if p > 0:
                out[p - 1, pr, f] = 1.0
            elif p < 0:
                out[5 - p, pr, f] = 1.0


_ALL_SEEN = np.ones(64, dtype=np.bool_)


def observation_planes(state: State, out: np.ndarray | None = None) -> np.ndarray:
    """The side to move's input planes ``float32[NUM_PLANES, H, W]`` (written into ``out`` if given, zeroed first)."""
    v = state.variant
    if out is None:
        out = np.zeros((NUM_PLANES, v.height, v.width), dtype=np.float32)
    else:
        out[:] = 0.0
    side = int(state.turn)
    seen = visible_squares(state, side) if v.hidden_information else _ALL_SEEN
    _fill_board_planes(_array(state), side, v.height, v.width, seen, out)
    if not v.hidden_information:
        reps = state.repetitions()
        out[12] = reps >= 1
        out[13] = reps >= 2
    out[14] = state.halfmove_clock / 100.0
    out[15] = state.ply / state.max_plies
    out[16] = float(state.turn is Color.WHITE)
    return out
