"""Action encoding for the network: one placement plane.

An action is the cell a stone goes on, numbered row by row over the variant's own board, for either player::

    action = rank * W + file           (rank and file from 0: a1 = 0, b1 = 1, a2 = W)

    policy plane 0, shape [1, H, W]:   the logit of action a is at [0, a // W, a % W], so policy_index = a

A board of any size reads its actions off the same single plane, so one fully-convolutional network plays every
variant of the family. The kernels' move code of a cell is ``16 * rank + file``; :attr:`ActionSpace.lookup` maps it
to the action (the same for both players: the board is not turned for the second).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from mmc.games.gomoku._kernels import CELLS
from mmc.games.gomoku.state import State, legal_moves
from mmc.games.gomoku.text import cell_name
from mmc.games.gomoku.variants import Variant, get_variant

__all__ = ["NUM_POLICY_PLANES", "ActionSpace", "action_space"]

NUM_POLICY_PLANES = 1
"""The placement plane."""


@dataclass(frozen=True, eq=False)
class ActionSpace:
    """The action encoding of one variant. Build with :func:`action_space`."""

    variant: Variant
    num_actions: int
    """``H * W``."""
    policy_index: np.ndarray
    """``int64[num_actions]``: each action's position in the flattened ``[1, H, W]`` policy plane (itself)."""
    lookup: np.ndarray
    """``int32[2, CELLS]``: the action of each cell code, for black (row 0) and white (row 1); -1 off the board."""

    def encode(self, move: int, turn: int) -> int:
        """The action of a stone on ``move``, for either player; ``ValueError`` for a cell off the board."""
        action = int(self.lookup[0, move]) if 0 <= move < CELLS else -1
        if action < 0:
            raise ValueError(f"cell {move} is not on the {self.variant.name} board")
        return action

    def legal_actions(self, state: State) -> np.ndarray:
        """``int64[n]``: the actions of ``legal_moves(state)``, in the same order."""
        return self.lookup[0, list(legal_moves(state))].astype(np.int64)

    def legal_mask(self, state: State) -> np.ndarray:
        """``bool[num_actions]``: True for the actions of legal moves."""
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[self.legal_actions(state)] = True
        return mask

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
def action_space(variant: str | Variant) -> ActionSpace:
    """The action encoding of a variant (built once per process)."""
    v = get_variant(variant)
    lookup = np.full((2, CELLS), -1, dtype=np.int32)
    for rank in range(v.height):
        for file in range(v.width):
            lookup[:, 16 * rank + file] = rank * v.width + file
    return ActionSpace(v, v.cells, np.arange(v.cells, dtype=np.int64), lookup)
