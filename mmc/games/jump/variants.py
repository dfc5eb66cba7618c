"""The jump game's variants as data: board size, the first player's start squares, the directions a piece moves in,
whether a hop captures, and the move cap. The rule book is ``shared/spec/jump.md``.

Every variant shares one move generator (``mmc.games.jump.rules``); a variant only chooses among the named hooks
below. The second player's start is the first player's turned half a turn (point-symmetric), and each player's
target region is the two ranks on the far side of the board from its start.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["MAX_CAP", "MOVES_VARIANTS", "VARIANTS", "Variant", "get_variant", "square_name", "square_of"]

MAX_CAP = 400
"""The largest move cap of the family (``jump``'s 200 moves each), in plies: the scale of the input plane that counts
the plies left."""


def square_name(square: int) -> str:
    """``a1`` for square 0: squares are ``8 * rank + file`` on every board size (``mmc.games.jump.rules``)."""
    return "abcdefgh"[square % 8] + str(square // 8 + 1)


def square_of(name: str) -> int:
    """The square of a name like ``c3`` (files ``a``-``h``, ranks ``1``-``8``); ``ValueError`` naming it otherwise."""
    if len(name) != 2 or name[0] not in "abcdefgh" or name[1] not in "12345678":
        raise ValueError(f"not a square: {name!r} (expected a file a-h and a rank 1-8, like 'c3')")
    return 8 * (int(name[1]) - 1) + "abcdefgh".index(name[0])


@dataclass(frozen=True)
class Variant:
    """One variant of the jump game: data and hooks only (the protocol's ``VariantInfo`` and more)."""

    name: str
    """The variant id."""
    description: str
    """One line for ``mmc variants``."""
    height: int
    """Ranks of the board."""
    width: int
    """Files of the board."""
    start: tuple[str, ...]
    """The first player's (Black's) start squares; White's are these turned half a turn."""
    cap: int
    """The move cap in plies (both players' moves, passes included): the game ends by score once it is reached."""
    diagonal: bool = False
    """Steps and hops in all 8 directions (the diagonals too), not only the 4 orthogonal ones."""
    captures: bool = True
    """Hopping over an opponent's piece removes it (``jump_halma``: it stays)."""
    hidden_information: bool = False
    in_default_study: bool = False
    """The study's default tasks are chess variants."""

    @property
    def pieces(self) -> int:
        """Pieces a side starts with (and the most a position may hold)."""
        return len(self.start)

    def start_squares(self, player: int) -> tuple[int, ...]:
        """The start squares of ``player`` (+1 Black, -1 White)."""
        squares = tuple(square_of(name) for name in self.start)
        if player > 0:
            return squares
        return tuple(8 * (self.height - 1 - s // 8) + self.width - 1 - s % 8 for s in squares)

    def in_target(self, square: int, player: int) -> bool:
        """Whether ``square`` lies in ``player``'s target region: Black's the top two ranks, White's the bottom two."""
        rank = square // 8
        return rank >= self.height - 2 if player > 0 else rank < 2

    @property
    def start_text(self) -> str:
        """The start position's text (``mmc.games.jump.fen``)."""
        from mmc.games.jump.fen import board_text

        cells = dict.fromkeys(self.start_squares(1), 1) | dict.fromkeys(self.start_squares(-1), -1)
        return f"{board_text(cells, self.height, self.width)} b 0"


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            "jump",
            "The seed's jump game: 9 pieces a side race to the far side by steps and hop chains; a hop captures",
            8, 8, ("a1", "c1", "e1", "g1", "b2", "d2", "f2", "c3", "e3"), cap=400,
        ),
        Variant(
            "jump_diagonal",
            "The jump game with steps and hops in all 8 directions",
            8, 8, ("a1", "c1", "e1", "g1", "b2", "d2", "f2", "c3", "e3"), cap=400, diagonal=True,
        ),
        Variant(
            "jump_halma",
            "The jump game without captures: a hopped piece stays (as in halma)",
            8, 8, ("a1", "c1", "e1", "g1", "b2", "d2", "f2", "c3", "e3"), cap=400, captures=False,
        ),
        Variant(
            "jump_6x6",
            "The jump game on 6x6: 6 pieces a side, 100 moves each",
            6, 6, ("a1", "c1", "e1", "b2", "d2", "c3"), cap=200,
        ),
    )
}  # fmt: skip
"""The family's variants by id, in the order ``mmc variants`` lists them."""

MOVES_VARIANTS: dict[str, Variant] = {
    f"{name}_moves": replace(
        VARIANTS[name],
        name=f"{name}_moves",
        description=f"{VARIANTS[name].description}; one action per complete move (the encoding benchmark's other)",
    )
    for name in ("jump", "jump_6x6")
}
"""The same rules under the other encoding, one action per complete move (``mmc.games.jump.complete_game``): the
game ``jump_moves`` of issue 33's encoding comparison."""


def get_variant(variant: str | Variant) -> Variant:
    """The variant ``variant`` (an id or the variant itself); ``ValueError`` naming the known ids otherwise."""
    if isinstance(variant, Variant):
        return variant
    found = VARIANTS.get(variant) or MOVES_VARIANTS.get(variant)
    if found is None:
        known = ", ".join((*VARIANTS, *MOVES_VARIANTS))
        raise ValueError(f"unknown jump variant {variant!r} (known: {known})")
    return found
