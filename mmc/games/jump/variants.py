"""The jump game's variants as data: board size, the first player's start squares, the directions a piece moves in,
whether a hop captures, and the move cap. The rule book is ``docs/rules/jump.md`` ("Variants", "Generated variants").

Every variant shares one move generator (``mmc.games.jump.rules``); a variant only chooses among the named hooks
below. The second player's start is the first player's turned half a turn (point-symmetric), and each player's
target region is the two ranks on the far side of the board from its start.

Besides the named variants, each has shorter games generated from it: ``V_pN`` is variant ``V`` whose game ends by
score at ply ``N`` instead of at its cap (``jump_p100``: the seed's game scored after 50 moves each, a race). Only the
ending differs; it is the rule book's ending by score, earlier. A study that rates a shorter game rates one of these,
under its own name (:data:`GENERATED_FORMS`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from mmc.games.generated import GeneratedVariants

__all__ = [
    "GENERATED_FORMS",
    "MAX_CAP",
    "NAMED",
    "VARIANTS",
    "Variant",
    "add_variants",
    "game_plies",
    "get_variant",
    "square_name",
    "square_of",
    "with_races",
]

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


NAMED: dict[str, Variant] = {
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
"""The family's named variants by id, in the order ``mmc variants`` lists them."""

GENERATED_FORMS = (
    "V_pN: variant V scored at ply N instead of at its cap (N/2 moves each; N even, from 2 to below V's cap, no "
    "leading zeros), e.g. jump_p100, jump_6x6_p60"
)
"""How a generated (shorter) variant's id is formed, in one line (``mmc variants``, and every refusal of one)."""

_RACE = re.compile(r"(.+)_p([0-9]+)")


def with_races(named: dict[str, Variant]) -> GeneratedVariants[Variant]:
    """``named``, and the generated ``V_pN`` of each of its variants ``V`` (the family's :data:`VARIANTS`; another
    encoding of these rules builds its own table the same way, ``examples/jump_moves``)."""

    def of_form(name: str) -> bool:
        match = _RACE.fullmatch(name)
        return match is not None and match[1] in named

    def generate(name: str) -> Variant:
        match = _RACE.fullmatch(name)
        assert match is not None
        base, digits = named[match[1]], match[2]
        plies = int(digits)
        if digits != str(plies) or plies % 2 or not 2 <= plies < base.cap:
            raise ValueError(
                f"generated jump variant {name!r}: {digits} is not an even ply count from 2 to below "
                f"{base.name}'s cap ({base.cap}) without leading zeros: {GENERATED_FORMS}"
            )
        description = (
            f"{base.description}; scored at ply {plies} ({plies // 2} moves each) instead of {base.cap} (generated)"
        )
        return replace(base, name=name, description=description, cap=plies)

    return GeneratedVariants(named, generate, of_form, GENERATED_FORMS)


VARIANTS = with_races(NAMED)
"""Every variant of the family: the named ones when iterated, and every generated id (``jump_p100``) when looked
up."""

_ADDED: list[Mapping[str, Variant]] = []
"""Other families' variants over these rules (:func:`add_variants`), looked up after :data:`VARIANTS`."""


def add_variants(variants: Mapping[str, Variant]) -> None:
    """Let :func:`get_variant` (and so ``State.variant`` and the kernels' rule table) find ``variants``: the variants
    of a family that plays these rules, states and position text under an encoding of its own (the example package
    ``examples/jump_moves``, one action per complete move), by ids of its own. Adding the same table again changes
    nothing."""
    if not any(added is variants for added in _ADDED):
        _ADDED.append(variants)


def game_plies(variant: str) -> int:
    """The ply at which the rule book ends every game of ``variant`` that the race has not: its cap."""
    return get_variant(variant).cap


def get_variant(variant: str | Variant) -> Variant:
    """The variant ``variant`` (an id or the variant itself); ``ValueError`` naming the known ids otherwise."""
    if isinstance(variant, Variant):
        return variant
    for table in (VARIANTS, *_ADDED):
        found = table.get(variant)
        if found is not None:
            return found
    known = ", ".join(name for table in (VARIANTS, *_ADDED) for name in table)
    raise ValueError(f"unknown jump variant {variant!r} (known: {known}, or a generated id: {GENERATED_FORMS})")
