"""mmc.env: PettingZoo's own tests over every playable variant, dark chess's private views, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from mmc.env import PLAYABLE, agent_planes, env, raw_env
from mmc.games.chess import Color, Termination, apply_move, initial_state, legal_moves, observation_planes


def test_every_variant_but_monochromatic_is_playable() -> None:
    assert "monochromatic" not in PLAYABLE and "chess" in PLAYABLE and len(PLAYABLE) == 10


@pytest.mark.parametrize("variant", PLAYABLE)
def test_pettingzoo_api_seed_and_render_tests_pass(variant: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice: agent names like player_0, a Box observation
        api_test(env(variant=variant), num_cycles=60)
        seed_test(lambda: env(variant=variant), num_cycles=60)
        render_test(lambda render_mode=None: env(variant=variant, render_mode=render_mode))


def test_a_random_game_ends_with_opposite_rewards_and_the_engines_termination() -> None:
    game, rng = env(variant="gardner", max_plies=40), np.random.default_rng(0)
    game.reset(seed=0)
    total = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter():
        obs, reward, termination, truncation, info = game.last()
        total[agent] += reward
        if termination or truncation:
            assert isinstance(info["termination"], Termination)
            game.step(None)
            continue
        game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert total["white"] == -total["black"]


def test_an_illegal_action_ends_the_game_with_minus_one_for_the_mover() -> None:
    game = env(variant="gardner")
    game.reset()
    obs, *_ = game.last()
    game.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(game.terminations.values()) or all(game.truncations.values())
    assert game.rewards["white"] == -1


def test_the_mover_sees_the_networks_planes_and_the_waiting_side_its_own_view() -> None:
    state, rng = initial_state("gardner"), np.random.default_rng(1)
    for _ in range(6):
        state = apply_move(state, legal_moves(state)[int(rng.integers(len(legal_moves(state))))])
    assert np.array_equal(agent_planes(state, state.turn), observation_planes(state))
    other = agent_planes(state, Color(-int(state.turn)))
    assert other[16].max() == float(state.turn is Color.BLACK)  # the waiting side's colour
    assert other[:6].sum() == np.count_nonzero(state.board_array() * -int(state.turn) > 0)  # its own pieces


def test_in_dark_chess_each_agent_sees_nothing_on_its_hidden_squares() -> None:
    game = raw_env(variant="dark")
    game.reset()
    for agent in ("white", "black"):
        planes = game.observe(agent)["observation"]
        hidden = planes[17] == 0
        assert hidden.any()
        assert not planes[:12, hidden].any()  # no piece, of either side, on a square the agent does not see


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": "chess960"}, "chess960"),
        ({"variant": "monochromatic"}, "cannot be played"),
        ({"variant": "gardner", "render_mode": "svg"}, "render_mode"),
        ({"variant": "gardner", "max_plies": 0}, "max_plies"),
    ],
)
def test_bad_arguments_are_one_line_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message) as error:
        env(**kwargs)
    assert "\n" not in str(error.value)
