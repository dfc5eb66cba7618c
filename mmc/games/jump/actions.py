"""The network's action encoding of the jump game: one logit per (plane, cell) of the mover's view.

Coordinates are the mover's (``mmc.games.jump.observe``): White's ranks are flipped, so its directions are too
(N <-> S, NE <-> SE, NW <-> SW; E and W stay). One layout serves the whole family (``NUM_POLICY_PLANES = 18``: 4 or
8 directions, 6x6 or 8x8), so one network plays every variant; the planes a variant never uses (the diagonals of
the orthogonal variants) are always masked::

    plane 0 .. 7     a step from the cell, direction 0 .. 7 (N NE E SE S SW W NW, the mover's view)
    plane 8 .. 15    a hop from the cell, direction 0 .. 7
    plane 16         end the chain: the logit at the cell of the chain's piece
    plane 17         pass: the logit at cell (0, 0), the mover's a1 (the only cell of the plane used)

An action is its logit's index in the flattened ``[18, H, W]`` policy output, ``(plane * H + r') * W + file``
(``policy_index`` is the identity): 1152 actions on 8x8, 648 on 6x6, most of them never legal.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from mmc.games.actions import CodeActions
from mmc.games.jump import chain as K
from mmc.games.jump.state import Move, State, codes, legal_moves
from mmc.games.jump.variants import Variant, get_variant

__all__ = ["END_PLANE", "HOP_PLANE", "NUM_POLICY_PLANES", "PASS_PLANE", "STEP_PLANE", "JumpActions", "action_space"]

STEP_PLANE, HOP_PLANE, END_PLANE, PASS_PLANE = 0, 8, 16, 17
NUM_POLICY_PLANES = 18


def flip_direction(d: int) -> int:
    """The direction ``d`` seen with the ranks flipped (White's view): N <-> S, NE <-> SE, SW <-> NW."""
    return (4 - d) % 8


@dataclass(frozen=True, eq=False)
class JumpActions(CodeActions):
    """The action encoding of one variant (``lookup``: ``int32[2, NUM_CODES]``, Black's row 0, White's row 1;
    ``policy_index`` the identity). Build with :func:`action_space`."""

    legal_moves = staticmethod(legal_moves)

    def move_codes(self, state: State) -> list[int]:
        return codes(state)

    def code(self, move: Move) -> int:
        return move.code

    def text(self, move: Move) -> str:
        return move.text()


@cache
def action_space(variant: str | Variant) -> JumpActions:
    """The action encoding of a variant (built once per process)."""
    v = get_variant(variant)
    h, w = v.height, v.width
    num_actions = NUM_POLICY_PLANES * h * w
    lookup = np.full((2, K.NUM_CODES), -1, dtype=np.int32)

    def index(plane: int, rank: int, file: int, row: int) -> int:
        return (plane * h + (h - 1 - rank if row else rank)) * w + file

    for rank in range(h):
        for file in range(w):
            sq = 8 * rank + file
            for row in (0, 1):
                for d in range(8):
                    seen = flip_direction(d) if row else d
                    lookup[row, sq | d << 6] = index(STEP_PLANE + seen, rank, file, row)
                    lookup[row, sq | d << 6 | K.HOP] = index(HOP_PLANE + seen, rank, file, row)
                lookup[row, K.END + sq] = index(END_PLANE, rank, file, row)
    lookup[:, K.PASS] = PASS_PLANE * h * w
    return JumpActions(v, num_actions, np.arange(num_actions, dtype=np.int64), lookup)
