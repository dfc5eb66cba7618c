"""The variants as Gymnasium single-agent environments: the agent plays one colour, a player of ``mmc.play`` the other.

``gymnasium.make("mmc/Gardner-v0", opponent="greedy", color="white")`` (ids in :data:`GYM_IDS`, registered when
``mmc.env`` is imported). ``opponent`` is any player spec ``mmc match`` accepts (``random``, ``greedy``,
``mcts:100``, ``fairy:nodes=10``, ``net:PATH.pt:sims=N``, ``python:MODULE:CALLABLE``); ``color`` is the agent's
side, ``"random"`` drawing it at each reset. Observations and actions are those of the AEC environment
(``mmc.env.aec``) for the agent's side. ``step`` plays the agent's action and then the opponent's reply; the reward,
from the agent's view, is +1 / -1 / 0 when the game ends (a draw at the ply cap included, ``terminated``), and an
illegal action ends the game at once with -1 (``info["illegal_action"]``). ``info["termination"]`` holds the
engine's ``Termination`` once the game is over. The opponent draws its randomness from the environment's
``np_random``, so ``reset(seed=...)`` makes the episode reproducible.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from mmc.env.aec import observation_space
from mmc.env.views import PLAYABLE, check_playable, observation, render_position
from mmc.games.chess import Color, State, action_space, apply_move, initial_state, outcome
from mmc.games.chess.state import DEFAULT_MAX_PLIES
from mmc.play.fairy import FairyError
from mmc.play.players import Player, close_player, parse_player

__all__ = ["GYM_IDS", "MinichessGym", "register_envs"]

GYM_IDS: dict[str, str] = {name: f"mmc/{name.title().replace('_', '')}-v0" for name in PLAYABLE}
"""Gymnasium id of each playable variant: ``gardner`` -> ``mmc/Gardner-v0``, ``los_alamos`` -> ``mmc/LosAlamos-v0``."""
COLORS = ("white", "black", "random")


class MinichessGym(gymnasium.Env):
    """One game of ``variant``: the agent plays ``color`` against the player ``opponent`` (module docstring)."""

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}  # noqa: RUF012 (gymnasium.Env declares it an instance variable)

    def __init__(
        self, variant: str = "gardner", opponent: str = "random", color: str = "white", *,
        render_mode: str | None = None, max_plies: int = DEFAULT_MAX_PLIES, device: str = "cpu",
    ) -> None:  # fmt: skip
        self.variant = check_playable(variant)
        if color not in COLORS:
            raise ValueError(f"color must be one of {', '.join(COLORS)}, got {color!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if not isinstance(max_plies, int) or max_plies < 1:
            raise ValueError(f"max_plies must be a positive integer, got {max_plies!r}")
        try:
            self.opponent: Player = parse_player(opponent, variant=self.variant, device=device)
        except (ValueError, OSError, FairyError) as e:
            raise ValueError(f"opponent: {e}") from None
        self.color, self.render_mode, self.max_plies = color, render_mode, max_plies
        self.actions = action_space(self.variant)
        self.observation_space = observation_space(self.variant)
        self.action_space = spaces.Discrete(self.actions.num_actions)
        self.side = Color.WHITE
        self.position: State = initial_state(self.variant, max_plies=max_plies)
        self.over = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """A new game; the opponent moves first when the agent has Black."""
        super().reset(seed=seed)
        black = self.color == "black" or (self.color == "random" and bool(self.np_random.integers(2)))
        self.side = Color.BLACK if black else Color.WHITE
        self.position = initial_state(self.variant, max_plies=self.max_plies)
        self.over = False
        info: dict[str, Any] = {"color": self.side.name.lower()}
        if black:
            self._reply()
        if self.render_mode == "human":
            self.render()
        return self._observe(), info

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        """The agent's action, then (if the game goes on) the opponent's reply."""
        if self.over:
            raise RuntimeError("the game is over: call reset() before step()")
        if not self._observe()["action_mask"][int(action)]:
            self.over = True
            return self._observe(), -1.0, True, False, {"illegal_action": True}
        self.position = apply_move(self.position, self.actions.decode(int(action), self.position))
        if outcome(self.position) is None:
            self._reply()
        if self.render_mode == "human":
            self.render()
        result = outcome(self.position)
        if result is None:
            return self._observe(), 0.0, False, False, {}
        self.over = True
        reward = 0.0 if result.winner is None else 1.0 if result.winner is self.side else -1.0
        return self._observe(), reward, True, False, {"termination": result.termination}

    def _reply(self) -> None:
        (move,) = self.opponent.play([self.position], self.np_random)
        self.position = apply_move(self.position, move)

    def _observe(self) -> dict[str, np.ndarray]:
        to_move = self.position.turn is self.side and outcome(self.position) is None
        return observation(self.position, self.side, to_move=to_move)

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        """The whole board (the referee's view, also in dark chess): ``mmc.env.views.render_position``."""
        return render_position(self.position, self.render_mode)

    def close(self) -> None:
        close_player(self.opponent)


def register_envs() -> None:
    """Register every id of :data:`GYM_IDS` with Gymnasium (once)."""
    for variant, env_id in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="mmc.env.gym:MinichessGym", kwargs={"variant": variant})
