"""Compiled search trees: many trees of one variant, stepped together, one leaf per tree per step.

A *forest* is ``T`` trees held in a few bundles of arrays (see :class:`mmc.search.forest.Forest`, which owns
them): :class:`Nodes`, :class:`Slots`, :class:`Trees` and :class:`Leaves`, each field's shape in its
docstring, with the rules (:class:`Rules`) and the search constants (:class:`Params`) beside them. The
kernels take the bundles whole. Nodes are created when their parent is expanded (one per legal move, holding
the edge's prior and statistics); a node's position is *materialised* into a slot (board, player to move, clocks,
terminal status) only when a simulation first reaches it, so the slot arrays stay as small as the number of
simulations.

Values: ``value_sum[n]`` is from the view of the player who moved *into* node ``n`` (the parent's player to move),
so a parent's PUCT reads its children's values directly; ``terminal_value`` and ``net_value`` are from the node's
own player to move. Node ``ROOT_INDEX`` (0) of each tree is its root.

The tree is generic over the game: the functions marked :func:`template` call the rules only through ``G``, a game
family's compiled kernel bundle (``Game.kernels``, the protocol of ``mmc.games.protocol``), and
:func:`compiled_tree` compiles them once per family (``mmc.games.jit.specialise``). The player to move comes from
the game (``G.play`` returns it): a value is negated only where the player changes, repetitions compare positions
with the same player to move, and a proof climbs by the same rule; where ``G.ALTERNATES`` (the turn passes after
every move, as in chess) the compiled tree negates at every level without reading the players.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from mmc.games import Game
from mmc.games.jit import specialise

MAX_HISTORY = 128
ROOT_INDEX = 0
NO_NODE = -1
"""``parent`` of a root, ``first_child`` of an unexpanded node, ``slot`` of a node not materialised."""
# Slot terminal flags.
UNKNOWN, ONGOING, TERMINAL = -1, 0, 1
# Node proofs (MCTS-Solver), from the view of the player who moved into the node.
PROVEN_LOSS, UNPROVEN, PROVEN_WIN = -1, 0, 1
# select_leaves return codes per tree.
IDLE, LEAF, DONE = 0, 1, 2

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


class Nodes(NamedTuple):
    """The trees' nodes, each field ``[T, node_cap]``: node ``ROOT_INDEX`` is a tree's root, and a node's
    children are ``first_child .. first_child + num_children - 1``. Grown by the forest as trees fill."""

    parent: np.ndarray
    """``int32[T, N]``: the parent node; ``NO_NODE`` at the root."""
    move: np.ndarray
    """``int32[T, N]``: the kernel move code of the edge from the parent."""
    action: np.ndarray
    """``int32[T, N]``: that move's index in the flattened policy planes."""
    prior: np.ndarray
    """``float32[T, N]``: the edge's prior (softmax of the evaluator's logits over the siblings, root noise added)."""
    visits: np.ndarray
    """``int32[T, N]``."""
    value_sum: np.ndarray
    """``float32[T, N]``: sum of backed-up values, from the view of the player who moved into the node."""
    first_child: np.ndarray
    """``int32[T, N]``: the first child; ``NO_NODE`` while unexpanded."""
    num_children: np.ndarray
    """``int32[T, N]``."""
    slot: np.ndarray
    """``int32[T, N]``: the slot holding the node's position; ``NO_NODE`` until a simulation reaches it."""
    gumbel: np.ndarray
    """``float32[T, N]``: the Gumbel noise of a root action (Gumbel search)."""
    proven: np.ndarray
    """``int8[T, N]``: MCTS-Solver's proof (``Params.solver``), from the view of the player who moved into the node:
    ``PROVEN_WIN`` (the node's side to move has lost: a finished game, or every move loses), ``PROVEN_LOSS`` (the
    node's side to move has a winning move), ``UNPROVEN`` (0) otherwise; always 0 with the solver off."""


class Slots(NamedTuple):
    """The materialised positions, each field ``[T, slot_cap]`` (``board`` ``[T, slot_cap, BOARD_LEN]``)."""

    board: np.ndarray
    """``int8[T, S, BOARD_LEN]``: the game's position array (``G.BOARD_LEN``)."""
    side: np.ndarray
    """``int8[T, S]``: the player to move, +1 or -1."""
    halfmove: np.ndarray
    """``int16[T, S]``: moves since the last irreversible move (the repetition clock; chess's fifty-move clock)."""
    ply: np.ndarray
    """``int16[T, S]``: plies since the game's start."""
    terminal: np.ndarray
    """``int8[T, S]``: ``UNKNOWN`` until the position is first reached, then ``ONGOING`` or ``TERMINAL``."""
    terminal_value: np.ndarray
    """``float32[T, S]``: a finished game's value for the player to move."""
    net_value: np.ndarray
    """``float32[T, S]``: the evaluator's value for the player to move."""


