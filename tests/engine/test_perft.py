"""Perft equals the oracle counts of ``shared/oracle/perft.csv`` on every row.

Perft counts the leaves of the legal-move tree, so one wrong move anywhere in the tree changes the
number: this is the move generator's main correctness check. The counts come from Fairy-Stockfish and
were cross-checked against pgx and a second engine build (see the spec's "Oracle" section).

The CSV is the repository's copy in ``tests/oracle/`` (kept equal to ``shared/oracle`` by
``tests/test_oracle_data.py``).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from mmc.engine import VARIANTS, from_fen, initial_state, legal_moves, perft, perft_divide

SLOW_NODES = 3_000_000


PERFT_CSV = Path(__file__).resolve().parents[1] / "oracle" / "perft.csv"


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


def test_oracle_covers_every_variant_with_an_oracle() -> None:
    """The CSV has rows for the seven variants Fairy-Stockfish can check (the other three are in test_rules)."""
    with PERFT_CSV.open(newline="") as f:
        names = {row["variant"] for row in csv.DictReader(f)}
    assert names <= set(VARIANTS)
    assert names == set(VARIANTS) - {"rifle", "monochromatic", "bichromatic"}


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
