"""An exact solver for freestyle and gravity k-in-a-row boards: a position's value under perfect play (the mover
wins, draws or loses) and every move that keeps it.

It is the family's yardstick (``docs/concepts/mistakes.md``): a player's move is a mistake when it changes the
value of the position it was played in. The solver works on bitboards of its own, one bit per cell, the cells of a
file in consecutive bits and one empty bit above each file (bit ``file * (H + 1) + rank``), as John Tromp's and
Pascal Pons's Connect Four solvers do: a line of ``k`` is ``k`` shifts of one word, so a board needs
``W * (H + 1) <= 63`` bits (connect4's 7x6 and a 7x7 board fit, 8x8 does not). Only the freestyle rule (``k`` or
more win) and gravity are solved; the exact and caro rules (an overline or a blocked line does not win) are refused.
The win test is the family's rule on another representation: ``tests/games/test_solver.py`` checks it against the
kernels' (:func:`mmc.games.gomoku.board.makes_line`) on random positions of every solvable shape.

The search is a negamax alpha-beta over the three values with a transposition table (the full position is stored,
so no two positions share an entry), and three exact prunings: a move that makes a line wins at once; two open
cells that each complete an opponent's line lose; one such cell must be taken. With gravity a cell just below one
the opponent completes is never played, unless that leaves no move (then the mover loses). Moves are tried by the
number of lines they leave one stone short, then nearest the centre.

Limits (``BENCHMARKS.md``, "The k-in-a-row solver"): every board of nine cells or fewer, 4x4 and 5x4 from the start
in well under a second; connect4 and mnk_7x7_k4 once enough stones are down. A position the solver cannot finish
within ``node_limit`` raises :class:`SolverLimit` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mmc.games.gomoku.state import State, kernel_board
from mmc.games.gomoku.text import cell_name
from mmc.games.gomoku.variants import Rule, Variant, get_variant
from mmc.games.jit import kernel

__all__ = [
    "DEFAULT_NODE_LIMIT",
    "DRAW",
    "LOSS",
    "WIN",
    "Solution",
    "Solver",
    "SolverLimit",
    "check_solvable",
    "solve",
]

WIN, DRAW, LOSS = 1, 0, -1
"""A position's value for the player to move."""
DEFAULT_NODE_LIMIT = 20_000_000
"""Positions searched before :func:`solve` gives up on one (about ten seconds)."""
_TABLE_BITS = 22
"""Transposition table entries: 2**22 (4M, 72 MB)."""
_EXACT, _LOWER, _UPPER = 1, 2, 3
# constants array slots
_C_K, _C_H1, _C_BOARD, _C_BOTTOM, _C_GRAVITY, _C_CENTRE_F, _C_CENTRE_R = range(7)


class SolverLimit(RuntimeError):
    """The solver could not finish a position within its node limit."""


@kernel(inline="always")
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@kernel
def _winning_cells(p, c):
    """Every cell of the board on which a stone of the player whose stones are ``p`` makes ``k`` or more in a row
    (the cell itself may be taken: the caller masks it)."""
    k = c[_C_K]
    h1 = c[_C_H1]
    out = 0
    for d in (1, h1, h1 - 1, h1 + 1):
        for j in range(k):
            r = c[_C_BOARD]
            for i in range(k):
                if i == j:
                    continue
                t = (i - j) * d
                if t > 0:
                    r &= p >> t
                else:
                    r &= p << (-t)
            out |= r
    return out & c[_C_BOARD]


@kernel
def _can_line(free, c):
    """Whether the cells ``free`` (those the opponent has not taken) hold a whole line of ``k``."""
    k = c[_C_K]
    h1 = c[_C_H1]
    free &= c[_C_BOARD]
    for d in (1, h1, h1 - 1, h1 + 1):
        r = free
        for i in range(1, k):
            r &= free >> (i * d)
        if r:
            return True
    return False


