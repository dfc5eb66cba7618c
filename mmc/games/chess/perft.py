"""Perft: the number of leaf nodes of the legal-move tree, the standard correctness check of a move generator.

The tree stops where a game ends by checkmate, stalemate or a variant rule (king exploded or
captured, a piece type extinct); repetition, fifty-move and ply-cap draws are ignored, as in the
oracle counts of ``shared/oracle/perft.csv``.
"""

from __future__ import annotations

from mmc.games.chess import _kernels as K
from mmc.games.chess.state import State, _array, apply_move, legal_moves, table

__all__ = ["MAX_DEPTH", "perft", "perft_divide"]

MAX_DEPTH = 15
"""The deepest perft counted. The oracle goes to depth 7; each ply multiplies a start position's count by about
12 (Gardner) to 15 (Los Alamos), so at some 7 million leaves a second depth 12 takes days and depth 15 years,
and counts much deeper would overflow the kernel's ``int64``."""


def _check_depth(depth: int, lowest: int) -> None:
    if not lowest <= depth <= MAX_DEPTH:
        raise ValueError(f"perft depth must be between {lowest} and {MAX_DEPTH}, got {depth}")


def perft(state: State, depth: int) -> int:
    """Leaf nodes ``depth`` plies below ``state``; ``depth`` must be in ``[0, MAX_DEPTH]``."""
    _check_depth(depth, 0)
    return int(K.perft(_array(state), int(state.turn), depth, table(state.variant_name)))


def perft_divide(state: State, depth: int) -> list[tuple[str, int]]:
    """Perft split by first move: ``[(uci, nodes), ...]`` in move-generation order; ``depth`` in ``[1, MAX_DEPTH]``."""
    _check_depth(depth, 1)
    return [(m.uci(), perft(apply_move(state, m), depth - 1)) for m in legal_moves(state)]
