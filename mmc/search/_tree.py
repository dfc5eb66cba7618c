"""Compiled search trees: many trees of one variant, stepped together, one leaf per tree per step.

A *forest* is a set of plain arrays, ``T`` trees wide (see :class:`mmc.search.forest.Forest`, which owns
them). Nodes are created when their parent is expanded (one per legal move, holding the edge's prior and
statistics); a node's position is *materialised* into a slot (board, side, clocks, terminal status) only
when a simulation first reaches it, so the board table stays as small as the number of simulations::

    node arrays [T, node_cap]     parent move action prior visits value_sum first_child num_children slot gumbel
    slot arrays [T, slot_cap]     board[64] side halfmove ply terminal terminal_value net_value
    per tree    [T]               nnodes nslots sims_done sims_target pending_node pending_count
                                  history[T, 128, 64] (boards since the root's last irreversible move)

Values: ``value_sum[n]`` is from the view of the player who moved *into* node ``n`` (the parent's side to
move), so a parent's PUCT reads its children's values directly; ``terminal_value`` and ``net_value`` are
from the node's own side to move. Node 0 of each tree is its root.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mmc.engine import _kernels as K
from mmc.engine.observe import _fill_board_planes

MAX_HISTORY = 128
# Slot terminal flags.
UNKNOWN, ONGOING, TERMINAL = -1, 0, 1
# select_leaves return codes per tree.
IDLE, LEAF, DONE = 0, 1, 2


@njit(cache=True)
def _same_board(a, b):
    for i in range(64):  # noqa: SIM110 (a compiled loop that stops at the first difference)
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def repetitions(t, node, parent, slot, board, halfmove, history, history_len):
    """How many times node's position occurred before, since the last irreversible move (root history included)."""
    s = slot[t, node]
    clock = halfmove[t, s]
    count = 0
    cur = node
    dist = 0
    while dist < clock and cur != 0:
        cur = parent[t, cur]
        dist += 1
        if dist % 2 == 0 and _same_board(board[t, slot[t, cur]], board[t, s]):
            count += 1
    # Beyond the root: history[-1] is one ply before the root, history[-2] two, ...
    hl = history_len[t]
    j = 1
    while dist < clock and j <= hl:
        dist += 1
        if dist % 2 == 0 and _same_board(history[t, hl - j], board[t, s]):
            count += 1
        j += 1
    return count


@njit(cache=True)
def _insufficient(b, tab):
    """K v K or K + one knight or bishop v K (the engine's ``_insufficient``)."""
    pieces = 0
    minors = 0
    for i in range(tab[K.H_NSQ]):
        p = abs(b[tab[K.SQ_OFF + i]])
        if p == 0:
            continue
        pieces += 1
        if pieces > 3:
            return False
        if p == K.KNIGHT or p == K.BISHOP:
            minors += 1
        elif p != K.KING:
            return False
    return pieces == 2 or (pieces == 3 and minors == 1)


@njit(cache=True)
def _no_moves_value(b, side, tab):
    """The finished game's value for the side to move when it has no legal move (status codes of the kernels)."""
    code = K.status(b, side, tab)
    if code == K.OPPONENT_EXTINCT:
        return 1.0
    if code == K.STALEMATE:
        return 0.0
    return -1.0


@njit(cache=True)
def _materialise(t, node, parent, move, slot, board, side, halfmove, ply, terminal, nslots, tab):
    """Give ``node`` a slot holding its position, played from its parent's; return the slot."""
    ps = slot[t, parent[t, node]]
    s = nslots[t]
    nslots[t] += 1
    slot[t, node] = s
    m = move[t, node]
    frm, to = m & 63, (m >> 6) & 63
    pb = board[t, ps]
    irreversible = pb[to] != 0 or pb[frm] == K.PAWN or pb[frm] == -K.PAWN
    board[t, s] = pb
    K.play_inplace(board[t, s], m, tab)
    side[t, s] = -side[t, ps]
    halfmove[t, s] = 0 if irreversible else halfmove[t, ps] + 1
    ply[t, s] = ply[t, ps] + 1
    terminal[t, s] = UNKNOWN
    return s


@njit(cache=True)
def _backup(t, node, value, parent, visits, value_sum):
    """Add one visit along the path from ``node`` to the root; ``value`` is from node's side to move."""
    cur = node
    v = value
    while True:
        visits[t, cur] += 1
        value_sum[t, cur] -= v  # the player who moved into cur sees the negation
        if cur == 0:
            return
        cur = parent[t, cur]
        v = -v