class Trees(NamedTuple):
    """Per tree bookkeeping, each field ``[T]`` unless its docstring says more."""

    nnodes: np.ndarray
    """``int32[T]``: nodes in use."""
    nslots: np.ndarray
    """``int32[T]``: slots in use."""
    sims_done: np.ndarray
    """``int32[T]``: simulations run this search (visits kept from a reused subtree included)."""
    sims_target: np.ndarray
    """``int32[T]``: simulations wanted this search."""
    pending_node: np.ndarray
    """``int32[T]``: the leaf waiting for the evaluator; -1 if none."""
    pending_count: np.ndarray
    """``int32[T]``: that leaf's legal moves."""
    pending_moves: np.ndarray
    """``int32[T, G.MAX_MOVES]``: those moves' codes."""
    history: np.ndarray
    """``int8[T, MAX_HISTORY, BOARD_LEN]``: boards before the root since its last irreversible move, oldest first."""
    history_side: np.ndarray
    """``int8[T, MAX_HISTORY]``: the player to move in each of them."""
    history_len: np.ndarray
    """``int32[T]``: boards in ``history``."""


class Leaves(NamedTuple):
    """The leaves of one step, row ``i`` for the ``i``-th leaf (``T`` rows, the first ``n`` in use)."""

    planes: np.ndarray
    """``float32[T, num_planes, H, W]``: the leaves' input planes (``Game.num_planes``)."""
    boards: np.ndarray
    """``int8[T, BOARD_LEN]``."""
    sides: np.ndarray
    """``int8[T]``."""
    tree: np.ndarray
    """``int32[T]``: the tree each leaf belongs to."""


class Rules(NamedTuple):
    """The variant the forest searches."""

    tab: np.ndarray
    """The variant's rule table (``Game.table``)."""
    max_plies: int
    """The move cap."""
    repetitions: bool
    """Whether the tree counts repetitions (off in dark chess: the mover cannot see them)."""


class Params(NamedTuple):
    """The search's constants (``mmc.search.SearchConfig``)."""

    c_init: float
    """PUCT ``c_init``."""
    c_base: float
    """PUCT ``c_base``."""
    use_gumbel: bool
    """Gumbel sequential halving at the root instead of PUCT."""
    considered: int
    """Gumbel: actions considered at the root."""
    table: np.ndarray
    """``int32[considered + 1, simulations]``: the sequential-halving visit schedule (``considered_visits_table``)."""
    c_visit: float
    """Gumbel's ``c_visit``."""
    c_scale: float
    """Gumbel's ``c_scale``."""
    solver: bool
    """MCTS-Solver (``SearchConfig.solver``): prove wins and losses from finished games and play the proven win."""


@njit(cache=True)
def _same_board(a, b):
    for i in range(a.shape[0]):  # noqa: SIM110 (a compiled loop that stops at the first difference)
        if a[i] != b[i]:
            return False
    return True


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
    side, irreversible = G.play(slots.board[t, s], np.int64(slots.side[t, ps]), nodes.move[t, node], tab)
    slots.side[t, s] = side
    slots.halfmove[t, s] = 0 if irreversible else slots.halfmove[t, ps] + 1
    slots.ply[t, s] = slots.ply[t, ps] + 1
    slots.terminal[t, s] = UNKNOWN
    return s


@template(inline="always")
def _turn_passes(t, node, parent, nodes, slots):
    """Whether the player to move changes from ``parent`` to its child ``node`` (both materialised)."""
    if G.ALTERNATES:
        return True
    return slots.side[t, nodes.slot[t, node]] != slots.side[t, nodes.slot[t, parent]]


@template(inline="always")
def _backup(t, node, value, nodes, slots):
    """Add one visit along the path from ``node`` to the root; ``value`` is from node's player to move. The root's
    ``value_sum`` is kept from the view of its player's opponent (``RootStats.value`` negates it back)."""
    cur = node
    v = value
    while True:
        nodes.visits[t, cur] += 1
        if cur == ROOT_INDEX:
            nodes.value_sum[t, cur] -= v
            return
        parent = nodes.parent[t, cur]
        if _turn_passes(t, cur, parent, nodes, slots):
            v = -v
        nodes.value_sum[t, cur] += v  # v is now from the view of the player who moved into cur
        cur = parent


