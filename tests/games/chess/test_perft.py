"""Perft equals the oracle counts of ``shared/oracle/perft.csv`` on every row.

Perft counts the leaves of the legal-move tree, so one wrong move anywhere in the tree changes the
number: this is the move generator's main correctness check. The counts come from Fairy-Stockfish and
were cross-checked against pgx and a second engine build (``docs/rules/chess.md``, "How the rules are checked").

The CSV is the repository's copy in ``tests/oracle/`` (kept equal to ``shared/oracle`` by
``tests/test_oracle_data.py``).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from mmc.games.chess import VARIANTS, from_fen, get_variant, initial_state, legal_moves, perft, perft_divide

pytestmark = pytest.mark.slow  # the perft suite: minutes in all

SLOW_NODES = 3_000_000


PERFT_CSV = Path(__file__).resolve().parents[2] / "oracle" / "perft.csv"


def oracle_rows() -> list[object]:
    """One ``pytest.param(variant, fen, depth, nodes)`` per CSV row."""
    with PERFT_CSV.open(newline="") as f:
        rows = list(csv.DictReader(f))
    params: list[object] = []
    for i, row in enumerate(rows):
        nodes = int(row["nodes"])
        marks = [pytest.mark.slow] if nodes > SLOW_NODES else []
        params.append(
            pytest.param(
                row["variant"],
                row["fen"],
                int(row["depth"]),
                nodes,
                marks=marks,
                id=f"{row['variant']}-d{row['depth']}-{i}",
            )
        )
    return params


@pytest.mark.parametrize(("variant", "fen", "depth", "nodes"), oracle_rows())
def test_perft_matches_oracle(variant: str, fen: str, depth: int, nodes: int) -> None:
    """The engine's perft count equals the oracle's for this row."""
    assert perft(from_fen(variant, fen), depth) == nodes, f"{variant} {fen} depth {depth}"


CHESS_PERFT_CSV = Path(__file__).resolve().parents[2] / "oracle" / "chess_perft.csv"
"""8x8 chess: Fairy-Stockfish's ``go perft`` counts, written by ``tests/oracle/chess_perft.py`` (the start to depth 5,
Kiwipete and the chessprogramming wiki's positions 3-6 to depth 4, 32 positions of pyffish's random games to
depth 4)."""


def chess_rows() -> list[object]:
    with CHESS_PERFT_CSV.open(newline="") as f:
        rows = list(csv.DictReader(f))
    return [pytest.param(row["fen"], int(row["depth"]), int(row["nodes"]), id=f"chess-d{row['depth']}-{i}")
            for i, row in enumerate(rows)]  # fmt: skip


@pytest.mark.parametrize(("fen", "depth", "nodes"), chess_rows())
def test_chess_perft_matches_fairy_stockfish(fen: str, depth: int, nodes: int) -> None:
    assert perft(from_fen("chess", fen), depth) == nodes, f"chess {fen} depth {depth}"


def test_chess_perft_covers_the_known_positions() -> None:
    """The start to depth 5 (the spec's 4,865,609), Kiwipete, positions 3-6, and at least 30 random positions."""
    rows = [(fen, int(depth), int(nodes)) for fen, depth, nodes in (p.values for p in chess_rows())]  # type: ignore[attr-defined]
    assert rows[0] == (get_variant("chess").start_fen, 5, 4_865_609)
    assert rows[1][2] == 4_085_603  # Kiwipete, the spec's count
    assert len(rows) >= 6 + 30


def test_oracle_covers_every_variant_with_an_oracle() -> None:
    """The CSV has rows for the seven variants Fairy-Stockfish can check (the other three are in test_rules)."""
    with PERFT_CSV.open(newline="") as f:
        names = {row["variant"] for row in csv.DictReader(f)}
    assert names <= set(VARIANTS)
    assert names == set(VARIANTS) - {"rifle", "monochromatic", "bichromatic", "chess"}  # chess: test_chess.py


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_perft_divide_sums_to_perft(variant: str) -> None:
    """``perft_divide`` lists each legal first move once, and its counts add up to ``perft``."""
    state = initial_state(variant)
    split = perft_divide(state, 3)
    assert [uci for uci, _ in split] == [m.uci() for m in legal_moves(state)]
    assert sum(n for _, n in split) == perft(state, 3)


def test_perft_small_depths() -> None:
    """Depth 0 counts the position itself; depth 1 counts the legal moves."""
    state = initial_state("gardner")
    assert perft(state, 0) == 1
    assert perft(state, 1) == len(legal_moves(state)) == 7


def test_perft_rejects_negative_depth() -> None:
    """A negative depth (and ``perft_divide`` below depth 1) is a ``ValueError`` naming the depth."""
    state = initial_state("gardner")
    with pytest.raises(ValueError, match="-1"):
        perft(state, -1)
    with pytest.raises(ValueError, match="0"):
        perft_divide(state, 0)
