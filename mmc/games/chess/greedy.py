"""The chess family's greedy heuristic (the ``heuristic`` of its game): one-ply material greed.

A move scores the material balance (:func:`material`) after it, from the mover's view: so a capture scores the
captured piece's value over a quiet move (the most valuable piece is taken first); in atomic, the net material the
explosion removes from the opponent minus what it removes of the mover's own (a capture that blows up more of one's
own material scores below a quiet move); a promotion its gain. A move that ends the game scores :data:`WIN_VALUE`
for a win (checkmate, an exploded or captured king, extinction), 0 for a draw (stalemate, repetition, ...) and
``-WIN_VALUE`` for a loss: so greed takes a mate in one, and avoids stalemating an opponent it is ahead of. In dark
chess greed reads only the mover's observation (:func:`_seen_scores`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmc.games.chess.board import ONGOING, clock_end
from mmc.games.chess.dark import observe
from mmc.games.chess.state import Move, State, apply_move, outcome
from mmc.games.chess.variants import PieceType

__all__ = ["PIECE_VALUES", "WIN_VALUE", "heuristic", "material"]

PIECE_VALUES = np.array([0, 1, 3, 3, 5, 9, 100], dtype=np.int64)
"""Material value by piece type (index = ``PieceType``): P=1, N=3, B=3, R=5, Q=9, K=100 (a king can be
captured or exploded in dark, extinction and atomic)."""

WIN_VALUE = 1000
"""What greed scores a move that wins at once: more than any material."""


def material(state: State) -> int:
    """White's material minus Black's, in :data:`PIECE_VALUES` units."""
    board = state.board_array()
    return int(np.sum(np.sign(board) * PIECE_VALUES[np.abs(board)]))


def heuristic(state: State, moves: Sequence[Move]) -> np.ndarray:
    """``int64[len(moves)]``: the greedy score of each move (module docstring)."""
    if state.variant.hidden_information:
        return _seen_scores(state, moves)
    return np.array([_score(state, apply_move(state, move)) for move in moves])


def _score(state: State, after: State) -> int:
    """The position ``after`` a move in ``state``, from the mover's view."""
    result = outcome(after)
    if result is None:
        return material(after) * state.turn
    if result.winner is None:
        return 0
    return WIN_VALUE if result.winner is state.turn else -WIN_VALUE


def _seen_scores(state: State, moves: Sequence[Move]) -> np.ndarray:
    """The greedy scores in dark chess, from the mover's observation (:func:`mmc.games.chess.dark.observe`) alone.

    The material balance after each move, from the mover's pieces and the opponent's known material (every
    capture target is a seen square); :data:`WIN_VALUE` for taking the king; 0 for a move that reaches the
    fifty-move rule or the ply cap. A draw that hangs on what the mover cannot see (an opponent left without a
    move, a repetition of boards it never saw whole) is not foreseen: the true ``outcome`` after the move would
    read hidden squares.
    """
    obs = observe(state)
    own = obs.seen_board * obs.side
    balance = int(PIECE_VALUES[own[own > 0]].sum() - PIECE_VALUES @ obs.opponent_material)
    scores = np.empty(len(moves), dtype=np.int64)
    for i, move in enumerate(moves):
        taken = max(-int(own[move.to_square]), 0)
        if taken == PieceType.KING:
            scores[i] = WIN_VALUE
            continue
        irreversible = taken or own[move.from_square] == PieceType.PAWN
        halfmove = 0 if irreversible else obs.halfmove + 1
        if clock_end(halfmove, obs.ply + 1, state.max_plies) != ONGOING:
            scores[i] = 0
            continue
        promoted = 0 if move.promotion is None else PIECE_VALUES[move.promotion] - PIECE_VALUES[PieceType.PAWN]
        scores[i] = balance + PIECE_VALUES[taken] + promoted
    return scores
