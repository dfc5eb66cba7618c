"""The compiled steps of the vector environment (``mmc.env.vector``): many games stepped in one call, any family.

Every function here is a *template* (:func:`template`): it reaches the rules only through ``G``, a game family's
kernel bundle (``Game.kernels``, the contract of ``mmc.games.protocol``), and :func:`compiled_steps` compiles them
once per family (``mmc.games.jit.specialise``, cached on disk), as the search tree is compiled. The games' state is
a :class:`Games` bundle of arrays, row ``i`` for game ``i`` (its numbers in one row of ``Games.state``, a column per
field: ``state[i, SIDE]``); the variants they play are a :class:`Rules` bundle, row ``v`` for the ``v``-th variant
of the environment (``info[v, MAX_PLIES]``).

The games' numbers share one array, and the variants' another, because every array a compiled helper takes costs a
reference count at each call in numba: with a dozen arrays per helper they took a third of a step.

A game's end is the rules' own: ``G.game_end`` with the repetitions counted as the search tree counts them (the
earlier positions since the last irreversible move with the same player to move and the same board), so that a game
here ends where ``Game.outcome`` ends it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from mmc.games import Game
from mmc.games.jit import specialise

__all__ = ["FIRST_AGENT", "RANDOM_AGENT", "SECOND_AGENT", "Games", "Rules", "compiled_steps", "random_actions"]

SELF_PLAY, RANDOM_OPPONENT, OUTSIDE_OPPONENT = 0, 1, 2
"""The step's modes: the caller moves for both players; the agent's move and a uniformly random reply, in the
kernel; the agent's move alone, the opponent's replies then coming from Python (:func:`apply_codes`)."""
FIRST_AGENT, SECOND_AGENT, RANDOM_AGENT = 0, 1, 2
"""Which player the agent is in an opponent mode: always the first, always the second, or drawn at each reset."""

G: Any = None
"""The game family's kernel bundle the templates read: bound in each family's copy by :func:`compiled_steps`."""
_TEMPLATES: list[tuple[Callable[..., Any], dict[str, Any]]] = []


def template(**options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a function that reads the rules through ``G``: compiled per family by :func:`compiled_steps`."""

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        _TEMPLATES.append((fn, options))
        return fn

    return mark


SIDE, CLOCK, PLY, VARIANT, HISTORY_LEN, NUM_CODES, REPETITIONS, END, OVER, AGENT, LAST_CODE, RESET = range(12)
"""The columns of ``Games.state``: the player to move (+1 or -1); moves since the last irreversible move; plies since
the start (``G.play``'s count); the row of :class:`Rules` the game plays; positions in ``Games.history``; legal moves
in ``Games.codes``; how many times the position occurred before (as ``G.game_end`` takes it); ``G.game_end``'s code
(``G.ONGOING`` while the game goes on); 1 when the game ended at the last step (the next starts a new one:
autoreset); the agent's player in an opponent mode; the code of the last move played (-1 after a start); 1 when the
last step started the game afresh."""
GAME_FIELDS = 12
MAX_PLIES, HIDDEN, HEIGHT, WIDTH, START_SIDE, START_CLOCK, START_PLY = range(7)
"""The columns of ``Rules.info``: the move cap; 1 for hidden information (the planes count no repetition); the
board's ranks and files; the start position's player to move, clock and ply."""
VARIANT_FIELDS = 7


class Games(NamedTuple):
    """The ``N`` games, row ``i`` for game ``i``."""

    state: np.ndarray
    """``int64[N, GAME_FIELDS]``: the game's numbers (the columns ``SIDE``, ``CLOCK``, ...)."""
    board: np.ndarray
    """``int8[N, BOARD_LEN]``: the position array."""
    history: np.ndarray
    """``int8[N, C, BOARD_LEN]``: the positions before this one since the last irreversible move, oldest first
    (``C`` is grown by the environment before a step could fill it)."""
    history_side: np.ndarray
    """``int8[N, C]``: their players to move."""
    codes: np.ndarray
    """``int32[N, MAX_MOVES]``: the legal move codes of the position, in ``G.legal_moves_into``'s order."""
    action_code: np.ndarray
    """``int32[N, A]``: the move code each action of the mask stands for, -1 for none."""
    rng: np.ndarray
    """``uint64[N]``: each game's splitmix64 state (the variant draws, the agent's side, the random opponent)."""


