"""Forced mates by exact search, and puzzle suites made from seeded playouts.

A *mate in n* is a win the side to move forces within ``n`` of its own moves whatever the opponent does (a mate
in one: a move that checkmates). The search is exhaustive over the compiled kernels' legal moves
(``mmc.games.chess.board``) and their game-end rules, with a table of positions already decided; it reads the board,
the side to move and the variant's insufficient-material rule, never the clocks: a suite's positions start with
fresh clocks (:func:`fresh`), so no clock or repetition rule can end a game within a few moves of them.

A :class:`Puzzle` is one position of a suite: ``mate`` (the shortest forced mate is ``mate_in`` moves) or
``stalemate-trap`` (a mate in one, beside a move that stalemates). :func:`playout_positions` draws candidate
positions from playouts of a greedy side (:class:`mmc.play.GreedyPlayer`, now and then a random move) against a
random one, so that won endgames and mates are common.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mmc.core.atomic import atomic_write
from mmc.games.chess import Move, State, Termination, apply_move, from_fen, initial_state, legal_moves, outcome
from mmc.games.chess import board as K
from mmc.games.chess.board import kernel_board, table
from mmc.games.chess.greedy import heuristic

__all__ = [
    "KINDS",
    "Puzzle",
    "fresh",
    "mate_distance",
    "mating_moves",
    "playout_positions",
    "read_puzzles",
    "stalemating_moves",
    "write_puzzles",
]

KINDS = ("mate", "stalemate-trap")
"""Puzzle kinds: a forced mate; a mate in one beside a stalemating move."""

_NEVER = 1 << 30
"""A ply cap the search never reaches."""


class _Search:
    """Exact mate search in one variant, with a table of decided (board, side, moves) triples."""

    def __init__(self, variant: str) -> None:
        self.tab = table(variant)
        self.known: dict[tuple[bytes, int, int, bool], bool] = {}

    def end(self, board: np.ndarray, side: int, moves: np.ndarray) -> int:
        return int(K.game_end(board, side, self.tab, len(moves), 0, 0, 0, _NEVER))

    def wins(self, board: np.ndarray, side: int, n: int) -> bool:
        """Whether ``side`` (to move, game not over) mates within ``n`` of its moves."""
        key = (board.tobytes(), side, n, True)
        if key not in self.known:
            moves = K.legal_moves(board, side, self.tab)
            self.known[key] = any(self.lost(K.make_move(board, m, self.tab), -side, n) for m in moves)
        return self.known[key]

    def lost(self, board: np.ndarray, side: int, n: int) -> bool:
        """Whether ``side`` (to move) is mated now, or within ``n - 1`` more moves of the opponent."""
        key = (board.tobytes(), side, n, False)
        if key not in self.known:
            moves = K.legal_moves(board, side, self.tab)
            code = self.end(board, side, moves)
            if code != K.ONGOING:
                self.known[key] = K.end_value(code) < 0
            else:
                self.known[key] = n > 1 and all(self.wins(K.make_move(board, m, self.tab), -side, n - 1) for m in moves)
        return self.known[key]


def _search(state: State) -> _Search:
    return _Search(state.variant_name)


def mating_moves(state: State, n: int) -> tuple[Move, ...]:
    """Every legal move of ``state`` after which the side to move mates within ``n`` of its moves (this one
    included), in ``legal_moves`` order; empty if there is no forced mate in ``n`` (or the game is over)."""
    if n < 1:
        raise ValueError(f"mating_moves: n must be >= 1, got {n}")
    if outcome(state) is not None:
        return ()
    search, board, side = _search(state), kernel_board(state), int(state.turn)
    return tuple(m for m in legal_moves(state) if search.lost(K.make_move(board, m.code, search.tab), -side, n))


def mate_distance(state: State, limit: int) -> int | None:
    """The fewest moves in which the side to move forces mate, if at most ``limit``; else ``None``."""
    if outcome(state) is not None:
        return None
    search, board, side = _search(state), kernel_board(state), int(state.turn)
    return next((n for n in range(1, limit + 1) if search.wins(board, side, n)), None)


def stalemating_moves(state: State) -> tuple[Move, ...]:
    """The legal moves of ``state`` that end the game in stalemate, in ``legal_moves`` order."""
    found = []
    for move in legal_moves(state):
        after = outcome(apply_move(state, move))
        if after is not None and after.termination is Termination.STALEMATE:
            found.append(move)
    return tuple(found)


def fresh(state: State) -> State:
    """``state``'s position with the clocks of a game's start (halfmove 0, move 1) and no history."""
    fields = state.fen().split()
    return from_fen(state.variant_name, " ".join([*fields[:-2], "0", "1"]))


@dataclass(frozen=True)
class Puzzle:
    """One suite position: the side to move wins by force."""

    variant: str
    fen: str
    kind: str
    """One of :data:`KINDS`."""
    mate_in: int
    """The shortest forced mate, in moves of the side to move (1 for a stalemate trap)."""
    best: tuple[str, ...]
    """Every move (UCI) that keeps a forced mate in ``mate_in``: playing one solves the puzzle."""
    stalemating: tuple[str, ...] = ()
    """The moves (UCI) that stalemate (a stalemate trap's trap)."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Puzzle.kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.mate_in < 1 or not self.best:
            raise ValueError(f"a puzzle needs mate_in >= 1 and a best move, got {self.mate_in}, {self.best}")

    @property
    def state(self) -> State:
        return from_fen(self.variant, self.fen)

    @classmethod
    def of(cls, state: State, limit: int) -> Puzzle | None:
        """The puzzle ``state`` makes (its clocks reset with :func:`fresh`), or ``None`` if the side to move has
        no forced mate within ``limit`` moves."""
        state = fresh(state)
        distance = mate_distance(state, limit)
        if distance is None:
            return None
        best = tuple(m.uci() for m in mating_moves(state, distance))
        stalemating = tuple(m.uci() for m in stalemating_moves(state)) if distance == 1 else ()
        kind = "stalemate-trap" if stalemating else "mate"
        return cls(state.variant_name, state.fen(), kind, distance, best, stalemating)


def playout_positions(
    variant: str, rng: np.random.Generator, *, greedy_probability: float = 0.8, max_plies: int = 150
) -> Iterator[State]:
    """Positions of endless seeded playouts (each from the start, until it ends or ``max_plies``): one side,
    drawn per playout, plays the greedy move (the family's heuristic, as ``mmc.play.GreedyPlayer`` plays it: the
    best-scored move, ties drawn uniformly) with probability ``greedy_probability`` and a uniformly random one
    otherwise; the other side plays at random. Yields every position with the greedy side to move and the game not
    over."""
    while True:
        state = initial_state(variant, max_plies=max_plies)
        strong = state.turn if rng.random() < 0.5 else state.turn.other
        while outcome(state) is None:
            if state.turn == strong:
                yield state
            moves = legal_moves(state)
            if state.turn == strong and rng.random() < greedy_probability:
                scores = heuristic(state, moves)
                move = moves[int(rng.choice(np.flatnonzero(scores == scores.max())))]
            else:
                move = moves[int(rng.integers(len(moves)))]
            state = apply_move(state, move)


_FIELDS = ("variant", "fen", "kind", "mate_in", "best", "stalemating")


def write_puzzles(puzzles: Sequence[Puzzle], path: str | os.PathLike[str]) -> Path:
    """Write ``puzzles`` as CSV (columns :data:`_FIELDS`; move lists space-separated) atomically."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(_FIELDS)
    for p in puzzles:
        writer.writerow([p.variant, p.fen, p.kind, p.mate_in, " ".join(p.best), " ".join(p.stalemating)])
    data = text.getvalue().encode("utf-8")
    return atomic_write(path, lambda file: file.write(data))


def read_puzzles(path: str | os.PathLike[str]) -> list[Puzzle]:
    """The puzzles of a CSV written by :func:`write_puzzles`; a bad row raises ``ValueError`` naming its line."""
    with open(path, newline="") as file:
        reader = csv.DictReader(file)
        if tuple(reader.fieldnames or ()) != _FIELDS:
            raise ValueError(f"{path}: expected columns {', '.join(_FIELDS)}, got {reader.fieldnames}")
        puzzles = []
        for line, row in enumerate(reader, start=2):
            try:
                puzzles.append(Puzzle(row["variant"], row["fen"], row["kind"], int(row["mate_in"]),
                                      tuple(row["best"].split()), tuple(row["stalemating"].split())))  # fmt: skip
            except ValueError as error:
                raise ValueError(f"{path}:{line}: {error}") from None
    return puzzles
