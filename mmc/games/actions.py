"""The action space most families use: a table from the kernels' move codes to the network's actions.

:class:`CodeActions` is an :class:`~mmc.games.protocol.ActionSpace` read off ``lookup[row, code]``, the action of
move code ``code`` played by the first player (row 0) or the second (row 1). A family builds the table (its
``action_space(variant)``) and subclasses it, naming its ``legal_moves``; the other hooks have defaults for moves
that are their own codes (an ``int``: k in a row, the test game ``tests/games/bonus.py``, the example package
``examples/hexapawn``), which a family overrides where its moves are objects (chess: ``Move.code``, ``Move.uci``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

__all__ = ["CodeActions"]


@dataclass(frozen=True, eq=False)
class CodeActions:
    """The action encoding of one variant, read off a table of move codes (module docstring)."""

    variant: Any
    """The variant (the family's :class:`~mmc.games.protocol.VariantInfo`)."""
    num_actions: int
    """Actions of the variant."""
    policy_index: np.ndarray
    """``int64[num_actions]``: each action's position in the flattened ``[num_policy_planes, H, W]`` policy output."""
    lookup: np.ndarray
    """``int32[2, num_codes]``: the action of each move code, for the first player (row 0) and the second (row 1);
    -1 for none."""

    legal_moves: ClassVar[staticmethod[[Any], Sequence[Any]]]
    """The family's ``legal_moves(state)`` (a subclass sets it: ``legal_moves = staticmethod(legal_moves)``)."""

    def move_codes(self, state: Any) -> Sequence[int]:
        """Hook: the move codes of ``legal_moves(state)``, in the same order (default: each move's :meth:`code`)."""
        return [self.code(move) for move in self.moves(state)]

    def moves(self, state: Any) -> Sequence[Any]:
        """Hook: ``legal_moves(state)``."""
        return self.legal_moves(state)

    def code(self, move: Any) -> int:
        """Hook: the move code of ``move`` (default: the move is its code, an ``int``)."""
        return int(move)

    def text(self, move: Any) -> str:
        """Hook: the move text of ``move``, for errors (default: its ``str``)."""
        return str(move)

    def encode(self, move: Any, turn: int) -> int:
        """The action of ``move`` played by ``turn`` (+1 the first player, -1 the second)."""
        code = self.code(move)
        action = int(self.lookup[int(turn < 0), code]) if 0 <= code < self.lookup.shape[1] else -1
        if action < 0:
            raise ValueError(f"move {self.text(move)} has no action in {self.variant.name}")
        return action

    def legal_actions(self, state: Any) -> np.ndarray:
        """``int64[n]``: the actions of ``legal_moves(state)``, in the same order."""
        return self.lookup[int(state.turn < 0), self.move_codes(state)].astype(np.int64)

    def legal_mask(self, state: Any) -> np.ndarray:
        """``bool[num_actions]``: True for the actions of legal moves."""
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[self.legal_actions(state)] = True
        return mask

    def decode(self, action: int, state: Any) -> Any:
        """The legal move of ``state`` that ``action`` stands for; ``ValueError`` if none."""
        hits = np.flatnonzero(self.legal_actions(state) == action)
        if len(hits) == 0:
            raise ValueError(f"action {action} is not a legal move in {state.variant_name} position {state.fen()}")
        return self.moves(state)[int(hits[0])]