class Rules(NamedTuple):
    """The ``V`` variants the games draw from, row ``v`` for the ``v``-th."""

    tab: np.ndarray
    """``int16[V, T]``: the rule tables (``Game.table``)."""
    info: np.ndarray
    """``int64[V, VARIANT_FIELDS]``: the variant's numbers (the columns ``MAX_PLIES``, ``HIDDEN``, ...)."""
    start: np.ndarray
    """``int8[V, BOARD_LEN]``: the start positions."""
    actions: np.ndarray
    """``int32[V, 2, num_codes]``: for each legal move code played by the first player (row 0) or the second (row 1),
    ``2 * a + d``: ``a`` the action of the environment's space whose mask entry it sets, ``d`` 1 when that action,
    played, stands for this code (of two actions of a variant on one cell of a shared space, the first); -1 for
    none."""


@template(inline="always")
def _random(rng, i):
    """The next splitmix64 number of game ``i``'s stream."""
    rng[i] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[i]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@template(inline="always")
def _copy(source, target):
    """``target[:] = source`` for two 1-d arrays of one length, as a loop: numba's slice assignment costs about 60 ns
    whatever the length, a loop over a position array under 10."""
    for k in range(source.shape[0]):
        target[k] = source[k]


@template(inline="always")
def _settle(g, r, i):
    """The legal moves, repetitions and end code of game ``i``'s position."""
    st = g.state[i]
    v = st[VARIANT]
    board, history, history_side = g.board[i], g.history[i], g.history_side[i]
    side, clock, n = st[SIDE], st[CLOCK], st[HISTORY_LEN]
    count = 0
    for j in range(1, min(n, clock) + 1):
        same = (j % 2 == 0) if G.ALTERNATES else history_side[n - j] == side
        if same and np.array_equal(history[n - j], board):
            count += 1
    tab = r.tab[v]
    k = G.legal_moves_into(board, side, tab, g.codes[i])
    st[NUM_CODES] = k
    st[REPETITIONS] = count
    st[END] = G.game_end(board, side, tab, k, count, clock, st[PLY], r.info[v, MAX_PLIES])


@template(inline="always")
def _start(g, r, i, color):
    """Start game ``i`` afresh: a variant drawn uniformly (when there are several), the agent's side drawn when
    ``color`` is ``RANDOM_AGENT``."""
    st = g.state[i]
    nv = r.tab.shape[0]
    v = 0 if nv == 1 else np.int64(_random(g.rng, i) % np.uint64(nv))
    _copy(r.start[v], g.board[i])
    info = r.info[v]
    st[VARIANT] = v
    st[SIDE] = info[START_SIDE]
    st[CLOCK] = info[START_CLOCK]
    st[PLY] = info[START_PLY]
    st[HISTORY_LEN] = 0
    st[LAST_CODE] = -1
    st[OVER] = 0
    st[RESET] = 1
    if color == FIRST_AGENT:
        st[AGENT] = 1
    elif color == SECOND_AGENT:
        st[AGENT] = -1
    else:
        st[AGENT] = 1 if _random(g.rng, i) % np.uint64(2) == 0 else -1
    _settle(g, r, i)


