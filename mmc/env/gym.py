"""Any variant as a Gymnasium single-agent environment: the agent plays one side, a player of ``mmc.play`` the other.

``gymnasium.make("mmc/Gardner-v0", opponent="greedy", color="white")`` (ids by :func:`gym_id`; those of the
families registered at import are in :data:`GYM_IDS`, and :func:`register_envs` adds those of a family registered
later). ``opponent`` is any player spec ``mmc match`` accepts (``mmc.play.PLAYER_KINDS``: ``random``, ``greedy``,
``mcts:100``, ``fairy:nodes=10``, ``net:PATH.pt:sims=N``, ``python:MODULE:CALLABLE``, ...); ``color`` is the agent's
side: a player name of the family (``Game.players``: ``"white"`` or ``"black"`` in chess), ``"first"`` or
``"second"``, or ``"random"`` to draw it at each reset. Observations and actions are those of the AEC environment
(``mmc.env.aec``) for the agent's side. ``step`` plays the agent's action and then the opponent's moves until the
agent is to move again or the game is over (a player may move several times in a row); the reward, from the
agent's view, is +1 / -1 / 0 when the game ends (a draw at the ply cap included, ``terminated``), and an illegal
action ends the game at once with -1 (``info["illegal_action"]``). ``info["termination"]`` holds the family's
termination once the game is over. The opponent draws its randomness from the environment's ``np_random``, so
``reset(seed=...)`` makes the episode reproducible. Tasks as in ``mmc.env.aec``: ``variants=[...]`` (one drawn from
``np_random`` at each reset; the spaces sized to their largest board, with a plane marking the episode's board) or
``reset(options={"variant": ...})``; ``info["variant"]`` names the episode's variant.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from mmc.env.aec import (
    RENDER_MODES,
    check_max_plies,
    check_render_mode,
    check_tasks,
    next_variant,
    observation_space,
    shared_observation_space,
    task_spaces,
)
from mmc.env.views import check_playable, observation, playable_variants, player_name, render_position
from mmc.games import FIRST, SECOND, get_game
from mmc.play.fairy import FairyError
from mmc.play.players import Player, close_player, parse_player

__all__ = ["GYM_IDS", "GameGym", "gym_id", "register_envs"]


def gym_id(variant: str) -> str:
    """The Gymnasium id of ``variant``: its id in CamelCase, ``gardner`` -> ``mmc/Gardner-v0``, ``los_alamos`` ->
    ``mmc/LosAlamos-v0``."""
    return "mmc/" + "".join(part[:1].upper() + part[1:] for part in variant.split("_")) + "-v0"


def _side(color: str, players: tuple[str, str], rng: np.random.Generator) -> int:
    """The player (+1 or -1) a ``color`` argument names, drawing it from ``rng`` for ``"random"``."""
    if color == "random":
        return SECOND if bool(rng.integers(2)) else FIRST
    return FIRST if color in ("first", players[0]) else SECOND


class GameGym(gymnasium.Env):
    """One game of ``variant``: the agent plays ``color`` against the player ``opponent`` (module docstring).
    ``side`` is the agent's player this game (+1 first, -1 second); ``position`` the game's state."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # noqa: RUF012 (gymnasium.Env declares it an instance variable)

    def __init__(
        self, variant: str, opponent: str = "random", color: str = "first", *,
        render_mode: str | None = None, max_plies: int | None = None, device: str = "cpu",
        variants: Sequence[str] | None = None,
    ) -> None:  # fmt: skip
        self.variant = check_playable(variant)
        self.game = get_game(self.variant)
        self.tasks = check_tasks(self.variant, variants)
        self.shared = task_spaces(self.variant, self.tasks)
        self._spec, self._device, self._max_plies = opponent, device, max_plies
        colors = (*self.game.players, "first", "second", "random")
        if color not in colors:
            raise ValueError(f"color must be one of {', '.join(colors)}, got {color!r}")
        self.render_mode = check_render_mode(render_mode)
        self.color = color
        self.side = FIRST
        self.opponent: Player | None = None
        for name in (self.variant, *self.tasks):  # every opponent checked before any game
            self._play(name)
        self._play(self.variant)
        self.over = False

    def _play(self, variant: str) -> None:
        """Make ``variant`` (of the environment's family) the one its episodes play: its opponent (a player is set up
        for one variant: Fairy-Stockfish loads it), actions and spaces."""
        if self.opponent is not None:
            close_player(self.opponent)
        try:
            self.opponent = parse_player(self._spec, variant=variant, device=self._device)
        except (ValueError, OSError, FairyError) as e:
            raise ValueError(f"opponent: {e}") from None
        self.variant = variant
        self.max_plies = check_max_plies(variant, self._max_plies)
        self.actions = self.game.action_space(variant)
        if self.shared is None:
            self.observation_space = observation_space(variant)
            self.action_space = spaces.Discrete(self.actions.num_actions)
        else:
            self.observation_space = shared_observation_space(self.shared)
            self.action_space = spaces.Discrete(self.shared.num_actions)
        self.position: Any = self.game.initial_state(variant, max_plies=self.max_plies)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """A new game; the opponent moves first when the agent plays the second player. ``info["color"]`` is the
        agent's player name."""
        super().reset(seed=seed)
        variant = next_variant(self.variant, self.tasks, options, self.np_random, self.shared)
        if variant != self.variant:
            self._play(variant)
        self.side = _side(self.color, self.game.players, self.np_random)
        self.position = self.game.initial_state(self.variant, max_plies=self.max_plies)
        self.over = False
        self._reply()
        if self.render_mode == "human":
            self.render()
        return self._observe(), {"color": player_name(self.game.players, self.side), "variant": self.variant}

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        """The agent's action, then (while the game goes on and the agent is not to move) the opponent's moves."""
        if self.over:
            raise RuntimeError("the game is over: call reset() before step()")
        if not self._observe()["action_mask"][int(action)]:
            self.over = True
            return self._observe(), -1.0, True, False, {"illegal_action": True}
        decode = self.actions.decode if self.shared is None else self.shared.decode
        self.position = self.game.apply_move(self.position, decode(int(action), self.position))
        self._reply()
        if self.render_mode == "human":
            self.render()
        result = self.game.outcome(self.position)
        if result is None:
            return self._observe(), 0.0, False, False, {}
        self.over = True
        reward = 0.0 if result.winner is None else 1.0 if int(result.winner) == self.side else -1.0
        return self._observe(), reward, True, False, {"termination": result.termination}

    def _reply(self) -> None:
        """The opponent's moves, as long as it is to move and the game goes on."""
        while int(self.position.turn) != self.side and self.game.outcome(self.position) is None:
            assert self.opponent is not None
            (move,) = self.opponent.play([self.position], self.np_random)
            self.position = self.game.apply_move(self.position, move)

    def _observe(self) -> dict[str, np.ndarray]:
        to_move = int(self.position.turn) == self.side and self.game.outcome(self.position) is None
        if self.shared is not None:
            return self.shared.observation(self.position, self.side, to_move=to_move)
        return observation(self.position, self.side, to_move=to_move)

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The whole board (the referee's view, also with hidden information): ``mmc.env.views.render_position``."""
        return render_position(self.position, self.render_mode)

    def close(self) -> None:
        if self.opponent is not None:
            close_player(self.opponent)


def register_envs(variants: Iterable[str] | None = None) -> dict[str, str]:
    """Register the Gymnasium id (:func:`gym_id`) of each of ``variants`` (default: every playable variant of every
    family registered now) that is not registered yet; returns ``{variant: id}`` of them all. Call it again after
    ``mmc.games.register_game`` to get the new family's ids."""
    names = playable_variants() if variants is None else tuple(check_playable(v) for v in variants)
    ids = {name: gym_id(name) for name in names}
    for name, env_id in ids.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="mmc.env.gym:GameGym", kwargs={"variant": name})
    return ids


GYM_IDS: dict[str, str] = register_envs()
"""Gymnasium id of each playable variant of the families registered when ``mmc.env`` was imported: ``gardner`` ->
``mmc/Gardner-v0``, ``los_alamos`` -> ``mmc/LosAlamos-v0``."""
