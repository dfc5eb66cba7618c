"""The vector environment (``mmc.env.vector``) against the AEC environment, game by game: every family, one variant
and task distributions, hidden information and a family defined in the tests. Each of a batch's games is replayed in
an AEC environment of its own with the same moves; at every step the observations, masks, rewards and ends must be
the same, and a finished game must start afresh at the next step (Gymnasium's next-step autoreset). Then the opponent
modes, the random-action sampler and the one-line refusals."""

from __future__ import annotations

import numpy as np
import pytest

from mmc.env import observation, raw_env, vector_env
from mmc.env.vector import random_actions
from mmc.games import Game

CASES = {
    "gardner": ("gardner", None, 60),
    "dark": ("dark", None, 40),
    "atomic": ("atomic", None, 40),
    "chess-tasks": ("gardner", ("gardner", "baby", "los_alamos"), 40),
    "connect4": ("connect4", None, None),
    "gomoku-tasks": ("tictactoe", ("tictactoe", "connect4", "mnk_5x4_k4"), None),
    "jump_6x6": ("jump_6x6", None, 60),
    "jump-tasks": ("jump_6x6", ("jump_6x6", "jump_diagonal"), 40),
}


def replay_against_aec(variant: str, variants: tuple[str, ...] | None, max_plies: int | None, steps: int,
                       games: int = 6, seed: int = 0) -> int:  # fmt: skip
    """Step ``games`` games of the vector environment ``steps`` times with random legal actions, each mirrored in an
    AEC environment; returns the games finished."""
    vec = vector_env(variant, games, variants=variants, max_plies=max_plies)
    obs, infos = vec.reset(seed=seed)
    aecs = [raw_env(variant, max_plies=max_plies, variants=variants) for _ in range(games)]
    for i, aec in enumerate(aecs):
        aec.reset(options={"variant": vec.variant_of(i)})
    state = np.array([seed + 1], dtype=np.uint64)
    actions = np.zeros(games, dtype=np.int64)
    finished = 0
    restart = np.zeros(games, dtype=bool)
    for _ in range(steps):
        for i, aec in enumerate(aecs):
            agent = aec.agent_selection
            mine = aec.observe(agent)
            np.testing.assert_array_equal(obs["observation"][i], mine["observation"])
            np.testing.assert_array_equal(obs["action_mask"][i], mine["action_mask"])
            assert infos["to_play"][i] == aec.player[agent]
            assert vec.variants[infos["variant"][i]] == aec.variant
        random_actions(obs["action_mask"], state, actions)
        movers = [aec.agent_selection for aec in aecs]
        obs, rewards, terminations, truncations, infos = vec.step(actions)
        assert not truncations.any()
        for i, aec in enumerate(aecs):
            if restart[i]:  # the step after a game's end starts the next one: reward 0, not over
                assert rewards[i] == 0 and not terminations[i]
                aec.reset(options={"variant": vec.variant_of(i)})
                continue
            aec.step(int(actions[i]))
            assert rewards[i] == aec.rewards[movers[i]], (i, aec.variant, aec.position.fen())
            assert terminations[i] == aec.terminations[movers[i]]
        restart = terminations.copy()
        finished += int(terminations.sum())
    return finished


@pytest.mark.parametrize("case", CASES)
def test_every_game_is_the_aec_environments_game(case: str) -> None:
    variant, variants, max_plies = CASES[case]
    assert replay_against_aec(variant, variants, max_plies, steps=150) >= 6


def test_long_chess_games_reach_the_clock_and_repetition_rules_as_the_aec_environment_does() -> None:
    """Up to 150 plies (the family's cap): with this seed the games end by checkmate, stalemate, insufficient material,
    threefold repetition and the ply cap."""
    assert replay_against_aec("gardner", None, None, steps=400, games=8, seed=3) >= 8


def test_a_family_defined_outside_mmc(bonus_game: Game) -> None:
    """The bonus game (``tests/games/bonus.py``): a player may move twice in a row, so the turn does not alternate."""
    assert replay_against_aec("bonus_3x3", None, None, steps=60) >= 6
    assert replay_against_aec("bonus_2x3", ("bonus_2x3", "bonus_3x3"), None, steps=60) >= 6


