"""The position text of the rule book, and its extension for a chain under way.

Between moves a position is the rule book's text: the board rank by rank from the top (``b`` a Black piece, ``w`` a
White piece, a digit that many empty squares, ranks separated by ``/``), the player to move (``b`` or ``w``) and
the plies played::

    1w1w1w1w/2w1w1w1/3w1w2/8/8/2b1b3/1b1b1b2/b1b1b1b1 b 0

While a chain is under way (the same player hops on or ends it: ``mmc.games.jump.chain``) a fourth field restores
it: the squares its piece has stood on in this move, in order, joined by ``-`` as in the rule book's move text (the
start first, the square the piece stands on last; one more square than hops made)::

    1w1w1w1w/2w1w1w1/3w1w2/8/4b3/8/1b1b1b2/b1b1b1b1 b 0 c3-c5-e5

Refused with one line naming the field: a wrong number of fields or ranks, a rank of the wrong length or with a
character other than ``b``, ``w`` or a digit, more pieces a side than the variant starts with, a side other than
``b`` or ``w``, a ply count outside 0 to the variant's cap or of the wrong parity for the side to move (Black moves
at even plies), a chain whose squares are not hops of the variant, repeat a square, or do not end on a piece of the
player to move with the squares it left empty.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np

from mmc.games.jump.chain import BOARD_LEN, CHAIN, HOPS, MAX_HOPS, PLY, VISITED
from mmc.games.jump.rules import DIRECTIONS
from mmc.games.jump.variants import Variant, square_name, square_of

__all__ = ["board_text", "hop_direction", "parse_position", "position_text", "start_text"]

_NAMES = {1: "Black", -1: "White"}


def board_text(cells: Mapping[int, int], height: int, width: int) -> str:
    """The board field of the text: ``cells`` maps a square to its piece (+1 Black, -1 White); others are empty."""
    rows = []
    for rank in range(height - 1, -1, -1):
        row, empty = "", 0
        for file in range(width):
            piece = cells.get(8 * rank + file, 0)
            if piece == 0:
                empty += 1
                continue
            row += (str(empty) if empty else "") + ("b" if piece > 0 else "w")
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)


def start_text(v: Variant) -> str:
    """The text of ``v``'s start position: each player's start squares, Black to move, ply 0."""
    cells = dict.fromkeys(v.start_squares(1), 1) | dict.fromkeys(v.start_squares(-1), -1)
    return f"{board_text(cells, v.height, v.width)} b 0"


def position_text(board: bytes | np.ndarray, side: int, ply: int, path: tuple[int, ...], v: Variant) -> str:
    """The text of a position array (``chain.BOARD_LEN`` bytes) with ``side`` to move and the chain's ``path``."""
    cells = {s: (1 if board[s] == 1 else -1) for s in range(64) if board[s] != 0}
    text = f"{board_text(cells, v.height, v.width)} {'b' if side > 0 else 'w'} {ply}"
    return text + (" " + "-".join(map(square_name, path)) if path else "")


def hop_direction(frm: int, to: int) -> int | None:
    """The direction of a hop from ``frm`` to ``to`` (two squares along one of the 8 directions), else ``None``."""
    df, dr = to % 8 - frm % 8, to // 8 - frm // 8
    if (df, dr) == (0, 0) or df % 2 or dr % 2:
        return None
    unit = (df // 2, dr // 2)
    return DIRECTIONS.index(unit) if unit in DIRECTIONS else None


def parse_position(v: Variant, text: str) -> tuple[np.ndarray, int, tuple[int, ...]]:
    """``(board int8[BOARD_LEN], side to move, chain path)`` of a position text; ``ValueError`` naming the field."""
    fields = text.split()
    where = f"{v.name} position {text!r}"
    if len(fields) not in (3, 4):
        raise ValueError(f"{where}: expected 'BOARD SIDE PLY [CHAIN]', got {len(fields)} fields")
    board = np.zeros(BOARD_LEN, dtype=np.int8)
    _parse_board(fields[0], v, board, where)
    if fields[1] not in ("b", "w"):
        raise ValueError(f"{where}: the side to move must be 'b' or 'w', got {fields[1]!r}")
    side = 1 if fields[1] == "b" else -1
    ply = _parse_ply(fields[2], side, v, where)
    board[PLY], board[PLY + 1] = np.array([ply & 255, ply >> 8], dtype=np.uint8).view(np.int8)
    board[CHAIN] = -1
    path = _parse_chain(fields[3], v, board, side, where) if len(fields) == 4 else ()
    if path:
        board[CHAIN], board[HOPS] = path[-1], len(path) - 1
        mask = np.zeros(8, dtype=np.uint8)
        for square in path:
            mask[square // 8] |= 1 << (square % 8)
        board[VISITED : VISITED + 8] = mask.view(np.int8)
    return board, side, path


def _parse_board(field: str, v: Variant, board: np.ndarray, where: str) -> None:
    ranks = field.split("/")
    if len(ranks) != v.height:
        raise ValueError(f"{where}: the board has {len(ranks)} ranks, {v.name} has {v.height}")
    for i, row in enumerate(ranks):
        rank, file = v.height - 1 - i, 0
        for char in row:
            if char.isdigit():
                file += int(char)
            elif char in "bw":
                if file < v.width:
                    board[8 * rank + file] = 1 if char == "b" else -1
                file += 1
            else:
                raise ValueError(f"{where}: rank {rank + 1} ({row!r}) holds {char!r}, not b, w or a digit")
        if file != v.width:
            raise ValueError(f"{where}: rank {rank + 1} ({row!r}) has {file} squares, {v.name} has {v.width} files")
    for side, name in _NAMES.items():
        count = int(np.count_nonzero(board[:64] == side))
        if count > v.pieces:
            raise ValueError(f"{where}: {name} has {count} pieces, {v.name} starts with {v.pieces}")


def _parse_ply(field: str, side: int, v: Variant, where: str) -> int:
    if not field.isdigit():
        raise ValueError(f"{where}: the ply count must be a number, got {field!r}")
    ply = int(field)
    if ply > v.cap:
        raise ValueError(f"{where}: ply {ply} is outside 0 to {v.cap} (the cap of {v.name})")
    if ply % 2 != (0 if side > 0 else 1):
        raise ValueError(f"{where}: ply {ply} does not fit {_NAMES[side]} to move (Black moves at even plies)")
    return ply


def _parse_chain(field: str, v: Variant, board: np.ndarray, side: int, where: str) -> tuple[int, ...]:
    try:
        path = tuple(square_of(name) for name in field.split("-"))
    except ValueError as error:
        raise ValueError(f"{where}: chain {field!r}: {error}") from None
    if not 2 <= len(path) <= MAX_HOPS + 1 or len(set(path)) != len(path):
        raise ValueError(f"{where}: chain {field!r} must name 2 to {MAX_HOPS + 1} different squares")
    for square in path:
        if square % 8 >= v.width or square // 8 >= v.height:
            raise ValueError(f"{where}: chain {field!r}: {square_name(square)} is off the {v.name} board")
    for frm, to in itertools.pairwise(path):
        d = hop_direction(frm, to)
        if d is None or (d % 2 and not v.diagonal):
            raise ValueError(f"{where}: chain {field!r}: {square_name(frm)}-{square_name(to)} is no hop of {v.name}")
    if board[path[-1]] != side:
        raise ValueError(f"{where}: chain {field!r}: {square_name(path[-1])} holds no {_NAMES[side]} piece")
    for square in path[:-1]:
        if board[square] != 0:
            raise ValueError(f"{where}: chain {field!r}: {square_name(square)} was left, it must be empty")
    return path
