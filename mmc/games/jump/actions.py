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

from mmc.games.jump import chain as K
from mmc.games.jump.state import Move, State, codes, legal_moves
from mmc.games.jump.variants import Variant, get_variant

__all__ = ["END_PLANE", "HOP_PLANE", "NUM_POLICY_PLANES", "PASS_PLANE", "STEP_PLANE", "ActionSpace", "action_space"]

STEP_PLANE, HOP_PLANE, END_PLANE, PASS_PLANE = 0, 8, 16, 17
NUM_POLICY_PLANES = 18


def flip_direction(d: int) -> int:
    """The direction ``d`` seen with the ranks flipped (White's view): N <-> S, NE <-> SE, SW <-> NW."""
    return (4 - d) % 8


@dataclass(frozen=True, eq=False)
class ActionSpace:
    """The action encoding of one variant. Build with :func:`action_space`."""

    variant: Variant
    num_actions: int
    """``NUM_POLICY_PLANES * height * width``."""
    policy_index: np.ndarray
    """``int64[num_actions]``: each action's logit in the flattened ``[NUM_POLICY_PLANES, H, W]`` output (the
    identity)."""
    lookup: np.ndarray
    """``int32[2, NUM_CODES]``: the action of each move code, for Black (row 0) and White (row 1); -1 if none."""

    def encode(self, move: Move, turn: int) -> int:
        """The action of ``move`` played by ``turn`` (+1 Black, -1 White)."""
        action = int(self.lookup[int(turn < 0), move.code])
        if action < 0:
            raise ValueError(f"move {move.text()} has no action in {self.variant.name}")
        return action

    def legal_actions(self, state: State) -> np.ndarray:
        """``int64[n]``: the actions of ``legal_moves(state)``, in the same order."""
        return self.lookup[int(state.turn < 0), codes(state)].astype(np.int64)

    def legal_mask(self, state: State) -> np.ndarray:
        """``bool[num_actions]``: True for the actions of legal moves."""
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[self.legal_actions(state)] = True
        return mask

    def decode(self, action: int, state: State) -> Move:
        """The legal move of ``state`` that ``action`` stands for; ``ValueError`` if none."""
        hits = np.flatnonzero(self.legal_actions(state) == action)
        if len(hits) == 0:
            raise ValueError(f"action {action} is not a legal move in {state.variant_name} position {state.fen()}")
        return legal_moves(state)[int(hits[0])]


@cache
def action_space(variant: str | Variant) -> ActionSpace:
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
    return ActionSpace(v, num_actions, np.arange(num_actions, dtype=np.int64), lookup)
