"""The k-in-a-row variants as data (``shared/spec/gomoku.md``): a board, a line length ``k``, a winning rule and a
gravity flag. No variant has code of its own: the kernels read these four values from the variant's rule table
(:func:`build_table`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

__all__ = [
    "MAX_SIDE",
    "TABLE_SIZE",
    "T_GRAVITY",
    "T_HEIGHT",
    "T_K",
    "T_RULE",
    "T_WIDTH",
    "VARIANTS",
    "Rule",
    "Variant",
    "build_table",
    "get_variant",
]

MAX_SIDE = 15
"""The most files or ranks a board has (the standard 15x15 gomoku board): files ``a``-``o``, ranks ``1``-``15``."""


class Rule(enum.IntEnum):
    """Which lines of k win (the rule book's ``rule``)."""

    FREESTYLE = 0
    """k or more in a row (an overline wins too)."""
    EXACT = 1
    """Exactly k in a row: an overline wins for neither player."""
    CARO = 2
    """Exactly k in a row, not blocked at both ends by opponent stones (a board edge counts as open)."""


@dataclass(frozen=True)
class Variant:
    """One member of the family. Every field is data."""

    name: str
    """Variant id, e.g. ``"gomoku_8x8"``."""
    description: str
    """One line for ``mmc variants``."""
    width: int
    """Files (columns)."""
    height: int
    """Ranks (rows)."""
    k: int
    """Stones in a winning line."""
    rule: Rule = Rule.FREESTYLE
    """Which lines of ``k`` win."""
    gravity: bool = False
    """A stone goes only on the lowest empty cell of a column (Connect Four)."""
    hidden_information: bool = False
    """Every variant is fully visible."""
    in_default_study: bool = True
    """A study may take any variant as a task or a target."""

    @property
    def cells(self) -> int:
        """Cells of the board: the most stones a game places."""
        return self.width * self.height


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("tictactoe", "Tic-tac-toe: three in a row on 3x3 (a draw with perfect play)", 3, 3, 3),
        Variant("gomoku_6x6", "Four in a row on 6x6, freestyle (the seed's training board)", 6, 6, 4),
        Variant("gomoku_8x8", "Five in a row on 8x8, freestyle (the seed's default board)", 8, 8, 5),
        Variant("gomoku_9x9", "Five in a row on 9x9, freestyle", 9, 9, 5),
        Variant("exact_9x9", "Exactly five in a row on 9x9: overlines do not win", 9, 9, 5, Rule.EXACT),
        Variant("caro_9x9", "Caro on 9x9: exactly five, not blocked at both ends", 9, 9, 5, Rule.CARO),
        Variant("connect4", "Connect Four: four in a row on 7x6 with gravity", 7, 6, 4, gravity=True),
        Variant("gomoku", "Gomoku: five in a row on the standard 15x15 board, freestyle", 15, 15, 5),
    )
}
"""The variants of the rule book, in its order."""


def get_variant(variant: str | Variant) -> Variant:
    """The variant ``variant`` (an id or a :class:`Variant`); ``ValueError`` naming the known ids otherwise."""
    if isinstance(variant, Variant):
        return variant
    try:
        return VARIANTS[variant]
    except (KeyError, TypeError):
        raise ValueError(f"unknown gomoku variant {variant!r} (known: {', '.join(VARIANTS)})") from None


T_HEIGHT, T_WIDTH, T_K, T_RULE, T_GRAVITY = range(5)
"""Slots of a variant's rule table."""
TABLE_SIZE = 5


def build_table(variant: Variant) -> np.ndarray:
    """``int16[TABLE_SIZE]``: the variant as the kernels read it, ``[height, width, k, rule, gravity]``."""
    values = (variant.height, variant.width, variant.k, int(variant.rule), int(variant.gravity))
    return np.array(values, dtype=np.int16)
