"""The compiled array layer under the k-in-a-row API, for code that runs many positions without a state each.

It is the family's kernel bundle (``Game.kernels``, the contract of ``mmc.games.protocol``: ``BOARD_LEN``,
``MAX_MOVES``, ``ONGOING``, ``ALTERNATES``, :func:`legal_moves_into`, :func:`play`, :func:`game_end`,
:func:`end_value`, :func:`status`, :func:`cutoff_value`, :func:`fill_planes`), which the search tree is compiled
against, and the benchmarks' and tests' way in (:func:`perft`, :func:`random_playout`)::

    board   int8[BOARD_LEN]   cells 0..239, cell = 16 * rank + file (a1 = 0, b1 = 1, a2 = 16): +1 black, -1 white,
                              0 empty (also off the board); then the last stone's rank and file (-1: none) and
                              whether it made a winning line (diagram in mmc.games.gomoku._kernels)
    side    int               +1 black to move, -1 white
    move    int32 code        the cell a stone goes on
    tab     int16[TABLE_SIZE] the variant's rule table, table(variant_name): height, width, k, rule, gravity

End codes (:func:`game_end`, from the view of the player to move): ``ONGOING``, ``LOST`` (the opponent's last
stone made a line), ``FULL_BOARD``, ``MOVE_CAP``. Input planes: ``mmc.games.gomoku.observe``.

From a state: :func:`kernel_board` (its array, read-only by convention) and ``table(state.variant_name)``.
"""

from __future__ import annotations

from mmc.games.gomoku._kernels import (
    ALTERNATES,
    BOARD_LEN,
    CELLS,
    DIRECTIONS,
    DRAWN,
    FULL_BOARD,
    LAST_FILE,
    LAST_RANK,
    LOST,
    MAX_MOVES,
    MOVE_CAP,
    ONGOING,
    WON,
    advance,
    count_moves,
    cutoff_value,
    end_value,
    game_end,
    greedy_scores,
    has_line,
    legal_moves_into,
    line_cells,
    makes_line,
    perft,
    play,
    random_playout,
    status,
)
from mmc.games.gomoku.observe import NUM_PLANES, fill_planes
from mmc.games.gomoku.state import kernel_board, table
from mmc.games.gomoku.variants import TABLE_SIZE

__all__ = [
    "ALTERNATES",
    "BOARD_LEN",
    "CELLS",
    "DIRECTIONS",
    "DRAWN",
    "FULL_BOARD",
    "LAST_FILE",
    "LAST_RANK",
    "LOST",
    "MAX_MOVES",
    "MOVE_CAP",
    "NUM_PLANES",
    "ONGOING",
    "TABLE_SIZE",
    "WON",
    "advance",
    "count_moves",
    "cutoff_value",
    "end_value",
    "fill_planes",
    "game_end",
    "greedy_scores",
    "has_line",
    "kernel_board",
    "legal_moves_into",
    "line_cells",
    "makes_line",
    "perft",
    "play",
    "random_playout",
    "status",
    "table",
]
