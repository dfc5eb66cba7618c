"""Players that search: pure MCTS with random rollouts (no network) and the network with MCTS.

Both search every position of a ``play`` batch together (one forest, one evaluator call per step) without
Dirichlet noise and play the most visited move (``temperature_plies=0``; Gumbel search still draws its
Gumbel noise from the ``rng`` and plays :func:`mmc.search.select_move`'s choice among the most visited): in
the arena, variety comes from the openings. Specs: ``mcts:200`` (simulations), ``net:PATH.pt:sims=64[:gumbel=1]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from mmc.search import LeafEvaluator, RolloutEvaluator, SearchConfig, SearchResult, search, select_move

__all__ = ["MCTSPlayer", "mcts_player", "network_player"]


class MCTSPlayer:
    """Search with ``evaluator`` (``None``: random rollouts of at most ``rollout_plies``, drawn from the ``rng``
    given to :meth:`play`) and play the most visited move; ``name`` as in game records. ``last_results``: the
    searches of the last :meth:`play` (what it saw when it moved: priors, visits, Q, values), one per state."""

    def __init__(
        self, evaluator: LeafEvaluator | None, config: SearchConfig, *, name: str, rollout_plies: int = 150
    ) -> None:
        self.evaluator = evaluator
        self.config = replace(config, temperature_plies=0)
        self.name = name
        self.rollout_plies = rollout_plies
        self.last_results: list[SearchResult] = []

    def play(self, states: Sequence[Any], rng: np.random.Generator) -> list[Any]:
        """One search over all ``states`` together, then one move each."""
        evaluator = self.evaluator or RolloutEvaluator(rng, self.rollout_plies)
        results = search(states, evaluator, self.config, rng)
        self.last_results = list(results)
        return [select_move(r, self.config, state.ply, rng) for state, r in zip(states, results, strict=True)]


def mcts_player(simulations: int, *, rollout_plies: int = 150) -> MCTSPlayer:
    """Pure MCTS: uniform priors, one random playout per leaf (at most ``rollout_plies``), ``simulations`` a move."""
    config = SearchConfig(simulations=simulations)
    return MCTSPlayer(None, config, name=f"mcts:{simulations}", rollout_plies=rollout_plies)


def network_player(
    path: str, simulations: int, *, gumbel: bool = False, solver: bool = False, moves_left: float = 0.0,
    name: str | None = None, device: str = "cpu",
) -> MCTSPlayer:  # fmt: skip
    """The checkpoint at ``path`` searching ``simulations`` per move (PUCT, or Gumbel with ``gumbel``; with
    ``solver``, MCTS-Solver: ``SearchConfig.solver``; ``moves_left``, the moves-left utility's slope:
    ``SearchConfig.moves_left_slope``), its network on ``device`` (``mmc.nn.DEVICES``)."""
    from mmc.nn import load_checkpoint, resolve_device
    from mmc.search import NetworkLeafEvaluator

    net, _ = load_checkpoint(path, resolve_device(device))
    config = SearchConfig(simulations=simulations, gumbel=gumbel, solver=solver, moves_left_slope=moves_left)
    return MCTSPlayer(NetworkLeafEvaluator(net), config, name=name or f"net:{path}:sims={simulations}")
