"""The simulation steps of the search tree, generic over the game: selection, materialising a position, the game's
end, backup, MCTS-Solver proofs, expansion and random playouts.

Every function here is a *template* (:func:`template`): it reaches the rules only through ``G``, a game family's
compiled kernel bundle (``Game.kernels``, the protocol of ``mmc.games.protocol``), and :func:`compiled_tree`
compiles all of them once per family (``mmc.games.jit.specialise``: cached on disk, named after the bundle's
source). The player to move comes from the game (``G.play`` returns it): a value is negated only where the player
changes, repetitions compare positions with the same player to move, and a proof climbs by the same rule; where
``G.ALTERNATES`` (the turn passes after every move, as in chess) the compiled tree negates at every level without
reading the players. The bundles they take and the rule-free kernels they call are ``mmc.search._tree``'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from types import SimpleNamespace
from typing import Any

import numpy as np

from mmc.games import Game
from mmc.games.jit import specialise
from mmc.search._tree import (
    ONGOING,
    PROVEN_LOSS,
    PROVEN_WIN,
    ROOT_INDEX,
    TERMINAL,
    UNKNOWN,
    UNPROVEN,
    _gumbel_root_child,
    _puct_child,
    _same_board,
    _winning_child,
    reroot,
)

__all__ = ["compiled_tree", "template"]

G: Any = None
"""The game family's kernel bundle the templates read (``Game.kernels``): bound in each family's copy of them by
:func:`compiled_tree`, ``None`` here."""
_TEMPLATES: list[tuple[Callable[..., Any], dict[str, Any]]] = []


def template(**options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a function that reads the rules through ``G`` (module docstring): compiled per family by
    :func:`compiled_tree` with numba's ``options``, never on its own."""

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        _TEMPLATES.append((fn, options))
        return fn

    return mark


@template(inline="always")
def _same_mover(dist, side, other_side):
    """Whether a position ``dist`` moves back, whose player to move is ``other_side``, has ``side`` to move too."""
    if G.ALTERNATES:
        return dist % 2 == 0
    return side == other_side


@template(inline="always")
def repetitions(t, node, nodes, slots, trees):
    """How many times node's position (board and player to move) occurred before, since the last irreversible move
    (root history included)."""
    s = nodes.slot[t, node]
    clock = slots.halfmove[t, s]
    side = slots.side[t, s]
    count = 0
    cur = node
    dist = 0
    while dist < clock and cur != ROOT_INDEX:
        cur = nodes.parent[t, cur]
        dist += 1
        cs = nodes.slot[t, cur]
        if _same_mover(dist, side, slots.side[t, cs]) and _same_board(slots.board[t, cs], slots.board[t, s]):
            count += 1
    # Beyond the root: history[-1] is one move before the root, history[-2] two, ...
    hl = trees.history_len[t]
    j = 1
    while dist < clock and j <= hl:
        dist += 1
        if _same_mover(dist, side, trees.history_side[t, hl - j]) and _same_board(
            trees.history[t, hl - j], slots.board[t, s]
        ):
            count += 1
        j += 1
    return count


@template(inline="always")
def _materialise(t, node, nodes, slots, trees, tab):
    """Give ``node`` a slot holding its position, played from its parent's (``G.play``); return the slot."""
    ps = nodes.slot[t, nodes.parent[t, node]]
    s = trees.nslots[t]
    trees.nslots[t] += 1
    nodes.slot[t, node] = s
    slots.board[t, s] = slots.board[t, ps]
    side, irreversible, plies = G.play(slots.board[t, s], np.int64(slots.side[t, ps]), nodes.move[t, node], tab)
    slots.side[t, s] = side
    slots.halfmove[t, s] = 0 if irreversible else slots.halfmove[t, ps] + 1
    slots.ply[t, s] = slots.ply[t, ps] + plies
    slots.terminal[t, s] = UNKNOWN
    return s