@template(inline="always")
def _advance(g, r, i, code):
    """Play the legal move ``code`` in game ``i``: its clocks, its history, then :func:`_settle`."""
    st = g.state[i]
    board, history, history_side = g.board[i], g.history[i], g.history_side[i]
    n = st[HISTORY_LEN]
    if n == history.shape[0]:  # full (only a random reply longer than the move cap): the oldest goes
        for j in range(1, n):
            _copy(history[j], history[j - 1])
            history_side[j - 1] = history_side[j]
        n -= 1
    _copy(board, history[n])
    history_side[n] = st[SIDE]
    side, irreversible, plies = G.play(board, st[SIDE], code, r.tab[st[VARIANT]])
    st[HISTORY_LEN] = 0 if irreversible else n + 1
    st[CLOCK] = 0 if irreversible else st[CLOCK] + 1
    st[PLY] += plies
    st[SIDE] = side
    st[LAST_CODE] = code
    _settle(g, r, i)


@template(inline="always")
def _random_reply(g, r, i):
    """The random opponent's moves in game ``i`` until the agent is to move or the game is over."""
    st = g.state[i]
    while st[END] == G.ONGOING and st[SIDE] != st[AGENT]:
        _advance(g, r, i, g.codes[i, np.int64(_random(g.rng, i) % np.uint64(st[NUM_CODES]))])


@template(inline="always")
def _observe(g, r, i, viewer, obs, mask, pad, scratch):
    """Game ``i``'s observation from ``viewer``'s side into ``obs[i]`` and ``mask[i]``, and the move code of each
    action of the mask into ``g.action_code[i]``; the mask is empty unless ``viewer`` is to move in a game that goes
    on."""
    st = g.state[i]
    v = st[VARIANT]
    info = r.info[v]
    reps = st[REPETITIONS] if viewer == st[SIDE] and info[HIDDEN] == 0 else 0
    board, tab = g.board[i], r.tab[v]
    if pad:
        h, w = info[HEIGHT], info[WIDTH]
        planes = np.int64(obs.shape[1] - 1)
        view = scratch[: planes * h * w].reshape((planes, h, w))
        G.fill_planes(board, viewer, tab, reps, st[CLOCK], st[PLY], info[MAX_PLIES], view)
        o = obs[i]
        for p in range(planes + 1):
            for y in range(o.shape[1]):
                for x in range(o.shape[2]):
                    inside = y < h and x < w
                    o[p, y, x] = (view[p, y, x] if p < planes else 1.0) if inside else 0.0
    else:
        G.fill_planes(board, viewer, tab, reps, st[CLOCK], st[PLY], info[MAX_PLIES], obs[i])
    m, ac = mask[i], g.action_code[i]
    for a in range(m.shape[0]):
        m[a] = 0
        ac[a] = -1
    if viewer == st[SIDE] and st[END] == G.ONGOING:
        actions = r.actions[v, 0 if viewer > 0 else 1]
        codes = g.codes[i]
        for j in range(st[NUM_CODES]):
            c = codes[j]
            entry = actions[c]
            if entry >= 0:
                a = entry >> 1
                m[a] = 1
                if entry & 1 and ac[a] < 0:
                    ac[a] = c


@template(inline="always")
def _finish(g, r, i, mode, obs, mask, rewards, ends, pad, scratch):
    """Game ``i``'s reward (in an opponent mode), end flag and observation after its step."""
    st = g.state[i]
    if mode != SELF_PLAY:
        rewards[i] = 0.0
        if st[RESET] == 0 and st[END] != G.ONGOING:
            value = G.end_value(st[END])
            rewards[i] = value if st[SIDE] == st[AGENT] else -value
            st[OVER] = 1
    elif st[OVER] == 0:
        rewards[i] = 0.0
    ends[i] = st[OVER] != 0
    _observe(g, r, i, st[SIDE] if mode == SELF_PLAY else st[AGENT], obs, mask, pad, scratch)


@template()
def first_bad_action(actions, g):
    """The first game whose action is not one of its mask's (a game that is over takes any), else -1."""
    state, action_code = g.state, g.action_code
    width = action_code.shape[1]
    for i in range(state.shape[0]):
        if state[i, OVER] != 0:
            continue
        a = actions[i]
        if a < 0 or a >= width or action_code[i, a] < 0:
            return i
    return -1


