"""The rule book in compiled code: geometry, steps, hops, captures, the target regions and the end of the race.

These kernels know nothing of how a move is encoded for the search and the network (``mmc.games.jump.chain``
builds the actions on top of them): they are the rules a complete-move encoding would share.

Squares are numbered as in chess, eight to a rank whatever the board size, so that a move's squares and its text
do not depend on the variant::

    rank 8 | 56 57 58 59 60 61 62 63        a8 .. h8   (8x8 only)
    ...
    rank 6 | 40 41 42 43 44 45 46 47        a6 .. f6   (the top rank of 6x6)
    ...
    rank 2 |  8  9 10 11 12 13 14 15
    rank 1 |  0  1  2  3  4  5  6  7        a1 .. h1
             a  b  c  d  e  f  g  h         square = 8 * rank + file

A square holds ``+1`` for a piece of the first player (Black, who starts at the bottom and races up), ``-1`` for
the second's (White), 0 when empty (and off the board). Directions, in order (even = orthogonal)::

    7 NW   0 N   1 NE
    6 W     .    2 E
    5 SW   4 S   3 SE

Everything a kernel needs of the variant travels in one ``int16`` table (:func:`build_table`)::

    tab[H_HEIGHT], tab[H_WIDTH]     ranks and files
    tab[H_DIRECTION_STEP]           2: the orthogonal directions 0 2 4 6; 1: all eight
    tab[H_CAPTURES]                 1 when a hop over an opponent's piece removes it
    tab[H_PIECES]                   pieces a side starts with
    tab[H_CAP]                      the move cap in plies
    tab[H_NSQ]                      squares of the board
    tab[NEXT_OFF + 8 * sq + d]      the square next to sq in direction d, -1 off the board
    tab[TARGET_OFF + sq]            +1 in Black's target region, -1 in White's, 0 in neither
    tab[SQ_OFF : SQ_OFF + H_NSQ]    the board's squares, a1 first
"""

from __future__ import annotations

import numpy as np

from mmc.games.jit import kernel
from mmc.games.jump.variants import Variant

__all__ = [
    "DIRECTIONS",
    "H_CAP",
    "H_CAPTURES",
    "H_DIRECTION_STEP",
    "H_HEIGHT",
    "H_NSQ",
    "H_PIECES",
    "H_WIDTH",
    "NEXT_OFF",
    "SQ_OFF",
    "TABLE_SIZE",
    "TARGET_OFF",
    "all_home",
    "build_table",
    "has_move",
    "hop",
    "hop_capture",
    "hop_landing",
    "progress",
    "race_won",
    "score",
    "step",
    "step_target",
]

DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
"""``(file step, rank step)`` of each direction: N NE E SE S SW W NW."""

H_HEIGHT, H_WIDTH, H_DIRECTION_STEP, H_CAPTURES, H_PIECES, H_CAP, H_NSQ = range(7)
NEXT_OFF = 8
TARGET_OFF = NEXT_OFF + 64 * 8
SQ_OFF = TARGET_OFF + 64
TABLE_SIZE = SQ_OFF + 64


def build_table(variant: Variant) -> np.ndarray:
    """The ``int16[TABLE_SIZE]`` rule table of ``variant`` (module docstring)."""
    h, w = variant.height, variant.width
    tab = np.full(TABLE_SIZE, -1, dtype=np.int16)
    tab[: H_NSQ + 1] = (h, w, 1 if variant.diagonal else 2, variant.captures, variant.pieces, variant.cap, h * w)
    tab[TARGET_OFF : TARGET_OFF + 64] = 0
    squares = [8 * r + f for r in range(h) for f in range(w)]
    tab[SQ_OFF : SQ_OFF + len(squares)] = squares
    for sq in squares:
        r, f = divmod(sq, 8)
        for d, (df, dr) in enumerate(DIRECTIONS):
            if 0 <= r + dr < h and 0 <= f + df < w:
                tab[NEXT_OFF + 8 * sq + d] = 8 * (r + dr) + f + df
        tab[TARGET_OFF + sq] = 1 if variant.in_target(sq, 1) else (-1 if variant.in_target(sq, -1) else 0)
    return tab


