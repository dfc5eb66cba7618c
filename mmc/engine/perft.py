"""Perft: the number of leaf nodes of the legal-move tree, the standard correctness check of a move generator.

The tree stops where a game ends by checkmate, stalemate or a variant rule (king exploded or
captured, a piece type extinct); repetition, fifty-move and ply-cap draws are ignored, as in the
oracle counts of ``shared/oracle/perft.csv``.
"""

from __future__ import annotations

from mmc.engine import _kernels as K
from mmc.engine.state import State, _array, apply_move, legal_moves, table

__all__ = ["perft", "perft_divide"]


def perft(state: State, depth: int) -> int:
    """Leaf nodes ``depth`` plies below ``state``; ``depth`` must be >= 0."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, got {depth}")
    return int(K.perft(_array(state), int(state.turn), depth, table(state.variant_name)))


def perft_divide(state: State, depth: int) -> list[tuple[str, int]]:
    """Perft split by first move: ``[(uci, nodes), ...]`` in move-generation order; ``depth`` must be >= 1."""
    if depth < 1:
        raise ValueError(f"perft --divide needs depth >= 1, got {depth}")
    return [(m.uci(), perft(apply_move(state, m), depth - 1)) for m in legal_moves(state)]
