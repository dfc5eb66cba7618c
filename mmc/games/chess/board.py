"""The compiled array layer under the chess API, for code that runs many positions without a :class:`State` each.

It is the chess family's kernel bundle (``Game.kernels``, the contract of ``mmc.games.protocol``: ``BOARD_LEN``,
``MAX_MOVES``, ``ONGOING``, ``ALTERNATES``, :func:`legal_moves_into`, :func:`play`, :func:`game_end`,
:func:`end_value`, :func:`status`, :func:`cutoff_value`, :func:`fill_planes`), which the search tree is compiled
against. Dark chess's board sampling, the mirror and the benchmarks work here too, on the same arrays and numba
kernels the chess API (``mmc.games.chess.state``) runs on, so that a rule has one implementation::

    board   int8[BOARD_LEN]   squares 0..63: +type for a White piece, -type for Black, 0 empty (also off the
                              board); square = 8 * rank + file on every board size (a1 = 0, b1 = 1, a2 = 8);
                              then board[CASTLING] the castling rights (bits WHITE_OO WHITE_OOO BLACK_OO
                              BLACK_OOO) and board[EP] the en-passant square when that capture is legal, else 0
                              (both 0 in the variants without castling or double step)
    side    int               +1 White to move, -1 Black
    move    int32 code        from | to << 6 | promotion << 12 (promotion a PieceType, 0 for none);
                              MOVES[code] is the Move
    tab     int16[TABLE_SIZE] a variant's rule table, table(variant_name); header slots H_*
                              (tab[H_HEIGHT], tab[H_WIDTH], ...), the board's squares at
                              tab[SQ_OFF : SQ_OFF + tab[H_NSQ]]

The kernels (numba, cached: ``mmc.games.jit.kernel``): :func:`legal_moves_into` (the legal moves, none once a
variant rule ended the game), :func:`play_inplace` (and :func:`play`, which also says who moves next and whether the
move was irreversible), :func:`advance`, :func:`status`, :func:`visible_squares`, :func:`perft`,
:func:`random_playout`; the game-end rules :func:`game_end` (whether a position is over and why: a code, ``ONGOING``
or one of ``CHECKMATED STALEMATE KING_LOST EXTINCT OPPONENT_EXTINCT INSUFFICIENT_MATERIAL REPETITION FIFTY_MOVES
PLY_CAP``), :func:`clock_end` (its clock rules alone) and :func:`end_value`; the network's input planes
:func:`fill_planes` with the plane indices ``*_PLANE`` (layout in ``mmc.games.chess.observe``).

From a state: :func:`kernel_board` (the state's board as the kernels take it) and ``table(state.variant_name)``.
"""

from __future__ import annotations

import numpy as np

from mmc.games.chess._kernels import (
    ALTERNATES,
    BISHOP,
    BLACK_OO,
    BLACK_OOO,
    BOARD_LEN,
    CASTLING,
    CHECKMATED,
    DIRECTIONS,
    EP,
    EXTINCT,
    FIFTY_MOVE_PLIES,
    FIFTY_MOVES,
    H_BISHOPS_DRAW,
    H_CAPTURE,
    H_CASTLING,
    H_CHECK,
    H_DOUBLE_STEP,
    H_END,
    H_FILTER,
    H_HEIGHT,
    H_HIDDEN,
    H_INSUFFICIENT,
    H_KING_CAPTURES,
    H_NSQ,
    H_PROMO,
    H_WIDTH,
    INSUFFICIENT_MATERIAL,
    KING,
    KING_LOST,
    KNIGHT,
    KNIGHT_JUMPS,
    MAX_MOVES,
    ONGOING,
    OPPONENT_EXTINCT,
    PAWN,
    PLY_CAP,
    QUEEN,
    REPETITION,
    ROOK,
    SQ_OFF,
    STALEMATE,
    TABLE_SIZE,
    WHITE_OO,
    WHITE_OOO,
    advance,
    build_table,
    clock_end,
    cutoff_value,
    end_value,
    game_end,
    in_check,
    insufficient_material,
    is_attacked,
    legal_moves,
    legal_moves_into,
    make_move,
    perft,
    play,
    play_inplace,
    pseudo_moves,
    random_playout,
    status,
    visible_squares,
)
from mmc.games.chess.observe import (
    EN_PASSANT_PLANE,
    HALFMOVE_PLANE,
    LIGHT_SQUARES_PLANE,
    NUM_PLANES,
    OPPONENT_CASTLING_PLANE,
    OPPONENT_PIECES_PLANE,
    OWN_CASTLING_PLANE,
    OWN_PIECES_PLANE,
    PLY_PLANE,
    REPEATED_ONCE_PLANE,
    REPEATED_TWICE_PLANE,
    VISIBLE_PLANE,
    WHITE_TO_MOVE_PLANE,
    fill_planes,
)
from mmc.games.chess.state import _MOVES, State, _array, table

__all__ = [
    "ALTERNATES",
    "BISHOP",
    "BLACK_OO",
    "BLACK_OOO",
    "BOARD_LEN",
    "CASTLING",
    "CHECKMATED",
    "DIRECTIONS",
    "EN_PASSANT_PLANE",
    "EP",
    "EXTINCT",
    "FIFTY_MOVES",
    "FIFTY_MOVE_PLIES",
    "HALFMOVE_PLANE",
    "H_BISHOPS_DRAW",
    "H_CAPTURE",
    "H_CASTLING",
    "H_CHECK",
    "H_DOUBLE_STEP",
    "H_END",
    "H_FILTER",
    "H_HEIGHT",
    "H_HIDDEN",
    "H_INSUFFICIENT",
    "H_KING_CAPTURES",
    "H_NSQ",
    "H_PROMO",
    "H_WIDTH",
    "INSUFFICIENT_MATERIAL",
    "KING",
    "KING_LOST",
    "KNIGHT",
    "KNIGHT_JUMPS",
    "LIGHT_SQUARES_PLANE",
    "MAX_MOVES",
    "MOVES",
    "NUM_PLANES",
    "ONGOING",
    "OPPONENT_CASTLING_PLANE",
    "OPPONENT_EXTINCT",
    "OPPONENT_PIECES_PLANE",
    "OWN_CASTLING_PLANE",
    "OWN_PIECES_PLANE",
    "PAWN",
    "PLY_CAP",
    "PLY_PLANE",
    "QUEEN",
    "REPEATED_ONCE_PLANE",
    "REPEATED_TWICE_PLANE",
    "REPETITION",
    "ROOK",
    "SQ_OFF",
    "STALEMATE",
    "TABLE_SIZE",
    "VISIBLE_PLANE",
    "WHITE_OO",
    "WHITE_OOO",
    "WHITE_TO_MOVE_PLANE",
    "advance",
    "build_table",
    "clock_end",
    "cutoff_value",
    "end_value",
    "fill_planes",
    "game_end",
    "in_check",
    "insufficient_material",
    "is_attacked",
    "kernel_board",
    "legal_moves",
    "legal_moves_into",
    "make_move",
    "perft",
    "play",
    "play_inplace",
    "pseudo_moves",
    "random_playout",
    "status",
    "table",
    "visible_squares",
]

MOVES = _MOVES
"""``tuple[Move, ...]`` indexed by move code: ``MOVES[code]`` is the :class:`~mmc.games.chess.Move` (shared objects)."""


def kernel_board(state: State) -> np.ndarray:
    """``state``'s board as the kernels take it: an ``int8[BOARD_LEN]`` kept with the state. Read it, never write it (it
    is
    writable so that the kernels are compiled for one array type; :meth:`State.board_array` is the read-only view)."""
    return _array(state)