def test_against_the_random_opponent_a_random_first_player_scores_as_in_tic_tac_toe() -> None:
    """Random against random at tic-tac-toe: the first player wins about 58 %, the second about 29 %."""
    for color, expected in (("first", 0.585), ("second", 0.288)):
        vec = vector_env("tictactoe", 500, opponent="random", color=color)
        obs, infos = vec.reset(seed=1)
        assert (infos["agent"] == (1 if color == "first" else -1)).all()
        assert (obs["action_mask"].sum(1) == (9 if color == "first" else 8)).all()
        state, actions = np.array([5], dtype=np.uint64), np.zeros(500, dtype=np.int64)
        wins, games = 0, 0
        for _ in range(12):
            random_actions(obs["action_mask"], state, actions)
            obs, rewards, terminations, _, infos = vec.step(actions)
            wins += int((rewards == 1).sum())
            games += int(terminations.sum())
            assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
        assert games > 900
        assert abs(wins / games - expected) < 0.05, (color, wins / games)


def test_an_outside_opponent_plays_on_the_games_states() -> None:
    """``opponent="greedy"`` (a Python player): every observation is the agent's view of the game the Python API
    reaches with the same moves."""
    vec = vector_env("connect4", 5, opponent="greedy", color="random")
    obs, infos = vec.reset(seed=2)
    assert set(infos["agent"]) <= {-1, 1}
    state, actions = np.array([9], dtype=np.uint64), np.zeros(5, dtype=np.int64)
    ended = 0
    for _ in range(60):
        for i in range(5):
            position = vec._states[i]
            mine = observation(position, int(infos["agent"][i]), to_move=int(position.turn) == infos["agent"][i]
                               and vec.game.outcome(position) is None)  # fmt: skip
            np.testing.assert_array_equal(obs["observation"][i], mine["observation"])
            np.testing.assert_array_equal(obs["action_mask"][i], mine["action_mask"])
        random_actions(obs["action_mask"], state, actions)
        obs, rewards, terminations, _, infos = vec.step(actions)
        for i in np.flatnonzero(terminations):
            result = vec.game.outcome(vec._states[i])
            assert result is not None
            expected = 0.0 if result.winner is None else (1.0 if int(result.winner) == infos["agent"][i] else -1.0)
            assert rewards[i] == expected
        ended += int(terminations.sum())
    assert ended >= 5


def test_the_same_seed_gives_the_same_games_and_copies_are_the_callers() -> None:
    runs = []
    for _ in range(2):
        vec = vector_env("tictactoe", 16, variants=["tictactoe", "mnk_4x4_k3"], opponent="random", color="random")
        obs, _ = vec.reset(seed=11)
        state, actions = np.array([3], dtype=np.uint64), np.zeros(16, dtype=np.int64)
        seen = []
        for _ in range(10):
            random_actions(obs["action_mask"], state, actions)
            obs, rewards, _, _, infos = vec.step(actions)
            seen.append((obs["observation"], rewards, infos["variant"]))
        runs.append(seen)
    for (a, ra, va), (b, rb, vb) in zip(*runs, strict=True):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(va, vb)
    assert runs[0][0][0] is not runs[0][1][0]  # copy=True: each step's arrays are the caller's own


def test_bad_input_is_refused_in_one_line_before_any_game_moves() -> None:
    vec = vector_env("connect4", 4)
    obs, _ = vec.reset(seed=0)
    before = obs["observation"].copy()
    actions = np.argmax(obs["action_mask"], axis=1)
    actions[2] = 41  # the top cell of the last column: not playable on an empty board
    with pytest.raises(ValueError, match=r"^game 2: action 41 is not in its action mask \(connect4, ply 0") as e:
        vec.step(actions)
    assert "\n" not in str(e.value)
    np.testing.assert_array_equal(vec._obs, before)  # nothing moved
    refusals = {
        "num_envs must be a positive integer, got 0": lambda: vector_env("connect4", 0),
        "unknown variant": lambda: vector_env("connect5", 4),
        "is a chess variant, the environment's are gomoku variants": lambda: vector_env(
            "connect4", 4, variants=["connect4", "gardner"]),
        "opponent: unknown player 'grandmaster'": lambda: vector_env("connect4", 4, opponent="grandmaster"),
        "color must be one of": lambda: vector_env("connect4", 4, opponent="random", color="purple"),
        "actions must be 4 integers": lambda: vec.step(np.zeros(3, dtype=np.int64)),
    }  # fmt: skip
    for message, make in refusals.items():
        with pytest.raises(ValueError, match=message) as e:
            make()
        assert "\n" not in str(e.value)
