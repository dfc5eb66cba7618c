"""How a move is encoded for the search and the network: one action per hop, plus "end the chain".

**The choice.** A complete move of the rule book is a step, a pass, or a chain of up to 99 hops. Here every hop is
an action of its own, and the same player moves again while its chain is under way (as OpenSpiel's
chinese_checkers does); the player then plays "end" to stop, or the chain ends by itself when its piece has no hop
left (or has made :data:`MAX_HOPS`). Why: the action space stays small and fixed (one action per from-square,
kind and direction, the same for every board of the family, 18 policy planes), a network's logit for a hop is read
at the square it starts from, and the number of complete moves of a position (which a chain of captures can make
large, and which has no fixed bound) never sizes an array. The price: the tree is deeper, its levels do not
alternate between the players (``ALTERNATES = False``: the protocol negates a value only where the player changes),
and a decision the network makes once per complete move in the other encoding (one action per complete move) is
made once per hop here. That encoding was built too (the family ``jump_moves``, now the example package
``examples/jump_moves``, outside the library), and learning per CPU-minute was measured the same in both
(BENCHMARKS.md, "Issue 33: the jump game chain encoding measured": +182 Elo at 4.3 CPU-minutes each, four seeds). The
rules themselves (``mmc.games.jump.rules``: steps, hops, captures, the end) are shared and know nothing of either.

**The position array** (``int8[BOARD_LEN]``) therefore carries the chain under way and the move counter::

    0 .. 63    the squares (mmc.games.jump.rules): +1 Black (first player), -1 White, 0 empty
    64 CHAIN   the square of the piece whose chain is under way, -1 between moves
    65 HOPS    the hops it has made in this move (0 between moves)
    66 .. 73   VISITED: the squares it has stood on in this move (its start included), one byte a rank, bit f
               for file f (a chain never lands on one of them again; all 0 between moves)
    74, 75     PLY: complete moves played (passes included), little-endian: the rule book's ply count

**Move codes** (``int32``), from the rule book's squares::

    square | direction << 6               a step (direction 0..7: N NE E SE S SW W NW, rules.DIRECTIONS)
    square | direction << 6 | 1 << 9     a hop from square (between moves: any of the mover's pieces; during a
                                         chain: only the chain's piece)
    END + square                         end the chain whose piece stands on square (only during a chain)
    PASS                                 the forced pass (only when the mover has no step and no hop)

A hop after which the chain goes on counts no ply (``play`` returns ``plies = 0`` and the same player); the hop or
"end" that finishes a chain, a step and a pass count one. The end of the game is judged only between moves, and a
chain is bounded: every hop lands on a square not stood on before in this move, so at most ``H * W - 1`` hops
(63 on 8x8, under the seed's 99, which is checked too). A captured piece leaves the board at once, as the rule book
says; no later hop of the same chain can land on its square, though (a chain's landings keep the file and rank
parity of its start, a hopped square never has both), so the capture frees that square for later moves.

The kernels here are the protocol's bundle (``mmc.games.protocol``; public as ``mmc.games.jump.board``): the end
codes (:data:`ONGOING` and six more, from the view of the player to move), :func:`legal_moves_into`, :func:`play`,
:func:`game_end`, :func:`status`, :func:`end_value`, :func:`cutoff_value`, and for the Python API, perft and the
benchmarks :func:`advance`, :func:`perft` (complete moves) and :func:`random_playout`.
"""

from __future__ import annotations

import numpy as np

from mmc.games.jit import kernel
from mmc.games.jump.rules import (
    H_CAP,
    H_DIRECTION_STEP,
    H_NSQ,
    H_PIECES,
    SQ_OFF,
    hop,
    hop_landing,
    race_won,
    score,
    step,
    step_target,
)

__all__ = [
    "ALTERNATES",
    "BOARD_LEN",
    "CAP_DRAWN",
    "CAP_LOST",
    "CAP_WON",
    "CHAIN",
    "END",
    "HOME_DRAWN",
    "HOME_LOST",
    "HOME_WON",
    "HOP",
    "HOPS",
    "MAX_HOPS",
    "MAX_MOVES",
    "NUM_CODES",
    "ONGOING",
    "PASS",
    "PLY",
    "VISITED",
    "advance",
    "cutoff_value",
    "end_value",
    "finish_move",
    "game_end",
    "get_ply",
    "legal_moves_into",
    "over",
    "perft",
    "play",
    "random_playout",
    "status",
    "visited",
]

