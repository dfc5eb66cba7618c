"""What people see of a k-in-a-row position: the board as text (``render``), as a picture (``board_view``) and the
clicks that make a move (``move_cells``).

Text: one rank a line, the top rank first, ``●`` a black stone, ``○`` a white one, ``·`` an empty cell::

    3 · ○ ·
    2 · ● ·
    1 ● · ○
      a b c

Picture: every stone is the glyph ``●`` in its owner's colour (black first); the marks are ``("last", (cell,))``
for the last stone placed and ``("line", cells)`` for the winning line(s) once a line has ended the game.
"""

from __future__ import annotations

import numpy as np

from mmc.games.gomoku import _kernels as K
from mmc.games.gomoku.state import State, kernel_board, table
from mmc.games.gomoku.text import FILES, cell_name
from mmc.games.protocol import BoardView

__all__ = ["STONE", "board_view", "move_cells", "render", "winning_line"]

STONE = "●"
"""The glyph of a stone in a :class:`~mmc.games.BoardView` (drawn in its owner's colour)."""
_TEXT = {1: "●", -1: "○", 0: "·"}


def render(state: State, *, coordinates: bool = False, viewer: int | None = None) -> str:
    """The board as text (module docstring); ``viewer`` is unused: every variant is fully visible."""
    v = state.variant
    board = kernel_board(state)
    label = len(str(v.height)) if coordinates else 0
    lines = []
    for rank in range(v.height - 1, -1, -1):
        cells = " ".join(_TEXT[int(board[16 * rank + file])] for file in range(v.width))
        lines.append(f"{rank + 1:>{label}} {cells}" if coordinates else cells)
    if coordinates:
        lines.append(" " * (label + 1) + " ".join(FILES[: v.width]))
    return "\n".join(lines)


def winning_line(state: State) -> tuple[int, ...]:
    """The cells (codes) of every winning line through the stone that ended the game, in no particular order; empty
    while no line has ended it. A position read from text, whose last stone is unknown, shows the lines through its
    first stone that makes one."""
    if not state.won:
        return ()
    board, tab, side = kernel_board(state), table(state.variant_name), -int(state.turn)
    cell = state.last if state.last is not None else int(K.has_line(board, side, tab))
    out = np.empty(4 * 15, dtype=np.int32)
    n = K.line_cells(board, cell, side, tab, out)
    return tuple(out[:n].tolist())


def board_view(state: State, viewer: int | None = None) -> BoardView:
    """``state``'s board, rank 1 first (``viewer`` is unused: every variant is fully visible), with the last stone
    and any winning line marked."""
    v = state.variant
    board = kernel_board(state)
    cells = []
    for rank in range(v.height):
        for file in range(v.width):
            stone = int(board[16 * rank + file])
            cells.append((stone, STONE if stone else ""))

    def index(cell: int) -> int:
        return (cell >> 4) * v.width + (cell & 15)

    marks: list[tuple[str, tuple[int, ...]]] = []
    if state.last is not None:
        marks.append(("last", (index(state.last),)))
    line = winning_line(state)
    if line:
        marks.append(("line", tuple(sorted(map(index, line)))))
    ranks = tuple(str(r + 1) for r in range(v.height))
    return BoardView(tuple(FILES[: v.width]), ranks, tuple(cells), marks=tuple(marks))


def move_cells(state: State, move: int) -> tuple[str | tuple[str, ...], ...]:
    """The click that makes ``move``: its cell; with gravity, any cell of its column (one step whose alternatives are
    the move's own cell first, then the column's other cells from the bottom up)."""
    name = cell_name(move)
    v = state.variant
    if not v.gravity:
        return (name,)
    column = [cell_name(16 * rank + (move & 15)) for rank in range(v.height)]
    return ((name, *(cell for cell in column if cell != name)),)
