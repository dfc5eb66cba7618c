"""Any variant of any game family as a PettingZoo AEC environment, after PettingZoo's classic ``chess_v6``.

The agents are the family's players (``Game.players``: ``"white"`` and ``"black"`` in chess), the first player
first. The agent to act is the player to move of the position (its ``turn``), read after every move: in a family
where a player may move several times in a row, the same agent then acts several times in a row. Each agent observes
``{"observation", "action_mask"}`` (``mmc.env.views.observation``: the network's planes from its own side, only its
own view with hidden information; the mask over the variant's action space, zeros when it is not to move). An action
is an index of ``Game.action_space(variant)``. When the game ends both agents are terminated with rewards +1 / -1
for a win and 0 for a draw (the ply cap, ``max_plies``, is a drawn ending of the rules, so a termination too), and
``infos[agent]["termination"]`` holds the family's termination. :func:`env` wraps the raw environment as
``chess_v6`` does: an illegal action ends the game with -1 for the mover (``TerminateIllegalWrapper``).

**Tasks.** A meta-learning agent meets many variants of one family. An environment made with ``variants=[...]`` (ids
of one family, generated ones included, or ``mmc.meta.TaskDistribution(...).support()``) draws one uniformly at each
reset, from the reset's seed, and ``reset(options={"variant": "mnk_5x5_k4"})`` plays the variant named (one whose
board fits). Its spaces are the same for every task, sized to the largest board of ``variants``, with one more plane
that marks the cells of the episode's board (``mmc.env.views.TaskSpaces``), so that one fixed-size agent plays them
all; ``infos[agent]["variant"]`` names the episode's variant. Without ``variants`` the spaces are the variant's own
(and ``reset(options={"variant": ...})`` switches them to another's).

>>> from mmc.env import env
>>> e = env(variant="gardner")
>>> e.reset(seed=0)
>>> observation, reward, termination, truncation, info = e.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum())
((24, 5, 5), 7)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from mmc.env.views import TaskSpaces, check_playable, observation, player_name, render_position
from mmc.games import FIRST, SECOND, get_game

__all__ = [
    "RENDER_MODES",
    "GameAEC",
    "agents",
    "check_max_plies",
    "check_render_mode",
    "check_tasks",
    "env",
    "observation_space",
    "raw_env",
    "shared_observation_space",
]

RENDER_MODES = ("human", "ansi", "rgb_array")
"""What ``render_mode`` may be (``mmc.env.views.render_position``)."""


def agents(variant: str) -> tuple[str, str]:
    """The agents of ``variant``: its family's players, the first player (who moves at ply 0) first."""
    return get_game(variant).players


def observation_space(variant: str) -> spaces.Dict:
    """The space of one agent's observation in ``variant``."""
    name = check_playable(variant)
    game = get_game(name)
    v, space = game.variant(name), game.action_space(name)
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (game.num_planes, v.height, v.width), np.float32),
            "action_mask": spaces.Box(0, 1, (space.num_actions,), np.int8),
        }
    )


def shared_observation_space(shared: TaskSpaces) -> spaces.Dict:
    """The space of one agent's observation in every variant of an environment's ``variants`` (:class:`TaskSpaces`)."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (shared.num_planes, shared.height, shared.width), np.float32),
            "action_mask": spaces.Box(0, 1, (shared.num_actions,), np.int8),
        }
    )


def check_max_plies(variant: str, max_plies: int | None) -> int:
    """``max_plies``, or the family's default move cap when ``None``; ``ValueError`` unless a positive integer."""
    if max_plies is None:
        return get_game(variant).default_max_plies
    if not isinstance(max_plies, int) or max_plies < 1:
        raise ValueError(f"max_plies must be a positive integer, got {max_plies!r}")
    return max_plies


