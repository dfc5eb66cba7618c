"""The training symmetries, checked through the rules: the transformed example of a position is the example of the
transformed position, built independently by replaying the game's moves moved by the same board map (so its last
stone, its legal cells and its gravity come from the rules, not from the transform)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import torch

from mmc.games import get_game
from mmc.games.gomoku import VARIANTS, State, apply_move, initial_state, legal_moves, observation_planes
from mmc.games.gomoku.symmetry import MIRROR, SQUARE, symmetries
from mmc.train import policy_target
from tests.games.gomoku import random_game

Cell = tuple[int, int]  # (rank, file)
MAPS: dict[str, Callable[[Cell, int, int], Cell]] = {
    "mirror": lambda c, h, w: (c[0], w - 1 - c[1]),
    "flip": lambda c, h, w: (h - 1 - c[0], c[1]),
    "rotate90": lambda c, h, w: (w - 1 - c[1], c[0]),
    "rotate180": lambda c, h, w: (h - 1 - c[0], w - 1 - c[1]),
    "rotate270": lambda c, h, w: (c[1], h - 1 - c[0]),
    "transpose": lambda c, h, w: (c[1], c[0]),
    "antitranspose": lambda c, h, w: (w - 1 - c[1], h - 1 - c[0]),
}
"""Where each symmetry (by its function's name) takes a stone, written from the board, not from the tensors."""


def moved(cell: int, name: str, state: State) -> int:
    rank, file = MAPS[name]((cell >> 4, cell & 15), state.variant.height, state.variant.width)
    return 16 * rank + file


def example(state: State, policy: np.ndarray) -> tuple[torch.Tensor, ...]:
    target, legal = policy_target(state, policy)
    return tuple(torch.from_numpy(np.asarray(a))[None] for a in (observation_planes(state), target, legal))


def games(variant: str, count: int) -> list[list[State]]:
    rng = np.random.default_rng(len(variant))
    return [list(random_game(variant, rng, near=0.5))[:-1] for _ in range(count)]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_transformed_example_is_the_example_of_the_transformed_position(variant: str) -> None:
    transforms = symmetries([variant])
    assert transforms == (SQUARE if VARIANTS[variant].width == VARIANTS[variant].height and variant != "connect4"
                          else MIRROR)  # fmt: skip
    rng = np.random.default_rng(0)
    for game in games(variant, 3):
        for state in game[:: max(1, len(game) // 6)]:
            policy = rng.dirichlet(np.ones(len(legal_moves(state))))
            original = example(state, policy)
            for transform in transforms:
                name = transform.__name__
                replayed = initial_state(variant)
                for past in game[1 : game.index(state) + 1]:
                    assert past.last is not None
                    replayed = apply_move(replayed, moved(past.last, name, state))
                index = {m: i for i, m in enumerate(legal_moves(replayed))}
                expected_policy = np.zeros(len(index))
                for p, m in zip(policy, legal_moves(state), strict=True):
                    expected_policy[index[moved(m, name, state)]] = p
                expected = example(replayed, expected_policy)
                for got, want in zip(transform(*original), expected, strict=True):
                    assert torch.equal(got, want), f"{variant} {name} {state.fen()}"


def test_the_game_offers_the_symmetries_every_variant_of_a_batch_keeps() -> None:
    game = get_game("gomoku_9x9")
    assert game.symmetries is not None
    assert len(game.symmetries(["gomoku_9x9", "exact_9x9", "caro_9x9"])) == 7
    assert len(game.symmetries(["connect4"])) == 1 and len(game.symmetries(["gomoku_8x8", "connect4"])) == 1
    assert [t.__name__ for t in SQUARE] == list(MAPS)


def test_every_transform_is_a_symmetry_of_the_square() -> None:
    board = torch.arange(2 * 3 * 4 * 4, dtype=torch.float32).reshape(2, 3, 4, 4)
    images = {tuple(t(board, board[:, :1], board[:, :1] > 5)[0].flatten().tolist()) for t in SQUARE}
    assert len(images) == 7 and tuple(board.flatten().tolist()) not in images
    for transform in SQUARE:
        planes, policy, legal = transform(board, board[:, :1], board[:, :1] > 5)
        assert planes.shape == board.shape and policy.shape == (2, 1, 4, 4) and legal.dtype == torch.bool
