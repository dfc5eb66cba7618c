"""mmc.env's AEC environment: PettingZoo's own tests over every playable variant of chess and of the test game bonus
(where a player sometimes moves twice), dark chess's private views, images, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from mmc.env import PLAYABLE, agent_planes, env, playable_variants, raw_env, rgb_image
from mmc.games import Game, get_game
from mmc.games.chess import Termination, apply_move, initial_state, legal_moves, observation_planes


def test_every_variant_but_monochromatic_is_playable() -> None:
    chess = [v for v in PLAYABLE if get_game(v).name == "chess"]
    assert "monochromatic" not in PLAYABLE and "chess" in PLAYABLE and len(chess) == 10


def run_pettingzoo_tests(variant: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice: agent names like player_0, a Box observation
        api_test(env(variant=variant), num_cycles=60)
        seed_test(lambda: env(variant=variant), num_cycles=60)
        render_test(lambda render_mode=None: env(variant=variant, render_mode=render_mode))


@pytest.mark.parametrize("variant", PLAYABLE)
def test_pettingzoo_api_seed_and_render_tests_pass(variant: str) -> None:
    run_pettingzoo_tests(variant)


@pytest.mark.parametrize("variant", ["bonus_2x3", "bonus_3x3"])
def test_pettingzoo_tests_pass_on_a_game_where_a_player_moves_twice(bonus_game: Game, variant: str) -> None:
    assert variant in playable_variants() and variant not in PLAYABLE  # registered after mmc.env was imported
    run_pettingzoo_tests(variant)


def test_the_same_agent_acts_twice_in_a_row_when_the_game_says_so(bonus_game: Game) -> None:
    game = env(variant="bonus_2x3")  # actions: rank * 3 + file
    game.reset()
    assert game.possible_agents == ["black", "white"]
    acted = []
    for action in (0, 5, 1, 2):  # black a1, white c2, black b1 (next to a1: a bonus), black c1 (next to b1)
        acted.append(game.agent_selection)
        observation, *_ = game.last()
        assert observation["action_mask"][action]
        game.step(action)
    assert acted == ["black", "white", "black", "black"]
    assert game.agent_selection == "black"  # a bonus again: three moves in a row


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
    other = agent_planes(state, -int(state.turn))
    assert other[16].max() == float(state.turn == -1)  # the waiting side's colour
    assert other[:6].sum() == np.count_nonzero(state.board_array() * -int(state.turn) > 0)  # its own pieces


def test_an_image_draws_each_players_discs_in_its_colour(bonus_game: Game) -> None:
    game = raw_env(variant="bonus_2x3", render_mode="rgb_array")
    game.reset()
    for action in (0, 5):  # black a1 (bottom left), white c2 (top right)
        game.step(action)
    image = game.render()
    assert isinstance(image, np.ndarray) and image.shape == (2 * 24, 3 * 24, 3) and image.dtype == np.uint8
    assert image[24 + 12, 12].max() < 60 and image[12, 2 * 24 + 12].min() > 200  # a1 black, c2 white (centres)
    assert np.array_equal(image, rgb_image(game.position))


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