@template(inline="always")
def _turn_passes(t, node, parent, nodes, slots):
    """Whether the player to move changes from ``parent`` to its child ``node`` (both materialised)."""
    if G.ALTERNATES:
        return True
    return slots.side[t, nodes.slot[t, node]] != slots.side[t, nodes.slot[t, parent]]


@template(inline="always")
def _backup(t, node, value, plies, nodes, slots):
    """Add one visit along the path from ``node`` to the root; ``value`` is from node's player to move, ``plies`` its
    plies to the end (the evaluator's moves-left estimate, 0 at a finished game), to which each node above adds the
    plies down to ``node``. The root's ``value_sum`` is kept from the view of its player's opponent
    (``RootStats.value`` negates it back)."""
    cur = node
    v = value
    m = plies
    while True:
        nodes.visits[t, cur] += 1
        nodes.ml_sum[t, cur] += m
        if cur == ROOT_INDEX:
            nodes.value_sum[t, cur] -= v
            return
        parent = nodes.parent[t, cur]
        if _turn_passes(t, cur, parent, nodes, slots):
            v = -v
        nodes.value_sum[t, cur] += v  # v is now from the view of the player who moved into cur
        m += slots.ply[t, nodes.slot[t, cur]] - slots.ply[t, nodes.slot[t, parent]]
        cur = parent


@template(inline="always")
def _prove(t, node, value, nodes, slots):
    """MCTS-Solver (Winands, Bjornsson & Saito 2008): ``node`` is a finished game worth ``value`` to its player to
    move; mark it proven (a draw proves nothing) and carry the proof up. A proof is from the view of the player who
    moved into the node: a parent one of whose children is proven won for the parent's player has that win, and
    a parent all of whose children are proven lost for the parent's player has that loss; the parent's own proof is
    then the same result for the player who moved into it when the turn passed there, the opposite when that
    player moved again."""
    if value == 0.0:
        return
    won = PROVEN_WIN if value > 0.0 else PROVEN_LOSS  # for node's player to move
    parent = nodes.parent[t, node]
    nodes.proven[t, node] = -won if _turn_passes(t, node, parent, nodes, slots) else won
    cur = node
    while cur != ROOT_INDEX:
        p = nodes.parent[t, cur]
        if nodes.proven[t, p] != UNPROVEN:
            return
        if nodes.proven[t, cur] == PROVEN_WIN:
            result = PROVEN_WIN  # for p's player to move
        else:
            start = nodes.first_child[t, p]
            for i in range(nodes.num_children[t, p]):
                if nodes.proven[t, start + i] != PROVEN_LOSS:
                    return
            result = PROVEN_LOSS
        if p == ROOT_INDEX:
            nodes.proven[t, p] = -result
        else:
            grand = nodes.parent[t, p]
            nodes.proven[t, p] = -result if _turn_passes(t, p, grand, nodes, slots) else result
        cur = p


@template(inline="always")
def _mover_wins(t, node, nodes, slots):
    """Whether ``node``'s player to move has a proven win (a child proven won for it): ``node``'s proof, read from
    the view of the player who moved into it (the root's: of its player's opponent)."""
    if node == ROOT_INDEX or _turn_passes(t, node, nodes.parent[t, node], nodes, slots):
        return nodes.proven[t, node] == PROVEN_LOSS
    return nodes.proven[t, node] == PROVEN_WIN


@template(inline="always")
def leaf_end(t, node, nodes, slots, trees, rules):
    """Whether the position of ``node`` (materialised) is over, by the game's rules (``G.game_end``): returns
    ``(code, legal moves, repetitions)``, the moves written to ``trees.pending_moves[t]``. Repetitions are counted
    only where ``rules.repetitions`` (not in dark chess: the mover cannot see them)."""
    s = nodes.slot[t, node]
    b = slots.board[t, s]
    mover = np.int64(slots.side[t, s])
    k = G.legal_moves_into(b, mover, rules.tab, trees.pending_moves[t])
    count = repetitions(t, node, nodes, slots, trees) if rules.repetitions else 0
    code = G.game_end(b, mover, rules.tab, k, count, slots.halfmove[t, s], slots.ply[t, s], rules.max_plies)
    return code, k, count


