"""A second, plain implementation of the jump game's rule book (``docs/rules/jump.md``), for the tests only.

Straightforward recursive Python over complete moves, sharing no code with ``mmc.games.jump`` but the variants'
data (board size, directions, captures, cap): a position is a dict of pieces by ``(file, rank)``, a move the list of
squares its piece stands on. It is slow and meant to be obviously right.
"""

from __future__ import annotations

from dataclasses import dataclass

from mmc.games.jump.variants import Variant

ORTHOGONAL = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL = ((1, 1), (1, -1), (-1, -1), (-1, 1))
MAX_HOPS = 99

Square = tuple[int, int]


@dataclass(frozen=True)
class Position:
    """Pieces by square (+1 Black, -1 White), the player to move, the plies played; ``chain`` the squares of a chain
    under way (start first, the piece's square last), empty between moves."""

    pieces: dict[Square, int]
    side: int
    ply: int
    chain: tuple[Square, ...] = ()


def parse(variant: Variant, text: str) -> Position:
    """A position from the rule book's text (and the chain extension ``c3-c5-e5``), without any checking."""
    fields = text.split()
    pieces: dict[Square, int] = {}
    for i, row in enumerate(fields[0].split("/")):
        rank, file = variant.height - 1 - i, 0
        for char in row:
            if char.isdigit():
                file += int(char)
            else:
                pieces[(file, rank)] = 1 if char == "b" else -1
                file += 1
    chain: tuple[Square, ...] = ()
    if len(fields) == 4:
        chain = tuple(("abcdefgh".index(s[0]), int(s[1]) - 1) for s in fields[3].split("-"))
    return Position(pieces, 1 if fields[1] == "b" else -1, int(fields[2]), chain)


def name(square: Square) -> str:
    """``c3`` for ``(2, 2)``."""
    return "abcdefgh"[square[0]] + str(square[1] + 1)


def in_target(variant: Variant, square: Square, side: int) -> bool:
    """Black's target is the top two ranks, White's the bottom two."""
    return square[1] >= variant.height - 2 if side == 1 else square[1] <= 1


def score(variant: Variant, pieces: dict[Square, int], side: int) -> int:
    return sum(1 for sq, p in pieces.items() if p == side and in_target(variant, sq, side))


def game_over(variant: Variant, position: Position) -> bool:
    """The rule book's end: a player with pieces, all in its target, or the cap."""
    for side in (1, -1):
        mine = [sq for sq, p in position.pieces.items() if p == side]
        if mine and all(in_target(variant, sq, side) for sq in mine):
            return True
    return position.ply >= variant.cap


def _directions(variant: Variant) -> tuple[Square, ...]:
    return ORTHOGONAL + DIAGONAL if variant.diagonal else ORTHOGONAL


def _on_board(variant: Variant, square: Square) -> bool:
    return 0 <= square[0] < variant.width and 0 <= square[1] < variant.height


def _chains(variant: Variant, pieces: dict[Square, int], path: list[Square]) -> list[tuple[list[Square], dict]]:
    """Every way to go on from a chain of ``path`` (at least one hop made): stop here, or hop on and go on."""
    found = [(list(path), pieces)]
    if len(path) - 1 >= MAX_HOPS:
        return found
    here = path[-1]
    for df, dr in _directions(variant):
        over, land = (here[0] + df, here[1] + dr), (here[0] + 2 * df, here[1] + 2 * dr)
        if not _on_board(variant, land) or over not in pieces or land in pieces or land in path:
            continue
        after = dict(pieces)
        piece = after.pop(here)
        after[land] = piece
        if variant.captures and after[over] == -piece:
            del after[over]
        found += _chains(variant, after, [*path, land])
    return found


def complete_moves(variant: Variant, position: Position) -> list[tuple[list[Square], Position]]:
    """Every complete move of the position (a step, a chain by its landings, or the forced pass) with the position
    after it; none once the game is over. With a chain under way: the ways to complete it."""
    nxt = lambda pieces: Position(pieces, -position.side, position.ply + 1)  # noqa: E731
    if position.chain:
        return [(path, nxt(after)) for path, after in _chains(variant, position.pieces, list(position.chain))]
    if game_over(variant, position):
        return []
    moves = []
    for square, piece in position.pieces.items():
        if piece != position.side:
            continue
        for df, dr in _directions(variant):
            to = (square[0] + df, square[1] + dr)
            if _on_board(variant, to) and to not in position.pieces:
                after = dict(position.pieces)
                after[to] = after.pop(square)
                moves.append(([square, to], nxt(after)))
        for path, after in _chains(variant, position.pieces, [square])[1:]:  # [0]: no hop at all
            moves.append((path, nxt(after)))
    if not moves:
        moves.append(([], nxt(dict(position.pieces))))  # the pass
    return moves


def perft(variant: Variant, position: Position, depth: int) -> int:
    """Sequences of ``depth`` complete moves; a game that ends earlier cuts its branch."""
    if depth == 0:
        return 1
    return sum(perft(variant, after, depth - 1) for _, after in complete_moves(variant, position))
