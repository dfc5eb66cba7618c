"""The board as SVG, for any board size: one ``<g class="square" data-square="b2">`` per square, White at the
bottom (or Black, ``flipped``), Unicode chess glyphs (no image files, nothing from the network).

The page highlights squares by toggling classes on these groups, and shades a move's destination by the
``.shade`` rectangle each square carries (its opacity set by the page from the network's prior).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from html import escape

import numpy as np

from mmc.games.chess import square_name

__all__ = ["GLYPHS", "SQUARE", "board_svg"]

SQUARE = 60
"""Side of one square in SVG user units (the page scales the whole board)."""
GLYPHS = {1: "♟", 2: "♞", 3: "♝", 4: "♜", 5: "♛", 6: "♚"}
"""Piece type -> glyph; both colours use the filled glyphs, filled white or black (``\\ufe0e``: text, not emoji)."""


def board_svg(
    board: Sequence[int] | np.ndarray,
    height: int,
    width: int,
    *,
    flipped: bool = False,
    hidden: Collection[int] = (),
) -> str:
    """``<svg>`` text of a board: ``board[8 * rank + file]`` is a signed piece (``+`` White, ``-`` Black, 0 empty,
    as ``State.board_array``); squares in ``hidden`` (dark chess: not seen by the viewer) are drawn fogged and
    empty. ``flipped`` puts Black's home rank at the bottom (the viewer plays Black)."""
    size = SQUARE
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {width * size} {height * size}" '
        f'data-height="{height}" data-width="{width}" data-flipped="{int(flipped)}" role="img" '
        f'aria-label="{width}x{height} board">'
    ]
    for rank in range(height):
        for file in range(width):
            square = 8 * rank + file
            col = width - 1 - file if flipped else file
            row = rank if flipped else height - 1 - rank
            x, y = col * size, row * size
            name = square_name(square)
            shade = "light" if (rank + file) % 2 else "dark"
            fog = square in hidden
            classes = f"square {shade}" + (" fog" if fog else "")
            parts.append(f'<g class="{classes}" data-square="{name}" transform="translate({x},{y})">')
            parts.append(f'<rect class="base" width="{size}" height="{size}"/>')
            parts.append(f'<rect class="shade" width="{size}" height="{size}" opacity="0"/>')
            piece = 0 if fog else int(board[square])
            if piece:
                color = "white" if piece > 0 else "black"
                glyph = GLYPHS[abs(piece)] + "\ufe0e"
                parts.append(
                    f'<text class="piece {color}" x="{size / 2}" y="{size * 0.8}" text-anchor="middle" '
                    f'font-size="{size * 0.8}">{escape(glyph)}</text>'
                )
            if col == 0:
                parts.append(f'<text class="coord" x="2" y="11" font-size="10">{rank + 1}</text>')
            if row == height - 1:
                parts.append(
                    f'<text class="coord" x="{size - 8}" y="{size - 3}" font-size="10">{"abcdefgh"[file]}</text>'
                )
            parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)