@kernel
def _live(cur, opp, c):
    """The cells of every line of ``k`` that one player can still complete (none of the other's stones in it). A
    stone on any other cell, a *dead* one, can never be part of a line."""
    k = c[_C_K]
    h1 = c[_C_H1]
    live = 0
    for free in (c[_C_BOARD] & ~opp, c[_C_BOARD] & ~cur):
        for d in (1, h1, h1 - 1, h1 + 1):
            r = free
            for i in range(1, k):
                r &= free >> (i * d)
            for i in range(k):
                live |= r << (i * d)
    return live & c[_C_BOARD]


@kernel(inline="always")
def _legal(occ, c):
    if c[_C_GRAVITY]:
        return (occ + c[_C_BOTTOM]) & c[_C_BOARD]
    return c[_C_BOARD] & ~occ


@kernel
def _negamax(cur, occ, alpha, beta, c, t_occ, t_cur, t_flag, t_val, work):
    """The value of the position (``cur``: the mover's stones, ``occ``: every stone) for the mover, within
    ``[alpha, beta]`` as alpha-beta bounds it; ``work[0]`` counts positions, ``work[2]`` is set once ``work[1]`` of
    them are passed (the value is then meaningless).

    The recursion runs on a stack of its own (one level per stone, at most 63): numba's cache cannot reload a
    recursive function."""
    depth = 64
    s_cur = np.empty(depth, np.int64)
    s_occ = np.empty(depth, np.int64)
    s_alpha = np.empty(depth, np.int64)
    s_beta = np.empty(depth, np.int64)
    s_alpha0 = np.empty(depth, np.int64)
    s_slot = np.empty(depth, np.int64)
    s_best = np.empty(depth, np.int64)
    s_next = np.empty(depth, np.int64)
    s_count = np.empty(depth, np.int64)
    s_order = np.empty((depth, 64), np.int64)
    score = np.empty(64, np.int64)
    h1 = c[_C_H1]
    sp = 0
    s_cur[0], s_occ[0], s_alpha[0], s_beta[0] = cur, occ, alpha, beta
    entering = True
    result = 0
    while True:
        if entering:
            entering = False
            work[0] += 1
            if work[0] > work[1]:
                work[2] = 1
                return 0
            cur, occ, alpha, beta = s_cur[sp], s_occ[sp], s_alpha[sp], s_beta[sp]
            moves = _legal(occ, c)
            opp = occ ^ cur
            resolved = True
            if moves == 0:
                result = 0
            elif _winning_cells(cur, c) & moves:
                result = 1
            else:
                threats = _winning_cells(opp, c) & ~occ
                forced = threats & moves
                if forced & (forced - 1):
                    result = -1
                else:
                    if forced:
                        moves = forced
                    if c[_C_GRAVITY]:
                        moves &= ~(threats >> 1)
                    elif not forced:
                        # without gravity a stone on a dead cell is a pass, and a pass is never better than a
                        # stone on a live cell (a stone of one's own never hurts in k in a row): dead cells wait
                        live = moves & _live(cur, opp, c)
                        if live:
                            moves = live
                    if moves == 0:
                        result = -1
                    else:
                        resolved = False
            if not resolved:
                if not _can_line(~opp, c) and beta > 0:
                    beta = 0
                if not _can_line(~cur, c) and alpha < 0:
                    alpha = 0
                if alpha >= beta:
                    result = alpha
                    resolved = True
            if not resolved:
                key = occ * -7046029254386353131 + cur * 0x2545F4914F6CDD1D
                slot = ((key >> 20) ^ key) & (t_occ.shape[0] - 1)
                if t_flag[slot] != 0 and t_occ[slot] == occ and t_cur[slot] == cur:
                    v = t_val[slot]
                    flag = t_flag[slot]
                    if flag == _EXACT:
                        result = v
                        resolved = True
                    else:
                        if flag == _LOWER and v > alpha:
                            alpha = v
                        elif flag == _UPPER and v < beta:
                            beta = v
                        if alpha >= beta:
                            result = v
                            resolved = True
            if not resolved:
                n = 0
                rest = moves
                while rest:
                    m = rest & -rest
                    rest ^= m
                    bit = 0
                    while (m >> bit) != 1:
                        bit += 1
                    f = bit // h1
                    r = bit - f * h1
                    near = -(abs(f - c[_C_CENTRE_F]) + abs(r - c[_C_CENTRE_R]))
                    s = _popcount(_winning_cells(cur | m, c) & ~(occ | m)) * 64 + near
                    i = n
                    while i > 0 and score[i - 1] < s:
                        score[i] = score[i - 1]
                        s_order[sp, i] = s_order[sp, i - 1]
                        i -= 1
                    score[i] = s
                    s_order[sp, i] = m
                    n += 1
                s_alpha[sp], s_beta[sp], s_alpha0[sp], s_slot[sp] = alpha, beta, alpha, slot
                s_best[sp], s_next[sp], s_count[sp] = -1, 0, n
        else:
            # back from a child whose value (for its mover) is ``result``
            sp -= 1
            v = -result
            if v > s_best[sp]:
                s_best[sp] = v
                if v > s_alpha[sp]:
                    s_alpha[sp] = v
                    if v >= s_beta[sp]:
                        s_next[sp] = s_count[sp]
            resolved = False
        if not resolved:
            if s_next[sp] < s_count[sp]:
                m = s_order[sp, s_next[sp]]
                s_next[sp] += 1
                s_cur[sp + 1] = s_occ[sp] ^ s_cur[sp]
                s_occ[sp + 1] = s_occ[sp] | m
                s_alpha[sp + 1] = -s_beta[sp]
                s_beta[sp + 1] = -s_alpha[sp]
                sp += 1
                entering = True
                continue
            best = s_best[sp]
            slot = s_slot[sp]
            t_occ[slot] = s_occ[sp]
            t_cur[slot] = s_cur[sp]
            t_val[slot] = best
            if best <= s_alpha0[sp]:
                t_flag[slot] = _UPPER
            elif best >= s_beta[sp]:
                t_flag[slot] = _LOWER
            else:
                t_flag[slot] = _EXACT
            result = best
        if sp == 0:
            return result


