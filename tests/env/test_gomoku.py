"""mmc.env on the k-in-a-row family: PettingZoo's ``api_test`` (long enough for whole games), ``seed_test`` and
``render_test`` and Gymnasium's ``check_env`` on every variant of the family, gravity in the action mask, a game to
its line, and the stones in an image."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

from mmc.env import GYM_IDS, PLAYABLE, env, raw_env
from mmc.games import get_game
from mmc.games.gomoku import Termination

VARIANTS = tuple(get_game("gomoku").variants)


def test_every_variant_of_the_family_is_playable_and_has_a_gym_id() -> None:
    assert set(VARIANTS) <= set(PLAYABLE) and GYM_IDS["connect4"] == "mmc/Connect4-v0"
    assert GYM_IDS["gomoku_8x8"] == "mmc/Gomoku8x8-v0"


@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_tests_over_whole_games(variant: str) -> None:
    cycles = get_game(variant).variants[variant].height * get_game(variant).variants[variant].width
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice: agent names like player_0, a Box observation
        api_test(env(variant=variant), num_cycles=cycles)
        seed_test(lambda: env(variant=variant), num_cycles=cycles)
        render_test(lambda render_mode=None: env(variant=variant, render_mode=render_mode))


@pytest.mark.parametrize("variant", VARIANTS)
def test_gymnasium_check_env_against_greedy(variant: str) -> None:
    game = gymnasium.make(GYM_IDS[variant], opponent="greedy", color="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(game.unwrapped)


def test_gravity_shows_in_the_action_mask_and_a_column_ends_the_game() -> None:
    game = env(variant="connect4")
    game.reset(seed=0)
    assert game.possible_agents == ["black", "white"]
    observation, *_ = game.last()
    assert np.flatnonzero(observation["action_mask"]).tolist() == list(range(7))  # a1 .. g1: actions 0 .. 6
    for action in (0, 1, 7, 8, 14, 15, 21):  # black a1 a2 a3 a4, white b1 b2 b3
        game.step(action)
    assert all(game.terminations.values())
    assert game.rewards == {"black": 1, "white": -1}
    assert game.infos["black"]["termination"] is Termination.LINE


def test_an_image_draws_the_stones() -> None:
    game = raw_env(variant="gomoku_6x6", render_mode="rgb_array")
    game.reset()
    game.step(0)  # black a1
    game.step(35)  # white f6
    image = game.render()
    assert image.shape == (6 * 24, 6 * 24, 3)
    assert image[5 * 24 + 12, 12].max() < 60 and image[12, 5 * 24 + 12].min() > 200
