"""The jump game through the platform's layers, with no edit under mmc/search, mmc/train or mmc/play: the
AlphaZero loop (self-play with chains, training, the arena), matches between players of every kind, records that
replay, examples and checkpoints, and one network for every board of the family."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from mmc.core.seeding import root
from mmc.games import get_family, initial_state, outcome
from mmc.loops.alphazero import AlphaZeroConfig, alphazero
from mmc.nn import NetworkConfig, build_network, save_checkpoint
from mmc.play import parse_player, play_match, replay
from mmc.play.search_players import MCTSPlayer
from mmc.search import NetworkLeafEvaluator, SearchConfig, search
from mmc.train import TrainConfig, load_examples, save_examples

pytestmark = pytest.mark.xdist_group("jump")

JUMP = get_family("jump")


def small_network(seed: int = 0):
    return build_network(NetworkConfig.for_game(JUMP, blocks=1, filters=8, value_hidden=8), seed=seed)


@pytest.mark.slow  # the whole loop: 3 s
def test_alphazero_self_play_training_and_arena(tmp_path: Path) -> None:
    config = AlphaZeroConfig(generations=1, games=4, chunks=1, concurrent=4, max_plies=30, window=1, arena_games=2,
                             arena_simulations=4)  # fmt: skip
    (step,) = alphazero(small_network(), "jump_6x6", config, SearchConfig(simulations=8),
                        TrainConfig(epochs=1, batch_size=8), root(0))  # fmt: skip
    examples = step.self_play.examples[0]
    assert examples.planes.shape[1:] == (10, 6, 6) and examples.policy.shape[1:] == (18, 6, 6)
    assert np.isfinite([loss.total for loss in step.losses]).all() and step.arena is not None
    again = load_examples(save_examples(examples, tmp_path / "jump.npz"))
    np.testing.assert_array_equal(again.planes, examples.planes)
    for record in step.self_play.records:
        final = replay(record)[-1]
        assert outcome(final) is not None and final.ply <= 30
    assert torch.isfinite(next(step.candidate.parameters())).all()


def test_one_network_plays_every_board_and_refuses_chess(tmp_path: Path) -> None:
    net = small_network()
    states = [initial_state(v) for v in JUMP.variants]
    for state in states:
        (result,) = search([state], NetworkLeafEvaluator(net), SearchConfig(simulations=4), np.random.default_rng(0))
        assert result.visit_counts.sum() == 4
    with pytest.raises(ValueError, match="a jump network cannot play gardner"):
        search([initial_state("gardner")], NetworkLeafEvaluator(net), SearchConfig(simulations=2),
               np.random.default_rng(0))  # fmt: skip
    path = save_checkpoint(net, net.config, tmp_path / "jump.pt")
    with pytest.raises(ValueError, match=r"a jump network cannot play gardner, a variant of chess$"):
        parse_player(f"net:{path}", variant="gardner")


@pytest.mark.parametrize("variant", ["jump", "jump_diagonal", "jump_halma", "jump_6x6"])
def test_matches_of_every_player_kind_replay(variant: str, tmp_path: Path) -> None:
    net = small_network(1)
    path = save_checkpoint(net, net.config, tmp_path / "jump.pt")
    player = MCTSPlayer(NetworkLeafEvaluator(net), SearchConfig(simulations=4), name="net")
    opponents = ("greedy", "random", "mcts:4", f"policy:{path}") if variant == "jump" else ("greedy",)
    for opponent in opponents:
        result = play_match(player, parse_player(opponent, variant=variant), variant, 2, np.random.default_rng(2),
                            opening_plies=2, max_plies=24)  # fmt: skip
        assert result.games == 2
        for record in result.records:
            final = replay(record)[-1]
            assert outcome(final) is not None and final.ply <= 24


def test_greedy_beats_random() -> None:
    result = play_match(parse_player("greedy", variant="jump"), parse_player("random", variant="jump"), "jump", 4,
                        np.random.default_rng(0), opening_plies=2, max_plies=400)  # fmt: skip
    assert result.wins == 4
