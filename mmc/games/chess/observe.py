"""What a side sees, and the network's input planes built from it.

Input planes, ``float32[NUM_PLANES, H, W]``, in the side to move's coordinates (row ``r'`` counts
ranks from the mover's home rank, files unchanged; see ``mmc.games.chess.actions``)::

    0 .. 5    the mover's pawns, knights, bishops, rooks, queens, kings
    6 .. 11   the opponent's, in the same order (only on visible squares in dark)
    12, 13    this position occurred before at least once / at least twice (0 in dark: not observable)
    14        plies since the last capture or pawn move / 100
    15        ply / ply cap
    16        1 if the mover is White
    17        1 on squares the mover sees (all squares except in dark)
    18        1 on light squares (b1, a2, ...), for the colour-bound variants
    19, 20    the mover may still castle king's side (O-O) / queen's side (O-O-O): constant planes
    21, 22    the opponent may still castle king's side / queen's side (0 in dark: not observable)
    23        1 on the en-passant square: where the side to move may capture en passant (kept only when the
              capture is legal), seen from either side's view

5x5, 6x6 and 8x8 boards share the layout, so one fully-convolutional network reads them all; planes 19 to 23
are 0 on the boards without castling or a pawn double step (every variant but chess).
"""

from __future__ import annotations

import numpy as np

from mmc.games.chess import _kernels as K
from mmc.games.chess.state import Color, State, _array, table
from mmc.games.jit import kernel

__all__ = [
    "EN_PASSANT_PLANE",
    "HALFMOVE_PLANE",
    "LIGHT_SQUARES_PLANE",
    "NUM_PLANES",
    "OPPONENT_CASTLING_PLANE",
    "OPPONENT_PIECES_PLANE",
    "OWN_CASTLING_PLANE",
    "OWN_PIECES_PLANE",
    "PLY_PLANE",
    "REPEATED_ONCE_PLANE",
    "REPEATED_TWICE_PLANE",
    "VISIBLE_PLANE",
    "WHITE_TO_MOVE_PLANE",
    "fill_planes",
    "observation_planes",
    "visible_squares",
]

OWN_PIECES_PLANE = 0
"""The mover's piece of type ``p`` (``PieceType``, pawn 1 .. king 6) is on plane ``OWN_PIECES_PLANE + p - 1``."""
OPPONENT_PIECES_PLANE = 6
"""The opponent's piece of type ``p`` is on plane ``OPPONENT_PIECES_PLANE + p - 1``."""
REPEATED_ONCE_PLANE = 12
"""1 if this position occurred before at least once (0 in dark)."""
REPEATED_TWICE_PLANE = 13
"""1 if this position occurred before at least twice (0 in dark)."""
HALFMOVE_PLANE = 14
"""Plies since the last capture or pawn move / 100."""
PLY_PLANE = 15
"""Ply / ply cap."""
WHITE_TO_MOVE_PLANE = 16
"""1 if the mover is White."""
VISIBLE_PLANE = 17
"""1 on the squares the mover sees."""
LIGHT_SQUARES_PLANE = 18
"""1 on light squares."""
OWN_CASTLING_PLANE = 19
"""1 if the mover keeps the right to castle king's side; plane ``OWN_CASTLING_PLANE + 1`` the queen's side."""
OPPONENT_CASTLING_PLANE = 21
"""The opponent's rights, king's side then queen's side, as ``OWN_CASTLING_PLANE`` (0 in dark)."""
EN_PASSANT_PLANE = 23
"""1 on the square the side to move may capture on en passant (0 everywhere else; in dark only if seen)."""
NUM_PLANES = 24


def visible_squares(state: State, color: Color | int) -> np.ndarray:
    """``bool[64]`` by absolute square: the side's own pieces and every square they can move to.

    This is dark chess's view (spec: "the squares their pieces can move to, including capture
    targets"); a pawn blocked head-on does not see its blocker.
    """
    return K.visible_squares(_array(state), int(color), table(state.variant_name))


