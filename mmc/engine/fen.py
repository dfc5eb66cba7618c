"""FEN in and out, with the board field sized to the variant (``rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1``)."""

from __future__ import annotations

import numpy as np

from mmc.engine.variants import Variant

__all__ = ["FenError", "board_fen", "parse_fen"]

PIECE_SYMBOLS = "?pnbrqk"


class FenError(ValueError):
    """A FEN that does not describe a position of the variant; the message names the bad field."""


def parse_fen(fen: str, variant: Variant) -> tuple[bytes, int, int, int]:
    """Parse ``fen`` for ``variant`` into ``(board, side, halfmove_clock, fullmove_number)``.

    ``board`` is the 64-byte board of ``mmc.engine._kernels``; ``side`` is +1 (White) or -1 (Black).
    Castling and en-passant fields must be ``-`` (the family has neither); the two clocks may be
    omitted and default to ``0 1``.
    """
    fields = fen.split()
    if len(fields) not in (2, 4, 6):
        raise FenError(f"FEN {fen!r}: expected 6 fields (board, side, castling, en passant, clocks), got {len(fields)}")
    board = _parse_board(fields[0], variant, fen)
    if fields[1] not in ("w", "b"):
        raise FenError(f"FEN {fen!r}: side to move must be 'w' or 'b', got {fields[1]!r}")
    side = 1 if fields[1] == "w" else -1
    if len(fields) >= 4:
        for name, value in (("castling", fields[2]), ("en passant", fields[3])):
            if value != "-":
                raise FenError(f"FEN {fen!r}: {name} field must be '-' in {variant.name}, got {value!r}")
    halfmove, fullmove = 0, 1
    if len(fields) == 6:
        try:
            halfmove, fullmove = int(fields[4]), int(fields[5])
        except ValueError:
            raise FenError(f"FEN {fen!r}: move clocks must be integers, got {fields[4]!r} {fields[5]!r}") from None
        if halfmove < 0 or fullmove < 1:
            raise FenError(f"FEN {fen!r}: halfmove clock must be >= 0 and fullmove number >= 1")
    return board, side, halfmove, fullmove


def _parse_board(field: str, variant: Variant, fen: str) -> bytes:
    ranks = field.split("/")
    if len(ranks) != variant.height:
        raise FenError(f"FEN {fen!r}: {variant.name} has {variant.height} ranks, the board field has {len(ranks)}")
    board = np.zeros(64, dtype=np.int8)
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
    return board.tobytes()


def board_fen(board: bytes, variant: Variant) -> str:
    """The FEN board field of a 64-byte board."""
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
