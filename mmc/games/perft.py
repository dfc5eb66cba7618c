"""Perft of any game family (``Game.perft``), split by first move, and perft suites: CSV files of expected counts.

A suite has the header ``variant,position,depth,nodes`` (``variant,fen,depth,nodes`` is read too: chess's name for
its position text) and one row per count: a variant id of any registered family, a position in that family's text
(``state.fen()``), a depth and the leaf count ``depth`` moves below the position::

    variant,position,depth,nodes
    gardner,rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1,3,506
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mmc.games import from_text, game_of

__all__ = ["MAX_DEPTH", "PERFT_HEADERS", "PerftRow", "perft_divide", "read_perft_suite"]

MAX_DEPTH = 15
"""The deepest perft asked for: a start position's count grows some 10 to 15 times a ply (chess), so depth 12 takes
days and depth 15 years already."""

PERFT_HEADERS = (["variant", "position", "depth", "nodes"], ["variant", "fen", "depth", "nodes"])
"""The headers a suite may have."""


@dataclass(frozen=True)
class PerftRow:
    """One row of a suite: the expected leaf count ``nodes`` ``depth`` moves below ``position``."""

    line: int
    """The row's line in its file (the header is line 1)."""
    variant: str
    position: str
    """The position in its family's text."""
    depth: int
    nodes: int


def perft_divide(state: Any, depth: int) -> list[tuple[str, int]]:
    """Perft split by first move: ``[(move text, nodes), ...]`` in ``legal_moves`` order; ``depth`` >= 1. A move that
    counts no ply (``state.ply`` unchanged: a hop of a jump chain that goes on) keeps the depth, since ``perft``
    counts the plies of complete moves."""
    if depth < 1:
        raise ValueError(f"perft divide needs a depth >= 1, got {depth}")
    game = game_of(state)
    split = []
    for move in game.legal_moves(state):
        child = game.apply_move(state, move)
        split.append((game.move_text(move), game.perft(child, depth - (child.ply - state.ply))))
    return split


def _row(line: int, fields: list[str], where: str) -> PerftRow:
    """One row, checked: its variant and position parse, its depth is in range; ``ValueError`` naming ``where``."""
    if len(fields) != 4:
        raise ValueError(f"{where}: expected 4 fields, got {len(fields)}")
    variant, position, depth, nodes = fields
    try:
        row = PerftRow(line, variant, position, int(depth), int(nodes))
    except ValueError:
        raise ValueError(f"{where}: depth and nodes must be integers, got {depth!r}, {nodes!r}") from None
    if row.depth < 0 or row.nodes < 0:
        raise ValueError(f"{where}: depth and nodes must be >= 0")
    if row.depth > MAX_DEPTH:
        raise ValueError(f"{where}: depth must be at most {MAX_DEPTH}, got {row.depth}")
    try:
        from_text(variant, position)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    return row


def read_perft_suite(path: str | Path) -> list[PerftRow]:
    """The rows of the suite at ``path``, every one checked before any is counted; ``OSError`` if unreadable,
    ``ValueError`` naming ``path:line`` of the first bad row."""
    reader = csv.reader(Path(path).read_text().splitlines())
    header = next(reader, None)
    if header not in PERFT_HEADERS:
        raise ValueError(f"{path}:1: header must be 'variant,position,depth,nodes' (or 'variant,fen,depth,nodes'), "
                         f"got {','.join(header or [])!r}")  # fmt: skip
    return [_row(line, fields, f"{path}:{line}") for line, fields in enumerate(reader, start=2) if fields]