@kernel
def fill_planes(board, side, tab, repetitions, halfmove, ply, max_plies, out):
    """Write the input planes of a position into ``out`` (``float32[NUM_PLANES, H, W]``, zeroed first).

    ``board`` the kernels' ``int8[BOARD_LEN]`` (squares, castling rights, en-passant square), ``side`` the mover
    (+1 White, -1 Black), ``tab`` the variant's table; in a variant with hidden information (dark chess,
    ``tab[H_HIDDEN]``) the planes show the opponent only on the squares the mover sees and leave the repetition
    planes and the opponent's castling rights 0 (an en-passant square shows only where the mover sees it);
    ``repetitions`` how many times the position occurred before,
    ``halfmove`` the plies since the last capture or pawn move, ``ply`` and ``max_plies`` the ply and its cap. The
    one implementation of the planes: :func:`observation_planes` and the search tree both call it.
    """
    out[:] = 0.0
    hidden = tab[K.H_HIDDEN] != 0
    seen = K.visible_squares(board, side, tab) if hidden else np.ones(64, dtype=np.bool_)
    height = tab[K.H_HEIGHT]
    width = tab[K.H_WIDTH]
    for r in range(height):
        pr = r if side > 0 else height - 1 - r
        for f in range(width):
            sq = 8 * r + f
            out[LIGHT_SQUARES_PLANE, pr, f] = (r + f) % 2
            if not seen[sq]:
                continue
            out[VISIBLE_PLANE, pr, f] = 1.0
            p = board[sq] * side
            if p > 0:
                out[OWN_PIECES_PLANE + p - 1, pr, f] = 1.0
            elif p < 0:
                out[OPPONENT_PIECES_PLANE - p - 1, pr, f] = 1.0
    if not hidden:
        out[REPEATED_ONCE_PLANE] = 1.0 if repetitions >= 1 else 0.0
        out[REPEATED_TWICE_PLANE] = 1.0 if repetitions >= 2 else 0.0
    out[HALFMOVE_PLANE] = halfmove / 100.0
    out[PLY_PLANE] = ply / max_plies
    out[WHITE_TO_MOVE_PLANE] = 1.0 if side > 0 else 0.0
    rights = board[K.CASTLING]
    own_oo, own_ooo = (K.WHITE_OO, K.WHITE_OOO) if side > 0 else (K.BLACK_OO, K.BLACK_OOO)
    their_oo, their_ooo = (K.BLACK_OO, K.BLACK_OOO) if side > 0 else (K.WHITE_OO, K.WHITE_OOO)
    out[OWN_CASTLING_PLANE] = 1.0 if rights & own_oo else 0.0
    out[OWN_CASTLING_PLANE + 1] = 1.0 if rights & own_ooo else 0.0
    if not hidden:
        out[OPPONENT_CASTLING_PLANE] = 1.0 if rights & their_oo else 0.0
        out[OPPONENT_CASTLING_PLANE + 1] = 1.0 if rights & their_ooo else 0.0
    ep = board[K.EP]
    if ep != 0 and seen[ep]:
        r = ep >> 3
        out[EN_PASSANT_PLANE, r if side > 0 else height - 1 - r, ep & 7] = 1.0


def observation_planes(state: State, out: np.ndarray | None = None, *, color: Color | None = None) -> np.ndarray:
    """The input planes ``float32[NUM_PLANES, H, W]`` of ``color``'s view (default: the side to move), written
    into ``out`` if given (zeroed first).

    The view of the side not to move (an environment's waiting agent) follows the same layout from its own side,
    its repetition planes 0: a repetition is counted for the side to move.
    """
    v = state.variant
    if out is None:
        out = np.zeros((NUM_PLANES, v.height, v.width), dtype=np.float32)
    side = state.turn if color is None else Color(color)
    repetitions = 0 if v.hidden_information or side is not state.turn else state.repetitions()
    fill_planes(_array(state), int(side), table(state.variant_name), repetitions, state.halfmove_clock, state.ply,
                state.max_plies, out)  # fmt: skip
    return out
