"""Action encoding for the network: from-square x move type, from the side to move's perspective.

Coordinates are the mover's: rank ``r'`` counts from the mover's home rank (Black's moves are
mirrored top to bottom, files unchanged), so "forward" is always towards higher ``r'``. An action is
``(r' * width + file) * num_types + move_type``. The move types of an NxN board with reach
``D = N - 1`` (the seed's 49 on 5x5; 57 on 6x6; AlphaZero's 73 on 8x8), in order::

    0 .. 8D-1      queen-like: direction * D + (distance - 1), directions N NE E SE S SW W NW
                   (also pawn moves, promotion to a queen, and castling: the king's move of 2 along the rank)
    8D .. 8D+7     knight jumps (df, dr): (1,2) (2,1) (2,-1) (1,-2) (-1,-2) (-2,-1) (-2,1) (-1,2)
    8D+8 .. 8D+16  underpromotion: piece (N, B, R) * 3 + direction (capture left, forward, capture right)
    8D+17 .. 8D+19 promotion to a king (extinction only): capture left, forward, capture right

So 5x5 variants have 25 x 49 = 1225 actions, extinction 25 x 52 = 1300, Los Alamos 36 x 57 = 2052 and
chess 64 x 73 = 4672 (AlphaZero's 8x8x73).

One network serves every board: its policy head outputs the shared plane layout ``[76, H, W]`` below
(``NUM_POLICY_PLANES``, distances up to ``MAX_REACH = 7``), and :attr:`ChessActions.policy_index` picks each
action's logit out of the flattened output, so a 5x5 board simply never reads the planes of distances 5 to 7
(masked)::

    plane 0 .. 55   queen-like, direction * 7 + (distance - 1)
    plane 56 .. 63  knight jumps
    plane 64 .. 72  underpromotion N, B, R x (left, forward, right)
    plane 73 .. 75  promotion to a king x (left, forward, right)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from mmc.games.actions import CodeActions
from mmc.games.chess._kernels import DIRECTIONS, KNIGHT_JUMPS
from mmc.games.chess.state import Move, State, _codes, get_variant, legal_moves
from mmc.games.chess.variants import PieceType, Variant

__all__ = ["MAX_REACH", "NUM_POLICY_PLANES", "ChessActions", "action_space", "move_type"]

MAX_REACH = 7
"""The longest queen-like move the shared policy planes hold: 7 squares, the 8x8 board's."""
_KNIGHT_PLANE = 8 * MAX_REACH
_UNDERPROMOTION_PLANE = _KNIGHT_PLANE + 8
_KING_PROMOTION_PLANE = _UNDERPROMOTION_PLANE + 9
NUM_POLICY_PLANES = _KING_PROMOTION_PLANE + 3
"""Planes of the policy head's shared layout (76): queen-like, knight, underpromotion, king promotion."""
_UNDERPROMOTIONS = (PieceType.KNIGHT, PieceType.BISHOP, PieceType.ROOK)


@dataclass(frozen=True, eq=False)
class ChessActions(CodeActions):
    """The action encoding of one variant (``lookup``: ``int32[2, 7 << 12]``, White's row 0, Black's row 1; a
    ``policy_index`` of 0 for the few actions no move can take, such as a jump off the board: those are always
    masked). Build with :func:`action_space`."""

    num_types: int = 0
    """Move types per from-square (``num_actions = height * width * num_types``)."""

    legal_moves = staticmethod(legal_moves)

    def move_codes(self, state: State) -> list[int]:
        return _codes(state)

    def code(self, move: Move) -> int:
        return move.code

    def text(self, move: Move) -> str:
        return move.uci()


def move_type(df: int, dr: int, promotion: PieceType | None, reach: int) -> tuple[int, int]:
    """``(type in this board's numbering, shared plane)`` of a move displacement in mover coordinates."""
    if promotion in _UNDERPROMOTIONS:
        k = _UNDERPROMOTIONS.index(promotion) * 3 + df + 1
        return 8 * reach + 8 + k, _UNDERPROMOTION_PLANE + k
    if promotion is PieceType.KING:
        return 8 * reach + 17 + df + 1, _KING_PROMOTION_PLANE + df + 1
    if (df, dr) in KNIGHT_JUMPS:
        j = KNIGHT_JUMPS.index((df, dr))
        return 8 * reach + j, _KNIGHT_PLANE + j
    dist = max(abs(df), abs(dr))
    d = DIRECTIONS.index(((df > 0) - (df < 0), (dr > 0) - (dr < 0)))
    return d * reach + dist - 1, d * MAX_REACH + dist - 1


@cache
def action_space(variant: str | Variant) -> ChessActions:
    """The action encoding of a variant (built once per process)."""
    v = get_variant(variant)
    h, w = v.height, v.width
    reach = max(h, w) - 1
    num_types = 8 * reach + 8 + 9 + (3 if PieceType.KING in v.promotions else 0)
    num_actions = h * w * num_types
    policy_index = np.zeros(num_actions, dtype=np.int64)
    lookup = np.full((2, 7 << 12), -1, dtype=np.int32)
    squares = [(r, f) for r in range(h) for f in range(w)]
    for fr, ff in squares:
        for tr, tf in squares:
            df, dr_abs = tf - ff, tr - fr
            if (fr, ff) == (tr, tf) or not (df == 0 or dr_abs == 0 or abs(df) == abs(dr_abs) or abs(df * dr_abs) == 2):
                continue
            for promo in (None, *v.promotions):
                if promo is not None and (abs(df) > 1 or abs(dr_abs) != 1):
                    continue
                code = Move(8 * fr + ff, 8 * tr + tf, promo).code
                for turn_row, flip in ((0, False), (1, True)):
                    pr = h - 1 - fr if flip else fr
                    dr = -dr_abs if flip else dr_abs
                    mtype, plane = move_type(df, dr, promo if promo is not PieceType.QUEEN else None, reach)
                    action = (pr * w + ff) * num_types + mtype
                    lookup[turn_row, code] = action
                    policy_index[action] = (plane * h + pr) * w + ff
    return ChessActions(v, num_actions, policy_index, lookup, num_types)