@njit(cache=True, inline="always")
def _puct_child(t, node, nodes, c_init, c_base):
    """AlphaZero's PUCT (Silver et al. 2018, pseudocode ``ucb_score``); unvisited children take the parent's Q."""
    visits, value_sum, prior = nodes.visits, nodes.value_sum, nodes.prior
    n_parent = visits[t, node]
    c = math.log((1.0 + n_parent + c_base) / c_base) + c_init
    scale = c * math.sqrt(n_parent)
    fpu = -value_sum[t, node] / n_parent if n_parent > 0 else 0.0
    best = -1
    best_score = -np.inf
    start = nodes.first_child[t, node]
    for i in range(nodes.num_children[t, node]):
        ch = start + i
        n = visits[t, ch]
        q = value_sum[t, ch] / n if n > 0 else fpu
        score = q + scale * prior[t, ch] / (1.0 + n)
        if score > best_score:
            best_score = score
            best = ch
    return best


@njit(cache=True)
def completed_q(visits, q, prior, raw_value):
    """Gumbel MuZero's completed Q of a node's children, min-max rescaled to [0, 1] (mctx
    ``qtransform_completed_by_mix_value``): unvisited children take the mixed value
    ``(raw_value + sum N * sum_visited(prior * q) / sum_visited(prior)) / (1 + sum N)``."""
    k = visits.shape[0]
    total = 0.0
    weight = 0.0
    weighted = 0.0
    for i in range(k):
        if visits[i] > 0:
            total += visits[i]
            p = max(prior[i], 1e-30)
            weight += p
            weighted += p * q[i]
    mixed = raw_value
    if total > 0:
        mixed = (raw_value + total * weighted / weight) / (1.0 + total)
    out = np.empty(k, dtype=np.float64)
    for i in range(k):
        out[i] = q[i] if visits[i] > 0 else mixed
    low = out.min()
    span = max(out.max() - low, 1e-8)
    for i in range(k):
        out[i] = (out[i] - low) / span
    return out


@njit(cache=True, inline="always")
def _gumbel_root_child(t, nodes, params, sims_done, raw_value):
    """Sequential halving at the root (Danihelka et al. 2022, as in mctx ``gumbel_muzero_policy``): among the
    children whose visit count equals the schedule's next value, the one maximising g + logit + sigma(q)."""
    value_sum, prior, gumbel = nodes.value_sum, nodes.prior, nodes.gumbel
    start = nodes.first_child[t, ROOT_INDEX]
    k = nodes.num_children[t, ROOT_INDEX]
    m = min(params.considered, k)
    target = params.table[m, sims_done[t]]
    n = nodes.visits[t, start : start + k]
    q = np.zeros(k, dtype=np.float64)
    for i in range(k):
        if n[i] > 0:
            q[i] = value_sum[t, start + i] / n[i]
    qhat = completed_q(n, q, prior[t, start : start + k], raw_value)
    scale = (params.c_visit + n.max()) * params.c_scale
    best = -1
    best_score = -np.inf
    for i in range(k):
        if n[i] != target:
            continue
        ch = start + i
        score = gumbel[t, ch] + math.log(max(prior[t, ch], 1e-30)) + scale * qhat[i]
        if score > best_score:
            best_score = score
            best = ch
    return best


@njit(cache=True, inline="always")
def _winning_child(t, node, nodes):
    """The first child of ``node`` proven won for ``node``'s side to move; -1 if none."""
    start = nodes.first_child[t, node]
    for i in range(nodes.num_children[t, node]):
        if nodes.proven[t, start + i] == PROVEN_WIN:
            return start + i
    return -1


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
                    child = _puct_child(t, node, nodes, params.c_init, params.c_base)
                node = child
                depth += 1
            s = nodes.slot[t, node]
            if s < 0:
                s = _materialise(t, node, nodes, slots, trees, rules.tab)
            if slots.terminal[t, s] == TERMINAL:
                _backup(t, node, slots.terminal_value[t, s], nodes, slots)
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
                _backup(t, node, value, nodes, slots)
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
def expand_leaves(n, logits, values, nodes, slots, trees, leaves, lookup, policy_index):
    """Expand each pending leaf with the evaluator's ``logits[i]`` (flattened policy planes, softmax over the
    legal moves gives the children's priors) and back up ``values[i]`` (from the leaf's player to move)."""
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
        _backup(t, node, values[i], nodes, slots)
        if node != ROOT_INDEX or nodes.visits[t, ROOT_INDEX] > 1:
            trees.sims_done[t] += 1


