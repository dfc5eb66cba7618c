"""The compiled rules against the plain implementation of ``reference.py``: legal cells and outcomes at every ply of
seeded random games, and perft on random positions; above all for what Fairy-Stockfish cannot check (the exact and
caro rules, the 15x15 board)."""

from __future__ import annotations

import numpy as np
import pytest

from mmc.games.gomoku import VARIANTS, Rule, State, Stone, Termination, from_text, outcome, perft
from mmc.games.gomoku import legal_moves as kernel_moves
from tests.games.gomoku import random_game, random_positions
from tests.games.gomoku import reference as ref

UNCHECKED_BY_THE_ORACLE = ("exact_9x9", "caro_9x9", "gomoku")


def cells(moves: tuple[int, ...]) -> list[tuple[int, int]]:
    return [(m & 15, m >> 4) for m in moves]


def expected_outcome(position: ref.Position) -> tuple[Stone | None, Termination] | None:
    result = position.result()
    if result is None:
        return None
    if result == "draw":
        return None, Termination.FULL_BOARD
    return (Stone.BLACK if result == "x" else Stone.WHITE), Termination.LINE


def check_game(variant: str, seed: int, near: float) -> ref.Position:
    """Play a random game and compare every position with the reference's; returns the reference's last one."""
    position = ref.Position(VARIANTS[variant])
    previous: State | None = None
    for state in random_game(variant, np.random.default_rng(seed), near):
        if previous is not None:
            last = state.last
            assert last is not None
            position = position.play((last & 15, last >> 4))
        where = f"{variant} seed {seed} {state.fen()}"
        assert cells(kernel_moves(state)) == position.moves(), where
        result = outcome(state)
        assert (None if result is None else tuple(result)) == expected_outcome(position), where
        previous = state
    return position


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_ply_of_random_games_agrees_with_the_plain_rules(variant: str) -> None:
    """Dense random games (stones next to stones) end by lines of every kind; in exact and caro they also make fives
    that do not win (overlines; caro: blocked at both ends), so the agreement covers the rule's refusals too."""
    games = 40 if variant in UNCHECKED_BY_THE_ORACLE else 10
    finals = [check_game(variant, seed, near=0.9) for seed in range(games)]
    assert any(final.result() in ("x", "o") for final in finals)
    if VARIANTS[variant].rule is not Rule.FREESTYLE:
        freestyle = VARIANTS["gomoku_9x9"]
        refused = [
            cell
            for final in finals
            for cell in final.stones
            if ref.wins(freestyle, final.stones, cell) and not ref.wins(final.variant, final.stones, cell)
        ]
        assert refused, "no five that the rule refuses"


def reference_of(state: State) -> ref.Position:
    return ref.from_text(state.variant, state.fen())


@pytest.mark.parametrize(("variant", "depth", "count"), [("exact_9x9", 3, 12), ("caro_9x9", 3, 12), ("gomoku", 2, 12)])
def test_perft_on_random_positions_equals_the_plain_rules(variant: str, depth: int, count: int) -> None:
    """Late positions of dense games: lines end some branches of every tree (the count falls short of the tree
    without them, ``n (n - 1) ... (n - depth + 1)`` for ``n`` empty cells)."""
    cut = 0
    for state in random_positions(variant, count, seed=len(variant), near=0.9, late=0.7):
        nodes = perft(state, depth)
        assert nodes == ref.perft(reference_of(state), depth), f"{variant} {state.fen()}"
        empty = len(kernel_moves(state))
        cut += nodes < int(np.prod(np.arange(empty - depth + 1, empty + 1)))
    assert cut >= count // 2


def test_both_implementations_read_a_five_blocked_at_both_ends() -> None:
    text = "9/9/9/9/oxxxxxo2/oo7/9/9/9 o"  # x's five b5-f5 between o's a5 and g5
    assert ref.from_text(VARIANTS["caro_9x9"], text).winner is None
    assert ref.from_text(VARIANTS["exact_9x9"], text).winner == "x"
    assert outcome(from_text("caro_9x9", text)) is None
    assert outcome(from_text("exact_9x9", text)) == (Stone.BLACK, Termination.LINE)
