"""The k-in-a-row solver: known results from the start, agreement with a plain minimax over the game API (an
independent implementation) on late positions of every shape, its win test against the family's kernels, and its
refusals."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from mmc.games import apply_move, from_text, initial_state, legal_moves, outcome
from mmc.games.gomoku import board as B
from mmc.games.gomoku import solver as S
from mmc.games.gomoku.solver import DRAW, LOSS, WIN, Solver, SolverLimit, check_solvable, solve


@pytest.mark.parametrize(
    ("variant", "value"),
    [
        ("tictactoe", DRAW),
        ("mnk_3x3_k3", DRAW),
        ("mnk_4x3_k3", WIN),
        ("mnk_3x4_k3", WIN),
        ("mnk_4x4_k3", WIN),
        ("mnk_4x4_k4", DRAW),
        ("mnk_5x4_k4", DRAW),
    ],
)
def test_known_results_from_the_start(variant: str, value: int) -> None:
    """Tic-tac-toe is a draw, three in a row on 4x3 and 4x4 a first-player win, four in a row on 4x4 and 5x4 a draw
    (the m,n,k-game results, e.g. Uiterwijk and van den Herik, 2000)."""
    assert solve(initial_state(variant)).value == value


def test_tictactoe_keeping_moves() -> None:
    """Every first move of tic-tac-toe keeps the draw; after a corner, only the centre keeps it for the reply."""
    assert solve(initial_state("tictactoe")).keeping == legal_moves(initial_state("tictactoe"))
    after = apply_move(initial_state("tictactoe"), 0)  # a1
    s = solve(after)
    assert (s.value, s.keeping) == (DRAW, (16 + 1,))  # b2
    assert s.critical


@cache
def _minimax(state: object) -> int:
    """The value of ``state`` for the player to move, by plain minimax over the game API."""
    if outcome(state) is not None:
        raise AssertionError("called on a finished game")
    best = LOSS
    for move in legal_moves(state):
        child = apply_move(state, move)
        end = outcome(child)
        v = (DRAW if end.winner is None else WIN) if end is not None else -_minimax(child)
        best = max(best, v)
        if best == WIN:
            break
    return best


def _exact(state: object) -> tuple[int, tuple[int, ...]]:
    values = {}
    for move in legal_moves(state):
        child = apply_move(state, move)
        end = outcome(child)
        values[move] = (DRAW if end.winner is None else WIN) if end is not None else -_minimax(child)
    value = max(values.values())
    return value, tuple(m for m in legal_moves(state) if values[m] == value)


def _late_positions(variant: str, empty: int, count: int, seed: int) -> list[object]:
    rng = np.random.default_rng(seed)
    cells = initial_state(variant).variant.cells
    out = []
    while len(out) < count:
        state = initial_state(variant)
        while outcome(state) is None and cells - state.ply > empty:
            moves = legal_moves(state)
            state = apply_move(state, moves[int(rng.integers(len(moves)))])
        if outcome(state) is None:
            out.append(state)
    return out


@pytest.mark.parametrize(
    ("variant", "empty"),
    [("mnk_5x4_k4", 9), ("mnk_4x4_k3", 9), ("mnk_6x5_k4", 8), ("grav_5x4_k3", 11), ("connect4", 12)],
)
def test_agrees_with_plain_minimax(variant: str, empty: int) -> None:
    """On late positions of random games, the solver's value and keeping moves are plain minimax's."""
    solver = Solver(variant)
    for state in _late_positions(variant, empty, 12, seed=len(variant)):
        s = solver.solve(state)
        assert (s.value, s.keeping) == _exact(state), state.fen()
        exact = solver.solve(state, exact=True)
        assert (exact.value, exact.keeping) == (s.value, s.keeping)
        assert all(v is not None for v in exact.values.values())
        assert all(exact.values[m] == v for m, v in s.values.items() if v is not None)
    _minimax.cache_clear()


def test_connect4_some_plies_in() -> None:
    """A connect4 position ten plies into a game (seconds): the solver's value and every move's exact value match
    those of its children, each solved on its own with a fresh table."""
    state = from_text("connect4", "7/7/7/3o3/2xxo2/1xoxox1 o")
    s = solve(state, exact=True)
    for move, value in s.values.items():
        child = apply_move(state, move)
        expected = WIN if outcome(child) is not None else -solve(child).value
        assert value == expected, move
    assert s.value == max(s.values.values())


def test_win_test_is_the_kernels() -> None:
    """For every empty cell of random positions of every solvable shape, the solver's winning cells are the cells
    where the family's kernels see a line."""
    rng = np.random.default_rng(7)
    for variant in ("mnk_7x7_k4", "connect4", "mnk_5x5_k3", "mnk_3x7_k3", "mnk_8x6_k5", "grav_9x5_k4"):
        solver = Solver(variant)
        v = solver.variant
        tab = B.table(variant)
        for _ in range(30):
            board = np.zeros(B.BOARD_LEN, dtype=np.int8)
            bits = 0
            for rank in range(v.height):
                for file in range(v.width):
                    if rng.random() < 0.4:
                        board[16 * rank + file] = 1
                        bits |= 1 << solver._bit(16 * rank + file)
                    elif rng.random() < 0.3:
                        board[16 * rank + file] = -1
            cells = S._winning_cells(bits, solver._consts)
            for rank in range(v.height):
                for file in range(v.width):
                    cell = 16 * rank + file
                    if board[cell] != 0:
                        continue
                    board[cell] = 1
                    expected = bool(B.makes_line(board, cell, 1, tab))
                    board[cell] = 0
                    assert bool(cells >> solver._bit(cell) & 1) == expected, (variant, cell)


def test_refusals() -> None:
    with pytest.raises(ValueError, match="freestyle and gravity boards only, not exact_9x9"):
        check_solvable("exact_9x9")
    with pytest.raises(ValueError, match=r"files x \(ranks \+ 1\) <= 63, not gomoku_8x8"):
        check_solvable("gomoku_8x8")
    with pytest.raises(SolverLimit, match=r"mnk_5x5_k4 position '5/5/5/5/5 x' is not solved within 1,000 positions"):
        Solver("mnk_5x5_k4", node_limit=1000).solve(initial_state("mnk_5x5_k4"))
    over = from_text("tictactoe", "3/oo1/xxx o")
    with pytest.raises(ValueError, match="is over"):
        solve(over)
