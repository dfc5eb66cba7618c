"""The test game Bonus (``tests/games/bonus.py``), defined only in the tests, runs through the platform's layers with no
edit under ``mmc/``: the AlphaZero loop (self-play, training, the arena), matches between players of every kind,
records that replay, examples and checkpoints that round-trip, and a network that refuses another family."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
import torch

from mmc.core.seeding import root
from mmc.games import Game, apply_move, initial_state, legal_moves, outcome
from mmc.loops.alphazero import AlphaZeroConfig, alphazero
from mmc.nn import NetworkConfig, build_network, load_checkpoint, save_checkpoint
from mmc.play import parse_player, play_match, replay
from mmc.play.search_players import MCTSPlayer
from mmc.search import NetworkLeafEvaluator, SearchConfig, search
from mmc.train import TrainConfig, load_examples, save_examples

pytestmark = pytest.mark.xdist_group("bonus")


def test_rules_and_texts(bonus_game: Game) -> None:
    state = initial_state("bonus_2x3")
    assert bonus_game.perft(state, 1) == 6 and bonus_game.perft(state, 6) == 720
    state = apply_move(state, bonus_game.parse_move("a1"))
    assert state.turn == -1, "no bonus for a lone stone"
    state = apply_move(apply_move(state, bonus_game.parse_move("c2")), bonus_game.parse_move("b1"))
    assert state.fen() == "..o/xx. x" and state.turn == 1, "b1 next to a1: black moves again"
    assert bonus_game.from_text("bonus_2x3", state.fen()) == state._replace(ply=3)


@pytest.mark.slow  # the whole loop: 13-25 s
def test_alphazero_self_play_training_and_arena(bonus_game: Game) -> None:
    net = build_network(NetworkConfig.for_game(bonus_game, blocks=1, filters=8, value_hidden=8), seed=0)
    config = AlphaZeroConfig(generations=2, games=8, chunks=2, concurrent=4, max_plies=16, window=2, arena_games=4,
                             arena_simulations=8)  # fmt: skip
    generations = list(alphazero(net, "bonus_3x3", config, SearchConfig(simulations=12), TrainConfig(epochs=2,
                                 batch_size=8), root(0)))  # fmt: skip
    assert len(generations) == 2
    for step in generations:
        assert len(step.self_play.records) == 8
        examples = step.self_play.examples[0]
        assert examples.planes.shape[1:] == (3, 3, 3) and examples.policy.shape[1:] == (1, 3, 3)
        assert np.isfinite([loss.total for loss in step.losses]).all()
        assert step.arena is not None and step.arena.games == 4
        for record in step.self_play.records:
            states = replay(record)
            assert outcome(states[-1]) is not None
    turns = [s.turn for r in generations[0].self_play.records for s in replay(r)]
    assert any(a == b for a, b in itertools.pairwise(turns)), "some player moved twice in a row"


@pytest.mark.slow  # 3 s
def test_matches_records_examples_and_checkpoints(bonus_game: Game, tmp_path: Path) -> None:
    out = tmp_path
    net = build_network(NetworkConfig.for_game(bonus_game, blocks=1, filters=8, value_hidden=8), seed=1)
    path = save_checkpoint(net, net.config, out / "bonus.pt")
    loaded, config = load_checkpoint(path)
    assert config.game == "bonus"
    player = MCTSPlayer(NetworkLeafEvaluator(loaded), SearchConfig(simulations=8), name="net")
    for opponent in ("greedy", "random", "mcts:8", f"net:{path}:sims=8", f"policy:{path}"):
        result = play_match(player, parse_player(opponent, variant="bonus_3x3"), "bonus_3x3", 4,
                            np.random.default_rng(2), opening_plies=1, max_plies=16)  # fmt: skip
        assert result.games == 4
        for record in result.records:
            assert replay(record)[-1].ply == 9, "every game fills the board"
    with pytest.raises(ValueError, match="a bonus network cannot play gardner"):
        search([initial_state("gardner")], NetworkLeafEvaluator(loaded), SearchConfig(simulations=2),
               np.random.default_rng(0))  # fmt: skip
    chess_net = build_network(NetworkConfig(game="chess", blocks=0, filters=4), seed=0)
    with pytest.raises(ValueError, match="a chess network cannot play bonus_3x3"):
        search([initial_state("bonus_3x3")], NetworkLeafEvaluator(chess_net), SearchConfig(simulations=2),
               np.random.default_rng(0))  # fmt: skip
    state = initial_state("bonus_3x3")
    assert len(legal_moves(state)) == 9
    loop = AlphaZeroConfig(generations=1, games=2, chunks=1, concurrent=2, max_plies=16)
    played = next(iter(alphazero(net, "bonus_2x3", loop, SearchConfig(simulations=4), TrainConfig(epochs=1), root(1))))
    examples = played.self_play.examples[0]
    again = load_examples(save_examples(examples, out / "bonus.npz"))
    for name in ("planes", "policy", "legal", "value", "variant"):
        np.testing.assert_array_equal(getattr(again, name), getattr(examples, name))
    assert torch.isfinite(next(played.candidate.parameters())).all()


def test_a_checkpoint_of_another_family_is_refused_in_one_line(bonus_game: Game, tmp_path: Path) -> None:
    net = build_network(NetworkConfig.for_game(bonus_game, blocks=0, filters=4), seed=0)
    path = save_checkpoint(net, net.config, tmp_path / "bonus.pt")
    for spec in (f"net:{path}", f"policy:{path}"):
        with pytest.raises(ValueError, match=r"a bonus network cannot play gardner, a variant of chess$"):
            parse_player(spec, variant="gardner")
