"""An environment over several variants of a family keeps one observation and one action space, sized to their largest
board (``mmc.env.views.TaskSpaces``): in every family, at every step of random games, the padded planes hold the
variant's own planes and a plane marking its board, the shared mask's actions are exactly the legal moves, and each
decodes to the move the variant's own action space gives. PettingZoo's ``api_test`` and Gymnasium's ``check_env`` run
on such environments."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from mmc.env import GameGym, env, observation, raw_env
from mmc.games import get_game

TASKS = {
    "chess": ("gardner", "los_alamos"),
    "gomoku": ("mnk_3x3_k3", "grav_7x6_k4", "mnk_5x8_k4"),
    "jump": ("jump_6x6", "jump"),
}


@pytest.mark.parametrize("family", TASKS)
def test_the_shared_spaces_hold_each_variants_planes_and_moves_exactly(family: str) -> None:
    tasks = TASKS[family]
    game = get_game(tasks[0])
    height = max(game.variant(v).height for v in tasks)
    width = max(game.variant(v).width for v in tasks)
    aec = raw_env(variant=tasks[0], variants=list(tasks), max_plies=30)
    rng = np.random.default_rng(7)
    for variant in tasks + tasks:
        aec.reset(options={"variant": variant})
        assert aec.infos[aec.agents[0]]["variant"] == variant
        v, space = game.variant(variant), game.action_space(variant)
        while not any(aec.terminations.values()):
            agent = aec.agent_selection
            shared = aec.observe(agent)
            own = observation(aec.position, aec.player[agent], to_move=True)
            planes = shared["observation"]
            assert planes.shape == (game.num_planes + 1, height, width)
            assert np.array_equal(planes[:-1, : v.height, : v.width], own["observation"])
            assert not planes[:-1, v.height :].any() and not planes[:-1, :, v.width :].any()
            assert planes[-1].sum() == v.height * v.width == planes[-1, : v.height, : v.width].sum()
            assert shared["action_mask"].shape == (game.num_policy_planes * height * width,)
            legal = np.flatnonzero(shared["action_mask"])
            moves = {aec.shared.decode(int(a), aec.position) for a in legal}
            assert moves == set(game.legal_moves(aec.position))
            assert len(legal) == len(set(space.legal_actions(aec.position).tolist()))
            action = int(rng.choice(legal))
            expected = space.decode(int(aec.shared.actions(variant)[1][action]), aec.position)
            assert aec.shared.decode(action, aec.position) == expected
            aec.step(action)
    off = int(np.flatnonzero(aec.shared.actions(tasks[0])[1] < 0)[0])
    aec.reset(options={"variant": tasks[0]})
    with pytest.raises(ValueError, match=rf"^action {off} is no action of {tasks[0]} \(off its board\)$"):
        aec.step(off)


@pytest.mark.parametrize("family", ["chess", "jump"])
def test_pettingzoo_and_gymnasium_check_an_environment_of_many_tasks(family: str) -> None:
    tasks = TASKS[family]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(variant=tasks[0], variants=list(tasks), max_plies=40), num_cycles=60)
        gym = GameGym(variant=tasks[0], opponent="random", variants=list(tasks), max_plies=40)
        check_env(gym)
        gym.close()
