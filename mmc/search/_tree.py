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
own player to move. Node ``ROOT_INDEX`` (0) of each tree is its root, whose ``value_sum`` and proof are from the
view of its player's opponent.

This module holds the bundles and the kernels that never read the rules (PUCT, Gumbel's root selection and
completed Q, rerooting); the simulation steps that do, through a game family's kernels, are the templates of
``mmc.search._simulate``, compiled once per family.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

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
    ml_sum: np.ndarray
    """``float32[T, N]``: sum of backed-up plies to the game's end from the node's position (the evaluator's
    moves-left estimate at each leaf below, 0 at a finished game, plus the plies down to it):
    ``SearchConfig.moves_left_slope``."""


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
    ml_slope: float
    """``SearchConfig.moves_left_slope`` (0: no moves-left utility)."""
    ml_cap: float
    """``SearchConfig.moves_left_cap``."""
    ml_threshold: float
    """``SearchConfig.moves_left_threshold``."""


@njit(cache=True)
def _same_board(a, b):
    for i in range(a.shape[0]):  # noqa: SIM110 (a compiled loop that stops at the first difference)
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True, inline="always")
def _moves_left_utility(q, m_child, m_node, params):
    """Lc0's moves-left utility of a child (``SearchConfig.moves_left_slope``): ``q`` its mean value for the node's
    mover, ``m_child`` and ``m_node`` the mean plies to the end of the child and of the node."""
    size = abs(q)
    if size <= params.ml_threshold:
        return 0.0
    effect = min(max(params.ml_slope * (m_child - m_node), -params.ml_cap), params.ml_cap)
    scaled = effect * (size - params.ml_threshold) / (1.0 - params.ml_threshold)
    return -scaled if q > 0 else scaled


@njit(cache=True, inline="always")
def _puct_child(t, node, nodes, params):
    """AlphaZero's PUCT (Silver et al. 2018, pseudocode ``ucb_score``); unvisited children take the parent's Q.
    With ``params.ml_slope`` > 0 a visited child's Q gains the moves-left utility (:func:`_moves_left_utility`)."""
    visits, value_sum, prior = nodes.visits, nodes.value_sum, nodes.prior
    c_init, c_base = params.c_init, params.c_base
    n_parent = visits[t, node]
    c = math.log((1.0 + n_parent + c_base) / c_base) + c_init
    scale = c * math.sqrt(n_parent)
    fpu = -value_sum[t, node] / n_parent if n_parent > 0 else 0.0
    moves_left = params.ml_slope > 0.0 and n_parent > 0
    m_node = nodes.ml_sum[t, node] / n_parent if moves_left else 0.0
    best = -1
    best_score = -np.inf
    start = nodes.first_child[t, node]
    for i in range(nodes.num_children[t, node]):
        ch = start + i
        n = visits[t, ch]
        q = value_sum[t, ch] / n if n > 0 else fpu
        if moves_left and n > 0:
            q += _moves_left_utility(q, nodes.ml_sum[t, ch] / n, m_node, params)
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
        fields_f[3, i] = nodes.ml_sum[t, old]
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
        nodes.ml_sum[t, i] = fields_f[3, i]
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
