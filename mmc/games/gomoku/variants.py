"""The k-in-a-row variants as data (``docs/rules/kinarow.md``): a board, a line length ``k``, a winning rule and a
gravity flag. No variant has code of its own: the kernels read these four values from the variant's rule table
(:func:`build_table`).

Besides the rule book's named variants, every freestyle or gravity game of the common base is a variant, named by
its parameters (``docs/rules/kinarow.md``, "Generated variants"): ``mnk_WxH_kK`` (freestyle, ``mnk_7x5_k4``) and
``grav_WxH_kK`` (gravity, ``grav_5x4_k3``), 3 <= W, H <= 15 and 3 <= K <= max(W, H). :data:`VARIANTS` holds them all:
iterating it lists the named ones, looking an id up builds its generated variant (:func:`generated`).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

import numpy as np

from mmc.games.generated import GeneratedVariants

__all__ = [
    "GENERATED_FORMS",
    "MAX_SIDE",
    "MIN_SIDE",
    "NAMED",
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
    "game_plies",
    "generated",
    "generated_id",
    "get_variant",
]

MAX_SIDE = 15
"""The most files or ranks a board has (the standard 15x15 gomoku board): files ``a``-``o``, ranks ``1``-``15``."""
MIN_SIDE = 3
"""The fewest files or ranks a generated board has."""


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


NAMED: dict[str, Variant] = {
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
"""The variants of the rule book's table, in its order."""

GENERATED_FORMS = (
    f"mnk_WxH_kK (freestyle) or grav_WxH_kK (gravity): W files and H ranks from {MIN_SIDE} to {MAX_SIDE}, "
    f"K in a row from 3 to max(W, H), numbers without leading zeros"
)
"""How a generated id is formed, in one line (``mmc variants``, and every refusal of a malformed id)."""

_PREFIXES = {"mnk": False, "grav": True}
_FORM = re.compile(r"(mnk|grav)_([1-9][0-9]*)x([1-9][0-9]*)_k([1-9][0-9]*)")


def generated_id(width: int, height: int, k: int, *, gravity: bool = False) -> str:
    """The generated id of a freestyle board of ``width`` files and ``height`` ranks, ``k`` in a row (``grav_`` with
    gravity); ``ValueError`` naming the valid ranges when the board or ``k`` is out of them."""
    name = f"{'grav' if gravity else 'mnk'}_{width}x{height}_k{k}"
    generated(name)
    return name


def generated(name: str) -> Variant:
    """The generated variant ``name`` (``mnk_WxH_kK`` or ``grav_WxH_kK``); ``ValueError`` in one line naming the valid
    forms and ranges when ``name`` is of neither form or out of range (``mnk_2x9_k3``, ``mnk_8x8_k9``,
    ``grav_7x6_k04``)."""
    match = _FORM.fullmatch(name) if isinstance(name, str) else None
    if match is None:
        raise ValueError(f"malformed generated gomoku variant id {name!r}: expected {GENERATED_FORMS}")
    prefix, width, height, k = match[1], int(match[2]), int(match[3]), int(match[4])
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise ValueError(
            f"generated gomoku variant {name!r}: the board {width}x{height} is out of range: {GENERATED_FORMS}"
        )
    if not 3 <= k <= max(width, height):
        raise ValueError(
            f"generated gomoku variant {name!r}: k={k} is longer than the {width}x{height} board's longer side: "
            f"{GENERATED_FORMS}"
        )
    gravity = _PREFIXES[prefix]
    rule = "with gravity" if gravity else "freestyle"
    description = f"{k} in a row on {width}x{height}, {rule} (generated)"
    return Variant(name, description, width, height, k, gravity=gravity)


def _is_generated_form(name: object) -> bool:
    """Whether ``name`` starts like a generated id (``mnk_`` or ``grav_``): such an id is refused with the valid
    forms rather than as unknown."""
    return isinstance(name, str) and name.split("_", 1)[0] in _PREFIXES


VARIANTS = GeneratedVariants(NAMED, generated, _is_generated_form, GENERATED_FORMS)
"""Every variant of the family: the named ones when iterated, and every generated id when looked up."""


def game_plies(variant: str) -> int:
    """The ply by which every game of ``variant`` has ended: a full board (its cells)."""
    v = get_variant(variant)
    return v.width * v.height


def get_variant(variant: str | Variant) -> Variant:
    """The variant ``variant`` (an id, named or generated, or a :class:`Variant`); ``ValueError`` in one line
    otherwise: naming the known ids, or for a malformed generated id the valid forms and ranges."""
    if isinstance(variant, Variant):
        return variant
    try:
        return VARIANTS[variant]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown gomoku variant {variant!r} (known: {', '.join(VARIANTS)}, or a generated id: {GENERATED_FORMS})"
        ) from None


T_HEIGHT, T_WIDTH, T_K, T_RULE, T_GRAVITY = range(5)
"""Slots of a variant's rule table."""
TABLE_SIZE = 5


def build_table(variant: Variant) -> np.ndarray:
    """``int16[TABLE_SIZE]``: the variant as the kernels read it, ``[height, width, k, rule, gravity]``."""
    values = (variant.height, variant.width, variant.k, int(variant.rule), int(variant.gravity))
    return np.array(values, dtype=np.int16)
