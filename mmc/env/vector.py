"""Many games of a variant, or of a task distribution, stepped in one compiled call: a Gymnasium vector environment.

:class:`VectorGame` (``mmc.env.vector_env(...)``) holds ``num_envs`` games and steps them all at once through the
family's compiled kernels (``mmc.env._vector``, compiled once per family as the search tree is), as pgx's ``vmap`` or
a ``gymnasium.vector`` environment does. Its interface is Gymnasium's vector API (``gymnasium.vector.VectorEnv``):

- ``reset(seed=...) -> (observations, infos)`` and ``step(actions) -> (observations, rewards, terminations,
  truncations, infos)``, every value an array with the games along its first axis;
- an observation is the AEC environment's (``mmc.env.aec``), batched: ``{"observation": float32[N, planes, H, W],
  "action_mask": int8[N, A]}``;
- a game that ends is started afresh by the step after (Gymnasium 1.x's default, ``AutoresetMode.NEXT_STEP``):
  that step ignores its action and returns the new game's first observation with reward 0;
- a game's end is the rules' (checkmate, a line, the ply cap, ...): ``terminations``; ``truncations`` stay False.

**Two modes.**

- *Self-play* (``opponent=None``, the default): the caller moves for whichever player is to move in each game, and
  one step is one move of every game. The observation is the player to move's (``infos["to_play"]``), and the
  reward is the mover's: +1 when its move won, -1 when it lost (a variant where a move can lose), 0 otherwise.
- *Against an opponent* (``opponent="random"``, ``"greedy"``, ``"mcts:100"``, ``"baseline"``, a network, any
  player spec of ``mmc.play``, or an object with ``play(states, rng)``): the agent plays ``color`` (``"first"``,
  ``"second"``, a player name of the family, or ``"random"`` for a side drawn at each game's start) and a step is
  the agent's move and then the opponent's replies until the agent is to move again or the game is over. The
  observation is from the agent's side, the reward the agent's. ``random`` replies inside the compiled step; any
  other opponent plays through its Python ``play`` on the games' states, all games that wait for it in one call.

**Tasks.** ``variants=[...]`` (ids of one family, or a ``mmc.meta.TaskDistribution``: its ``support()``) gives each
game a variant drawn uniformly at each start, and padded spaces sized to the largest board with one more plane that
marks the game's board, exactly as the AEC environment's (``mmc.env.views.TaskSpaces``); ``infos["variant"]`` is
each game's index into :attr:`VectorGame.variants`.

Randomness comes from ``reset(seed=...)`` alone: each game gets a splitmix64 stream of its own from the seed (its
variant draws, its side, the random opponent), and a Python opponent draws from the environment's ``np_random``.

>>> from mmc.env import vector_env
>>> envs = vector_env("connect4", num_envs=4)
>>> observations, infos = envs.reset(seed=0)
>>> observations["observation"].shape, observations["action_mask"].shape
((4, 8, 6, 7), (4, 42))
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from mmc.env import _vector
from mmc.env._vector import random_actions
from mmc.env.aec import check_max_plies, check_tasks, observation_space, shared_observation_space
from mmc.env.views import TaskSpaces, check_playable
from mmc.games import get_game
from mmc.play.fairy import FairyError
from mmc.play.players import Player, close_player, parse_player

__all__ = ["VectorGame", "random_actions", "vector_env"]


def _variants(variant: str | None, variants: Any) -> tuple[str, tuple[str, ...]]:
    """The environment's first variant and its tasks (empty without ``variants``), each checked."""
    if variants is not None and hasattr(variants, "support"):
        variants = variants.support()
    if variant is None:
        if variants is None or isinstance(variants, str) or not variants:
            raise ValueError("vector_env needs a variant or a non-empty list of variants")
        variant = variants[0]
    name = check_playable(variant)
    return name, check_tasks(name, variants)


