"""The jump game's kernel bundle (``Game.kernels``, the contract of ``mmc.games.protocol``), which the search tree is
compiled against: the chain encoding's kernels (``mmc.games.jump.chain``: ``BOARD_LEN``, ``MAX_MOVES``,
``ONGOING``, ``ALTERNATES``, :func:`legal_moves_into`, :func:`play`, :func:`game_end`, :func:`end_value`,
:func:`status`, :func:`cutoff_value`) and the input planes (:func:`fill_planes`, ``mmc.games.jump.observe``), with
the compiled perft and random playouts, and :func:`kernel_board` (a state's position array)::

    board   int8[BOARD_LEN]   squares 0..63 (8 * rank + file: +1 Black, -1 White, 0 empty), then the chain under
                              way and the move counter (layout in mmc.games.jump.chain)
    side    int               +1 Black to move, -1 White
    move    int32 code        a step, a hop, the end of a chain or the pass (mmc.games.jump.chain)
    tab     int16[TABLE_SIZE] a variant's rule table, table(variant_name) (layout in mmc.games.jump.rules)
"""

from __future__ import annotations

import numpy as np

from mmc.games.jump.chain import (
    ALTERNATES,
    BOARD_LEN,
    CAP_DRAWN,
    CAP_LOST,
    CAP_WON,
    CHAIN,
    END,
    HOME_DRAWN,
    HOME_LOST,
    HOME_WON,
    HOP,
    HOPS,
    MAX_HOPS,
    MAX_MOVES,
    NUM_CODES,
    ONGOING,
    PASS,
    PLY,
    VISITED,
    advance,
    cutoff_value,
    end_value,
    game_end,
    legal_moves_into,
    perft,
    play,
    random_playout,
    status,
)
from mmc.games.jump.observe import NUM_PLANES, fill_planes
from mmc.games.jump.rules import TABLE_SIZE
from mmc.games.jump.state import State, _array, table

__all__ = [
    "ALTERNATES",
    "BOARD_LEN",
    "CAP_DRAWN",
    "CAP_LOST",
    "CAP_WON",
    "CHAIN",
    "END",
    "HOME_DRAWN",
    "HOME_LOST",
    "HOME_WON",
    "HOP",
    "HOPS",
    "MAX_HOPS",
    "MAX_MOVES",
    "NUM_CODES",
    "NUM_PLANES",
    "ONGOING",
    "PASS",
    "PLY",
    "TABLE_SIZE",
    "VISITED",
    "advance",
    "cutoff_value",
    "end_value",
    "fill_planes",
    "game_end",
    "kernel_board",
    "legal_moves_into",
    "perft",
    "play",
    "random_playout",
    "status",
    "table",
]


def kernel_board(state: State) -> np.ndarray:
    """``state``'s position array as the kernels take it, kept with the state: read it, never write it."""
    return _array(state)