@kernel
def _solve_children(cur, occ, moves, c, t_occ, t_cur, t_flag, t_val, work, values, exact):
    """Each move's value for the mover into ``values`` (its index in ``moves``; 2: it does not win, in a won
    position, unless ``exact``); returns False if the node limit stopped the search.

    Never a full-window search, two null-window tests per move at most: whether the move wins (the opponent's value
    after it is at most -1), then, where no move wins (or ``exact``), whether it draws (the opponent's value is at
    most 0) or loses. In a won position every move that does not win is a mistake alike, so that second test, the
    costly one, is left out unless asked for."""
    n = moves.shape[0]
    wins = False
    completing = _winning_cells(cur, c)
    for i in range(n):
        m = moves[i]
        if completing & m:
            values[i] = 1
            wins = True
            continue
        v = -_negamax(occ ^ cur, occ | m, -1, 0, c, t_occ, t_cur, t_flag, t_val, work)
        if work[2]:
            return False
        values[i] = 1 if v >= 1 else 2
        wins = wins or v >= 1
    if wins and not exact:
        return True
    for i in range(n):
        if values[i] != 2:
            continue
        v = -_negamax(occ ^ cur, occ | moves[i], 0, 1, c, t_occ, t_cur, t_flag, t_val, work)
        if work[2]:
            return False
        values[i] = 0 if v >= 0 else -1
    return True


@dataclass(frozen=True)
class Solution:
    """A position's value and the moves that keep it."""

    value: int
    """:data:`WIN`, :data:`DRAW` or :data:`LOSS` for the player to move."""
    keeping: tuple[int, ...]
    """The legal moves (cells) whose play keeps :attr:`value`, in the order of ``legal_moves``."""
    values: dict[int, int | None]
    """Every legal move's value for the player who makes it; in a won position ``None`` for a move that does not
    win (a draw or a loss: the solver tells them apart only when asked, ``exact=True``)."""
    nodes: int
    """Positions searched."""

    @property
    def critical(self) -> bool:
        """Whether some legal move changes the value (a mistake is possible)."""
        return len(self.keeping) < len(self.values)


