"""Action encoding for the network: one placement plane.

An action is the cell a stone goes on, numbered row by row over the variant's own board, for either player::

    action = rank * W + file           (rank and file from 0: a1 = 0, b1 = 1, a2 = W)

    policy plane 0, shape [1, H, W]:   the logit of action a is at [0, a // W, a % W], so policy_index = a

A board of any size reads its actions off the same single plane, so one fully-convolutional network plays every
variant of the family. The kernels' move code of a cell is ``16 * rank + file``; :attr:`GomokuActions.lookup` maps it
to the action (the same for both players: the board is not turned for the second).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from mmc.games.actions import CodeActions
from mmc.games.gomoku._kernels import CELLS
from mmc.games.gomoku.state import State, legal_moves
from mmc.games.gomoku.text import cell_name
from mmc.games.gomoku.variants import Variant, get_variant

__all__ = ["NUM_POLICY_PLANES", "GomokuActions", "action_space"]

NUM_POLICY_PLANES = 1
"""The placement plane."""


@dataclass(frozen=True, eq=False)
class GomokuActions(CodeActions):
    """The action encoding of one variant (``lookup``: ``int32[2, CELLS]``, the same action of a cell code for black
    (row 0) and white (row 1), -1 off the board; ``policy_index`` the identity). Build with :func:`action_space`."""

    legal_moves = staticmethod(legal_moves)

    def text(self, move: int) -> str:
        return cell_name(int(move)) if 0 <= move < CELLS else str(move)

    def decode(self, action: int, state: State) -> int:
        """The legal move of ``state`` that ``action`` stands for; ``ValueError`` if none."""
        width = self.variant.width
        if 0 <= action < self.num_actions:
            move = 16 * (action // width) + action % width
            if move in legal_moves(state):
                return move
            text = cell_name(move)
        else:
            text = "no cell"
        raise ValueError(f"action {action} ({text}) is not a legal move in {state.variant_name} position {state.fen()}")


@cache
def action_space(variant: str | Variant) -> GomokuActions:
    """The action encoding of a variant (built once per process)."""
    v = get_variant(variant)
    lookup = np.full((2, CELLS), -1, dtype=np.int32)
    for rank in range(v.height):
        for file in range(v.width):
            lookup[:, 16 * rank + file] = rank * v.width + file
    return GomokuActions(v, v.cells, np.arange(v.cells, dtype=np.int64), lookup)