CHAIN, HOPS, VISITED, PLY = 64, 65, 66, 74
BOARD_LEN = 76
"""Bytes of a position array (module docstring)."""
HOP = 1 << 9
"""The bit of a hop's code."""
END = 1024
"""``END + square``: end the chain whose piece stands on square."""
PASS = END + 64
"""The forced pass."""
NUM_CODES = PASS + 1
"""Move codes ``0 .. NUM_CODES - 1`` (not every one a move of every board)."""
MAX_HOPS = 99
"""The seed's limit on the hops of one chain."""
MAX_MOVES = 9 * 16
"""The most legal actions a position can have: 9 pieces, each with a step and a hop in each of 8 directions."""
ALTERNATES = False
"""A chain that goes on keeps the turn (the game protocol's flag)."""

ONGOING = 0
HOME_WON, HOME_LOST, HOME_DRAWN = 1, 2, 3
"""The end by a player's pieces all in its target region: the result by score, for the player to move."""
CAP_WON, CAP_LOST, CAP_DRAWN = 4, 5, 6
"""The end at the move cap: the result by score, for the player to move."""


@kernel(inline="always")
def get_ply(board):
    """The complete moves played (the position's ply)."""
    return (np.int64(board[PLY]) & 255) | ((np.int64(board[PLY + 1]) & 255) << 8)


@kernel(inline="always")
def _put_byte(board, index, value):
    """Store ``value`` (0..255) in the signed byte ``board[index]``."""
    v = value & 255
    board[index] = v - 256 if v > 127 else v


@kernel(inline="always")
def visited(board, sq):
    """Whether the chain's piece has stood on ``sq`` in this move."""
    return (np.int64(board[VISITED + (sq >> 3)]) >> (sq & 7)) & 1 != 0


@kernel(inline="always")
def _visit(board, sq):
    _put_byte(board, VISITED + (sq >> 3), np.int64(board[VISITED + (sq >> 3)]) | (1 << (sq & 7)))


@kernel(inline="always")
def finish_move(board):
    """Close the move: no chain, one more ply (every complete move ends here, in any encoding of the rules)."""
    board[CHAIN] = -1
    board[HOPS] = 0
    for i in range(8):
        board[VISITED + i] = 0
    ply = get_ply(board) + 1
    _put_byte(board, PLY, ply)
    _put_byte(board, PLY + 1, ply >> 8)


@kernel
def _chain_hops(board, tab, sq, out, n):
    """Append the hops of the chain's piece on ``sq`` to squares it has not stood on (none after ``MAX_HOPS``);
    return the new count."""
    if board[HOPS] >= MAX_HOPS:
        return n
    for d in range(0, 8, tab[H_DIRECTION_STEP]):
        land = hop_landing(board, tab, sq, d)
        if land >= 0 and not visited(board, land):
            out[n] = sq | (d << 6) | HOP
            n += 1
    return n


@kernel
def over(board, tab):
    """Whether the game has ended by the board's rules (judged between moves): the race, or the variant's cap."""
    return get_ply(board) >= tab[H_CAP] or race_won(board, tab)


@kernel
def legal_moves_into(board, side, tab, out):
    """Write the legal move codes of ``side`` into ``out`` (``int32[MAX_MOVES]``) and return their count: during a
    chain, the hops of its piece and then "end"; between moves, every step and hop (square by square, then
    direction by direction), or the pass when there is none; 0 once the game is over."""
    chain = board[CHAIN]
    if chain >= 0:
        n = _chain_hops(board, tab, chain, out, 0)
        out[n] = END + chain
        return n + 1
    if over(board, tab):
        return 0
    n = 0
    stride = tab[H_DIRECTION_STEP]
    for i in range(tab[H_NSQ]):
        sq = tab[SQ_OFF + i]
        if board[sq] != side:
            continue
        for d in range(0, 8, stride):
            if step_target(board, tab, sq, d) >= 0:
                out[n] = sq | (d << 6)
                n += 1
            if hop_landing(board, tab, sq, d) >= 0:
                out[n] = sq | (d << 6) | HOP
                n += 1
    if n == 0:
        out[0] = PASS
        n = 1
    return n


@kernel
def _can_go_on(board, tab, sq):
    """Whether the chain's piece on ``sq`` has a hop to a square it has not stood on, within the hop limit."""
    if board[HOPS] >= MAX_HOPS:
        return False
    for d in range(0, 8, tab[H_DIRECTION_STEP]):
        land = hop_landing(board, tab, sq, d)
        if land >= 0 and not visited(board, land):
            return True
    return False