@kernel(inline="always")
def step_target(board, tab, sq, d):
    """The empty square next to ``sq`` in direction ``d``, where a step goes; -1 if there is none."""
    to = tab[NEXT_OFF + 8 * sq + d]
    if to < 0 or board[to] != 0:
        return -1
    return to


@kernel(inline="always")
def hop_landing(board, tab, sq, d):
    """Where a hop from ``sq`` in direction ``d`` lands: over the occupied square next to it (either player's piece)
    onto the empty square beyond; -1 if it cannot. (Whether the chain stood there already is the caller's test.)"""
    over = tab[NEXT_OFF + 8 * sq + d]
    if over < 0 or board[over] == 0:
        return -1
    land = tab[NEXT_OFF + 8 * over + d]
    if land < 0 or board[land] != 0:
        return -1
    return land


@kernel(inline="always")
def step(board, tab, sq, d):
    """Play a step from ``sq`` in direction ``d`` in place; return the square reached."""
    to = tab[NEXT_OFF + 8 * sq + d]
    board[to] = board[sq]
    board[sq] = 0
    return to


@kernel(inline="always")
def hop(board, tab, sq, d):
    """Play one hop from ``sq`` in direction ``d`` in place; return the landing square. A hopped opponent's piece is
    captured at once where the variant captures (``tab[H_CAPTURES]``); a hopped own piece stays."""
    over = tab[NEXT_OFF + 8 * sq + d]
    land = tab[NEXT_OFF + 8 * over + d]
    taken = hop_capture(board, tab, sq, d)
    board[land] = board[sq]
    board[sq] = 0
    if taken >= 0:
        board[taken] = 0
    return land


@kernel(inline="always")
def hop_capture(board, tab, sq, d):
    """The square of the opponent's piece that the legal hop from ``sq`` in direction ``d`` captures, -1 if it captures
    none (a hopped own piece, or a variant without captures)."""
    over = tab[NEXT_OFF + 8 * sq + d]
    if tab[H_CAPTURES] != 0 and board[over] == -board[sq]:
        return over
    return -1


@kernel
def score(board, tab, side):
    """The rule book's score of ``side``: its pieces in its own target region."""
    home = 0
    for i in range(tab[H_NSQ]):
        sq = tab[SQ_OFF + i]
        if board[sq] == side and tab[TARGET_OFF + sq] == side:
            home += 1
    return home


@kernel
def all_home(board, tab, side):
    """Whether ``side`` has at least one piece and every one of them in its target region."""
    pieces = 0
    for i in range(tab[H_NSQ]):
        sq = tab[SQ_OFF + i]
        if board[sq] == side:
            if tab[TARGET_OFF + sq] != side:
                return False
            pieces += 1
    return pieces > 0


@kernel
def race_won(board, tab):
    """The end's first rule: either player has at least one piece and all of them in its target region."""
    return all_home(board, tab, 1) or all_home(board, tab, -1)


@kernel
def has_move(board, tab, side):
    """Whether ``side`` has a step or a hop (else it must pass)."""
    stride = tab[H_DIRECTION_STEP]
    for i in range(tab[H_NSQ]):
        sq = tab[SQ_OFF + i]
        if board[sq] != side:
            continue
        for d in range(0, 8, stride):
            if step_target(board, tab, sq, d) >= 0 or hop_landing(board, tab, sq, d) >= 0:
                return True
    return False


@kernel
def progress(board, tab, side):
    """How far ``side``'s pieces have come: the sum over its pieces of the ranks between each and its home edge
    (the greedy player's tie-break)."""
    total = 0
    height = tab[H_HEIGHT]
    for i in range(tab[H_NSQ]):
        sq = tab[SQ_OFF + i]
        if board[sq] == side:
            rank = sq // 8
            total += rank if side > 0 else height - 1 - rank
    return total
