"""Compiled rules of the k-in-a-row family: legal cells, placing a stone, the winning line, the end, perft.

Cells are numbered sixteen to a rank whatever the board's size, so that a move's code and its text (``d5``) do
not depend on the variant (as chess numbers squares eight to a rank)::

    rank 15 | 224 225 226 ... 238 | 239        a15 .. o15   (15x15 only)
      ...
    rank 3  |  32  33  34 ...  46 |  47
    rank 2  |  16  17  18 ...  30 |  31
    rank 1  |   0   1   2 ...  14 |  15        a1 .. o1
               a   b   c  ...   o   (pad)      cell = 16 * rank + file (rank and file from 0)

A board of W files and H ranks uses files ``0 .. W-1`` and ranks ``0 .. H-1``; every other cell of the 240 stays
empty for ever. File 15 is never on a board, so a line that runs off the left or right edge steps onto an empty
cell (the padding column) and stops there, and one that runs off the top or bottom steps onto an empty rank or
out of ``0 .. CELLS-1``: the line scans need no file checks, and an edge reads as an empty (open) cell, as the
caro rule wants.

A position array is ``int8[BOARD_LEN]``::

    board[0 .. 239]     +1 a black stone (the first player), -1 a white stone, 0 empty
    board[LAST_RANK]    rank of the last stone placed, -1 if unknown (the start, or a position read from text)
    board[LAST_FILE]    its file
    board[WON]          1 once a stone has made a winning line (the game is over: no legal move), else 0

``side`` is +1 (black) or -1 (white); a move is its cell; ``tab`` is the variant's rule table
(``mmc.games.gomoku.variants.build_table``: height, width, k, rule, gravity). The game is over when
:func:`legal_moves_into` finds no move: a winning line (``board[WON]``) or a full board. The win test looks only at
the four lines through the stone just placed (:func:`makes_line`).

This module is the family's own; other packages use it through its public face, ``mmc.games.gomoku.board``.
"""

from __future__ import annotations

import numpy as np

from mmc.games.gomoku.variants import T_GRAVITY, T_HEIGHT, T_K, T_RULE, T_WIDTH, Rule
from mmc.games.jit import kernel

__all__ = [
    "ALTERNATES",
    "BOARD_LEN",
    "CELLS",
    "DIRECTIONS",
    "DRAWN",
    "FULL_BOARD",
    "LAST_FILE",
    "LAST_RANK",
    "LOST",
    "MAX_MOVES",
    "MOVE_CAP",
    "ONGOING",
    "WON",
    "advance",
    "count_moves",
    "cutoff_value",
    "end_value",
    "game_end",
    "greedy_scores",
    "has_line",
    "legal_moves_into",
    "line_cells",
    "makes_line",
    "perft",
    "play",
    "random_playout",
    "status",
]

CELLS = 240
"""Cells of the numbering: 15 ranks of 16 (the last file is padding)."""
LAST_RANK, LAST_FILE, WON = CELLS, CELLS + 1, CELLS + 2
BOARD_LEN = CELLS + 3
MAX_MOVES = 225
"""The most legal moves: an empty 15x15 board."""
DIRECTIONS = (1, 16, 17, 15)
"""The four lines through a cell as cell steps: along the rank, along the file, the two diagonals."""

ONGOING, LOST, FULL_BOARD, MOVE_CAP = 0, 1, 2, 3
"""End codes (:func:`game_end`), from the view of the player to move: the opponent made a line, the board is full,
the move cap is reached."""
DRAWN = FULL_BOARD
"""What :func:`status` says of a finished game without a line."""
ALTERNATES = True
"""The turn passes after every move (the game protocol's flag: ``mmc.games.protocol``)."""

_FREESTYLE, _EXACT = int(Rule.FREESTYLE), int(Rule.EXACT)


@kernel(inline="always")
def _run(board, cell, side, step):
    """The maximal run of ``side``'s stones through ``cell`` along ``step``, ``cell`` counted as one of them:
    ``(length, the cell beyond its far end, the cell beyond its near end)`` (either may be off the numbering)."""
    length = 1
    far = cell + step
    while far < CELLS and board[far] == side:
        length += 1
        far += step
    near = cell - step
    while near >= 0 and board[near] == side:
        length += 1
        near -= step
    return length, far, near