@kernel(inline="always")
def play(board, side, move, tab):
    """Play the legal ``move`` of ``side`` on ``board`` in place; return ``(next side, irreversible, plies)``: the
    same player and 0 plies after a hop whose chain goes on, else the opponent and 1 ply. Every move is irreversible
    (the move counter is part of the position: no position repeats)."""
    if move >= END:
        finish_move(board)
        return -side, True, 1
    sq = move & 63
    d = (move >> 6) & 7
    if move & HOP == 0:
        step(board, tab, sq, d)
        finish_move(board)
        return -side, True, 1
    if board[CHAIN] < 0:
        _visit(board, sq)
    land = hop(board, tab, sq, d)
    _visit(board, land)
    board[CHAIN] = land
    board[HOPS] += 1
    if _can_go_on(board, tab, land):
        return side, True, 0
    finish_move(board)
    return -side, True, 1


@kernel
def status(board, side, tab):
    """The end code of a finished position (no legal move) for ``side``: by the race if a player is all home, else
    at the cap; won, lost or drawn by score."""
    mine = score(board, tab, side)
    theirs = score(board, tab, -side)
    base = HOME_WON if race_won(board, tab) else CAP_WON
    if mine > theirs:
        return base
    return base + 1 if mine < theirs else base + 2


@kernel
def game_end(board, side, tab, num_moves, repetitions, clock, ply, max_plies):
    """``ONGOING``, or how the game has ended, for the player to move: ``num_moves == 0`` is a game over by the board
    (:func:`status`); else the game ends by score once ``ply`` reaches ``max_plies`` (a cap below the variant's).
    Never during a chain. ``repetitions`` and ``clock`` are unused (no position repeats)."""
    if board[CHAIN] >= 0:
        return ONGOING
    if num_moves == 0:
        return status(board, side, tab)
    if ply < max_plies:
        return ONGOING
    mine = score(board, tab, side)
    theirs = score(board, tab, -side)
    return CAP_WON if mine > theirs else (CAP_LOST if mine < theirs else CAP_DRAWN)


@kernel
def end_value(code):
    """A finished game's value for the player to move: +1 won, -1 lost, 0 drawn."""
    if code == HOME_WON or code == CAP_WON:  # noqa: SIM109 (plain comparisons compile simply)
        return 1.0
    if code == HOME_LOST or code == CAP_LOST:  # noqa: SIM109
        return -1.0
    return 0.0


@kernel(inline="always")
def cutoff_value(board, side, tab):
    """A playout stopped before the end: the score difference, over the pieces a side starts with (in [-1, 1])."""
    return (score(board, tab, side) - score(board, tab, -side)) / tab[H_PIECES]


@kernel
def advance(board, side, move, tab, board_out, moves_out):
    """Play ``move`` into ``board_out`` and write the next player's legal codes into ``moves_out``: one compiled call
    per action for the Python API. Returns ``(next side, plies, number of legal codes)``."""
    board_out[:] = board
    nxt, _, plies = play(board_out, side, move, tab)
    return nxt, plies, legal_moves_into(board_out, nxt, tab, moves_out)


@kernel
def perft(board, side, depth, tab):
    """The rule book's perft: sequences of ``depth`` complete moves (a chain told by its landing squares, so each
    is one path of hop actions), a game that ends before the last move cutting its branch. Iterative (numba cannot
    cache recursion): one board and one move list per action level."""
    if depth == 0:
        return np.int64(1)
    levels = depth * (min(MAX_HOPS, tab[H_NSQ] - 1) + 1) + 1
    boards = np.empty((levels, board.shape[0]), dtype=np.int8)
    moves = np.empty((levels, MAX_MOVES), dtype=np.int32)
    count = np.zeros(levels, dtype=np.int64)
    nxt = np.zeros(levels, dtype=np.int64)
    left = np.zeros(levels, dtype=np.int64)
    sides = np.zeros(levels, dtype=np.int64)
    boards[0] = board
    sides[0], left[0] = side, depth
    count[0] = legal_moves_into(boards[0], side, tab, moves[0])
    total = np.int64(0)
    level = 0
    while level >= 0:
        if nxt[level] == count[level]:
            level -= 1
            continue
        move = moves[level, nxt[level]]
        nxt[level] += 1
        child = level + 1
        boards[child] = boards[level]
        s, _, plies = play(boards[child], sides[level], move, tab)
        if left[level] == plies:
            total += 1
            continue
        sides[child], left[child], nxt[child] = s, left[level] - plies, 0
        count[child] = legal_moves_into(boards[child], s, tab, moves[child])
        level = child
    return total


@kernel
def random_playout(board, side, tab, seed):
    """Play uniformly random actions until the game ends (the race or the variant's cap); return the complete moves
    played. The engine-speed reference for the benchmarks."""
    np.random.seed(seed)
    out = np.empty(MAX_MOVES, dtype=np.int32)
    plies = 0
    while True:
        n = legal_moves_into(board, side, tab, out)
        if n == 0:
            return plies
        side, _, counted = play(board, side, out[np.random.randint(n)], tab)
        plies += counted
