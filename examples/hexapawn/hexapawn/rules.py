"""The compiled kernels of Hexapawn (the game protocol's bundle, ``Game.kernels``; ``mmc.games.protocol``).

A position is ``int8[16]``: cell ``4 * rank + file`` (rank 0 is White's first rank) holds +1 (a White pawn), -1 (a
Black pawn) or 0, whatever the board's size (3x3 or 4x4), so that a move's code and its text do not depend on the
variant. A move's code is ``16 * from + to``. ``tab`` is ``int16[2]``: the board's ranks and files. White (+1)
moves up the ranks, Black (-1) down.
"""

from mmc.games.jit import kernel

BOARD_LEN = 16
"""Cells of a position array: up to 4 x 4, four to a rank."""
MAX_MOVES = 12
"""At most four pawns, three moves each."""
ONGOING, WON, LOST, DRAWN = 0, 1, 2, 3
"""End codes, from the view of the player to move."""
ALTERNATES = True
"""Every move passes the turn."""


@kernel
def _over(board, side, tab):
    """Whether the game ended before ``side`` could move: the other player has a pawn on its far rank, or ``side``
    has no pawn left."""
    height, width = tab[0], tab[1]
    far = 0 if side > 0 else height - 1  # the other player's far rank
    mine = 0
    for rank in range(height):
        for file in range(width):
            stone = board[4 * rank + file]
            if stone == side:
                mine += 1
            elif stone == -side and rank == far:
                return True
    return mine == 0


@kernel
def legal_moves_into(board, side, tab, out):
    """The legal move codes into ``out``: each pawn's step forward onto an empty cell, then its captures diagonally
    forward, cell by cell from a1; none once the game is over."""
    if _over(board, side, tab):
        return 0
    height, width = tab[0], tab[1]
    n = 0
    for rank in range(height):
        for file in range(width):
            cell = 4 * rank + file
            if board[cell] != side:
                continue
            ahead = rank + side
            if ahead < 0 or ahead >= height:
                continue
            if board[4 * ahead + file] == 0:
                out[n] = 16 * cell + 4 * ahead + file
                n += 1
            for aside in (file - 1, file + 1):
                if 0 <= aside < width and board[4 * ahead + aside] == -side:
                    out[n] = 16 * cell + 4 * ahead + aside
                    n += 1
    return n


@kernel
def play(board, side, move, tab):
    """Move a pawn in place: ``(next side, irreversible, plies)``; a pawn never goes back, so every move is
    irreversible."""
    board[move % 16] = side
    board[move // 16] = 0
    return -side, True, 1


@kernel
def status(board, side, tab):
    """A position without a legal move is lost by the player to move (the other reached its far rank, took every
    pawn, or left none of them a move)."""
    return LOST


@kernel
def game_end(board, side, tab, num_moves, repetitions, clock, ply, max_plies):
    if num_moves == 0:
        return LOST
    if ply >= max_plies:
        return DRAWN
    return ONGOING


@kernel
def end_value(code):
    if code == WON:
        return 1.0
    if code == LOST:
        return -1.0
    return 0.0


@kernel
def cutoff_value(board, side, tab):
    return 0.0


@kernel
def fill_planes(board, side, tab, repetitions, clock, ply, max_plies, out):
    """Planes ``[3, H, W]`` from ``side``'s view (Black's board turned over, so that every player moves up): its
    pawns, the other's, and 1 on every cell."""
    out[:] = 0.0
    height, width = tab[0], tab[1]
    for rank in range(height):
        row = rank if side > 0 else height - 1 - rank
        for file in range(width):
            stone = board[4 * rank + file] * side
            if stone > 0:
                out[0, row, file] = 1.0
            elif stone < 0:
                out[1, row, file] = 1.0
            out[2, row, file] = 1.0