@njit(cache=True)
def reroot(t, new_root, nodes, slots, trees):
    """Make ``new_root`` (a child of the root, materialised) the root of tree ``t``, keeping its subtree and dropping
    the rest.

    Nodes are copied breadth-first into fresh positions (children stay contiguous); slots are renumbered. A root's
    value sum and proof are kept from the view of its player's opponent: where the same player moves again at
    ``new_root``, both are turned round.
    """
    same_player = slots.side[t, nodes.slot[t, new_root]] == slots.side[t, nodes.slot[t, ROOT_INDEX]]
    parent, move, action, prior, visits = nodes.parent, nodes.move, nodes.action, nodes.prior, nodes.visits
    value_sum, first_child, num_children, slot, gumbel = (
        nodes.value_sum, nodes.first_child, nodes.num_children, nodes.slot, nodes.gumbel,
    )  # fmt: skip
    nnodes, nslots = trees.nnodes, trees.nslots
    old_n = nnodes[t]
    new_index = np.full(old_n, -1, dtype=np.int32)
    order = np.empty(old_n, dtype=np.int32)
    order[0] = new_root
    new_index[new_root] = 0
    count = 1
    head = 0
    while head < count:
        node = order[head]
        head += 1
        start = first_child[t, node]
        for j in range(num_children[t, node]):
            new_index[start + j] = count
            order[count] = start + j
            count += 1
    # Copy out, then back: node fields.
    fields_i = np.empty((7, count), dtype=np.int32)
    fields_f = np.empty((4, count), dtype=np.float32)
    slot_map = np.full(nslots[t], -1, dtype=np.int32)
    new_slots = 0
    for i in range(count):
        old = order[i]
        fields_i[0, i] = new_index[parent[t, old]] if i > 0 else -1
        fields_i[1, i] = move[t, old]
        fields_i[2, i] = action[t, old]
        fields_i[3, i] = visits[t, old]
        fc = first_child[t, old]
        fields_i[4, i] = new_index[fc] if fc >= 0 else -1
        fields_i[5, i] = num_children[t, old]
        fields_i[6, i] = nodes.proven[t, old]
        fields_f[0, i] = prior[t, old]
        fields_f[1, i] = value_sum[t, old]
        fields_f[2, i] = gumbel[t, old]
        s = slot[t, old]
        if s >= 0:
            slot_map[s] = 0
    for i in range(count):
        parent[t, i] = fields_i[0, i]
        move[t, i] = fields_i[1, i]
        action[t, i] = fields_i[2, i]
        visits[t, i] = fields_i[3, i]
        first_child[t, i] = fields_i[4, i]
        num_children[t, i] = fields_i[5, i]
        nodes.proven[t, i] = fields_i[6, i]
        prior[t, i] = fields_f[0, i]
        value_sum[t, i] = fields_f[1, i]
        gumbel[t, i] = fields_f[2, i]
    # Slots kept are renumbered in their old order, so that new <= old and an in-place copy is safe.
    for old_s in range(nslots[t]):
        if slot_map[old_s] == 0:
            slot_map[old_s] = new_slots
            new_slots += 1
    for old_s in range(nslots[t]):
        ns = slot_map[old_s]
        if ns < 0:
            continue
        slots.board[t, ns] = slots.board[t, old_s]
        slots.side[t, ns] = slots.side[t, old_s]
        slots.halfmove[t, ns] = slots.halfmove[t, old_s]
        slots.ply[t, ns] = slots.ply[t, old_s]
        slots.terminal[t, ns] = slots.terminal[t, old_s]
        slots.terminal_value[t, ns] = slots.terminal_value[t, old_s]
        slots.net_value[t, ns] = slots.net_value[t, old_s]
    for i in range(count):
        s = slot[t, order[i]]
        fields_i[0, i] = slot_map[s] if s >= 0 else -1
    for i in range(count):
        slot[t, i] = fields_i[0, i]
    if same_player:
        value_sum[t, ROOT_INDEX] = -value_sum[t, ROOT_INDEX]
        nodes.proven[t, ROOT_INDEX] = -nodes.proven[t, ROOT_INDEX]
    nnodes[t] = count
    nslots[t] = new_slots


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
            s, _ = G.play(b, s, out[np.int64(z % np.uint64(k))], tab)
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
