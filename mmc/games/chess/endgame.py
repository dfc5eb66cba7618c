"""Endgame starts for self-play (the chess game's ``endgame`` hook, ``mmc.play.curriculum``): a position with random
non-king pieces taken off.

With material odds (one side loses pieces) or a thinned board (both sides do) won positions and mates turn up in
the first plies instead of after a long middlegame the network cannot yet win, so that the value and policy targets
of converted and mated positions are common in the data.
"""

from __future__ import annotations

import numpy as np

from mmc.games.chess.fen import FenError, board_fen
from mmc.games.chess.state import State, from_fen, outcome

__all__ = ["ENDGAME_TRIES", "KING", "endgame"]

KING = 6
"""The king's piece code (``mmc.games.chess.PieceType``); it is never taken off."""
ENDGAME_TRIES = 20
"""Draws of an endgame before :func:`endgame` keeps the position as it is."""


def endgame(state: State, rng: np.random.Generator) -> State:
    """``state`` with random non-king pieces taken off, a legal position whose game goes on.

    One draw picks the sides that lose pieces (White alone, Black alone, or both: material odds or a thinned
    board, each with probability 1/3) and a removal probability ``p ~ U(0.5, 1)``; each non-king piece of those
    sides is then taken off with probability ``p``. The result is built with :func:`mmc.games.chess.from_fen` (kings
    present, the side not to move not in check) from ``state``'s side to move, clocks and ply cap, and must have
    at least one piece fewer and no result yet (insufficient material, an extinct piece type); a draw that
    fails is drawn again, and after :data:`ENDGAME_TRIES` failures ``state`` is returned unchanged.
    """
    board = state.board_array()
    _, side, castling, en_passant, halfmove, fullmove = state.fen().split(" ")
    for _ in range(ENDGAME_TRIES):
        sides = (1, -1, 0)[int(rng.integers(3))]  # 0: both
        p = rng.uniform(0.5, 1.0)
        owner = np.sign(board)
        candidates = (board != 0) & (np.abs(board) != KING) & ((owner == sides) | (sides == 0))
        taken = candidates & (rng.random(board.shape) < p)
        if not taken.any():
            continue
        thinned = np.where(taken, 0, board).astype(np.int8)
        fen = f"{board_fen(thinned.tobytes(), state.variant)} {side} {castling} {en_passant} {halfmove} {fullmove}"
        try:
            candidate = from_fen(state.variant, fen, max_plies=state.max_plies)
        except FenError:
            continue
        if outcome(candidate) is None:
            return candidate
    return state
