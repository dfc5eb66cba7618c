"""The compiled steps of the vector environment (``mmc.env.vector``): many games stepped in one call, any family.

Every function here is a *template* (:func:`template`): it reaches the rules only through ``G``, a game family's
kernel bundle (``Game.kernels``, the contract of ``mmc.games.protocol``), and :func:`compiled_steps` compiles them
once per family (``mmc.games.jit.specialise``, cached on disk), as the search tree is compiled. The games' state is
a :class:`Games` bundle of arrays, row ``i`` for game ``i``; the variants they play are a :class:`Rules` bundle, row
``v`` for the ``v``-th variant of the environment.

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

__all__ = ["FIRST_AGENT", "RANDOM_AGENT", "SECOND_AGENT", "Games", "Rules", "compiled_steps"]

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


class Games(NamedTuple):
    """The ``N`` games, row ``i`` for game ``i``."""

    board: np.ndarray
    """``int8[N, BOARD_LEN]``: the position array."""
    side: np.ndarray
    """``int64[N]``: the player to move, +1 or -1."""
    clock: np.ndarray
    """``int32[N]``: moves since the last irreversible move."""
    ply: np.ndarray
    """``int32[N]``: plies since the start (``G.play``'s count)."""
    variant: np.ndarray
    """``int32[N]``: the row of :class:`Rules` the game plays."""
    history: np.ndarray
    """``int8[N, C, BOARD_LEN]``: the positions before this one since the last irreversible move, oldest first
    (``C`` is grown by the environment before a step could fill it)."""
    history_side: np.ndarray
    """``int8[N, C]``: their players to move."""
    history_len: np.ndarray
    """``int32[N]``: positions in ``history``."""
    codes: np.ndarray
    """``int32[N, MAX_MOVES]``: the legal move codes of the position, in ``G.legal_moves_into``'s order."""
    num_codes: np.ndarray
    """``int32[N]``."""
    repetitions: np.ndarray
    """``int32[N]``: how many times the position occurred before (as ``G.game_end`` takes it)."""
    end: np.ndarray
    """``int32[N]``: ``G.game_end``'s code of the position: ``G.ONGOING`` while the game goes on."""
    over: np.ndarray
    """``bool[N]``: the game ended at the last step; the next step starts a new one (autoreset)."""
    agent: np.ndarray
    """``int64[N]``: the agent's player in an opponent mode (+1 or -1); unused in self-play."""
    rng: np.ndarray
    """``uint64[N]``: each game's splitmix64 state (the variant draws, the agent's side, the random opponent)."""
    action_code: np.ndarray
    """``int32[N, A]``: the move code each action of the mask stands for, -1 for none."""
    last_code: np.ndarray
    """``int32[N]``: the code of the last move played, -1 after a reset."""
    reset: np.ndarray
    """``bool[N]``: the game was started afresh by the last step."""


class Rules(NamedTuple):
    """The ``V`` variants the games draw from, row ``v`` for the ``v``-th."""

    tab: np.ndarray
    """``int16[V, T]``: the rule tables (``Game.table``)."""
    max_plies: np.ndarray
    """``int32[V]``: the move caps."""
    start: np.ndarray
    """``int8[V, BOARD_LEN]``: the start positions."""
    start_side: np.ndarray
    """``int64[V]``."""
    start_clock: np.ndarray
    """``int32[V]``."""
    start_ply: np.ndarray
    """``int32[V]``."""
    hidden: np.ndarray
    """``bool[V]``: a variant with hidden information (its planes count no repetition)."""
    height: np.ndarray
    """``int32[V]``."""
    width: np.ndarray
    """``int32[V]``."""
    mask_action: np.ndarray
    """``int32[V, 2, num_codes]``: the action of the environment's space whose mask entry a legal move code sets, for
    the first player (row 0) and the second (row 1); -1 for none."""
    decodes: np.ndarray
    """``bool[V, 2, num_codes]``: whether that action, played, stands for that code (of two actions of a variant on
    one cell of a shared space, the first)."""


# The kernels below take the bundles whole and unpack them once per call (``g.board`` read inside the per-game loop
# costs a reference count each time, which made a step four times slower); the helpers take the arrays they use.


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
def _fill(target, value):
    """``target[:] = value`` for a 1-d array, as a loop (:func:`_copy`)."""
    for k in range(target.shape[0]):
        target[k] = value


@template(inline="always")
def _settle(board, side, clock, ply, history, history_side, hlen, codes, tab, max_plies):
    """The legal moves (into ``codes``), repetitions and end code of a game's position: ``(moves, repetitions,
    end)``."""
    count = 0
    for j in range(1, min(hlen, clock) + 1):
        same = (j % 2 == 0) if G.ALTERNATES else history_side[hlen - j] == side
        if same and np.array_equal(history[hlen - j], board):
            count += 1
    k = G.legal_moves_into(board, side, tab, codes)
    return k, count, G.game_end(board, side, tab, k, count, clock, ply, max_plies)


@template(inline="always")
def _start(g, r, i, color):
    """Start game ``i`` afresh: a variant drawn uniformly (when there are several), the agent's side drawn when
    ``color`` is ``RANDOM_AGENT``."""
    board, side, clock, ply, variant, history, history_side, history_len, codes, num_codes, repetitions, end, \
        over, agent, rng, _, last_code, reset = g  # fmt: skip
    nv = r.tab.shape[0]
    v = 0 if nv == 1 else np.int32(_random(rng, i) % np.uint64(nv))
    variant[i] = v
    b = board[i]
    _copy(r.start[v], b)
    side[i] = r.start_side[v]
    clock[i] = r.start_clock[v]
    ply[i] = r.start_ply[v]
    history_len[i] = 0
    last_code[i] = -1
    over[i] = False
    reset[i] = True
    if color == FIRST_AGENT:
        agent[i] = 1
    elif color == SECOND_AGENT:
        agent[i] = -1
    else:
        agent[i] = 1 if _random(rng, i) % np.uint64(2) == 0 else -1
    num_codes[i], repetitions[i], end[i] = _settle(b, side[i], clock[i], ply[i], history[i], history_side[i], 0,
                                                   codes[i], r.tab[v], r.max_plies[v])  # fmt: skip


@template(inline="always")
def _advance(board, side, clock, ply, history, history_side, history_len, codes, num_codes, repetitions, end,
             last_code, i, code, tab, max_plies):  # fmt: skip
    """Play the legal move ``code`` in game ``i`` (its row of each array): its clocks, its history, then
    :func:`_settle`."""
    b = board[i]
    hist = history[i]
    hside = history_side[i]
    n = history_len[i]
    if n == hist.shape[0]:  # full (only a random reply longer than the move cap): the oldest goes
        for j in range(1, n):
            _copy(hist[j], hist[j - 1])
            hside[j - 1] = hside[j]
        n -= 1
    _copy(b, hist[n])
    hside[n] = side[i]
    new_side, irreversible, plies = G.play(b, side[i], code, tab)
    if irreversible:
        n = 0
        clock[i] = 0
    else:
        n += 1
        clock[i] += 1
    history_len[i] = n
    ply[i] += plies
    side[i] = new_side
    last_code[i] = code
    num_codes[i], repetitions[i], end[i] = _settle(b, new_side, clock[i], ply[i], hist, hside, n, codes[i], tab,
                                                   max_plies)  # fmt: skip


@template(inline="always")
def _play(g, r, i, code):
    """:func:`_advance` of game ``i`` on the bundles."""
    board, side, clock, ply, variant, history, history_side, history_len, codes, num_codes, repetitions, end, \
        _, _, _, _, last_code, _ = g  # fmt: skip
    v = variant[i]
    _advance(board, side, clock, ply, history, history_side, history_len, codes, num_codes, repetitions, end,
             last_code, i, code, r.tab[v], r.max_plies[v])  # fmt: skip


@template(inline="always")
def _random_reply(g, r, i):
    """The random opponent's moves in game ``i`` until the agent is to move or the game is over."""
    while g.end[i] == G.ONGOING and g.side[i] != g.agent[i]:
        k = g.num_codes[i]
        _play(g, r, i, g.codes[i, np.int64(_random(g.rng, i) % np.uint64(k))])


@template(inline="always")
def _observe(board, side, clock, ply, codes, num_codes, repetitions, end, action_code, i, v, viewer, tabs,
             max_plies, hidden, height, width, mask_action, decodes, obs, mask, pad, scratch):  # fmt: skip
    """Game ``i``'s observation from ``viewer``'s side into ``obs[i]`` and ``mask[i]``, and the move code of each
    action of the mask into ``action_code[i]``; the mask is empty unless ``viewer`` is to move in a game that goes
    on."""
    reps = repetitions[i] if viewer == side[i] and not hidden[v] else 0
    tab = tabs[v]
    if pad:
        h, w = np.int64(height[v]), np.int64(width[v])
        planes = np.int64(obs.shape[1] - 1)
        view = scratch[: planes * h * w].reshape((planes, h, w))
        G.fill_planes(board[i], viewer, tab, reps, clock[i], ply[i], max_plies[v], view)
        o = obs[i]
        for p in range(planes + 1):
            for y in range(o.shape[1]):
                for x in range(o.shape[2]):
                    inside = y < h and x < w
                    o[p, y, x] = (view[p, y, x] if p < planes else 1.0) if inside else 0.0
    else:
        G.fill_planes(board[i], viewer, tab, reps, clock[i], ply[i], max_plies[v], obs[i])
    m = mask[i]
    ac = action_code[i]
    _fill(m, 0)
    _fill(ac, -1)
    if viewer == side[i] and end[i] == G.ONGOING:
        row = 0 if viewer > 0 else 1
        acts = mask_action[v, row]
        picks = decodes[v, row]
        cs = codes[i]
        for j in range(num_codes[i]):
            c = cs[j]
            a = acts[c]
            if a >= 0:
                m[a] = 1
                if picks[c] and ac[a] < 0:
                    ac[a] = c


@template()
def first_bad_action(actions, g):
    """The first game whose action is not one of its mask's (a game that is over takes any), else -1."""
    over, action_code = g.over, g.action_code
    width = action_code.shape[1]
    for i in range(over.shape[0]):
        if over[i]:
            continue
        a = actions[i]
        if a < 0 or a >= width or action_code[i, a] < 0:
            return i
    return -1


@template()
def reset_all(g, r, color, mode, obs, mask, pad, scratch):
    """Start every game afresh (in the random-opponent mode, with its moves until the agent is to move), and
    observe it (from the player to move in self-play, from the agent's side otherwise)."""
    board, side, clock, ply, variant, _, _, _, codes, num_codes, repetitions, end, _, agent, _, action_code, _, _ = g
    for i in range(board.shape[0]):
        _start(g, r, i, color)
        if mode == RANDOM_OPPONENT:
            _random_reply(g, r, i)
        tabs, max_plies, _, _, _, _, hidden, height, width, mask_action, decodes = r
        viewer = side[i] if mode == SELF_PLAY else agent[i]
        _observe(board, side, clock, ply, codes, num_codes, repetitions, end, action_code, i, variant[i], viewer, tabs,
                 max_plies, hidden, height, width, mask_action, decodes, obs, mask, pad, scratch)  # fmt: skip


@template()
def step_all(actions, g, r, color, mode, obs, mask, rewards, ends, pad, scratch):
    """One step of every game (the actions checked by :func:`first_bad_action` first).

    A game that ended at the last step starts afresh (reward 0, not over). Otherwise its action's move is played;
    in the random-opponent mode the opponent's replies follow. The reward is the mover's in self-play, the
    agent's otherwise: +1 won, -1 lost, 0 drawn or going on. In the outside-opponent mode nothing is observed: the
    opponent's replies come first (:func:`apply_codes`), then :func:`finish_all`."""
    board, side, clock, ply, variant, history, history_side, history_len, codes, num_codes, repetitions, end, \
        over, agent, _, action_code, last_code, reset = g  # fmt: skip
    tabs, max_plies = r.tab, r.max_plies
    for i in range(board.shape[0]):
        reset[i] = False
        if over[i]:
            _start(g, r, i, color)
            if mode == RANDOM_OPPONENT:
                _random_reply(g, r, i)
        else:
            mover = side[i]
            v = variant[i]
            _advance(board, side, clock, ply, history, history_side, history_len, codes, num_codes, repetitions, end,
                     last_code, i, action_code[i, actions[i]], tabs[v], max_plies[v])  # fmt: skip
            if mode == RANDOM_OPPONENT:
                _random_reply(g, r, i)
            if mode == SELF_PLAY and end[i] != G.ONGOING:
                value = G.end_value(end[i])
                rewards[i] = value if side[i] == mover else -value
                over[i] = True
        if mode != OUTSIDE_OPPONENT:
            _finish(board, side, clock, ply, variant, codes, num_codes, repetitions, end, over, agent, action_code,
                    reset, i, mode, r, obs, mask, rewards, ends, pad, scratch)  # fmt: skip


@template()
def apply_codes(games, codes, g, r):
    """Play ``codes[j]`` in game ``games[j]`` (the outside opponent's replies)."""
    for j in range(games.shape[0]):
        _play(g, r, games[j], codes[j])


@template(inline="always")
def _finish(board, side, clock, ply, variant, codes, num_codes, repetitions, end, over, agent, action_code, reset, i,
            mode, r, obs, mask, rewards, ends, pad, scratch):  # fmt: skip
    """Game ``i``'s reward (in an opponent mode), end flag and observation after its step."""
    if mode != SELF_PLAY:
        rewards[i] = 0.0
        if not reset[i] and end[i] != G.ONGOING:
            value = G.end_value(end[i])
            rewards[i] = value if side[i] == agent[i] else -value
            over[i] = True
    elif not over[i]:
        rewards[i] = 0.0
    ends[i] = over[i]
    tabs, max_plies, _, _, _, _, hidden, height, width, mask_action, decodes = r
    viewer = side[i] if mode == SELF_PLAY else agent[i]
    _observe(board, side, clock, ply, codes, num_codes, repetitions, end, action_code, i, variant[i], viewer, tabs,
             max_plies, hidden, height, width, mask_action, decodes, obs, mask, pad, scratch)  # fmt: skip


@template()
def finish_all(g, r, mode, obs, mask, rewards, ends, pad, scratch):
    """:func:`_finish` of every game (the outside-opponent mode, after the opponent's replies)."""
    board, side, clock, ply, variant, _, _, _, codes, num_codes, repetitions, end, over, agent, _, action_code, _, \
        reset = g  # fmt: skip
    for i in range(board.shape[0]):
        _finish(board, side, clock, ply, variant, codes, num_codes, repetitions, end, over, agent, action_code, reset,
                i, mode, r, obs, mask, rewards, ends, pad, scratch)  # fmt: skip


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