class VectorGame(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``variant`` or of ``variants``, stepped together (module docstring).

    ``variants`` (tuple) lists the variants the games play, row ``v`` of ``infos["variant"]``; ``players`` the
    family's player names; ``opponent`` the opponent's spec or object (``None`` in self-play).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012 (gymnasium's own)

    def __init__(
        self, variant: str | None = None, num_envs: int = 256, *, variants: Any = None, opponent: Any = None,
        color: str = "first", max_plies: int | None = None, device: str = "cpu", copy: bool = True,
    ) -> None:  # fmt: skip
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        first, tasks = _variants(variant, variants)
        self.game = get_game(first)
        self.variants: tuple[str, ...] = tasks or (first,)
        self.players = self.game.players
        colors = (*self.players, "first", "second", "random")
        if color not in colors:
            raise ValueError(f"color must be one of {', '.join(colors)}, got {color!r}")
        self.color = color
        self._color = {"first": 0, self.players[0]: 0, "second": 1, self.players[1]: 1, "random": 2}[color]
        self.max_plies = {v: check_max_plies(v, max_plies) for v in self.variants}
        self.shared = TaskSpaces(self.variants) if tasks else None
        self.opponent = opponent
        self._opponents = self._make_opponents(opponent, device)
        self._mode = _vector.SELF_PLAY if opponent is None else (
            _vector.RANDOM_OPPONENT if opponent == "random" else _vector.OUTSIDE_OPPONENT)  # fmt: skip
        self.num_envs = int(num_envs)
        self.copy = copy
        if self.shared is None:
            self.single_observation_space = observation_space(first)
            count = self.game.action_space(first).num_actions
        else:
            self.single_observation_space = shared_observation_space(self.shared)
            count = self.shared.num_actions
        self.single_action_space = spaces.Discrete(count)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._steps = _vector.compiled_steps(self.game)
        self._rules = self._make_rules()
        self._count = count
        self._games = self._make_games(capacity=8)
        shape: tuple[int, ...] = self.single_observation_space["observation"].shape or ()
        self._obs = np.zeros((self.num_envs, *shape), dtype=np.float32)
        self._mask = np.zeros((self.num_envs, count), dtype=np.int8)
        self._rewards = np.zeros(self.num_envs, dtype=np.float32)
        self._ends = np.zeros(self.num_envs, dtype=np.bool_)
        self._truncations = np.zeros(self.num_envs, dtype=np.bool_)
        self._scratch = np.zeros(int(np.prod(shape)), dtype=np.float32)
        self._states: list[Any] = [None] * self.num_envs
        self._started = False

    def _make_opponents(self, opponent: Any, device: str) -> dict[str, Player]:
        """The opponent of each variant (a player is set up for one variant), checked before any game."""
        if opponent is None or opponent == "random":
            return {}
        if not isinstance(opponent, str):
            if not callable(getattr(opponent, "play", None)):
                raise ValueError(f"opponent must be a player spec or an object with play(states, rng), got "
                                 f"{opponent!r}")  # fmt: skip
            return dict.fromkeys(self.variants, opponent)
        players: dict[str, Player] = {}
        try:
            for name in self.variants:
                players[name] = parse_player(opponent, variant=name, device=device)
        except (ValueError, OSError, FairyError) as e:
            for player in players.values():
                close_player(player)
            raise ValueError(f"opponent: {e}") from None
        return players

    def _make_rules(self) -> _vector.Rules:
        """The variants' rule tables, numbers, start positions and action maps (:class:`mmc.env._vector.Rules`)."""
        game, n = self.game, len(self.variants)
        spaces_ = [game.action_space(v) for v in self.variants]
        actions = np.full((n, 2, max(s.lookup.shape[1] for s in spaces_)), -1, dtype=np.int32)
        info = np.zeros((n, _vector.VARIANT_FIELDS), dtype=np.int64)
        starts = []
        for v, (name, space) in enumerate(zip(self.variants, spaces_, strict=True)):
            start = game.kernel_state(game.initial_state(name, max_plies=self.max_plies[name]))
            if start.history:
                raise ValueError(f"{self.game.name}: a start position with history is not supported")
            starts.append(np.asarray(start.board, dtype=np.int8))
            variant = game.variant(name)
            info[v, _vector.MAX_PLIES] = self.max_plies[name]
            info[v, _vector.HIDDEN] = variant.hidden_information
            info[v, _vector.HEIGHT], info[v, _vector.WIDTH] = variant.height, variant.width
            info[v, _vector.START_SIDE], info[v, _vector.START_CLOCK] = start.side, start.clock
            info[v, _vector.START_PLY] = start.ply
            lookup = np.asarray(space.lookup)
            if self.shared is None:
                shared, first = np.arange(space.num_actions), np.arange(space.num_actions)
            else:
                shared, own = self.shared.actions(name)
                first = own[shared]  # the own action a shared action decodes to
            has = lookup >= 0
            own_action = np.where(has, lookup, 0)
            entry = 2 * shared[own_action] + (first[own_action] == lookup)
            actions[v, :, : lookup.shape[1]] = np.where(has, entry, -1)
        tab = np.stack([np.asarray(game.table(v)) for v in self.variants])
        return _vector.Rules(tab=tab, info=info, start=np.stack(starts), actions=actions)

    def _make_games(self, capacity: int) -> _vector.Games:
        n, k = self.num_envs, self.game.kernels
        return _vector.Games(
            state=np.zeros((n, _vector.GAME_FIELDS), dtype=np.int64),
            board=np.zeros((n, k.BOARD_LEN), dtype=np.int8),
            history=np.zeros((n, capacity, k.BOARD_LEN), dtype=np.int8),
            history_side=np.zeros((n, capacity), dtype=np.int8),
            codes=np.zeros((n, k.MAX_MOVES), dtype=np.int32),
            action_code=np.full((n, self._count), -1, dtype=np.int32),
            rng=np.zeros(n, dtype=np.uint64),
        )

    def _column(self, field: int) -> np.ndarray:
        """One number of every game (a column of :attr:`mmc.env._vector.Games.state`, a view)."""
        return self._games.state[:, field]

    def _room(self) -> None:
        """Grow the games' history before a call that may add to it: room for one more position in every game, and
        for a whole game's (the move cap's) when the random opponent replies inside the call."""
        g = self._games
        need = int(self._column(_vector.HISTORY_LEN).max()) + 1
        if self._mode == _vector.RANDOM_OPPONENT:
            need = max(need, int(self._rules.info[:, _vector.MAX_PLIES].max()) + 1)
        if need <= g.history.shape[1]:
            return
        capacity = max(need, 2 * g.history.shape[1])
        history = np.zeros((self.num_envs, capacity, g.history.shape[2]), dtype=np.int8)
        history_side = np.zeros((self.num_envs, capacity), dtype=np.int8)
        history[:, : g.history.shape[1]] = g.history
        history_side[:, : g.history.shape[1]] = g.history_side
        self._games = g._replace(history=history, history_side=history_side)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        """Start every game afresh; ``seed`` seeds each game's stream (module docstring)."""
        if options:
            raise ValueError(f"options: the vector environment takes none, got {sorted(options)}")
        super().reset(seed=seed)
        g = self._games
        g.rng[:] = self.np_random.integers(0, 2**63, size=self.num_envs, dtype=np.uint64)
        steps, r = self._steps, self._rules
        pad = self.shared is not None
        if self._mode == _vector.OUTSIDE_OPPONENT:
            every = np.arange(self.num_envs, dtype=np.int64)
            steps.start_games(every, g, r, self._color)
            self._mirror(every)
            self._replies()
            steps.finish_all(self._games, r, self._mode, self._obs, self._mask, self._rewards, self._ends, pad,
                             self._scratch)  # fmt: skip
        else:
            self._room()
            steps.reset_all(self._games, r, self._color, self._mode, self._obs, self._mask, pad, self._scratch)
        self._started = True
        return self._observations(), self._infos()

    def step(self, actions: Any) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play one action per game (module docstring); ``ValueError`` in one line, before any game moves, for an
        action that is not in its game's mask."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers (one per game), got an array of shape "
                             f"{actions.shape} and dtype {actions.dtype}")  # fmt: skip
        actions = actions.astype(np.int64, copy=False)
        g, r, steps = self._games, self._rules, self._steps
        bad = steps.first_bad_action(actions, g)
        if bad >= 0:
            numbers, name = g.state[bad], self.variant_of(bad)
            raise ValueError(f"game {bad}: action {int(actions[bad])} is not in its action mask ({name}, ply "
                             f"{numbers[_vector.PLY]}, {numbers[_vector.NUM_CODES]} legal actions)")  # fmt: skip
        self._room()
        pad = self.shared is not None
        steps.step_all(actions, self._games, r, self._color, self._mode, self._obs, self._mask, self._rewards,
                       self._ends, pad, self._scratch)  # fmt: skip
        if self._mode == _vector.OUTSIDE_OPPONENT:
            g = self._games
            reset = self._column(_vector.RESET) != 0
            moved = np.flatnonzero(~reset)
            self._advance_mirror(moved, self._column(_vector.LAST_CODE)[moved])
            self._mirror(np.flatnonzero(reset))
            self._replies()
            steps.finish_all(self._games, r, self._mode, self._obs, self._mask, self._rewards, self._ends, pad,
                             self._scratch)  # fmt: skip
        return self._observations(), self._out(self._rewards), self._out(self._ends), self._out(self._truncations), \
            self._infos()  # fmt: skip

    def _mirror(self, games: np.ndarray) -> None:
        """Fresh Python states for ``games`` (the outside opponent plays on them)."""
        for i in games:
            name = self.variant_of(i)
            self._states[i] = self.game.initial_state(name, max_plies=self.max_plies[name])

    def _advance_mirror(self, games: np.ndarray, codes: np.ndarray) -> None:
        for i, code in zip(games, codes, strict=True):
            self._states[i] = self.game.apply_move(self._states[i], self.game.move_of_code(int(code)))

    def _replies(self) -> None:
        """The outside opponent's moves, in every game where it is to move, until the agent is to move or the game
        is over: all such games of a variant in one ``play`` call."""
        g = self._games
        while True:
            ongoing = self._column(_vector.END) == self.game.kernels.ONGOING
            waiting = np.flatnonzero(ongoing & (self._column(_vector.SIDE) != self._column(_vector.AGENT)))
            if len(waiting) == 0:
                return
            self._room()
            g = self._games
            codes = np.empty(len(waiting), dtype=np.int32)
            for v, name in enumerate(self.variants):
                mine = np.flatnonzero(self._column(_vector.VARIANT)[waiting] == v)
                if len(mine) == 0:
                    continue
                states = [self._states[i] for i in waiting[mine]]
                moves = self._opponents[name].play(states, self.np_random)
                codes[mine] = [self.game.code_of(m) for m in moves]
            self._advance_mirror(waiting, codes)
            self._steps.apply_codes(waiting.astype(np.int64), codes, g, self._rules)

    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self.copy else array

    def _observations(self) -> dict[str, np.ndarray]:
        return {"observation": self._out(self._obs), "action_mask": self._out(self._mask)}

    def _infos(self) -> dict[str, np.ndarray]:
        """``to_play``: the player to move in each game (+1 first, -1 second); ``variant``: its row of
        :attr:`variants`; ``agent`` (opponent modes): the agent's player."""
        infos: dict[str, np.ndarray] = {"to_play": self._column(_vector.SIDE).astype(np.int8),
                                        "variant": self._column(_vector.VARIANT).astype(np.int32)}  # fmt: skip
        if self._mode != _vector.SELF_PLAY:
            infos["agent"] = self._column(_vector.AGENT).astype(np.int8)
        return infos

    def variant_of(self, game: int) -> str:
        """The variant game ``game`` plays now."""
        return self.variants[int(self._games.state[game, _vector.VARIANT])]

    def close_extras(self, **kwargs: Any) -> None:
        for player in {id(p): p for p in self._opponents.values()}.values():
            close_player(player)


def vector_env(variant: str | None = None, num_envs: int = 256, *, variants: Any = None, opponent: Any = None,
               color: str = "first", max_plies: int | None = None, device: str = "cpu",
               copy: bool = True) -> VectorGame:  # fmt: skip
    """``num_envs`` games of ``variant`` (or of ``variants``: a list of ids of one family, or a
    ``mmc.meta.TaskDistribution``) as one Gymnasium vector environment (module docstring): self-play without an
    ``opponent``, else the agent plays ``color`` against it. ``copy=False`` returns the environment's own arrays,
    overwritten by the next step (no copy per step). ``ValueError`` in one line for a batch under 1, an unknown or
    unplayable variant, variants of two families, an opponent spec that does not parse, an unknown color or a bad
    ``max_plies``."""
    return VectorGame(variant, num_envs, variants=variants, opponent=opponent, color=color, max_plies=max_plies,
                      device=device, copy=copy)  # fmt: skip
