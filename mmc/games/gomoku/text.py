"""Position and move texts of the k-in-a-row family (``docs/rules/kinarow.md``, "Text formats").

A position is the board rank by rank from the top (rank H first), ranks separated by ``/``; in a rank ``x`` is a
black stone, ``o`` a white stone and a decimal number (one or two digits) that many empty cells; then a space and
the player to move, ``x`` or ``o``: ``8/8/8/3x4/3o4/8/8/8 x``. A move is its cell's name, file letter ``a``-``o``
then rank number ``1``-``15``: ``d5``.
"""

from __future__ import annotations

import re

import numpy as np

from mmc.games.gomoku._kernels import BOARD_LEN, LAST_FILE, LAST_RANK
from mmc.games.gomoku.variants import MAX_SIDE, Variant

__all__ = ["FILES", "board_text", "cell_name", "parse_cell", "parse_position"]

FILES = "abcdefghijklmno"
"""File letters, left to right."""
_CELL = re.compile(r"([a-o])(1[0-5]|[1-9])")
_TOKEN = re.compile(r"[0-9]+|.")


def cell_name(cell: int) -> str:
    """``d5`` for cell ``16 * 4 + 3``: the cell's file letter and rank number."""
    return FILES[cell & 15] + str((cell >> 4) + 1)


def parse_cell(text: str) -> int:
    """The cell ``16 * rank + file`` a name like ``d5`` names; ``ValueError`` naming the text if it is none."""
    match = _CELL.fullmatch(text.strip().lower())
    if match is None:
        raise ValueError(f"not a cell: {text!r} (expected a file a-o and a rank 1-15, like 'd5')")
    return 16 * (int(match.group(2)) - 1) + FILES.index(match.group(1))


def board_text(board: bytes, variant: Variant) -> str:
    """The board field of a position text (ranks from the top, runs of empty cells as numbers)."""
    ranks = []
    for rank in range(variant.height - 1, -1, -1):
        text, empty = "", 0
        for file in range(variant.width):
            stone = board[16 * rank + file]
            if stone == 0:
                empty += 1
                continue
            text += (str(empty) if empty else "") + ("x" if stone == 1 else "o")
            empty = 0
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks)


def parse_position(text: str, variant: Variant) -> tuple[np.ndarray, int]:
    """``(board, side)`` of a position text: the stones as an ``int8[BOARD_LEN]`` position array (no last stone, no
    line noted yet) and the player to move (+1 ``x``, -1 ``o``). ``ValueError`` naming what is wrong with the text:
    a field, a rank's length or character; the stone counts and gravity are the caller's to check."""
    where = f"{variant.name} position {text!r}"
    fields = text.split()
    if len(fields) != 2:
        raise ValueError(f"{where}: expected 2 fields (the board, then x or o to move), got {len(fields)}")
    ranks = fields[0].split("/")
    if len(ranks) != variant.height:
        raise ValueError(f"{where}: {len(ranks)} ranks, {variant.name} has {variant.height}")
    board = np.zeros(BOARD_LEN, dtype=np.int8)
    board[LAST_RANK] = board[LAST_FILE] = -1
    for i, row in enumerate(ranks):
        rank = variant.height - 1 - i
        file = 0
        for token in _TOKEN.findall(row):
            if token in ("x", "o"):
                if file < variant.width:
                    board[16 * rank + file] = 1 if token == "x" else -1
                file += 1
            elif token.isdigit() and 0 < int(token) <= MAX_SIDE:
                file += int(token)
            else:
                raise ValueError(f"{where}: rank {rank + 1} ({row!r}) holds {token!r}: only x, o and numbers 1-15")
        if file != variant.width:
            raise ValueError(f"{where}: rank {rank + 1} ({row!r}) has {file} cells, {variant.name} has {variant.width}")
    if fields[1] not in ("x", "o"):
        raise ValueError(f"{where}: the player to move must be x or o, got {fields[1]!r}")
    return board, 1 if fields[1] == "x" else -1
