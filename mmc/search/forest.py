"""A forest: many search trees of one variant, searched together with one evaluator call per step.

Each step selects one leaf in every tree that still has simulations to run (PUCT below the root; PUCT or
Gumbel sequential halving at the root), evaluates all leaves in one batch, then expands and backs up. The
trees live in compiled arrays (``mmc.search._tree``, compiled against the variant's game family); this class owns
them, grows them and reads results. It reaches the game only through its :class:`mmc.games.Game`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from mmc.games import get_game
from mmc.search import _simulate, _tree
from mmc.search._tree import Leaves, Nodes, Params, Rules, Slots, Trees
from mmc.search.config import SearchConfig
from mmc.search.evaluators import LeafBatch, LeafEvaluator

__all__ = ["Forest", "RootStats", "considered_visits_table"]

_NODE_FIELDS = {
    "parent": np.int32, "move": np.int32, "action": np.int32, "prior": np.float32, "visits": np.int32,
    "value_sum": np.float32, "first_child": np.int32, "num_children": np.int32, "slot": np.int32,
    "gumbel": np.float32, "proven": np.int8, "ml_sum": np.float32,
}  # fmt: skip
_SLOT_FIELDS = {
    "side": np.int8, "halfmove": np.int16, "ply": np.int16, "terminal": np.int8, "terminal_value": np.float32,
    "net_value": np.float32,
}  # fmt: skip


class RootStats(NamedTuple):
    """A root's children after search, in ``legal_moves`` order."""

    moves: tuple[Any, ...]
    visit_counts: np.ndarray
    """``int32[k]``."""
    prior: np.ndarray
    """``float32[k]``: the evaluator's prior (with root noise, if any was added)."""
    q_values: np.ndarray
    """``float32[k]``: mean value of each child from the root mover's view; 0 where unvisited."""
    gumbel: np.ndarray
    """``float32[k]``: the Gumbel noise drawn for each root action (0 unless Gumbel search)."""
    value: float
    """Mean value of the root from its mover's view over all its visits."""
    network_value: float
    """The evaluator's value of the root position."""
    proven: np.ndarray | None = None
    """``int8[k]``: MCTS-Solver's proof of each move for the root mover (``SearchConfig.solver``): +1 a proven win,
    -1 a proven loss, 0 unproven; None where not kept (dark chess merges determinizations)."""