@kernel(inline="always")
def _blocked(board, cell, side):
    """Whether ``cell``, just beyond the end of a run of ``side``'s, holds an opponent stone (an edge is open)."""
    return 0 <= cell < CELLS and board[cell] == -side


@kernel(inline="always")
def _winning_directions(board, cell, side, tab, first_only):
    """The directions (bit ``d`` for ``DIRECTIONS[d]``) along which ``side``'s stone on ``cell`` is part of a
    winning line under the variant's rule: freestyle, ``k`` or more; exact, exactly ``k``; caro, exactly ``k`` and
    not blocked by the opponent at both ends (an edge is open). Stops at the first when ``first_only``. The one
    implementation of the rule, written out in one function: numba compiles it about five times faster than with
    the rule in a helper of its own, and the planes call it twice per legal cell."""
    k = tab[T_K]
    rule = tab[T_RULE]
    found = 0
    for d in range(4):
        length, far, near = _run(board, cell, side, DIRECTIONS[d])
        if rule == _FREESTYLE:
            if length >= k:
                found |= 1 << d
        elif length == k and (rule == _EXACT or not (_blocked(board, far, side) and _blocked(board, near, side))):
            found |= 1 << d
        if found != 0 and first_only:
            break
    return found


@kernel
def makes_line(board, cell, side, tab):
    """Whether ``side``'s stone on ``cell`` is part of a winning line (one direction is enough)."""
    return _winning_directions(board, cell, side, tab, True) != 0


@kernel
def line_cells(board, cell, side, tab, out):
    """The cells of every winning line through ``side``'s stone on ``cell`` into ``out`` (``int32[4 * 15]``);
    returns their count (0 if the stone makes none)."""
    found = _winning_directions(board, cell, side, tab, False)
    n = 0
    for d in range(4):
        if found & (1 << d):
            step = DIRECTIONS[d]
            _, far, near = _run(board, cell, side, step)
            for c in range(near + step, far, step):
                out[n] = c
                n += 1
    return n


@kernel
def has_line(board, side, tab):
    """The first stone of ``side`` that is part of a winning line, or -1 (a position read from text)."""
    for rank in range(tab[T_HEIGHT]):
        for file in range(tab[T_WIDTH]):
            cell = 16 * rank + file
            if board[cell] == side and makes_line(board, cell, side, tab):
                return cell
    return -1


@kernel
def legal_moves_into(board, side, tab, out):
    """The legal cells into ``out`` (``int32[MAX_MOVES]``), rank by rank from a1 (with gravity: the lowest empty cell
    of each column, file by file); returns their count, 0 once a line is made or the board is full."""
    if board[WON] != 0:
        return 0
    height = tab[T_HEIGHT]
    width = tab[T_WIDTH]
    n = 0
    if tab[T_GRAVITY] != 0:
        for file in range(width):
            for rank in range(height):
                if board[16 * rank + file] == 0:
                    out[n] = 16 * rank + file
                    n += 1
                    break
        return n
    for rank in range(height):
        for file in range(width):
            if board[16 * rank + file] == 0:
                out[n] = 16 * rank + file
                n += 1
    return n


@kernel(inline="always")
def play(board, side, move, tab):
    """Place ``side``'s stone on the legal cell ``move`` in place, note it as the last stone and whether it made a
    winning line; returns ``(next side, irreversible, plies)``: the opponent, True (a stone stays for ever), 1."""
    board[move] = side
    board[LAST_RANK] = move >> 4
    board[LAST_FILE] = move & 15
    if makes_line(board, move, side, tab):
        board[WON] = 1
    return -side, True, 1


@kernel
def status(board, side, tab):
    """The end of a position without legal moves, for ``side`` to move: ``LOST`` after the opponent's line, else
    ``DRAWN`` (the board is full)."""
    return LOST if board[WON] != 0 else DRAWN


@kernel
def game_end(board, side, tab, num_moves, repetitions, clock, ply, max_plies):
    """``ONGOING`` or why the game is over: ``LOST`` (the opponent's stone made a line) or ``FULL_BOARD`` when
    ``num_moves`` (from :func:`legal_moves_into`) is 0, else ``MOVE_CAP`` once ``ply`` reaches ``max_plies``.
    Positions never repeat: ``repetitions`` and ``clock`` are unused."""
    if num_moves == 0:
        return status(board, side, tab)
    if ply >= max_plies:
        return MOVE_CAP
    return ONGOING


