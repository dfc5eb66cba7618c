"""The chess family's board as a picture (the game's ``board_view``) and the clicks that make a move (``move_cells``).

Pieces are the filled Unicode chess glyphs, drawn in their owner's colour (White first); in dark chess a viewer's
picture fogs the squares it does not see.
"""

from __future__ import annotations

from mmc.games.chess.observe import visible_squares
from mmc.games.chess.state import Color, Move, State, square_name
from mmc.games.protocol import BoardView

__all__ = ["GLYPHS", "board_view", "move_cells"]

GLYPHS = {1: "♟", 2: "♞", 3: "♝", 4: "♜", 5: "♛", 6: "♚"}
"""Piece type -> glyph; both colours use the filled glyphs, filled white or black."""

_FILES = "abcdefgh"


def board_view(state: State, viewer: Color | int | None = None) -> BoardView:
    """``state``'s board, rank 1 first; with ``viewer`` in dark chess, the squares it does not see are hidden."""
    v = state.variant
    board = state.board_array()
    seen = visible_squares(state, viewer) if viewer is not None and v.hidden_information else None
    cells: list[tuple[int, str]] = []
    hidden: set[int] = set()
    for rank in range(v.height):
        for file in range(v.width):
            square = 8 * rank + file
            if seen is not None and not seen[square]:
                hidden.add(len(cells))
                cells.append((0, ""))
                continue
            piece = int(board[square])
            cells.append((0, "") if piece == 0 else ((1 if piece > 0 else -1), GLYPHS[abs(piece)]))
    files = tuple(_FILES[: v.width])
    ranks = tuple(str(r + 1) for r in range(v.height))
    return BoardView(files, ranks, tuple(cells), frozenset(hidden))


def move_cells(state: State, move: Move) -> tuple[str, ...]:
    """The from and to squares (a promotion's piece is chosen by its text)."""
    return square_name(move.from_square), square_name(move.to_square)