def considered_visits_table(max_considered: int, simulations: int) -> np.ndarray:
    """``int32[max_considered + 1, simulations]``: for ``m`` considered actions, the visit count the next
    simulation's root action must have under sequential halving (mctx ``get_table_of_considered_visits``)."""
    table_ = np.zeros((max_considered + 1, simulations), dtype=np.int32)
    for m in range(max_considered + 1):
        if m <= 1:
            table_[m] = np.arange(simulations)
            continue
        log2max = int(np.ceil(np.log2(m)))
        sequence: list[int] = []
        visits = [0] * m
        considered = m
        while len(sequence) < simulations:
            extra = max(1, int(simulations / (log2max * considered)))
            for _ in range(extra):
                sequence.extend(visits[:considered])
                for i in range(considered):
                    visits[i] += 1
            considered = max(2, considered // 2)
        table_[m] = sequence[:simulations]
    return table_


class Forest:
    """``num_trees`` search trees for positions of ``variant`` (of any game family) with move cap ``max_plies``.

    The arrays are bundled as ``mmc.search._tree`` defines them: :attr:`nodes` (:class:`~mmc.search._tree.Nodes`),
    :attr:`slots` (:class:`~mmc.search._tree.Slots`), :attr:`trees` (:class:`~mmc.search._tree.Trees`) and
    :attr:`leaves` (:class:`~mmc.search._tree.Leaves`); growing a bundle replaces it.
    """

    def __init__(self, variant: str, num_trees: int, config: SearchConfig, max_plies: int) -> None:
        self.game = game = get_game(variant)
        v = game.variants[variant]
        self.variant, self.config, self.max_plies, self.num_trees = v.name, config, max_plies, num_trees
        self.rules = Rules(game.table(v.name), max_plies, not v.hidden_information)
        self.tree = _simulate.compiled_tree(game)
        space = game.action_space(v.name)
        self.lookup, self.policy_index = space.lookup, space.policy_index
        board_len, max_moves = game.kernels.BOARD_LEN, game.kernels.MAX_MOVES
        t = num_trees
        node_cap = max(64, 8 * config.simulations)
        slot_cap = config.simulations + 2
        self.nodes = Nodes(**{name: np.zeros((t, node_cap), dtype=dt) for name, dt in _NODE_FIELDS.items()})
        self.slots = Slots(
            board=np.zeros((t, slot_cap, board_len), dtype=np.int8),
            **{name: np.zeros((t, slot_cap), dtype=dt) for name, dt in _SLOT_FIELDS.items()},
        )
        self.trees = Trees(
            nnodes=np.zeros(t, dtype=np.int32),
            nslots=np.zeros(t, dtype=np.int32),
            sims_done=np.zeros(t, dtype=np.int32),
            sims_target=np.zeros(t, dtype=np.int32),
            pending_node=np.full(t, -1, dtype=np.int32),
            pending_count=np.zeros(t, dtype=np.int32),
            pending_moves=np.zeros((t, max_moves), dtype=np.int32),
            history=np.zeros((t, _tree.MAX_HISTORY, board_len), dtype=np.int8),
            history_side=np.zeros((t, _tree.MAX_HISTORY), dtype=np.int8),
            history_len=np.zeros(t, dtype=np.int32),
        )
        self.leaves = Leaves(
            planes=np.zeros((t, game.num_planes, v.height, v.width), dtype=np.float32),
            boards=np.zeros((t, board_len), dtype=np.int8),
            sides=np.zeros(t, dtype=np.int8),
            tree=np.zeros(t, dtype=np.int32),
        )
        c = config
        self.params = Params(
            c.c_puct, c.c_puct_base, c.gumbel, c.gumbel_considered,
            considered_visits_table(c.gumbel_considered, c.simulations), c.gumbel_c_visit, c.gumbel_c_scale,
            c.solver, c.moves_left_slope, c.moves_left_cap, c.moves_left_threshold,
        )  # fmt: skip
        self._no_plies = np.zeros(t, dtype=np.float32)

    # -- roots ---------------------------------------------------------------------------------------------
    def set_root(self, t: int, state: Any) -> None:
        """Start tree ``t`` afresh at ``state`` (its history since the last irreversible move included)."""
        if state.variant_name != self.variant or state.max_plies != self.max_plies:
            raise ValueError(f"forest for {self.variant} (cap {self.max_plies}) got a {state!r}")
        root = self.game.kernel_state(state)
        self._set_history(t, root.history)
        self.set_root_board(t, root.board, root.side, root.clock, root.ply, keep_history=True)

    def _set_history(self, t: int, history: Sequence[tuple[bytes, int]]) -> None:
        history = history[-_tree.MAX_HISTORY :]
        for i, (past, side) in enumerate(history):
            self.trees.history[t, i] = np.frombuffer(past, dtype=np.int8)
            self.trees.history_side[t, i] = side
        self.trees.history_len[t] = len(history)

    def set_root_board(self, t: int, board: np.ndarray, side: int, halfmove: int, ply: int, *,
                       keep_history: bool = False) -> None:  # fmt: skip
        """Start tree ``t`` afresh at a raw ``int8[BOARD_LEN]`` position (a determinization of a hidden-information
        state: no history) with player ``side`` to move, ``halfmove`` moves since the last irreversible one."""
        trees = self.trees
        if not keep_history:
            trees.history_len[t] = 0
        n, s = self.nodes, self.slots
        root = _tree.ROOT_INDEX
        for field in (n.parent, n.first_child, n.slot):
            field[t, root] = _tree.NO_NODE
        n.slot[t, root] = 0
        n.visits[t, root] = 0
        n.value_sum[t, root] = 0.0
        n.ml_sum[t, root] = 0.0
        n.num_children[t, root] = 0
        n.proven[t, root] = _tree.UNPROVEN
        s.board[t, 0] = board
        s.side[t, 0], s.halfmove[t, 0], s.ply[t, 0] = side, halfmove, ply
        s.terminal[t, 0] = _tree.UNKNOWN
        trees.nnodes[t], trees.nslots[t], trees.sims_done[t] = 1, 1, 0

    def advance(self, t: int, move: Any, child_state: Any) -> None:
        """Play ``move`` at tree ``t``'s root: keep the child's subtree, its statistics included, if
        ``config.reuse_tree`` and not ``config.gumbel`` (and the child was expanded), else start afresh at
        ``child_state``. The next :meth:`search` counts the kept visits and runs only the missing simulations."""
        n = self.nodes
        root = _tree.ROOT_INDEX
        start, k = n.first_child[t, root], n.num_children[t, root]
        child = -1
        if self.config.reuse_tree and not self.config.gumbel and start >= 0:
            codes = n.move[t, start : start + k]
            hits = np.flatnonzero(codes == self.game.code_of(move))
            child = start + int(hits[0]) if len(hits) else -1
        if child < 0 or n.first_child[t, child] < 0:
            self.set_root(t, child_state)
            return
        self.tree.reroot(t, child, n, self.slots, self.trees)
        self._set_history(t, self.game.kernel_state(child_state).history)

    # -- search --------------------------------------------------------------------------------------------
    def search(
        self, trees: np.ndarray, evaluator: LeafEvaluator, rng: np.random.Generator | Mapping[int, np.random.Generator],
        *, add_noise: bool | np.ndarray, simulations: int | np.ndarray | None = None,
    ) -> None:  # fmt: skip
        """Run simulations in ``trees`` until each root's children hold ``simulations`` visits in total
        (``config.simulations`` by default, or one count per tree of ``trees``; visits kept from a reused
        subtree count). Root noise (``add_noise``: for all trees, or a ``bool`` per tree of ``trees``) comes from
        ``rng``, or from ``rng[t]`` for tree ``t`` when a mapping of generators by tree is given."""
        sims = self.config.simulations if simulations is None else simulations
        active = np.zeros(self.num_trees, dtype=np.bool_)
        active[trees] = True
        bookkeeping = self.trees
        bookkeeping.sims_target[trees] = sims
        bookkeeping.sims_done[trees] = np.maximum(self.nodes.visits[trees, _tree.ROOT_INDEX] - 1, 0)
        extra = self.game.kernels.MAX_MOVES if self.config.solver else 0  # the solver materialises every root child
        self._reserve_slots(int((bookkeeping.nslots[trees] + np.max(sims) + 2 + extra).max()))
        self._step(active, evaluator, roots_only=True)
        if self.config.solver:
            self.tree.prove_root_children(active, self.nodes, self.slots, bookkeeping, self.rules)
        noisy = np.broadcast_to(np.asarray(add_noise, dtype=np.bool_), np.shape(trees))
        if self.config.gumbel:
            self._root_noise(trees, rng, dirichlet=False)
        elif noisy.any():
            self._root_noise(np.asarray(trees)[noisy], rng, dirichlet=True)
        while self._step(active, evaluator, roots_only=False):
            pass

    def _step(self, active: np.ndarray, evaluator: LeafEvaluator, *, roots_only: bool) -> int:
        trees, leaves = self.trees, self.leaves
        count = self.tree.select_leaves(active, roots_only, self.nodes, self.slots, trees, leaves, self.rules,
                                        self.params)  # fmt: skip
        if count == 0:
            return 0
        pending = trees.pending_node >= 0
        self._reserve_nodes(int((trees.nnodes + trees.pending_count)[pending].max()))
        batch = LeafBatch(self.variant, leaves.planes[:count], leaves.boards[:count], leaves.sides[:count])
        logits, values, *rest = evaluator(batch)
        plies = rest[0] if rest else None
        if plies is None and self.config.moves_left_slope > 0:
            raise ValueError(
                "SearchConfig.moves_left_slope > 0 needs an evaluator with moves-left estimates (a network with "
                "NetworkConfig.moves_left)"
            )
        self.tree.expand_leaves(
            count, np.ascontiguousarray(logits, dtype=np.float32), np.ascontiguousarray(values, dtype=np.float32),
            self._no_plies[:count] if plies is None else np.ascontiguousarray(plies, dtype=np.float32),
            self.nodes, self.slots, trees, leaves, self.lookup, self.policy_index,
        )  # fmt: skip
        return count

    def _root_noise(self, trees: np.ndarray, rngs: np.random.Generator | Mapping[int, np.random.Generator], *,
                    dirichlet: bool) -> None:  # fmt: skip
        """Dirichlet noise on the root priors (AlphaZero) or fresh Gumbel(0, 1) draws for the root actions."""
        c = self.config
        n = self.nodes
        for t in trees:
            rng = rngs if isinstance(rngs, np.random.Generator) else rngs[int(t)]
            start, k = n.first_child[t, _tree.ROOT_INDEX], n.num_children[t, _tree.ROOT_INDEX]
            if self.config.gumbel:
                n.gumbel[t, start : start + k] = rng.gumbel(size=k)
            elif dirichlet and c.dirichlet_fraction > 0:
                noise = rng.dirichlet(np.full(k, c.dirichlet_alpha))
                prior = n.prior[t, start : start + k]
                prior[:] = (1 - c.dirichlet_fraction) * prior + c.dirichlet_fraction * noise

    def _reserve_nodes(self, needed: int) -> None:
        cap = self.nodes.parent.shape[1]
        if needed > cap:
            self.nodes = Nodes(*(_grown(arr, max(needed, 2 * cap)) for arr in self.nodes))

    def _reserve_slots(self, needed: int) -> None:
        cap = self.slots.board.shape[1]
        if needed > cap:
            self.slots = Slots(*(_grown(arr, max(needed, 2 * cap)) for arr in self.slots))

    # -- results -------------------------------------------------------------------------------------------
    def root(self, t: int) -> RootStats:
        """Tree ``t``'s root statistics after :meth:`search`."""
        n = self.nodes
        root = _tree.ROOT_INDEX
        start, k = n.first_child[t, root], n.num_children[t, root]
        children = slice(start, start + k)
        visits = n.visits[t, children].copy()
        q = np.divide(n.value_sum[t, children], visits, out=np.zeros(k, dtype=np.float32), where=visits > 0)
        root_visits = max(int(n.visits[t, root]), 1)
        return RootStats(
            moves=tuple(map(self.game.move_of_code, n.move[t, children].tolist())),
            visit_counts=visits,
            prior=n.prior[t, children].copy(),
            q_values=q.astype(np.float32),
            gumbel=n.gumbel[t, children].copy(),
            value=float(-n.value_sum[t, root] / root_visits),
            network_value=float(self.slots.net_value[t, n.slot[t, root]]),
            proven=n.proven[t, children].copy(),
        )


def _grown(arr: np.ndarray, capacity: int) -> np.ndarray:
    """``arr`` (``[T, cap, ...]``) copied into zeros ``[T, capacity, ...]``."""
    grown = np.zeros((arr.shape[0], capacity, *arr.shape[2:]), dtype=arr.dtype)
    grown[:, : arr.shape[1]] = arr
    return grown
