"""The search tree is generic over the game: checked on the test game Bonus (``tests/games/bonus.py``), in which a
player sometimes moves twice, against exhaustive minimax.

- Values: a child's value is negated on its way to the root only where the player changes (a bonus move keeps it).
- Proofs: the MCTS-Solver proves exactly the decisive minimax values of a fully explored small tree.
- Move choice: with exact leaf values the most visited move is a minimax-optimal one.
- Nothing under ``mmc/search``, ``mmc/train`` or ``mmc/play`` imports a game family's rules.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import mmc
from mmc.games import Game, apply_move, initial_state, legal_moves, outcome
from mmc.search import Forest, LeafBatch, SearchConfig, search
from tests.games import bonus


@cache
def minimax(fen: str, variant: str) -> int:
    """The exact value of a Bonus position for its player to move: +1 won, 0 drawn, -1 lost."""
    state = bonus.from_text(variant, fen)
    result = outcome(state)
    if result is not None:
        return 0 if result.winner is None else (1 if result.winner == state.turn else -1)
    values = []
    for move in legal_moves(state):
        child = apply_move(state, move)
        value = minimax(child.fen(), variant)
        values.append(value if child.turn == state.turn else -value)
    return max(values)


def child_value(state: bonus.State, move: int) -> int:
    """The exact value of ``move`` for ``state``'s player to move."""
    child = apply_move(state, move)
    value = minimax(child.fen(), state.variant_name)
    return value if child.turn == state.turn else -value