def check_render_mode(render_mode: str | None) -> str | None:
    """``render_mode`` if it is one of :data:`RENDER_MODES` or ``None``; ``ValueError`` otherwise."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {list(RENDER_MODES)} or None, got {render_mode!r}")
    return render_mode


def check_tasks(variant: str, variants: Sequence[str] | None) -> tuple[str, ...]:
    """The variants a reset may draw (``variants``, each playable and of ``variant``'s family; none: ``variant``
    alone, and none drawn); ``ValueError`` in one line naming the first that is not."""
    if variants is None:
        return ()
    if isinstance(variants, str) or not variants:
        raise ValueError(f"variants must be a non-empty list of variant ids, got {variants!r}")
    family = get_game(variant).name
    names = tuple(check_playable(v) for v in variants)
    for name in names:
        if get_game(name).name != family:
            raise ValueError(f"variants: {name} is a {get_game(name).name} variant, the environment's are {family} "
                             "variants (one family: one network, one set of players)")  # fmt: skip
    return names


def task_spaces(variant: str, tasks: Sequence[str]) -> TaskSpaces | None:
    """The spaces shared by ``tasks``, checked to hold ``variant``; ``None`` without tasks (the variant's own)."""
    if not tasks:
        return None
    shared = TaskSpaces(tuple(tasks))
    shared.check(variant)
    return shared


def next_variant(current: str, tasks: Sequence[str], options: dict | None, rng: np.random.Generator,
                 shared: TaskSpaces | None = None) -> str:  # fmt: skip
    """The variant of the next episode: ``options["variant"]`` if given (of ``current``'s family, and fitting the
    ``shared`` spaces if any), else one of ``tasks`` drawn uniformly from ``rng``, else ``current``."""
    wanted = (options or {}).get("variant")
    if wanted is not None:
        name = check_tasks(current, [wanted])[0]
        return name if shared is None else shared.check(name)
    if tasks:
        return tasks[int(rng.integers(len(tasks)))]
    return current


class GameAEC(AECEnv):
    """One game of a variant between its family's two players (see the module docstring).

    ``metadata["name"]`` is ``mmc_<variant>_v0``; ``player[agent]`` is the agent's player, +1 (the first to move)
    or -1; ``position`` the game's state.
    """

    def __init__(self, variant: str, render_mode: str | None = None, max_plies: int | None = None,
                 variants: Sequence[str] | None = None):  # fmt: skip
        super().__init__()
        self.variant = check_playable(variant)
        self.game = get_game(self.variant)
        self.tasks = check_tasks(self.variant, variants)
        self.shared = task_spaces(self.variant, self.tasks)
        self.render_mode = check_render_mode(render_mode)
        self._max_plies = max_plies
        self.max_plies = check_max_plies(self.variant, max_plies)
        self.metadata = {"render_modes": list(RENDER_MODES), "name": f"mmc_{self.variant}_v0",
                         "is_parallelizable": False}  # fmt: skip
        self.possible_agents = list(self.game.players)
        self.agents = list(self.possible_agents)
        self.player = dict(zip(self.possible_agents, (FIRST, SECOND), strict=True))
        self._rng = np.random.default_rng()
        self._play(self.variant)

    def _play(self, variant: str) -> None:
        """Make ``variant`` (of the environment's family) the one its episodes play: its actions and spaces."""
        self.variant = variant
        self.max_plies = check_max_plies(variant, self._max_plies)
        self.actions = self.game.action_space(variant)
        if self.shared is None:
            space, count = observation_space(variant), self.actions.num_actions
        else:
            space, count = shared_observation_space(self.shared), self.shared.num_actions
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(count) for agent in self.possible_agents}
        self.position: Any = self.game.initial_state(variant, max_plies=self.max_plies)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation: its planes, and its legal actions if it is to move and the game goes on."""
        to_move = agent == self.agent_selection and not self.terminations[agent]
        if self.shared is not None:
            return self.shared.observation(self.position, self.player[agent], to_move=to_move)
        return observation(self.position, self.player[agent], to_move=to_move)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game from the start of the episode's variant: ``options["variant"]``, or one of ``variants`` drawn
        from ``seed`` (module docstring, "Tasks"), or the variant it played; the game itself has no randomness."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        variant = next_variant(self.variant, self.tasks, options, self._rng, self.shared)
        if variant != self.variant:
            self._play(variant)
        self.position = self.game.initial_state(self.variant, max_plies=self.max_plies)
        self.agents = list(self.possible_agents)
        self.agent_selection = self._to_move()
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {"variant": self.variant} for agent in self.agents}
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to move (``ValueError`` if it is not legal: :func:`env` ends the game with
        -1 for the mover instead); a dead agent's step takes ``None``. The next agent is the position's player to
        move, which may be the same agent again."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        decode = self.actions.decode if self.shared is None else self.shared.decode
        move = decode(int(action), self.position)  # type: ignore[arg-type]
        self.position = self.game.apply_move(self.position, move)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        result = self.game.outcome(self.position)
        if result is not None:
            for name in self.agents:
                if result.winner is not None:
                    self.rewards[name] = 1.0 if self.player[name] == int(result.winner) else -1.0
                self.terminations[name] = True
                self.infos[name] = {"variant": self.variant, "termination": result.termination}
        self.agent_selection = self._to_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _to_move(self) -> str:
        return player_name(self.game.players, self.position.turn)

    def render(self) -> str | np.ndarray | None:
        """The whole board (the referee's view, also with hidden information): ``mmc.env.views.render_position``."""
        return render_position(self.position, self.render_mode)

    def close(self) -> None:
        pass


def raw_env(variant: str, render_mode: str | None = None, max_plies: int | None = None,
            variants: Sequence[str] | None = None) -> GameAEC:  # fmt: skip
    """The environment without PettingZoo's wrappers (an illegal action raises ``ValueError``); ``max_plies``
    defaults to the family's move cap; ``variants``: the tasks a reset draws from (module docstring)."""
    return GameAEC(variant, render_mode, max_plies, variants)


def env(variant: str, render_mode: str | None = None, max_plies: int | None = None,
        variants: Sequence[str] | None = None) -> AECEnv:  # fmt: skip
    """The AEC environment of ``variant`` wrapped as ``chess_v6``: an illegal action ends the game, -1 for the mover;
    an action outside the space fails an assertion; calls out of order raise. ``ValueError`` (one line) for an
    unknown or unplayable variant, one of ``variants`` of another family, an unknown render mode or a bad
    ``max_plies``."""
    wrapped: AECEnv = raw_env(variant, render_mode, max_plies, variants)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
