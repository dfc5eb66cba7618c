"""Search as a function: root states, an evaluator, a frozen config and an rng in; typed results out.

>>> results = search(states, NetworkLeafEvaluator(net), SearchConfig(simulations=64), rng)
>>> move = select_move(results[0], config, ply=0, rng=rng)

Policy targets (``SearchResult.policy``): with PUCT, the root's visit distribution (AlphaZero); with
Gumbel, the improved policy ``softmax(logits + sigma(completed Q))`` of Danihelka et al. 2022 (eq. 11),
where unvisited actions' Q is completed with the mixed value estimate (their Appendix D, as in mctx).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from mmc.games import game_of, get_game, legal_moves, outcome
from mmc.search import _tree
from mmc.search.config import SearchConfig
from mmc.search.evaluators import LeafEvaluator
from mmc.search.forest import Forest, RootStats

__all__ = ["SearchResult", "improved_policy", "result_of", "search", "select_move"]


class SearchResult(NamedTuple):
    """One root's search, over its legal moves in ``legal_moves`` order."""

    moves: tuple[Any, ...]
    visit_counts: np.ndarray
    """``int32[k]``, summing to the simulations run: ``SearchConfig.simulations``, rounded up to a multiple of
    ``determinizations`` in dark chess (more after :meth:`Forest.advance` if the kept subtree held more)."""
    prior: np.ndarray
    """``float32[k]``: the evaluator's prior at the root (with noise, if added)."""
    q_values: np.ndarray
    """``float32[k]``: each move's mean value from the mover's view (0 where unvisited)."""
    policy: np.ndarray
    """``float32[k]``: the policy target (see the module docstring); sums to 1."""
    value: float
    """The root's mean value from the mover's view, in [-1, 1]."""
    gumbel: np.ndarray
    """``float32[k]``: the root's Gumbel draws (zeros for PUCT)."""
    network_value: float
    """The evaluator's value of the root position, from the mover's view."""
    proven: np.ndarray | None = None
    """``int8[k]``: with ``SearchConfig.solver``, +1 where the move is a proven win for the mover, -1 a proven loss,
    0 unproven (MCTS-Solver); None where not kept (dark chess)."""


def improved_policy(stats: RootStats, config: SearchConfig) -> np.ndarray:
    """Gumbel MuZero's policy target: softmax(log prior + sigma(completed Q)) with sigma(q) = (c_visit + max N)
    * c_scale * q and Q completed and min-max rescaled as in mctx (``_tree.completed_q``)."""
    qhat = _sigma(stats.visit_counts, stats.q_values, stats.prior, stats.network_value, config)
    scores = np.log(np.maximum(stats.prior.astype(np.float64), 1e-30)) + qhat
    scores -= scores.max()
    policy = np.exp(scores)
    return (policy / policy.sum()).astype(np.float32)


def _sigma(visits: np.ndarray, q: np.ndarray, prior: np.ndarray, raw_value: float, config: SearchConfig) -> np.ndarray:
    """sigma(completed Q) of the root's children (Danihelka et al. 2022, eq. 8)."""
    qhat = _tree.completed_q(visits.astype(np.int32), q.astype(np.float64), prior.astype(np.float32), float(raw_value))
    return (config.gumbel_c_visit + int(visits.max(initial=0))) * config.gumbel_c_scale * qhat


def result_of(stats: RootStats, config: SearchConfig) -> SearchResult:
    """A :class:`SearchResult` from a root's statistics."""
    if config.gumbel:
        policy = improved_policy(stats, config)
    else:
        policy = (stats.visit_counts / max(int(stats.visit_counts.sum()), 1)).astype(np.float32)
    return SearchResult(
        stats.moves,
        stats.visit_counts,
        stats.prior,
        stats.q_values,
        policy,
        stats.value,
        stats.gumbel,
        stats.network_value,
        stats.proven,
    )