@njit(cache=True)
def _puct_child(t, node, visits, value_sum, prior, first_child, num_children, c_init, c_base):
    """AlphaZero's PUCT (Silver et al. 2018, pseudocode ``ucb_score``); unvisited children take the parent's Q."""
    n_parent = visits[t, node]
    c = math.log((1.0 + n_parent + c_base) / c_base) + c_init
    scale = c * math.sqrt(n_parent)
    fpu = -value_sum[t, node] / n_parent if n_parent > 0 else 0.0
    best = -1
    best_score = -np.inf
    start = first_child[t, node]
    for i in range(num_children[t, node]):
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


@njit(cache=True)
def _gumbel_root_child(t, visits, value_sum, prior, gumbel, first_child, num_children, considered, table, sims_done,
                       raw_value, c_visit, c_scale):  # fmt: skip
    """Sequential halving at the root (Danihelka et al. 2022, as in mctx ``gumbel_muzero_policy``): among the
    children whose visit count equals the schedule's next value, the one maximising g + logit + sigma(q)."""
    start = first_child[t, 0]
    k = num_children[t, 0]
    m = min(considered, k)
    target = table[m, sims_done[t]]
    n = visits[t, start : start + k]
    q = np.zeros(k, dtype=np.float64)
    for i in range(k):
        if n[i] > 0:
            q[i] = value_sum[t, start + i] / n[i]
    qhat = completed_q(n, q, prior[t, start : start + k], raw_value)
    scale = (c_visit + n.max()) * c_scale
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


@njit(cache=True)
def _write_planes(row, t, s, count, board, side, halfmove, ply, max_plies, hidden, tab, planes):
    """The side to move's input planes of slot ``s`` (``mmc.engine.observation_planes``) into ``planes[row]``."""
    out = planes[row]
    out[:] = 0.0
    b = board[t, s]
    mover = np.int64(side[t, s])
    seen = K.visible_squares(b, mover, tab) if hidden else np.ones(64, dtype=np.bool_)
    _fill_board_planes(b, mover, tab[K.H_HEIGHT], tab[K.H_WIDTH], seen, out)
    if not hidden:
        out[12] = 1.0 if count >= 1 else 0.0
        out[13] = 1.0 if count >= 2 else 0.0
    out[14] = halfmove[t, s] / 100.0
    out[15] = ply[t, s] / max_plies
    out[16] = 1.0 if mover > 0 else 0.0


@njit(cache=True)
def select_leaves(
    active, roots_only, parent, move, prior, visits, value_sum, first_child, num_children, slot, gumbel,
    board, side, halfmove, ply, terminal, terminal_value, net_value, nslots, sims_done, sims_target,
    pending_node, pending_count, pending_moves, history, history_len,
    tab, max_plies, hidden, insufficient_rule, c_init, c_base, use_gumbel, considered, table, c_visit, c_scale,
    planes, leaf_boards, leaf_sides, leaf_tree,
):  # fmt: skip
    """Run simulations until each active tree has one leaf waiting for the evaluator (or has finished).

    Writes the leaves' input planes ``planes[n]``, boards and sides, and returns ``n``. Simulations that end
    on a finished game are backed up at once and count as done. ``roots_only`` expands unexpanded roots
    (that evaluation is not a simulation) and nothing else.
    """
    n = 0
    for t in range(active.shape[0]):
        pending_node[t] = -1
        if not active[t]:
            continue
        while roots_only or sims_done[t] < sims_target[t]:
            if roots_only and first_child[t, 0] >= 0:
                break
            node = 0
            depth = 0
            while first_child[t, node] >= 0:
                if depth == 0 and use_gumbel:
                    raw = net_value[t, slot[t, 0]]
                    child = _gumbel_root_child(t, visits, value_sum, prior, gumbel, first_child, num_children,
                                               considered, table, sims_done, raw, c_visit, c_scale)  # fmt: skip
                else:
                    child = _puct_child(t, node, visits, value_sum, prior, first_child, num_children, c_init, c_base)
                node = child
                depth += 1
            s = slot[t, node]
            if s < 0:
                s = _materialise(t, node, parent, move, slot, board, side, halfmove, ply, terminal, nslots, tab)
            if terminal[t, s] == TERMINAL:
                _backup(t, node, terminal_value[t, s], parent, visits, value_sum)
                sims_done[t] += 1
                continue
            b = board[t, s]
            mover = np.int64(side[t, s])
            k = K.legal_moves_into(b, mover, tab, pending_moves[t])
            count = 0 if hidden else repetitions(t, node, parent, slot, board, halfmove, history, history_len)
            value = 0.0
            over = True
            if k == 0:
                value = _no_moves_value(b, mover, tab)
            elif not (insufficient_rule and _insufficient(b, tab)) and count < 2 and halfmove[t, s] < 100:
                over = ply[t, s] >= max_plies
            if over:
                if depth == 0:
                    raise ValueError("search from a finished game")
                terminal[t, s] = TERMINAL
                terminal_value[t, s] = value
                _backup(t, node, value, parent, visits, value_sum)
                sims_done[t] += 1
                continue
            terminal[t, s] = ONGOING
            pending_node[t] = node
            pending_count[t] = k
            _write_planes(n, t, s, count, board, side, halfmove, ply, max_plies, hidden, tab, planes)
            leaf_boards[n] = b
            leaf_sides[n] = mover
            leaf_tree[n] = t
            n += 1
            break
    return n


