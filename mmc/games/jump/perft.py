"""Perft of the jump game as the rule book defines it: sequences of ``depth`` complete moves, counted in compiled code
(``mmc.games.jump.chain.perft``). A chain is one complete move told by its landing squares (``c3-c5`` and
``c3-c5-e5`` are two), a game that ends before the ``depth``-th move cuts its branch, and the end is the rule book's
(the race, the variant's cap): a lower ``max_plies`` of the state is not a rule and is ignored. From a position with
a chain under way, the first move is that chain's completion.
"""

from __future__ import annotations

from mmc.games.jump import chain as K
from mmc.games.jump.state import State, _array, table

__all__ = ["MAX_DEPTH", "perft"]

MAX_DEPTH = 15
"""The deepest perft counted (``mmc.games.perft.MAX_DEPTH``)."""


def perft(state: State, depth: int) -> int:
    """The complete-move sequences ``depth`` moves deep from ``state``; ``depth`` in ``[0, MAX_DEPTH]``."""
    if not 0 <= depth <= MAX_DEPTH:
        raise ValueError(f"perft depth must be between 0 and {MAX_DEPTH}, got {depth}")
    return int(K.perft(_array(state), int(state.turn), depth, table(state.variant_name)))