@template()
def prove_root_children(active, nodes, slots, trees, rules):
    """MCTS-Solver at the root of each active, expanded tree: materialise every child not yet reached and mark
    the finished games among them proven (``_prove``), so that a mate in one is known before the first
    simulation and every simulation takes it (the root's children are few; deeper ends are found when reached).
    The slots needed (one per root child) must be reserved."""
    for t in range(active.shape[0]):
        start = nodes.first_child[t, ROOT_INDEX]
        if not active[t] or start < 0:
            continue
        for i in range(nodes.num_children[t, ROOT_INDEX]):
            ch = start + i
            s = nodes.slot[t, ch]
            if s < 0:
                s = _materialise(t, ch, nodes, slots, trees, rules.tab)
            if slots.terminal[t, s] == UNKNOWN:
                code, _, _ = leaf_end(t, ch, nodes, slots, trees, rules)
                if code != G.ONGOING:
                    slots.terminal[t, s] = TERMINAL
                    slots.terminal_value[t, s] = G.end_value(code)
            if slots.terminal[t, s] == TERMINAL and nodes.proven[t, ch] == UNPROVEN:
                _prove(t, ch, slots.terminal_value[t, s], nodes, slots)


@template()
def select_leaves(active, roots_only, nodes, slots, trees, leaves, rules, params):
    """Run simulations until each active tree has one leaf waiting for the evaluator (or has finished).

    Writes the leaves' input planes, boards, sides and trees into ``leaves`` and returns their count ``n``.
    Simulations that end on a finished game are backed up at once and count as done. ``roots_only`` expands
    unexpanded roots (that evaluation is not a simulation) and nothing else.
    """
    n = 0
    for t in range(active.shape[0]):
        trees.pending_node[t] = -1
        if not active[t]:
            continue
        while roots_only or trees.sims_done[t] < trees.sims_target[t]:
            if roots_only and nodes.first_child[t, ROOT_INDEX] >= 0:
                break
            node = ROOT_INDEX
            depth = 0
            while nodes.first_child[t, node] >= 0:
                if params.solver and _mover_wins(t, node, nodes, slots):
                    child = _winning_child(t, node, nodes)
                elif depth == 0 and params.use_gumbel:
                    raw = slots.net_value[t, nodes.slot[t, ROOT_INDEX]]
                    child = _gumbel_root_child(t, nodes, params, trees.sims_done, raw)
                else:
                    child = _puct_child(t, node, nodes, params)
                node = child
                depth += 1
            s = nodes.slot[t, node]
            if s < 0:
                s = _materialise(t, node, nodes, slots, trees, rules.tab)
            if slots.terminal[t, s] == TERMINAL:
                _backup(t, node, slots.terminal_value[t, s], 0.0, nodes, slots)
                trees.sims_done[t] += 1
                continue
            code, k, count = leaf_end(t, node, nodes, slots, trees, rules)
            if code != G.ONGOING:
                if depth == 0:
                    raise ValueError("search from a finished game")
                value = G.end_value(code)
                slots.terminal[t, s] = TERMINAL
                slots.terminal_value[t, s] = value
                if params.solver:
                    _prove(t, node, value, nodes, slots)
                _backup(t, node, value, 0.0, nodes, slots)
                trees.sims_done[t] += 1
                continue
            slots.terminal[t, s] = ONGOING
            trees.pending_node[t] = node
            trees.pending_count[t] = k
            b = slots.board[t, s]
            mover = np.int64(slots.side[t, s])
            G.fill_planes(b, mover, rules.tab, count, slots.halfmove[t, s], slots.ply[t, s], rules.max_plies,
                          leaves.planes[n])  # fmt: skip
            leaves.boards[n] = b
            leaves.sides[n] = mover
            leaves.tree[n] = t
            n += 1
            break
    return n


