"""The jump game's greedy heuristic (the ``heuristic`` of its game): the greedy player, Elo 0 of the family's ladder.

A complete move scores the position after it, from the mover's view: a won game :data:`WIN_VALUE` (a lost one its
negative, a drawn one 0), else the score difference (pieces in one's own target region minus the opponent's) times
:data:`SCORE_UNIT`, plus the progress of one's pieces (the sum of their ranks from their home edge), so that the
score difference comes first and progress breaks its ties.

An action scores **the best complete move it can lead to**: a step or a pass the position after it, a hop the
best over every way to finish its chain (ending it now or hopping on), an end the position after it. So greedy sees
a whole chain of captures as one move, as the rule book's player would, and never stops a chain short of a better
landing by accident. The end of a game by a ``max_plies`` below the variant's cap is not foreseen (the result is by
score there too, which the score difference already weighs).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mmc.games.jit import kernel
from mmc.games.jump.chain import BOARD_LEN, MAX_HOPS, MAX_MOVES, legal_moves_into, over, play
from mmc.games.jump.rules import H_NSQ, progress, score
from mmc.games.jump.state import Move, State, _array, table

__all__ = ["SCORE_UNIT", "WIN_VALUE", "greedy_scores", "heuristic", "position_value"]

WIN_VALUE = 1_000_000.0
"""What a move that wins at once scores: more than any score difference."""
SCORE_UNIT = 1000.0
"""One piece of score difference: more than any progress (at most 9 pieces x 7 ranks)."""


@kernel
def position_value(board, side, tab):
    """The greedy value of the position after a complete move of ``side``."""
    mine = score(board, tab, side)
    theirs = score(board, tab, -side)
    if over(board, tab):
        return WIN_VALUE if mine > theirs else (-WIN_VALUE if mine < theirs else 0.0)
    return (mine - theirs) * SCORE_UNIT + progress(board, tab, side)


@kernel
def _best_completion(board, side, tab):
    """The best :func:`_value` over every way to finish the chain under way on ``board`` (``side`` to move)."""
    levels = min(MAX_HOPS, tab[H_NSQ] - 1) + 2
    boards = np.empty((levels, BOARD_LEN), dtype=np.int8)
    moves = np.empty((levels, MAX_MOVES), dtype=np.int32)
    count = np.zeros(levels, dtype=np.int64)
    nxt = np.zeros(levels, dtype=np.int64)
    boards[0] = board
    count[0] = legal_moves_into(boards[0], side, tab, moves[0])
    best = -np.inf
    level = 0
    while level >= 0:
        if nxt[level] == count[level]:
            level -= 1
            continue
        move = moves[level, nxt[level]]
        nxt[level] += 1
        child = level + 1
        boards[child] = boards[level]
        _, _, plies = play(boards[child], side, move, tab)
        if plies:
            best = max(best, position_value(boards[child], side, tab))
            continue
        count[child] = legal_moves_into(boards[child], side, tab, moves[child])
        nxt[child] = 0
        level = child
    return best


@kernel
def greedy_scores(board, side, tab, moves, out):
    """Write the greedy score of each action ``moves[i]`` of ``side`` into ``out[i]`` (module docstring)."""
    for i in range(moves.shape[0]):
        after = board.copy()
        _, _, plies = play(after, side, moves[i], tab)
        out[i] = position_value(after, side, tab) if plies else _best_completion(after, side, tab)


def heuristic(state: State, moves: Sequence[Move]) -> np.ndarray:
    """``float64[len(moves)]``: the greedy score of each legal action of ``state`` (module docstring)."""
    out = np.empty(len(moves), dtype=np.float64)
    codes = np.array([m.code for m in moves], dtype=np.int32)
    greedy_scores(_array(state), int(state.turn), table(state.variant_name), codes, out)
    return out
