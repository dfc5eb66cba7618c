"""A game's board as SVG, for any board up to 15x15: one ``<g class="square" data-square="b2">`` per cell, the
first player's side at the bottom (or the second's, ``flipped``), Unicode glyphs (no image files, nothing from the
network).

The picture is the game's own :class:`mmc.games.BoardView`: cell ``i`` is file ``i % W`` of rank ``i // W``,
named ``files[f] + ranks[r]`` (``a1``, ``a10``, ``o15``); a piece is drawn in its owner's colour, the name of that
player (``Game.players``: ``white`` and ``black`` in chess), and carries ``data-owner`` (``1`` first player,
``-1`` second) so that a player whose name is no colour still gets one. The page highlights cells by toggling
classes on these groups, and shades a move's destination by the ``.shade`` rectangle each cell carries (its
opacity set by the page from the network's prior). The view's named marks become classes ``mark-NAME``.
"""

from __future__ import annotations

import re
from html import escape

from mmc.games import BoardView

__all__ = ["MAX_SIDE", "SQUARE", "board_svg", "css_name"]

SQUARE = 60
"""Side of one cell in SVG user units (the page scales the whole board)."""
MAX_SIDE = 15
"""The most files or ranks a board may have."""
_TEXT = "\ufe0e"
"""Variation selector 15: draw a glyph as text, never as an emoji."""


def css_name(name: str) -> str:
    """``name`` as a CSS class: lower case, runs of anything but letters, digits and ``-`` as one ``-``."""
    return re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-") or "none"


def board_svg(view: BoardView, players: tuple[str, str], *, flipped: bool = False) -> str:
    """``<svg>`` text of ``view``: hidden cells (dark chess: not seen by the viewer) fogged and empty, pieces of
    owner +1 in ``players[0]``'s colour and of -1 in ``players[1]``'s. ``flipped`` puts the last rank at the
    bottom (the viewer is the second player). ``ValueError`` for a board over 15x15 or a view whose cells do not
    fill it."""
    width, height = len(view.files), len(view.ranks)
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise ValueError(f"a board must be 1x1 to {MAX_SIDE}x{MAX_SIDE}, got {width}x{height}")
    if len(view.cells) != width * height:
        raise ValueError(f"a {width}x{height} board has {width * height} cells, the view gives {len(view.cells)}")
    marks: dict[int, list[str]] = {}
    for name, cells in view.marks:
        for cell in cells:
            marks.setdefault(cell, []).append(f"mark-{css_name(name)}")
    colours = {1: css_name(players[0]), -1: css_name(players[1])}  # owner 0 with a glyph: a neutral piece
    size = SQUARE
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {width * size} {height * size}" '
        f'data-height="{height}" data-width="{width}" data-flipped="{int(flipped)}" role="img" '
        f'aria-label="{width}x{height} board">'
    ]
    for index, (owner, glyph) in enumerate(view.cells):
        rank, file = divmod(index, width)
        col = width - 1 - file if flipped else file
        row = rank if flipped else height - 1 - rank
        fog = index in view.hidden
        classes = ["square", "light" if (rank + file) % 2 else "dark", *(["fog"] if fog else []), *marks.get(index, [])]
        name = escape(view.files[file] + view.ranks[rank])
        parts.append(
            f'<g class="{" ".join(classes)}" data-square="{name}" transform="translate({col * size},{row * size})">'
        )
        parts.append(f'<rect class="base" width="{size}" height="{size}"/>')
        parts.append(f'<rect class="shade" width="{size}" height="{size}" opacity="0"/>')
        if glyph and not fog:
            colour = colours.get(owner, "neutral")
            parts.append(
                f'<text class="piece {colour}" data-owner="{owner}" x="{size / 2}" y="{size * 0.8}" '
                f'text-anchor="middle" font-size="{size * 0.8}">{escape(glyph + _TEXT)}</text>'
            )
        if col == 0:
            parts.append(f'<text class="coord" x="2" y="11" font-size="10">{escape(view.ranks[rank])}</text>')
        if row == height - 1:
            x = size - 2
            parts.append(
                f'<text class="coord" x="{x}" y="{size - 3}" font-size="10" text-anchor="end">'
                f"{escape(view.files[file])}</text>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)
