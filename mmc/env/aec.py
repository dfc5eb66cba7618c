"""The variants as PettingZoo AEC environments, after PettingZoo's classic ``chess_v6``.

Agents ``"white"`` and ``"black"`` move in turn. Each observes ``{"observation", "action_mask"}``
(``mmc.env.views.observation``: the network's planes from its own side, only its own view in dark chess; the
mask over the variant's action space, zeros when it is not to move). An action is an index of
``mmc.games.chess.action_space(variant)``. When the game ends both agents are terminated with rewards +1 / -1 for a
win and 0 for a draw (the ply cap, ``max_plies``, is a drawn ending of the rules, so a termination too), and
``infos[agent]["termination"]`` holds the engine's ``Termination``. :func:`env` wraps the raw environment as
``chess_v6`` does: an illegal action ends the game with -1 for the mover (``TerminateIllegalWrapper``).

>>> from mmc.env import env
>>> e = env(variant="gardner")
>>> e.reset(seed=0)
>>> observation, reward, termination, truncation, info = e.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((24, 5, 5), 7)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector, wrappers

from mmc.env.views import check_playable, observation, render_position
from mmc.games.chess import NUM_PLANES, Color, State, action_space, apply_move, get_variant, initial_state, outcome
from mmc.games.chess.state import DEFAULT_MAX_PLIES

__all__ = ["AGENTS", "MinichessAEC", "env", "observation_space", "raw_env"]

AGENTS = ("white", "black")
"""The agents, White first: ``AGENTS[0]`` moves at ply 0."""
_COLOR = {"white": Color.WHITE, "black": Color.BLACK}


def observation_space(variant: str) -> spaces.Dict:
    """The space of one agent's observation in ``variant``."""
    v, space = get_variant(check_playable(variant)), action_space(variant)
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (NUM_PLANES, v.height, v.width), np.float32),
            "action_mask": spaces.Box(0, 1, (space.num_actions,), np.int8),
        }
    )


class MinichessAEC(AECEnv):
    """One game of a variant between ``"white"`` and ``"black"`` (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "minichess_v0",
        "is_parallelizable": False,
    }

    def __init__(self, variant: str = "gardner", render_mode: str | None = None, max_plies: int = DEFAULT_MAX_PLIES):
        super().__init__()
        self.variant = check_playable(variant)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if not isinstance(max_plies, int) or max_plies < 1:
            raise ValueError(f"max_plies must be a positive integer, got {max_plies!r}")
        self.render_mode = render_mode
        self.max_plies = max_plies
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self.actions = action_space(self.variant)
        self.observation_spaces = {agent: observation_space(self.variant) for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(self.actions.num_actions) for agent in AGENTS}
        self.position: State = initial_state(self.variant, max_plies=max_plies)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation: its planes, and its legal actions if it is to move and the game goes on."""
        to_move = agent == self.agent_selection and not self.terminations[agent]
        return observation(self.position, _COLOR[agent], to_move=to_move)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game from the variant's start; the game has no randomness, so ``seed`` changes nothing."""
        self.position = initial_state(self.variant, max_plies=self.max_plies)
        self.agents = list(AGENTS)
        self._agent_selector = AgentSelector(self.agents)
        self.agent_selection = self._agent_selector.reset()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to move (``ValueError`` if it is not legal: :func:`env` ends the game with
        -1 for the mover instead); a dead agent's step takes ``None``."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = self.actions.decode(int(action), self.position)  # type: ignore[arg-type]
        self.position = apply_move(self.position, move)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        result = outcome(self.position)
        if result is not None:
            for name in self.agents:
                if result.winner is not None:
                    self.rewards[name] = 1.0 if _COLOR[name] is result.winner else -1.0
                self.terminations[name] = True
                self.infos[name] = {"termination": result.termination}
        self.agent_selection = self._agent_selector.next()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """The whole board (the referee's view, also in dark chess): ``mmc.env.views.render_position``."""
        return render_position(self.position, self.render_mode)

    def close(self) -> None:
        pass


def raw_env(
    variant: str = "gardner", render_mode: str | None = None, max_plies: int = DEFAULT_MAX_PLIES
) -> MinichessAEC:
    """The environment without PettingZoo's wrappers (an illegal action raises ``ValueError``)."""
    return MinichessAEC(variant, render_mode, max_plies)


def env(variant: str = "gardner", render_mode: str | None = None, max_plies: int = DEFAULT_MAX_PLIES) -> AECEnv:
    """The AEC environment of ``variant`` wrapped as ``chess_v6``: an illegal action ends the game, -1 for the mover;
    an action outside the space fails an assertion; calls out of order raise. ``ValueError`` (one line) for an
    unknown or unplayable variant, an unknown render mode or a bad ``max_plies``."""
    wrapped: AECEnv = raw_env(variant, render_mode, max_plies)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