@template()
def expand_leaves(n, logits, values, plies, nodes, slots, trees, leaves, lookup, policy_index):
    """Expand each pending leaf with the evaluator's ``logits[i]`` (flattened policy planes, softmax over the
    legal moves gives the children's priors) and back up ``values[i]`` (from the leaf's player to move) and
    ``plies[i]`` (its moves-left estimate; 0 from an evaluator without one)."""
    parent, move, action, prior = nodes.parent, nodes.move, nodes.action, nodes.prior
    for i in range(n):
        t = leaves.tree[i]
        node = trees.pending_node[t]
        k = trees.pending_count[t]
        s = nodes.slot[t, node]
        colour = 0 if slots.side[t, s] > 0 else 1
        start = trees.nnodes[t]
        trees.nnodes[t] += k
        top = -np.inf
        for j in range(k):
            m = trees.pending_moves[t, j]
            idx = policy_index[lookup[colour, m]]
            ch = start + j
            parent[t, ch] = node
            move[t, ch] = m
            action[t, ch] = idx
            prior[t, ch] = logits[i, idx]
            top = max(top, logits[i, idx])
            nodes.visits[t, ch] = 0
            nodes.value_sum[t, ch] = 0.0
            nodes.ml_sum[t, ch] = 0.0
            nodes.first_child[t, ch] = -1
            nodes.num_children[t, ch] = 0
            nodes.slot[t, ch] = -1
            nodes.proven[t, ch] = UNPROVEN
        total = 0.0
        for j in range(k):
            p = math.exp(prior[t, start + j] - top)
            prior[t, start + j] = p
            total += p
        for j in range(k):
            prior[t, start + j] /= total
        nodes.first_child[t, node] = start
        nodes.num_children[t, node] = k
        slots.net_value[t, s] = values[i]
        _backup(t, node, values[i], plies[i], nodes, slots)
        if node != ROOT_INDEX or nodes.visits[t, ROOT_INDEX] > 1:
            trees.sims_done[t] += 1


@template()
def rollout_values(boards, sides, tab, max_plies, seeds):
    """Value of each position for its player to move after one uniformly random playout (pure MCTS's evaluator).

    The playout stops where the game's move generator finds no move (``G.status`` gives the end: no repetition or
    clock rule is tracked) or after ``max_plies`` moves (``G.cutoff_value``: a draw in chess); its random numbers
    come from a per-position splitmix64 ``seeds[i]``.
    """
    n = boards.shape[0]
    values = np.zeros(n, dtype=np.float32)
    out = np.empty(G.MAX_MOVES, dtype=np.int32)
    for i in range(n):
        b = boards[i].copy()
        s = np.int64(sides[i])
        state = np.uint64(seeds[i])
        for _ in range(max_plies):
            k = G.legal_moves_into(b, s, tab, out)
            if k == 0:
                v = G.end_value(G.status(b, s, tab))
                values[i] = v if s == sides[i] else -v
                break
            state += np.uint64(0x9E3779B97F4A7C15)
            z = state
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            s, _, _ = G.play(b, s, out[np.int64(z % np.uint64(k))], tab)
        else:
            v = G.cutoff_value(b, s, tab)
            if v != 0.0:
                values[i] = v if s == sides[i] else -v
    return values


@cache
def compiled_tree(game: Game) -> SimpleNamespace:
    """The tree's templates compiled against ``game.kernels`` (once per family and process; cached on disk, see
    ``mmc.games.jit.specialise``): a namespace with ``select_leaves``, ``expand_leaves``, ``prove_root_children``,
    ``reroot`` and ``rollout_values``."""
    compiled = specialise(_TEMPLATES, globals(), game.kernels, game.name)
    return SimpleNamespace(reroot=reroot, **compiled)
