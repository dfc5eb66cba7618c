"""Self-play starts other than the variant's start position: a curriculum, for self-play only.

``SearchConfig.random_opening_plies`` starts every self-play game after that many uniformly random legal plies
(:func:`mmc.play.arena.random_opening`, the evaluation's openings); ``SearchConfig.endgame_starts`` starts a
fraction of the games from an endgame (:func:`endgame`): the position reached with random non-king pieces taken
off. With material odds (one side loses pieces) or a thinned board (both sides do) won positions and mates turn
up in the first plies instead of after a long middlegame the network cannot yet win, so that the value and policy
targets of converted and mated positions are common in the data. Every draw comes from the game's own generator,
and none is drawn while both settings are off.
"""

from __future__ import annotations

import numpy as np

from mmc.engine import FenError, Move, State, from_fen, outcome
from mmc.engine.fen import board_fen
from mmc.play.arena import random_opening
from mmc.search.config import SearchConfig

__all__ = ["ENDGAME_TRIES", "endgame", "self_play_start"]

KING = 6
"""The king's piece code (``mmc.engine.PieceType``); it is never taken off."""
ENDGAME_TRIES = 20
"""Draws of an endgame before :func:`endgame` keeps the position as it is."""


def endgame(state: State, rng: np.random.Generator) -> State:
    """``state`` with random non-king pieces taken off, a legal position whose game goes on.

    One draw picks the sides that lose pieces (White alone, Black alone, or both: material odds or a thinned
    board, each with probability 1/3) and a removal probability ``p ~ U(0.5, 1)``; each non-king piece of those
    sides is then taken off with probability ``p``. The result is built with :func:`mmc.engine.from_fen` (kings
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


def self_play_start(start: State, config: SearchConfig, rng: np.random.Generator) -> tuple[State, list[Move]]:
    """Where a self-play game begins: ``config.random_opening_plies`` random plies from ``start``, then, with
    probability ``config.endgame_starts``, :func:`endgame` of that position. Returns the position and the random
    moves that led to it from ``start`` (none when it is an endgame: it is not reached by moves)."""
    state, moves = random_opening(start, config.random_opening_plies, rng)
    if config.endgame_starts and rng.random() < config.endgame_starts:
        thinned = endgame(state, rng)
        if thinned is not state:
            return thinned, []
    return state, moves