@njit(cache=True)
def expand_leaves(
    n, leaf_tree, logits, values, parent, move, action, prior, visits, value_sum, first_child, num_children,
    slot, side, net_value, nnodes, sims_done, pending_node, pending_count, pending_moves, lookup, policy_index,
):  # fmt: skip
    """Expand each pending leaf with the evaluator's ``logits[i]`` (flattened policy planes, softmax over the
    legal moves gives the children's priors) and back up ``values[i]`` (from the leaf's side to move)."""
    for i in range(n):
        t = leaf_tree[i]
        node = pending_node[t]
        k = pending_count[t]
        s = slot[t, node]
        colour = 0 if side[t, s] > 0 else 1
        start = nnodes[t]
        nnodes[t] += k
        top = -np.inf
        for j in range(k):
            m = pending_moves[t, j]
            idx = policy_index[lookup[colour, m]]
            ch = start + j
            parent[t, ch] = node
            move[t, ch] = m
            action[t, ch] = idx
            prior[t, ch] = logits[i, idx]
            top = max(top, logits[i, idx])
            visits[t, ch] = 0
            value_sum[t, ch] = 0.0
            first_child[t, ch] = -1
            num_children[t, ch] = 0
            slot[t, ch] = -1
        total = 0.0
        for j in range(k):
            p = math.exp(prior[t, start + j] - top)
            prior[t, start + j] = p
            total += p
        for j in range(k):
            prior[t, start + j] /= total
        first_child[t, node] = start
        num_children[t, node] = k
        net_value[t, s] = values[i]
        _backup(t, node, values[i], parent, visits, value_sum)
        if node != 0 or visits[t, 0] > 1:
            sims_done[t] += 1


@njit(cache=True)
def reroot(t, new_root, parent, move, action, prior, visits, value_sum, first_child, num_children, slot, gumbel,
           board, side, halfmove, ply, terminal, terminal_value, net_value, nnodes, nslots):  # fmt: skip
    """Make ``new_root`` (a child of the root) the root of tree ``t``, keeping its subtree and dropping the rest.

    Nodes are copied breadth-first into fresh positions (children stay contiguous); slots are renumbered.
    """
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
    fields_i = np.empty((6, count), dtype=np.int32)
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
        board[t, ns] = board[t, old_s]
        side[t, ns] = side[t, old_s]
        halfmove[t, ns] = halfmove[t, old_s]
        ply[t, ns] = ply[t, old_s]
        terminal[t, ns] = terminal[t, old_s]
        terminal_value[t, ns] = terminal_value[t, old_s]
        net_value[t, ns] = net_value[t, old_s]
    for i in range(count):
        s = slot[t, order[i]]
        fields_i[0, i] = slot_map[s] if s >= 0 else -1
    for i in range(count):
        slot[t, i] = fields_i[0, i]
    nnodes[t] = count
    nslots[t] = new_slots


@njit(cache=True)
def rollout_values(boards, sides, tab, max_plies, seeds):
    """Value of each position for its side to move after one uniformly random playout (pure MCTS's evaluator).

    The playout stops at a game end found by the move generator (no repetition or fifty-move tracking) or
    after ``max_plies`` plies (a draw); its random numbers come from a per-position splitmix64 ``seeds[i]``.
    """
    n = boards.shape[0]
    values = np.zeros(n, dtype=np.float32)
    out = np.empty(K.MAX_MOVES, dtype=np.int32)
    for i in range(n):
        b = boards[i].copy()
        s = np.int64(sides[i])
        state = np.uint64(seeds[i])
        for _ in range(max_plies):
            k = K.legal_moves_into(b, s, tab, out)
            if k == 0:
                v = _no_moves_value(b, s, tab)
                values[i] = v if s == sides[i] else -v
                break
            state += np.uint64(0x9E3779B97F4A7C15)
            z = state
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            K.play_inplace(b, out[np.int64(z % np.uint64(k))], tab)
            s = -s
    return values
