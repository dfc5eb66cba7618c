"""mmc.env's Gymnasium ids: Gymnasium's checker over every playable variant (chess's and the test game bonus's), the
opponent's replies, the agent's side by player name, bad input."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from mmc.env import GYM_IDS, PLAYABLE, GameGym, gym_id, register_envs
from mmc.games import Game


def test_one_id_per_playable_variant() -> None:
    assert set(GYM_IDS) == set(PLAYABLE) and GYM_IDS["los_alamos"] == "mmc/LosAlamos-v0"
    assert gym_id("bonus_2x3") == "mmc/Bonus2x3-v0"


@pytest.mark.parametrize("variant", PLAYABLE)
def test_gymnasium_check_env_passes(variant: str) -> None:
    game = gymnasium.make(GYM_IDS[variant], opponent="greedy", color="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(game.unwrapped)


def test_a_family_registered_later_gets_its_ids_from_register_envs(bonus_game: Game) -> None:
    ids = register_envs()
    assert ids["bonus_3x3"] == "mmc/Bonus3x3-v0" and set(GYM_IDS) < set(ids)
    game = gymnasium.make(ids["bonus_3x3"], opponent="greedy", color="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(game.unwrapped)


@pytest.mark.parametrize("color", ["white", "second"])
def test_the_opponent_moves_until_the_agent_is_to_move(bonus_game: Game, color: str) -> None:
    game = GameGym("bonus_2x3", opponent="greedy", color=color)  # greedy takes every bonus move it can
    obs, info = game.reset(seed=0)
    assert info["color"] == "white" and game.side == -1
    while True:
        assert game.position.turn == -1 and obs["action_mask"].any()
        obs, reward, terminated, _, info = game.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if terminated:
            break
    assert reward in (-1.0, 0.0, 1.0) and info["termination"].value == "full-board"


def test_as_black_the_opponent_has_moved_and_a_game_ends_with_a_reward() -> None:
    game = gymnasium.make("mmc/Gardner-v0", opponent="random", color="black")
    obs, info = game.reset(seed=3)
    assert info["color"] == "black" and obs["observation"][16].max() == 0 and obs["action_mask"].any()
    rng, done, reward = np.random.default_rng(0), False, 0.0
    while not done:
        obs, reward, terminated, truncated, info = game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        done = terminated or truncated
    assert reward in (-1.0, 0.0, 1.0) and "termination" in info


def test_an_illegal_action_loses() -> None:
    game = gymnasium.make("mmc/Baby-v0", opponent="random")
    obs, _ = game.reset(seed=0)
    _, reward, terminated, _, info = game.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert (reward, terminated, info) == (-1.0, True, {"illegal_action": True})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"opponent": "stockfish"}, "unknown player 'stockfish'"),
     ({"color": "red"}, "color must be one of white, black, first, second, random, got 'red'"),
     ({"opponent": "python:no_such_module_xyz:f"}, "cannot import")],
)  # fmt: skip
def test_bad_arguments_are_one_line_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        gymnasium.make("mmc/Gardner-v0", **kwargs)
    assert "\n" not in str(error.value)
