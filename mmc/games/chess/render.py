"""Unicode boards in the seed's style: one rank a line, rank 1 at the bottom, ``⊙`` for an empty square.

♜ ♞ ♝ ♛ ♚
♟ ♟ ♟ ♟ ♟
⊙ ⊙ ⊙ ⊙ ⊙
♙ ♙ ♙ ♙ ♙
♖ ♘ ♗ ♕ ♔
"""

from __future__ import annotations

from mmc.games.chess.observe import visible_squares
from mmc.games.chess.state import Color, State

__all__ = ["EMPTY", "HIDDEN", "render"]

EMPTY = "⊙"
HIDDEN = "▒"
_WHITE = "?♙♘♗♖♕♔"
_BLACK = "?♟♞♝♜♛♚"


def render(state: State, *, coordinates: bool = False, viewer: Color | None = None) -> str:
    """The board as text. ``viewer`` (dark chess) hides what that side cannot see behind ``▒``."""
    v = state.variant
    seen = visible_squares(state, viewer) if viewer is not None else None
    lines = []
    for rank in range(v.height - 1, -1, -1):
        cells = []
        for file in range(v.width):
            sq = 8 * rank + file
            p = state.piece_at(sq)
            if seen is not None and not seen[sq]:
                cells.append(HIDDEN)
            else:
                cells.append(EMPTY if p == 0 else (_WHITE[p] if p > 0 else _BLACK[-p]))
        lines.append((f"{rank + 1} " if coordinates else "") + " ".join(cells))
    if coordinates:
        lines.append("  " + " ".join("abcdefgh"[: v.width]))
    return "\n".join(lines)
