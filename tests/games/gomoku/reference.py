"""A second, plain implementation of the k-in-a-row rules (``docs/rules/kinarow.md``), written for the tests only.

Straightforward Python over a dict of stones, sharing nothing with ``mmc.games.gomoku`` but the rule book: the
compiled kernels are checked against it (perft and outcomes on random positions) for the rules the engine oracle
cannot check (exact, caro) and the board it cannot hold (15x15). A position is ``Position(variant, stones, to_move,
winner)``: ``stones`` maps ``(file, rank)`` (from 0) to ``"x"`` or ``"o"``; ``winner`` is who made a line, if anyone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mmc.games.gomoku import Rule, Variant

LINES = ((1, 0), (0, 1), (1, 1), (1, -1))
"""Along a rank, along a file, and the two diagonals, as (file step, rank step)."""


@dataclass
class Position:
    variant: Variant
    stones: dict[tuple[int, int], str] = field(default_factory=dict)
    to_move: str = "x"
    winner: str | None = None

    def on_board(self, file: int, rank: int) -> bool:
        return 0 <= file < self.variant.width and 0 <= rank < self.variant.height

    def moves(self) -> list[tuple[int, int]]:
        """The legal cells, rank by rank (with gravity: the lowest empty cell of each column, file by file)."""
        if self.winner is not None:
            return []
        v = self.variant
        if v.gravity:
            found = []
            for file in range(v.width):
                empty = [rank for rank in range(v.height) if (file, rank) not in self.stones]
                if empty:
                    found.append((file, min(empty)))
            return found
        return [(f, r) for r in range(v.height) for f in range(v.width) if (f, r) not in self.stones]

    def play(self, cell: tuple[int, int]) -> Position:
        assert cell in self.moves(), cell
        stones = dict(self.stones)
        stones[cell] = self.to_move
        winner = self.to_move if wins(self.variant, stones, cell) else None
        return Position(self.variant, stones, "o" if self.to_move == "x" else "x", winner)

    def result(self) -> str | None:
        """``"x"`` or ``"o"`` (a line), ``"draw"`` (a full board) or ``None`` (the game goes on)."""
        if self.winner is not None:
            return self.winner
        return "draw" if len(self.stones) == self.variant.width * self.variant.height else None


def wins(variant: Variant, stones: dict[tuple[int, int], str], cell: tuple[int, int]) -> bool:
    """Whether the stone on ``cell`` is part of a winning line of its colour under the variant's rule."""
    colour = stones[cell]
    for df, dr in LINES:
        run = [cell]
        for sign in (1, -1):
            f, r = cell
            while stones.get((f + sign * df, r + sign * dr)) == colour:
                f, r = f + sign * df, r + sign * dr
                run.append((f, r))
        if _winning_run(variant, stones, run, colour, df, dr):
            return True
    return False


def _winning_run(variant: Variant, stones: dict, run: list, colour: str, df: int, dr: int) -> bool:
    """Whether a maximal run of ``colour`` along (df, dr) wins: k or more (freestyle), exactly k (exact), exactly k
    and not an opponent stone beyond both ends (caro; a cell off the board holds none, so an edge is open)."""
    if variant.rule == Rule.FREESTYLE:
        return len(run) >= variant.k
    if len(run) != variant.k:
        return False
    if variant.rule == Rule.EXACT:
        return True

    def along(cell: tuple[int, int]) -> int:
        return cell[0] * df + cell[1] * dr

    (f1, r1), (f2, r2) = max(run, key=along), min(run, key=along)
    other = "o" if colour == "x" else "x"
    return not (stones.get((f1 + df, r1 + dr)) == other and stones.get((f2 - df, r2 - dr)) == other)


def perft(position: Position, depth: int) -> int:
    """Leaves of the legal-move tree ``depth`` moves deep (the last level counted: a finished game has no moves)."""
    if depth <= 1:
        return len(position.moves()) if depth == 1 else 1
    return sum(perft(position.play(cell), depth - 1) for cell in position.moves())


def from_text(variant: Variant, text: str) -> Position:
    """The position of a rule-book text (no checks: the tests give it valid texts); a line already on the board
    belongs to the player who moved last."""
    board, side = text.split()
    stones: dict[tuple[int, int], str] = {}
    for i, row in enumerate(board.split("/")):
        rank, file, number = variant.height - 1 - i, 0, ""
        for char in row + " ":
            if char.isdigit():
                number += char
                continue
            file += int(number or 0)
            number = ""
            if char in "xo":
                stones[(file, rank)] = char
                file += 1
    last = "o" if side == "x" else "x"
    winner = last if any(c == last and wins(variant, stones, cell) for cell, c in stones.items()) else None
    return Position(variant, stones, side, winner)
