"""The variant family as data: board size, start position, promotion pieces and a few named hooks.

Every variant shares one move generator (``mmc.games.chess._kernels``). A variant only chooses, from a
short fixed list, how a capture resolves, which moves the colour rule filters out, whether the king
is royal (may not be left attacked) and what else ends the game. The rule book is ``docs/rules/chess.md`` and the
variant pages it links; :data:`VARIANTS` gives each variant's data and hooks, with a one-line ``description``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "VARIANTS",
    "CaptureRule",
    "CheckRule",
    "EndRule",
    "MoveFilter",
    "PieceType",
    "Variant",
    "get_variant",
]


class PieceType(enum.IntEnum):
    """Piece types, numbered as in python-chess. On the board a piece is ``+type`` for White, ``-type`` for Black."""

    PAWN = 1
    KNIGHT = 2
    BISHOP = 3
    ROOK = 4
    QUEEN = 5
    KING = 6


class CaptureRule(enum.IntEnum):
    """What a capture does to the board."""

    REPLACE = 0  # the capturer takes the captured piece's square (chess)
    ATOMIC = 1  # capturer, captured and every non-pawn piece on the 8 neighbours are removed
    RIFLE = 2  # the captured piece is removed, the capturer stays where it is


class MoveFilter(enum.IntEnum):
    """Which destination squares a move may end on, by square colour."""

    NONE = 0
    SAME_COLOUR = 1  # monochromatic: file + rank parity kept
    OPPOSITE_COLOUR = 2  # bichromatic: file + rank parity flipped


class CheckRule(enum.IntEnum):
    """Whether the king is royal."""

    ROYAL = 0  # a move may not leave one's own king attacked; checkmate wins, stalemate draws
    NONE = 1  # no check: every pseudo-legal move is allowed, the king is an ordinary piece


class EndRule(enum.IntEnum):
    """What ends the game besides having no legal move."""

    NONE = 0
    KING_LOST = 1  # a side without a king has lost (exploded in atomic, captured in dark)
    EXTINCTION = 2  # a side missing any of K, Q, R, B, N, P has lost


@dataclass(frozen=True)
class Variant:
    """One member of the family. Every field is data; ``mmc.games.chess`` interprets the hooks."""

    name: str
    """Project id, e.g. ``"gardner"``."""
    description: str
    """One line for ``mmc variants``."""
    start_board: str
    """FEN board field of the start position, rank 8..1 order as in FEN."""
    height: int = 5
    """Number of ranks."""
    width: int = 5
    """Number of files."""
    promotions: tuple[PieceType, ...] = (
        PieceType.QUEEN,
        PieceType.ROOK,
        PieceType.BISHOP,
        PieceType.KNIGHT,
    )
    """Piece types a pawn may promote to on the last rank."""
    capture: CaptureRule = CaptureRule.REPLACE
    """How a capture resolves."""
    move_filter: MoveFilter = MoveFilter.NONE
    """Square-colour restriction on every move."""
    check: CheckRule = CheckRule.ROYAL
    """Whether the king is royal."""
    end: EndRule = EndRule.NONE
    """Extra game-ending condition."""
    king_captures: bool = True
    """False in atomic: a king may not capture (and so never gives check)."""
    hidden_information: bool = False
    """True in dark: each side sees only its own pieces and the squares they can move to."""
    insufficient_material: bool = True
    """Whether K v K and K+minor v K are drawn (off where a king can simply be taken)."""
    in_default_study: bool = True
    """False for variants the study leaves out (monochromatic: White cannot move at ply 0; chess: 8x8)."""
    double_step: bool = False
    """Chess: a pawn on its second rank may step two squares, and may be taken en passant right after."""
    castling: bool = False
    """Chess: the king castles with an unmoved rook (rights in the FEN; king on the e-file, rooks in the corners)."""
    bishops_draw: bool = False
    """Chess (as Fairy-Stockfish counts it): kings with bishops all on squares of one colour are also insufficient."""

    @property
    def start_fen(self) -> str:
        """The start position as a full FEN."""
        return f"{self.start_board} w {'KQkq' if self.castling else '-'} - 0 1"


_GARDNER = "rnbqk/ppppp/5/PPPPP/RNBQK"
_Q, _R, _B, _N, _K = PieceType.QUEEN, PieceType.ROOK, PieceType.BISHOP, PieceType.KNIGHT, PieceType.KING

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("gardner", "Gardner minichess: chess on 5x5, no castling, no double step", _GARDNER),
        Variant("baby", "Baby chess: Gardner rules, kings in opposite corners", "kqbnr/ppppp/5/PPPPP/RNBQK"),
        Variant(
            "mallet",
            "Mallett's setup: Gardner rules, White two knights, Black two bishops",
            "rbkqb/ppppp/5/PPPPP/RNKQN",
        ),
        Variant(
            "los_alamos",
            "Los Alamos chess: 6x6, no bishops, promotion to Q, R or N",
            "rnqknr/pppppp/6/6/PPPPPP/RNQKNR",
            height=6,
            width=6,
            promotions=(_Q, _R, _N),
        ),
        Variant(
            "atomic",
            "Atomic: captures explode the 8 neighbours' non-pawns; exploding the king wins",
            _GARDNER,
            capture=CaptureRule.ATOMIC,
            end=EndRule.KING_LOST,
            king_captures=False,
        ),
        Variant(
            "extinction",
            "Extinction: no check; losing every piece of any one type loses",
            _GARDNER,
            promotions=(_Q, _R, _B, _N, _K),
            check=CheckRule.NONE,
            end=EndRule.EXTINCTION,
            insufficient_material=False,
        ),
        Variant(
            "rifle",
            "Rifle chess: a capturing piece shoots and stays on its square",
            _GARDNER,
            capture=CaptureRule.RIFLE,
        ),
        Variant(
            "dark",
            "Dark chess: fog of war, no check, capturing the king wins",
            _GARDNER,
            check=CheckRule.NONE,
            end=EndRule.KING_LOST,
            hidden_information=True,
            insufficient_material=False,
        ),
        Variant(
            "monochromatic",
            "Monochromatic: every move keeps its square colour (stalemate at ply 0)",
            _GARDNER,
            move_filter=MoveFilter.SAME_COLOUR,
            in_default_study=False,
        ),
        Variant(
            "bichromatic",
            "Bichromatic: every move changes its square colour",
            _GARDNER,
            move_filter=MoveFilter.OPPOSITE_COLOUR,
        ),
        Variant(
            "chess",
            "Chess: the FIDE rules on 8x8 (castling, en passant, double step), no clock",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
            height=8,
            width=8,
            in_default_study=False,
            double_step=True,
            castling=True,
            bishops_draw=True,
        ),
    )
}


def get_variant(name: str | Variant) -> Variant:
    """Return the variant called ``name``; raise ``ValueError`` naming the known ids otherwise."""
    if isinstance(name, Variant):
        return name
    try:
        return VARIANTS[name]
    except KeyError:
        known = ", ".join(VARIANTS)
        raise ValueError(f"unknown variant {name!r} (known: {known})") from None