class ExactEvaluator:
    """Uniform priors and each leaf's exact minimax value (for its player to move)."""

    def __call__(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        values = np.zeros(len(batch.boards), dtype=np.float32)
        for i, (board, side) in enumerate(zip(batch.boards, batch.sides, strict=True)):
            stones = int(np.count_nonzero(board))
            turn = bonus.Stone(int(side))
            state = bonus.State(batch.variant, board.tobytes(), turn, stones, 16)
            values[i] = minimax(state.fen(), batch.variant)
        n, _, h, w = batch.planes.shape
        return np.zeros((n, h * w), dtype=np.float32), values


def random_positions(variant: str, count: int, stones: range, seed: int) -> list[bonus.State]:
    """Positions reached by random play with a number of stones in ``stones``, game not over, every one distinct."""
    rng = np.random.default_rng(seed)
    found: dict[str, bonus.State] = {}
    while len(found) < count:
        state = initial_state(variant)
        target = int(rng.choice(list(stones)))
        while state.ply < target and outcome(state) is None:
            moves = legal_moves(state)
            state = apply_move(state, moves[int(rng.integers(len(moves)))])
        if outcome(state) is None and state.ply == target:
            found[state.fen()] = state
    return list(found.values())


def has_bonus_move(state: bonus.State) -> bool:
    return any(apply_move(state, m).turn == state.turn for m in legal_moves(state))


def test_a_child_value_is_negated_only_where_the_player_changes(bonus_game: Game) -> None:
    """Every root child evaluated once with its exact value: its Q, from the root player's view, is that value,
    turned round exactly where the turn passed (so a bonus move's child keeps its sign)."""
    states = [s for s in random_positions("bonus_3x3", 12, range(0, 6), seed=1) if has_bonus_move(s)]
    assert len(states) >= 4
    for state in states:
        moves = legal_moves(state)
        forest = Forest(state.variant_name, 1, SearchConfig(simulations=1, c_puct=1e6), state.max_plies)
        forest.set_root(0, state)
        forest.search(np.arange(1), ExactEvaluator(), np.random.default_rng(0), add_noise=False,
                      simulations=len(moves))  # fmt: skip
        root = forest.root(0)
        assert root.moves == moves
        assert (root.visit_counts == 1).all(), "each child evaluated once"
        expected = [child_value(state, m) for m in moves]
        np.testing.assert_array_equal(root.q_values, np.asarray(expected, dtype=np.float32))


@pytest.mark.parametrize("variant", ["bonus_2x3", "bonus_3x3"])
def test_the_solver_proves_the_decisive_minimax_values(bonus_game: Game, variant: str) -> None:
    """Every proof is the child's exact value (sound); and a small tree searched through proves the root's result:
    a winning move where the player to move wins (the search then plays it and explores no other), every move where
    it loses. Draws prove nothing."""
    stones = range(0, 4) if variant == "bonus_2x3" else range(5, 7)
    states = random_positions(variant, 10, stones, seed=2)
    config = SearchConfig(simulations=3000, solver=True)
    results = search(states, ExactEvaluator(), config, np.random.default_rng(0))
    outcomes = set()
    for state, result in zip(states, results, strict=True):
        assert result.proven is not None
        expected = np.asarray([child_value(state, m) for m in result.moves], dtype=np.int8)
        proven = result.proven != 0
        np.testing.assert_array_equal(result.proven[proven], expected[proven], err_msg=state.fen())
        if expected.max() == 1:
            assert (result.proven == 1).any(), state.fen()
            outcomes.add("win")
        elif expected.max() == -1:
            assert (result.proven == -1).all(), state.fen()
            outcomes.add("loss")
    assert "win" in outcomes


@pytest.mark.parametrize("variant", ["bonus_2x3", "bonus_3x3"])
def test_the_most_visited_move_is_minimax_optimal(bonus_game: Game, variant: str) -> None:
    states = random_positions(variant, 12, range(0, 5), seed=3)
    config = SearchConfig(simulations=400)
    results = search(states, ExactEvaluator(), config, np.random.default_rng(0))
    for state, result in zip(states, results, strict=True):
        best = max(child_value(state, m) for m in result.moves)
        chosen = result.moves[int(np.argmax(result.visit_counts))]
        assert child_value(state, chosen) == best, state.fen()
        assert abs(result.value - minimax(state.fen(), variant)) < 0.35, state.fen()


RULES_FREE = ("nn", "env", "web", "search", "train", "play")
"""The packages that must reach a game only through ``mmc.games`` (its protocol, registry and verbs)."""


def test_the_layers_above_the_rules_import_no_family() -> None:
    root = Path(mmc.__file__).parent
    families = {path.name for path in (root / "games").iterdir() if (path / "__init__.py").is_file()}
    assert "chess" in families
    offenders = []
    for package in RULES_FREE:
        for path in (root / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                    if node.module == "mmc.games":
                        names += [f"mmc.games.{alias.name}" for alias in node.names]
                offenders += [
                    f"{path.relative_to(root)}: {name}"
                    for name in names
                    if name.startswith("mmc.games.") and name.split(".")[2] in families
                ]
    assert offenders == []


def test_the_game_families_import_no_layer_above_them() -> None:
    """The rules import nothing of the players, the search, training, the networks, the environments or the web app
    (chess's puzzles play their greedy side from the family's own heuristic)."""
    root = Path(mmc.__file__).parent
    above = tuple(f"mmc.{package}" for package in RULES_FREE)
    offenders = []
    for path in (root / "games").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(root)}: {n}" for n in names if n == "mmc.play" or n.startswith(above)]
    assert offenders == []


def test_repetition_compares_positions_with_the_same_player_to_move(bonus_game: Game) -> None:
    """A chain root -> n1 -> n2 -> n3 in which the first player moves twice (root to n1): n3 repeats the root's
    board with the same player to move three moves back (an odd distance, which a tree assuming alternation never
    compares), not n2's board with the other player to move; the root's history counts the same way."""
    forest = Forest("bonus_3x3", 1, SearchConfig(simulations=8), 16)
    forest.set_root(0, initial_state("bonus_3x3"))
    nodes, slots = forest.nodes, forest.slots
    a, b = np.zeros(bonus.BOARD_LEN, np.int8), np.zeros(bonus.BOARD_LEN, np.int8)
    a[0], b[5] = 1, 1
    chain = [(a, 1), (b, 1), (a, -1), (a, 1)]  # (board, player to move) of root, n1, n2, n3
    for node, (board, side) in enumerate(chain):
        nodes.parent[0, node] = node - 1
        nodes.slot[0, node] = node
        slots.board[0, node], slots.side[0, node], slots.halfmove[0, node] = board, side, node + 2
    forest.trees.history[0, :2] = (a, a)
    forest.trees.history_side[0, :2] = (-1, 1)  # two moves before the root: the same player; one move: the other
    forest.trees.history_len[0] = 2
    count = forest.tree.repetitions(0, 3, nodes, slots, forest.trees)
    assert count == 2, "the root three moves back and the history's first position; not n2, nor the other player's"