def select_move(result: SearchResult, config: SearchConfig, ply: int, rng: np.random.Generator) -> Any:
    """The move to play after search.

    PUCT: sample with probability ~ N ** (1 / temperature) while ``ply < temperature_plies``, else the most
    visited move (ties at random). Gumbel: the most visited of the considered actions with the highest
    g + logit + sigma(q) (Danihelka et al. 2022, Algorithm 2); its exploration is the Gumbel draw itself. With
    ``gumbel_sampling``, while ``ply < temperature_plies`` (and ``temperature > 0``), a move sampled from the
    improved policy sharpened or flattened by the temperature, ``softmax((logit + sigma(q)) / temperature)``,
    over every legal move (a fresh Gumbel-max draw from ``rng``: the considered actions' draw is the search's).
    With ``solver``, a move proven to win is played whenever there is one (the most visited of them), whatever the
    ply or temperature.
    """
    visits = result.visit_counts.astype(np.float64)
    if config.solver and result.proven is not None and (result.proven > 0).any():
        return result.moves[int(np.argmax(np.where(result.proven > 0, visits, -1.0)))]
    if config.gumbel:
        logits = np.log(np.maximum(result.prior.astype(np.float64), 1e-30))
        sigma = _sigma(result.visit_counts, result.q_values, result.prior, result.network_value, config)
        if config.gumbel_sampling and ply < config.temperature_plies and config.temperature > 0:
            scores = (logits + sigma) / config.temperature
            return result.moves[int(np.argmax(scores + rng.gumbel(size=len(scores))))]
        score = np.where(visits == visits.max(), result.gumbel + logits + sigma, -np.inf)
        return result.moves[int(np.argmax(score))]
    if ply < config.temperature_plies and config.temperature > 0:
        weights = visits ** (1.0 / config.temperature)
        return result.moves[int(rng.choice(len(visits), p=weights / weights.sum()))]
    best = np.flatnonzero(visits == visits.max())
    return result.moves[int(best[rng.integers(len(best))])]


def search(
    states: Sequence[Any], evaluator: LeafEvaluator, config: SearchConfig, rng: np.random.Generator, *,
    add_noise: bool = False,
) -> list[SearchResult]:  # fmt: skip
    """Search every state (games not over; any mix of variants) and return one result per state.

    States of one variant and move cap share a :class:`Forest` and one evaluator call per step. In a variant with
    hidden information (dark chess) each state is searched on ``config.determinizations`` positions its game samples
    from what the player to move sees (``Game.determinize``), the simulations split between them and their visit
    counts summed; the true position is never searched.
    """
    for state in states:
        if outcome(state) is not None:
            raise ValueError(f"cannot search a finished game: {state!r}")
    groups: dict[tuple[str, int], list[int]] = defaultdict(list)
    for i, state in enumerate(states):
        groups[(state.variant_name, state.max_plies)].append(i)
    results: list[SearchResult | None] = [None] * len(states)
    for (variant, max_plies), rows in groups.items():
        if get_game(variant).variants[variant].hidden_information:
            found = _search_dark([states[i] for i in rows], evaluator, config, rng, add_noise=add_noise)
        else:
            forest = Forest(variant, len(rows), config, max_plies)
            for t, i in enumerate(rows):
                forest.set_root(t, states[i])
            forest.search(np.arange(len(rows)), evaluator, rng, add_noise=add_noise)
            found = [result_of(forest.root(t), config) for t in range(len(rows))]
        for i, result in zip(rows, found, strict=True):
            results[i] = result
    return [r for r in results if r is not None]


def _search_dark(states: list[Any], evaluator: LeafEvaluator, config: SearchConfig, rng: np.random.Generator, *,
                 add_noise: bool) -> list[SearchResult]:  # fmt: skip
    d = config.determinizations
    game = game_of(states[0])
    if game.determinize is None:
        raise ValueError(f"game {game.name} has hidden information but no determinize hook")
    forest = Forest(states[0].variant_name, len(states) * d, config, states[0].max_plies)
    for g, state in enumerate(states):
        for j, sample in enumerate(game.determinize(state, d, rng)):
            forest.set_root_board(g * d + j, sample.board, sample.side, sample.clock, sample.ply)
    share = max(1, -(-config.simulations // d))
    forest.search(np.arange(len(states) * d), evaluator, rng, add_noise=add_noise, simulations=share)
    results = []
    for g, state in enumerate(states):
        roots = [forest.root(g * d + j) for j in range(d)]
        moves = legal_moves(state)
        if any(root.moves != moves for root in roots):
            raise RuntimeError(f"a determinization changed the mover's legal moves in {state!r}")
        visits = np.sum([root.visit_counts for root in roots], axis=0).astype(np.int32)
        weights = [np.maximum(r.visit_counts, 1e-9) for r in roots]
        q = np.average([r.q_values for r in roots], axis=0, weights=weights)
        merged = RootStats(
            moves, visits, np.mean([r.prior for r in roots], axis=0).astype(np.float32), q.astype(np.float32),
            np.mean([r.gumbel for r in roots], axis=0).astype(np.float32),
            float(np.mean([r.value for r in roots])), float(np.mean([r.network_value for r in roots])),
        )  # fmt: skip
        results.append(result_of(merged, config))
    return results