@kernel
def advance(board, side, move, tab, ply, max_plies, after, out):
    """``after`` = ``board`` with ``side``'s stone on ``move`` (:func:`play`), the opponent's legal cells there into
    ``out``; returns their count and the :func:`game_end` code of ``after`` (its ply ``ply``, the cap ``max_plies``).
    The Python API's one compiled call per move."""
    after[:] = board
    play(after, side, move, tab)
    n = legal_moves_into(after, -side, tab, out)
    return n, game_end(after, -side, tab, n, 0, 0, ply, max_plies)


@kernel
def end_value(code):
    """A finished game's value for the player to move: -1 after the opponent's line, 0 for a draw."""
    return -1.0 if code == LOST else 0.0


@kernel(inline="always")
def cutoff_value(board, side, tab):
    """A random playout stopped before the game's end counts as a draw: 0."""
    return 0.0


@kernel
def count_moves(board, tab):
    """The legal moves of a position without a line, counted without listing them: the empty cells, or with
    gravity the columns that are not full."""
    height = tab[T_HEIGHT]
    width = tab[T_WIDTH]
    n = 0
    if tab[T_GRAVITY] != 0:
        for file in range(width):
            n += board[16 * (height - 1) + file] == 0
        return n
    for rank in range(height):
        for file in range(width):
            n += board[16 * rank + file] == 0
    return n


@kernel
def perft(board, side, depth, tab):
    """Leaves of the legal-move tree ``depth`` moves deep; a finished game has no moves (a line or a full board).

    Iterative (numba cannot cache recursive functions), on one board: a stone is placed on the way down and lifted
    on the way back. The last level is counted, not played: :func:`count_moves` of each position one move above.
    """
    if depth == 0:
        return np.int64(1)
    b = board.copy()
    moves = np.empty((depth, MAX_MOVES), dtype=np.int32)
    count = np.zeros(depth, dtype=np.int64)
    nxt = np.zeros(depth, dtype=np.int64)
    count[0] = legal_moves_into(b, side, tab, moves[0])
    if depth == 1:
        return count[0]
    total = np.int64(0)
    ply = 0
    while True:
        if nxt[ply] == count[ply]:
            if ply == 0:
                return total
            ply -= 1
            b[moves[ply, nxt[ply] - 1]] = 0
            continue
        move = moves[ply, nxt[ply]]
        nxt[ply] += 1
        mover = side if ply % 2 == 0 else -side
        b[move] = mover
        won = makes_line(b, move, mover, tab)
        if ply == depth - 2:
            if not won:
                total += count_moves(b, tab)
            b[move] = 0
        elif won:
            b[move] = 0
        else:
            ply += 1
            count[ply] = legal_moves_into(b, -mover, tab, moves[ply])
            nxt[ply] = 0


@kernel
def random_playout(board, side, tab, seed, max_plies):
    """Play uniformly random legal moves on ``board`` until the game ends or ``max_plies``; returns the plies played
    (the benchmarks' compiled reference for the Python API's playout loop)."""
    np.random.seed(seed)
    out = np.empty(MAX_MOVES, dtype=np.int32)
    for ply in range(max_plies):
        n = legal_moves_into(board, side, tab, out)
        if n == 0:
            return ply
        side, _, _ = play(board, side, out[np.random.randint(n)], tab)
    return max_plies


_WIN_SCORE, _BLOCK_SCORE = 1_000_000, 1_000


@kernel
def greedy_scores(board, side, tab, moves, out):
    """The greedy player's score of each of ``moves`` (legal cells) for ``side`` into ``out`` (``float64[n]``):
    ``1e6`` for a move that wins now, else ``1e3`` for one that takes a cell where the opponent would win now, else
    the length of the longest run of ``side``'s stones the new stone is part of."""
    b = board.copy()
    for i in range(moves.shape[0]):
        cell = moves[i]
        b[cell] = side
        if makes_line(b, cell, side, tab):
            out[i] = _WIN_SCORE
        else:
            longest = 1
            for step in DIRECTIONS:
                longest = max(longest, _run(b, cell, side, step)[0])
            b[cell] = -side
            out[i] = _BLOCK_SCORE if makes_line(b, cell, -side, tab) else longest
        b[cell] = 0
    return out
