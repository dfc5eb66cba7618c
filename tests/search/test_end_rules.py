"""One game-end rule, seen alike by the engine, the search tree and the players, on random playouts of every variant.

The engine's ``outcome``, the tree's leaf check (``mmc.search._tree.leaf_end``) and the greedy player's look-ahead in
dark chess all call the engine's kernels (``mmc.games.chess.board.game_end`` and ``clock_end``); here each view is
compared,
position by position, with ``outcome`` on seeded random playouts: the reason, not only whether the game is over.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from mmc.games.chess import VARIANTS, State, Termination, apply_move, board, from_fen, get_variant, legal_moves, outcome
from mmc.games.chess.actions import NUM_POLICY_PLANES
from mmc.games.chess.greedy import _seen_scores
from mmc.search import Forest, LeafBatch, SearchConfig, _tree

CODES = {
    board.ONGOING: None,
    board.STALEMATE: Termination.STALEMATE,
    board.INSUFFICIENT_MATERIAL: Termination.INSUFFICIENT_MATERIAL,
    board.REPETITION: Termination.REPETITION,
    board.FIFTY_MOVES: Termination.FIFTY_MOVES,
    board.PLY_CAP: Termination.PLY_CAP,
}
DECISIVE = {board.CHECKMATED, board.KING_LOST, board.EXTINCT, board.OPPONENT_EXTINCT}


def uniform(batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
    n, _, h, w = batch.planes.shape
    return np.zeros((n, NUM_POLICY_PLANES * h * w), dtype=np.float32), np.zeros(n, dtype=np.float32)


def playout(variant: str, seed: int) -> list[State]:
    """A seeded random game to its end; every other game starts with the fifty-move clock at 96, and knights
    shuffle half the time, so that repetitions, the fifty-move rule and the ply cap all come up."""
    rng = np.random.default_rng(seed)
    v = get_variant(variant)
    fields = v.start_fen.split()
    clock = 96 if seed % 2 else 0
    state = from_fen(v, " ".join([*fields[:4], str(clock), fields[5]]), max_plies=int(rng.choice([30, 60, 150])))
    states = [state]
    while outcome(state) is None:
        moves = legal_moves(state)
        knights = [m for m in moves if abs(state.piece_at(m.from_square)) == 2 and state.piece_at(m.to_square) == 0]
        pool = knights if knights and rng.random() < 0.5 else moves
        state = apply_move(state, pool[int(rng.integers(len(pool)))])
        states.append(state)
    return states


def expected_code(state: State) -> int:
    """``outcome(state)`` as a ``game_end`` code (the decisive ends as one class: ``outcome`` names their winner)."""
    result = outcome(state)
    if result is None:
        return board.ONGOING
    if result.winner is not None:
        return -1
    return {t: c for c, t in CODES.items() if t is not None}[result.termination]


def tree_codes(parent: State) -> list[int]:
    """The tree's view of each child of ``parent``: one search visits every child once, then each child's leaf
    check is read back (its end code)."""
    moves = legal_moves(parent)
    forest = Forest(parent.variant_name, 1, SearchConfig(simulations=1, c_puct=1e6), parent.max_plies)
    forest.set_root(0, parent)
    forest.search(np.arange(1), uniform, np.random.default_rng(0), add_noise=False, simulations=len(moves))
    start = forest.nodes.first_child[0, _tree.ROOT_INDEX]
    codes = []
    for j in range(len(moves)):
        node = start + j
        assert forest.nodes.slot[0, node] >= 0, "every child is visited"
        code, _, _ = forest.tree.leaf_end(0, node, forest.nodes, forest.slots, forest.trees, forest.rules)
        codes.append(-1 if code in DECISIVE else int(code))
    return codes


SEARCHABLE = sorted(VARIANTS)


@pytest.mark.parametrize(
    "variant",
    [pytest.param(v, marks=pytest.mark.slow) if v == "chess" else v for v in SEARCHABLE],  # chess: 2.5 s
)
def test_tree_and_players_see_the_engines_game_ends(variant: str) -> None:
    hidden = get_variant(variant).hidden_information
    seen: Counter[int] = Counter()
    for seed in range(6):
        states = playout(variant, seed)
        for parent in states[:-1]:
            moves = legal_moves(parent)
            children = [apply_move(parent, move) for move in moves]
            expected = [expected_code(child) for child in children]
            seen.update(expected)
            tree = tree_codes(parent)
            for child, want, got in zip(children, expected, tree, strict=True):
                # Dark chess's tree does not count repetitions (the mover cannot see them): the game goes on there.
                if hidden and want == board.REPETITION:
                    want = int(board.clock_end(child.halfmove_clock, child.ply, child.max_plies))
                assert got == want, (child, outcome(child), got)
            # The players' clock rule (GreedyPlayer's look-ahead in dark chess) agrees with the engine's.
            for child, want in zip(children, expected, strict=True):
                clock = int(board.clock_end(child.halfmove_clock, child.ply, child.max_plies))
                if want in (board.ONGOING, board.FIFTY_MOVES, board.PLY_CAP):
                    assert clock == want, (child, outcome(child))
            if hidden:
                scores = _seen_scores(parent, moves)
                for score, want in zip(scores, expected, strict=True):
                    if want in (board.FIFTY_MOVES, board.PLY_CAP):
                        assert score == 0
    assert seen[board.ONGOING] or not legal_moves(playout(variant, 0)[0]), seen


def test_the_playouts_reach_every_kind_of_end() -> None:
    """The positions above include each end the variants can reach: decisive, stalemate, repetition, fifty moves,
    the ply cap and insufficient material."""
    seen: Counter[int] = Counter()
    for variant in SEARCHABLE:
        for seed in range(6):
            for parent in playout(variant, seed)[:-1]:
                seen.update(expected_code(apply_move(parent, move)) for move in legal_moves(parent))
    kinds = {-1, board.STALEMATE, board.REPETITION, board.FIFTY_MOVES, board.PLY_CAP, board.INSUFFICIENT_MATERIAL}
    assert kinds <= set(seen), seen
