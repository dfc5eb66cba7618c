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


def test_a_generated_variant_and_a_task_per_episode() -> None:
    """A meta-learner's environment: generated boards drawn at each reset from the reset's seed, spaces sized to the
    largest board with a plane marking the episode's, ``reset(options={"variant": ...})`` for a board that fits, and
    one line for one that does not or for another family's id."""
    from mmc.env import GameGym
    from mmc.meta import TaskDistribution

    tasks = TaskDistribution(("mnk_{4..6}x{4..5}_k3", "grav_5x4_k3")).support()
    aec = env(variant="mnk_4x4_k3", variants=list(tasks))
    seen = set()
    for seed in range(12):
        aec.reset(seed=seed)
        agent = aec.agent_selection
        observation, *_, info = aec.last()
        variant = info["variant"]
        v = get_game(variant).variants[variant]
        assert variant in tasks and observation["observation"].shape == (9, 5, 6)  # 8 planes and the board's, 6x5
        assert aec.observation_space(agent)["observation"].shape == (9, 5, 6)
        assert (
            observation["observation"][-1].sum()
            == v.height * v.width
            == observation["observation"][-1, : v.height, : v.width].sum()
        )
        assert observation["action_mask"].shape == (30,) and observation["action_mask"].sum() == (
            v.width if v.gravity else v.height * v.width
        )
        seen.add(variant)
    assert len(seen) >= 4  # uniformly drawn
    again = env(variant="mnk_4x4_k3", variants=list(tasks))
    drawn = []
    for seed in (3, 4, 3):
        again.reset(seed=seed)
        drawn.append(again.last()[-1]["variant"])
    assert drawn[0] == drawn[2]  # the same seed, the same task
    aec.reset(options={"variant": "mnk_3x3_k3"})
    assert aec.last()[-1]["variant"] == "mnk_3x3_k3" and aec.last()[0]["observation"][-1].sum() == 9
    with pytest.raises(ValueError, match=r"^variant 'grav_7x6_k4' \(7x6\) is larger than the environment's spaces "
                                         r"\(6x5, the largest board of its variants\)$"):  # fmt: skip
        aec.reset(options={"variant": "grav_7x6_k4"})
    lone = env(variant="mnk_4x4_k3")  # one variant: its own spaces, and a reset may switch them
    lone.reset(options={"variant": "grav_7x6_k4"})
    assert lone.last()[0]["observation"].shape == (8, 6, 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(variant="mnk_5x4_k3", variants=["mnk_5x4_k3", "grav_4x4_k3"]), num_cycles=40)
    with pytest.raises(ValueError, match="variants: gardner is a chess variant, the environment's are gomoku"):
        env(variant="mnk_4x4_k3", variants=["mnk_5x5_k4", "gardner"])
    with pytest.raises(ValueError, match="k=9"):
        raw_env(variant="mnk_4x4_k3").reset(options={"variant": "mnk_8x8_k9"})
    gym = GameGym(variant="mnk_4x4_k3", opponent="greedy", variants=["mnk_4x4_k3", "grav_5x4_k3"])
    boards = set()
    for seed in range(8):
        observation, info = gym.reset(seed=seed)
        boards.add((info["variant"], observation["observation"].shape, int(observation["observation"][-1].sum())))
        assert gym.observation_space.contains(observation)
        done = False
        while not done:
            legal = np.flatnonzero(observation["action_mask"])
            observation, _, done, _, info = gym.step(int(legal[0]))
    assert boards == {("mnk_4x4_k3", (9, 4, 5), 16), ("grav_5x4_k3", (9, 4, 5), 20)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gym)
    gym.close()
