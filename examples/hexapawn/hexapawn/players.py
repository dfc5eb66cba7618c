"""A player kind of this package, ``pawnrush`` (the ``mmc.players`` entry point): the most advanced pawn's move."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from hexapawn.game import legal_moves


class PawnRush:
    """Plays the move whose destination is furthest up the board from its side, ties drawn at random."""

    name = "pawnrush"

    def play(self, states: Sequence[Any], rng: np.random.Generator) -> list[Any]:
        out = []
        for state in states:
            moves = legal_moves(state)
            reach = np.array([((m % 16) // 4) * int(state.turn) for m in moves])
            out.append(moves[int(rng.choice(np.flatnonzero(reach == reach.max())))])
        return out


def pawn_rush(fields: list[str], variant: str) -> PawnRush:
    """The ``pawnrush`` spec's factory: it takes no options."""
    if fields:
        raise ValueError(f"pawnrush takes no options, got {':'.join(fields)!r}")
    return PawnRush()


pawn_rush.usage = "pawnrush"  # type: ignore[attr-defined]