def check_solvable(variant: str | Variant) -> Variant:
    """The variant if the solver takes its boards; ``ValueError`` in one line naming what it cannot take."""
    v = get_variant(variant)
    if v.rule != Rule.FREESTYLE:
        raise ValueError(f"the k-in-a-row solver takes freestyle and gravity boards only, not {v.name} ({v.rule.name})")
    if v.width * (v.height + 1) > 63:
        raise ValueError(
            f"the k-in-a-row solver takes boards with files x (ranks + 1) <= 63, not {v.name} ({v.width}x{v.height})"
        )
    return v


class Solver:
    """A solver for one variant's positions, whose transposition table is kept from one position to the next (the
    positions of one game share much of their search)."""

    def __init__(self, variant: str | Variant, *, node_limit: int = DEFAULT_NODE_LIMIT) -> None:
        self.variant = check_solvable(variant)
        self.node_limit = node_limit
        v = self.variant
        h1 = v.height + 1
        board = bottom = 0
        for f in range(v.width):
            bottom |= 1 << (f * h1)
            for r in range(v.height):
                board |= 1 << (f * h1 + r)
        self._consts = np.array(
            [v.k, h1, board, bottom, int(v.gravity), (v.width - 1) // 2, (v.height - 1) // 2], dtype=np.int64
        )
        size = 1 << _TABLE_BITS
        self._table = (
            np.zeros(size, np.int64),
            np.zeros(size, np.int64),
            np.zeros(size, np.int8),
            np.zeros(size, np.int8),
        )

    def _bit(self, cell: int) -> int:
        return (cell & 15) * (self.variant.height + 1) + (cell >> 4)

    def solve(self, state: State, *, exact: bool = False) -> Solution:
        """The value of ``state`` and its keeping moves (with ``exact``, every move's value even in a won position);
        ``ValueError`` if the game is over or of another variant, :class:`SolverLimit` naming the position if the
        node limit is passed."""
        from mmc.games.gomoku.state import legal_moves

        if state.variant_name != self.variant.name:
            raise ValueError(f"a {self.variant.name} solver cannot solve a {state.variant_name} position")
        legal = legal_moves(state)
        if not legal:
            raise ValueError(f"{state.variant_name} position {state.fen()!r} is over: there is nothing to solve")
        board = kernel_board(state)
        cur = occ = 0
        for rank in range(self.variant.height):
            for file in range(self.variant.width):
                stone = int(board[16 * rank + file])
                if stone:
                    bit = 1 << self._bit(16 * rank + file)
                    occ |= bit
                    if stone == int(state.turn):
                        cur |= bit
        moves = np.array([1 << self._bit(m) for m in legal], dtype=np.int64)
        values = np.zeros(len(legal), dtype=np.int64)
        work = np.array([0, self.node_limit, 0], dtype=np.int64)
        if not _solve_children(cur, occ, moves, self._consts, *self._table, work, values, exact):
            raise SolverLimit(
                f"{state.variant_name} position {state.fen()!r} is not solved within {self.node_limit:,} positions"
            )
        value = 1 if (values == 1).any() else int(values.max())
        by_move = {m: (None if x == 2 else int(x)) for m, x in zip(legal, values, strict=True)}
        keeping = tuple(m for m in legal if by_move[m] == value)
        return Solution(value, keeping, by_move, int(work[0]))


def solve(state: State, *, node_limit: int = DEFAULT_NODE_LIMIT, exact: bool = False) -> Solution:
    """The value of ``state`` for the player to move and every move that keeps it (a fresh :class:`Solver`;
    ``exact``: :meth:`Solver.solve`)."""
    return Solver(state.variant_name, node_limit=node_limit).solve(state, exact=exact)


def describe(solution: Solution) -> str:
    """``"win: d4 e4"``: the value and its keeping moves, as text."""
    name = {WIN: "win", DRAW: "draw", LOSS: "loss"}[solution.value]
    return f"{name}: {' '.join(cell_name(m) for m in solution.keeping)}"
