"""FEN in and out, with the board field sized to the variant (``rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1``)."""

from __future__ import annotations

import numpy as np

from mmc.games.chess.variants import Variant

__all__ = ["FenError", "board_fen", "castling_fen", "parse_fen"]

BOARD_LEN, CASTLING, EP = 66, 64, 65
"""The board's bytes (``mmc.games.chess._kernels``): 64 squares, the castling rights and the en-passant square."""
_RIGHTS = {"K": (1, 4, 7, 1), "Q": (2, 4, 0, 1), "k": (4, 60, 63, -1), "q": (8, 60, 56, -1)}
"""FEN castling letter: (rights bit, king square, rook square, colour)."""

PIECE_SYMBOLS = "?pnbrqk"


class FenError(ValueError):
    """A FEN that does not describe a position of the variant; the message names the bad field."""


def parse_fen(fen: str, variant: Variant) -> tuple[bytes, int, int, int]:
    """Parse ``fen`` for ``variant`` into ``(board, side, halfmove_clock, fullmove_number)``.

    ``board`` is the board bytes of ``mmc.games.chess._kernels``; ``side`` is +1 (White) or -1 (Black).
    Castling and en-passant fields must be ``-`` except in variants with castling and the double step (chess),
    where castling rights must name a king and rook on their start squares and an en-passant square must be one a
    pawn just passed; the en-passant square is kept only when the capture is legal (the caller's
    ``_kernels`` check). The two clocks may be omitted and default to ``0 1``.
    """
    fields = fen.split()
    if len(fields) not in (2, 4, 6):
        raise FenError(f"FEN {fen!r}: expected 6 fields (board, side, castling, en passant, clocks), got {len(fields)}")
    board = _parse_board(fields[0], variant, fen)
    if fields[1] not in ("w", "b"):
        raise FenError(f"FEN {fen!r}: side to move must be 'w' or 'b', got {fields[1]!r}")
    side = 1 if fields[1] == "w" else -1
    if len(fields) >= 4:
        if variant.castling:
            board[CASTLING] = _parse_castling(fields[2], board, fen)
        if variant.double_step:
            board[EP] = _parse_ep(fields[3], board, side, variant, fen)
        for name, value, has in (
            ("castling", fields[2], variant.castling),
            ("en passant", fields[3], variant.double_step),
        ):
            if value != "-" and not has:
                raise FenError(f"FEN {fen!r}: {name} field must be '-' in {variant.name}, got {value!r}")
    halfmove, fullmove = 0, 1
    if len(fields) == 6:
        try:
            halfmove, fullmove = int(fields[4]), int(fields[5])
        except ValueError:
            raise FenError(f"FEN {fen!r}: move clocks must be integers, got {fields[4]!r} {fields[5]!r}") from None
        if halfmove < 0 or fullmove < 1:
            raise FenError(f"FEN {fen!r}: halfmove clock must be >= 0 and fullmove number >= 1")
    return board.tobytes(), side, halfmove, fullmove


def _parse_castling(field: str, board: np.ndarray, fen: str) -> int:
    if field == "-":
        return 0
    rights = 0
    for letter in field:
        if letter not in _RIGHTS or rights & _RIGHTS[letter][0]:
            raise FenError(f"FEN {fen!r}: castling field {field!r} must be '-' or some of 'KQkq', each once")
        bit, king, rook, colour = _RIGHTS[letter]
        if board[king] != 6 * colour or board[rook] != 4 * colour:
            raise FenError(
                f"FEN {fen!r}: castling field {field!r}: right {letter!r} needs its king and rook on their start "
                "squares"
            )
        rights |= bit
    return rights


def _parse_ep(field: str, board: np.ndarray, side: int, variant: Variant, fen: str) -> int:
    if field == "-":
        return 0
    files = "abcdefgh"[: variant.width]
    rank = variant.height - 3 if side > 0 else 2  # the square the pawn passed: 6th rank with White to move
    ok = len(field) == 2 and field[0] in files and field[1] == str(rank + 1)
    square = 8 * rank + files.find(field[0]) if ok else 0
    # The pawn that double-stepped stands just beyond the square, and the square and its start are empty.
    if not ok or board[square - 8 * side] != -side or board[square] != 0 or board[square + 8 * side] != 0:
        raise FenError(f"FEN {fen!r}: en passant field {field!r} is not a square an opponent's pawn just passed")
    return square


def _parse_board(field: str, variant: Variant, fen: str) -> np.ndarray:
    ranks = field.split("/")
    if len(ranks) != variant.height:
        raise FenError(f"FEN {fen!r}: {variant.name} has {variant.height} ranks, the board field has {len(ranks)}")
    board = np.zeros(BOARD_LEN, dtype=np.int8)
    for i, text in enumerate(ranks):
        rank = variant.height - 1 - i
        file = 0
        digits = ""
        for ch in text + "/":
            if ch.isdigit():
                digits += ch
                continue
            if digits:
                file += int(digits)
                digits = ""
            if ch == "/":
                break
            kind = PIECE_SYMBOLS.find(ch.lower())
            if kind <= 0:
                raise FenError(f"FEN {fen!r}: unknown piece {ch!r} on rank {rank + 1}")
            if file >= variant.width:
                raise FenError(f"FEN {fen!r}: rank {rank + 1} has more than {variant.width} files")
            board[8 * rank + file] = kind if ch.isupper() else -kind
            file += 1
        if file != variant.width:
            raise FenError(f"FEN {fen!r}: rank {rank + 1} covers {file} files, {variant.name} has {variant.width}")
    pawns_on_last = [sq for sq in range(64) if abs(board[sq]) == 1 and sq // 8 in (0, variant.height - 1)]
    if pawns_on_last:
        raise FenError(f"FEN {fen!r}: a pawn stands on the first or last rank")
    return board


def castling_fen(board: bytes) -> str:
    """The FEN castling and en-passant fields of a board (``- -`` without rights or en-passant capture)."""
    arr = np.frombuffer(board, dtype=np.int8)
    rights = "".join(letter for letter, (bit, *_) in _RIGHTS.items() if arr[CASTLING] & bit) or "-"
    ep = int(arr[EP])
    return f"{rights} {'abcdefgh'[ep % 8] + str(ep // 8 + 1) if ep else '-'}"


def board_fen(board: bytes, variant: Variant) -> str:
    """The FEN board field of a board."""
    arr = np.frombuffer(board, dtype=np.int8)
    rows = []
    for rank in range(variant.height - 1, -1, -1):
        row, empty = "", 0
        for file in range(variant.width):
            p = int(arr[8 * rank + file])
            if p == 0:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += PIECE_SYMBOLS[p].upper() if p > 0 else PIECE_SYMBOLS[-p]
        rows.append(row + (str(empty) if empty else ""))
    return "/".join(rows)