@template()
def reset_all(g, r, color, mode, obs, mask, pad, scratch):
    """Start every game afresh (in the random-opponent mode, with its moves until the agent is to move), and
    observe it (from the player to move in self-play, from the agent's side otherwise)."""
    for i in range(g.state.shape[0]):
        _start(g, r, i, color)
        if mode == RANDOM_OPPONENT:
            _random_reply(g, r, i)
        st = g.state[i]
        _observe(g, r, i, st[SIDE] if mode == SELF_PLAY else st[AGENT], obs, mask, pad, scratch)


@template()
def step_all(actions, g, r, color, mode, obs, mask, rewards, ends, pad, scratch):
    """One step of every game (the actions checked by :func:`first_bad_action` first).

    A game that ended at the last step starts afresh (reward 0, not over). Otherwise its action's move is played;
    in the random-opponent mode the opponent's replies follow. The reward is the mover's in self-play, the
    agent's otherwise: +1 won, -1 lost, 0 drawn or going on. In the outside-opponent mode nothing is observed: the
    opponent's replies come first (:func:`apply_codes`), then :func:`finish_all`."""
    for i in range(g.state.shape[0]):
        st = g.state[i]
        st[RESET] = 0
        if st[OVER] != 0:
            _start(g, r, i, color)
            if mode == RANDOM_OPPONENT:
                _random_reply(g, r, i)
        else:
            mover = st[SIDE]
            _advance(g, r, i, g.action_code[i, actions[i]])
            if mode == RANDOM_OPPONENT:
                _random_reply(g, r, i)
            if mode == SELF_PLAY and st[END] != G.ONGOING:
                value = G.end_value(st[END])
                rewards[i] = value if st[SIDE] == mover else -value
                st[OVER] = 1
        if mode != OUTSIDE_OPPONENT:
            _finish(g, r, i, mode, obs, mask, rewards, ends, pad, scratch)


@template()
def apply_codes(games, codes, g, r):
    """Play ``codes[j]`` in game ``games[j]`` (the outside opponent's replies)."""
    for j in range(games.shape[0]):
        _advance(g, r, games[j], codes[j])


@template()
def finish_all(g, r, mode, obs, mask, rewards, ends, pad, scratch):
    """:func:`_finish` of every game (the outside-opponent mode, after the opponent's replies)."""
    for i in range(g.state.shape[0]):
        _finish(g, r, i, mode, obs, mask, rewards, ends, pad, scratch)


@template()
def start_games(games, g, r, color):
    """Start ``games`` afresh (the outside-opponent mode's reset, whose replies then come from Python)."""
    for j in range(games.shape[0]):
        _start(g, r, games[j], color)


@cache
def compiled_steps(game: Game) -> SimpleNamespace:
    """The templates compiled against ``game.kernels`` (once per family and process; cached on disk, see
    ``mmc.games.jit.specialise``)."""
    return SimpleNamespace(**specialise(_TEMPLATES, globals(), game.kernels, f"vector_{game.name}"))


@njit(cache=True)
def random_actions(mask, state, out):
    """A uniformly random action of each row of ``mask`` (``int8[N, A]``) into ``out`` (``int64[N]``), 0 for a row
    without one, from the splitmix64 stream ``state`` (``uint64[1]``, advanced)."""
    for i in range(mask.shape[0]):
        k = 0
        for j in range(mask.shape[1]):
            k += mask[i, j]
        out[i] = 0
        if k == 0:
            continue
        state[0] += np.uint64(0x9E3779B97F4A7C15)
        z = state[0]
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        r = np.int64((z ^ (z >> np.uint64(31))) % np.uint64(k))
        for j in range(mask.shape[1]):
            if mask[i, j]:
                if r == 0:
                    out[i] = j
                    break
                r -= 1
    return out
