"""The kernels of one action per complete move: the protocol's bundle (``Game.kernels``) of the family ``jump_moves``.

A complete move is a step, the forced pass, or a whole chain of hops, chosen in one decision; the turn passes after
every move (``ALTERNATES = True``), so the search tree's levels alternate as in chess. Everything but the moves is
the jump game's own and is imported, not copied: the rules' step and hop kernels (``mmc.games.jump.rules``), the
position array, the end of a move, the end of the game and its values (``mmc.games.jump.chain``, whose chain bytes
stay empty here: no chain is ever under way between the decisions of this encoding), the input planes
(``mmc.games.jump.observe``) and greedy's position value (``mmc.games.jump.greedy``). What this module adds is the
walk over a piece's chains, the move codes and the loops over them.

**A chain is told by its effect**: the square it starts from, the square it ends on and the pieces it captures. Two
chains with the same three (they differ only in the order of their landings, or in a detour over one's own pieces)
lead to the same position and are one move here, where the rule book's perft counts each landing sequence (so
:func:`perft` counts fewer from some positions than ``mmc.games.jump.chain.perft``). Where chains from one square to
another capture different pieces (a loop around a block of pieces), they are told apart by ``k``: the order in which
a depth-first walk of the piece's chains (directions in ``rules.DIRECTIONS`` order) first reaches each result on
that square.

**Move codes** (``int32``)::

    square | direction << 6                    a step (as in mmc.games.jump.chain)
    CHAINS + (k << 12 | start << 6 | end)      a chain from start to end, the k-th result on end (k < MAX_K)
    PASS                                       the forced pass

**The compiled cache.** These kernels embed the jump package's, so their cache is named after both packages'
source (:func:`kernel`): an edit of the jump rules compiles them afresh.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mmc.games import jit
from mmc.games.jump import chain
from mmc.games.jump.chain import (
    BOARD_LEN,
    CAP_DRAWN,
    CAP_LOST,
    CAP_WON,
    HOME_DRAWN,
    HOME_LOST,
    HOME_WON,
    MAX_HOPS,
    ONGOING,
    cutoff_value,
    end_value,
    finish_move,
    game_end,
    over,
    status,
)
from mmc.games.jump.greedy import position_value
from mmc.games.jump.observe import fill_planes
from mmc.games.jump.rules import H_DIRECTION_STEP, H_NSQ, SQ_OFF, hop, hop_capture, hop_landing, step, step_target

__all__ = [
    "ALTERNATES",
    "BOARD_LEN",
    "CAP_DRAWN",
    "CAP_LOST",
    "CAP_WON",
    "CHAINS",
    "HOME_DRAWN",
    "HOME_LOST",
    "HOME_WON",
    "MAX_K",
    "MAX_MOVES",
    "NUM_CODES",
    "ONGOING",
    "PASS",
    "advance",
    "chain_path",
    "cutoff_value",
    "end_value",
    "fill_planes",
    "game_end",
    "greedy_scores",
    "legal_moves_into",
    "perft",
    "play",
    "random_playout",
    "status",
]

CHAINS = 512
"""The first chain code (steps are ``0 .. 511``, as in ``mmc.games.jump.chain``)."""
MAX_K = 64
"""Results a piece's chains may reach on one square (every capture set of 6 pieces; on 8x8 a position that needs more
raises ``ValueError`` rather than drop a move)."""
PASS = CHAINS + MAX_K * 4096
"""The forced pass."""
NUM_CODES = PASS + 1
"""Move codes ``0 .. NUM_CODES - 1``."""
MAX_MOVES = 2048
"""The most legal moves a position may have (more raises ``ValueError``: no move is ever dropped)."""
MAX_RESULTS = 1024
"""The most distinct chain results of one piece (more raises ``ValueError``)."""
ALTERNATES = True
"""Every move passes the turn (the game protocol's flag)."""

DEPENDS_ON = (chain.__name__,)
"""The jump package, whose kernels these embed: their cache, and the search tree's compiled against them, are named
after its source too (``mmc.games.jit``), so an edit of the jump rules recompiles them."""


def kernel(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``mmc.games.jit.kernel``, the cache also named after the jump package's source (:data:`DEPENDS_ON`)."""
    return jit.kernel(fn, depends_on=DEPENDS_ON, **options)


@kernel
def _walk(board, tab, start, find, res_end, res_taken, res_k, path):
    """Walk every chain of the piece on ``start`` depth first (the board is restored on return) and record each new
    result (end square, captured squares as a bit set, its ``k``) in ``res_end``/``res_taken``/``res_k``; return
    the number of results. With ``find >= 0`` (a chain code's ``k << 12 | end``), stop at that result instead,
    write its landings into ``path`` (``path[0]`` their count) and return its captured squares' bit set; -1 if
    there is none. Each hop is the rules' :func:`hop`; a walk takes it back to try the next."""
    side = board[start]
    stride = tab[H_DIRECTION_STEP]
    depth_cap = min(MAX_HOPS, tab[H_NSQ] - 1)
    square = np.empty(depth_cap + 1, dtype=np.int64)
    direction = np.zeros(depth_cap + 1, dtype=np.int64)
    gone = np.full(depth_cap + 1, -1, dtype=np.int64)  # the square each hop captured on, -1 if none
    seen = np.int64(1) << np.int64(start)
    taken = np.int64(0)
    want_end, want_k = find & 63, find >> 12
    found = np.int64(-1)
    results = 0
    land = -1
    square[0] = start
    depth = 0
    while depth >= 0:
        here = square[depth]
        moved = False
        while direction[depth] < 8 and depth < depth_cap:
            d = direction[depth]
            direction[depth] += stride
            land = hop_landing(board, tab, here, d)
            if land < 0 or (seen >> np.int64(land)) & 1:
                continue
            gone[depth] = hop_capture(board, tab, here, d)
            hop(board, tab, here, d)
            if gone[depth] >= 0:
                taken |= np.int64(1) << np.int64(gone[depth])
            seen |= np.int64(1) << np.int64(land)
            depth += 1
            square[depth] = land
            direction[depth] = 0
            moved = True
            break
        if moved:
            new = True
            same_end = 0
            for r in range(results):
                if res_end[r] == land:
                    if res_taken[r] == taken:
                        new = False
                        break
                    same_end += 1
            if new:
                if results == MAX_RESULTS or same_end == MAX_K:
                    raise ValueError("jump complete-move encoding: a piece has more chain results than it can code")
                res_end[results] = land
                res_taken[results] = taken
                res_k[results] = same_end
                results += 1
                if find >= 0 and land == want_end and same_end == want_k:
                    path[0] = depth
                    for i in range(1, depth + 1):
                        path[i] = square[i]
                    found = taken
                    break
            continue
        # every hop from here tried: take back the hop that led here
        depth -= 1
        if depth < 0:
            break
        _take_back(board, square[depth], here, gone[depth], side)
        if gone[depth] >= 0:
            taken &= ~(np.int64(1) << np.int64(gone[depth]))
        seen &= ~(np.int64(1) << np.int64(here))
    if find >= 0:
        while depth > 0:  # stopped at the result: take back the hops still on the board
            here = square[depth]
            depth -= 1
            _take_back(board, square[depth], here, gone[depth], side)
        return found
    return results


@kernel(inline="always")
def _take_back(board, frm, land, captured, side):
    """Undo the hop of ``side``'s piece from ``frm`` to ``land`` that captured on ``captured`` (-1: nothing)."""
    board[frm] = side
    board[land] = 0
    if captured >= 0:
        board[captured] = -side


@kernel
def legal_moves_into(board, side, tab, out):
    """Write the legal move codes of ``side`` into ``out`` (``int32[MAX_MOVES]``) and return their count: square by
    square, the piece's steps (direction by direction), then its chains' results (in the walk's order); the pass
    when there is none; 0 once the game is over."""
    if over(board, tab):
        return 0
    res_end = np.empty(MAX_RESULTS, dtype=np.int64)
    res_taken = np.empty(MAX_RESULTS, dtype=np.int64)
    res_k = np.empty(MAX_RESULTS, dtype=np.int64)
    path = np.empty(1, dtype=np.int64)
    n = 0
    stride = tab[H_DIRECTION_STEP]
    for i in range(tab[H_NSQ]):
        sq = tab[SQ_OFF + i]
        if board[sq] != side:
            continue
        for d in range(0, 8, stride):
            if step_target(board, tab, sq, d) >= 0:
                if n == MAX_MOVES:
                    raise ValueError("jump complete-move encoding: more legal moves than MAX_MOVES")
                out[n] = sq | (d << 6)
                n += 1
        results = _walk(board, tab, sq, -1, res_end, res_taken, res_k, path)
        for r in range(results):
            if n == MAX_MOVES:
                raise ValueError("jump complete-move encoding: more legal moves than MAX_MOVES")
            out[n] = CHAINS + ((res_k[r] << 12) | (sq << 6) | res_end[r])
            n += 1
    if n == 0:
        out[0] = PASS
        n = 1
    return n


@kernel
def chain_path(board, tab, code, path):
    """The landings of the first chain (in the walk's order) that chain move ``code`` stands for: ``path[0]`` their
    count, ``path[1:]`` the squares; returns its captured squares' bit set, -1 if ``code`` is no chain of the
    position. ``board`` is left as it was."""
    c = code - CHAINS
    start = (c >> 6) & 63
    if board[start] == 0:
        return np.int64(-1)
    res_end = np.empty(MAX_RESULTS, dtype=np.int64)
    res_taken = np.empty(MAX_RESULTS, dtype=np.int64)
    res_k = np.empty(MAX_RESULTS, dtype=np.int64)
    return _walk(board, tab, start, np.int64((c >> 12) << 12 | (c & 63)), res_end, res_taken, res_k, path)


@kernel(inline="always")
def play(board, side, move, tab):
    """Play the legal ``move`` of ``side`` on ``board`` in place; return ``(next side, irreversible, plies)``: the
    opponent, True (no position repeats: the move counter is part of it) and 1."""
    if move < CHAINS:
        step(board, tab, move & 63, (move >> 6) & 7)
    elif move < PASS:
        path = np.empty(tab[H_NSQ] + 1, dtype=np.int64)
        taken = chain_path(board, tab, move, path)
        start = ((move - CHAINS) >> 6) & 63
        board[start] = 0
        board[path[path[0]]] = side
        for sq in range(64):
            if (taken >> np.int64(sq)) & 1:
                board[sq] = 0
    finish_move(board)
    return -side, True, 1


@kernel
def advance(board, side, move, tab, board_out, moves_out):
    """Play ``move`` into ``board_out`` and write the next player's legal codes into ``moves_out``: one compiled call
    per move for the Python API. Returns ``(next side, number of legal codes)``."""
    board_out[:] = board
    nxt, _, _ = play(board_out, side, move, tab)
    return nxt, legal_moves_into(board_out, nxt, tab, moves_out)


@kernel
def perft(board, side, depth, tab):
    """Sequences of ``depth`` complete moves of this encoding (a chain counted once per result, module docstring),
    a game that ends before the last move cutting its branch. Iterative (numba cannot cache recursion)."""
    if depth == 0:
        return np.int64(1)
    boards = np.empty((depth, board.shape[0]), dtype=np.int8)
    moves = np.empty((depth, MAX_MOVES), dtype=np.int32)
    count = np.zeros(depth, dtype=np.int64)
    nxt = np.zeros(depth, dtype=np.int64)
    sides = np.zeros(depth, dtype=np.int64)
    boards[0] = board
    sides[0] = side
    count[0] = legal_moves_into(boards[0], side, tab, moves[0])
    total = np.int64(0)
    level = 0
    while level >= 0:
        if level == depth - 1:
            total += count[level]
            level -= 1
            continue
        if nxt[level] == count[level]:
            level -= 1
            continue
        move = moves[level, nxt[level]]
        nxt[level] += 1
        child = level + 1
        boards[child] = boards[level]
        sides[child], _, _ = play(boards[child], sides[level], move, tab)
        nxt[child] = 0
        count[child] = legal_moves_into(boards[child], sides[child], tab, moves[child])
        level = child
    return total


@kernel
def random_playout(board, side, tab, seed):
    """Play uniformly random complete moves until the game ends; return the moves played."""
    np.random.seed(seed)
    out = np.empty(MAX_MOVES, dtype=np.int32)
    plies = 0
    while True:
        n = legal_moves_into(board, side, tab, out)
        if n == 0:
            return plies
        side, _, _ = play(board, side, out[np.random.randint(n)], tab)
        plies += 1


@kernel
def greedy_scores(board, side, tab, moves, out):
    """Write the greedy score of each complete move ``moves[i]`` of ``side`` into ``out[i]``: the jump game's greedy
    value of the position after it (``mmc.games.jump.greedy.position_value``, the same player as the chain
    encoding's, which scores a hop by its best completion)."""
    for i in range(moves.shape[0]):
        after = board.copy()
        play(after, side, moves[i], tab)
        out[i] = position_value(after, side, tab)
