"""mmc.env on the jump game: PettingZoo's api_test, seed_test and render_test and Gymnasium's check_env for every
variant, an agent that acts again while its chain goes on, and the forced pass as an action like any other."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from mmc.env import GYM_IDS, raw_env
from mmc.games import get_family
from mmc.games.jump import from_text, parse_move
from mmc.games.jump.actions import PASS_PLANE, action_space
from tests.env.test_aec import run_pettingzoo_tests

pytestmark = pytest.mark.xdist_group("jump")

VARIANTS = list(get_family("jump").variants)


@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_api_seed_and_render_tests_pass(variant: str) -> None:
    run_pettingzoo_tests(variant)


@pytest.mark.parametrize("variant", VARIANTS)
def test_gymnasium_check_env_passes(variant: str) -> None:
    game = gymnasium.make(GYM_IDS[variant], opponent="greedy", color="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(game.unwrapped)


def test_the_same_agent_acts_again_while_its_chain_goes_on() -> None:
    game = raw_env(variant="jump")
    game.reset()
    game.position = from_text("jump", "8/8/8/3w4/2b5/1w6/w7/b7 b 0")
    game.agent_selection = "black"
    space = action_space("jump")
    acted = []
    for text in ("a1-a3", "a3-c3", "end@c3"):
        acted.append(game.agent_selection)
        action = space.encode(parse_move(text), 1)
        assert game.observe("black")["action_mask"][action] == 1
        game.step(action)
    assert acted == ["black", "black", "black"] and game.agent_selection == "white"


def test_a_forced_pass_is_the_one_legal_action() -> None:
    game = raw_env(variant="jump")
    game.reset()
    game.position = from_text("jump", "8/8/8/8/8/w7/w7/bww5 b 0")
    mask = game.observe("black")["action_mask"]
    assert np.flatnonzero(mask).tolist() == [PASS_PLANE * 8 * 8]
    game.step(PASS_PLANE * 8 * 8)
    assert game.agent_selection == "white" and game.position.ply == 1
