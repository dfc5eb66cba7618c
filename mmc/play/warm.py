"""Compile every game family's kernels and search trees ahead of their first use: ``mmc compile``.

numba compiles a kernel on its first call and keeps the machine code in the source's ``__pycache__``
(:mod:`mmc.games.jit`). In a fresh clone every process that gets to a kernel first compiles it: the two workers of
``make test`` side by side, each stage process of a study and its spawned workers. :func:`compile_families` pays that
once, a family a process (``jobs`` at a time), so that later processes load the cached code; ``make setup`` runs it.

It compiles by playing: for every playable variant of a family, a short self-play game with an untrained network under
PUCT and under Gumbel search with the MCTS-Solver, a greedy game against a random one and a perft of depth 2 from the
start, so that every kernel those paths reach (legal moves, moves, outcomes, observation planes, symmetries, the
search tree, the greedy evaluation, perft) is in the cache.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

__all__ = ["compile_families", "compile_family", "prepare_family"]


def _playable(game: Any) -> list[str]:
    """The variants of ``game`` whose start has a legal move (monochromatic has none and plays no game)."""
    from mmc.games import initial_state, legal_moves

    return [variant for variant in game.variants if legal_moves(initial_state(variant))]


def _untrained(game: Any) -> Any:
    """A leaf evaluator on the smallest untrained network of ``game``'s family: what reaches the planes' kernel."""
    from mmc.nn import NetworkConfig, build_network
    from mmc.search.evaluators import NetworkLeafEvaluator

    return NetworkLeafEvaluator(build_network(NetworkConfig.for_game(game, blocks=1, filters=8, value_hidden=8)))


def compile_family(name: str) -> float:
    """Compile family ``name``'s kernels and its search tree by playing each of its variants briefly; the seconds."""
    import numpy as np

    from mmc.games import get_family, initial_state
    from mmc.games.perft import perft_divide
    from mmc.play import GreedyPlayer, RandomPlayer, play_match
    from mmc.play.selfplay import self_play
    from mmc.search import SearchConfig

    start = time.perf_counter()
    game = get_family(name)
    evaluator = _untrained(game)
    rng = np.random.default_rng(0)
    searches = (SearchConfig(simulations=4), SearchConfig(simulations=4, gumbel=True, gumbel_considered=4, solver=True))
    for variant in _playable(game):
        for search in searches:
            self_play(evaluator, variant, 2, search, rng, max_plies=8)
        play_match(GreedyPlayer(), RandomPlayer(), variant, 2, rng, opening_plies=0, max_plies=8)
        perft_divide(initial_state(variant), 2)
    return time.perf_counter() - start


def prepare_family(name: str) -> float:
    """Make family ``name`` ready to play at once: what its first game needs (its kernels, its search tree, the network
    planes, the greedy heuristic) loaded from numba's cache, or compiled there in a fresh clone, by one short self-play
    game and one short match on its first playable variant; the seconds. Lighter than :func:`compile_family`, which
    plays every variant and search kind; ``mmc serve`` runs it for every family when it starts."""
    import numpy as np

    from mmc.games import get_family
    from mmc.play import GreedyPlayer, close_player, parse_player, play_match
    from mmc.play.selfplay import self_play
    from mmc.search import SearchConfig

    start = time.perf_counter()
    game = get_family(name)
    playable = _playable(game)
    if not playable:
        return time.perf_counter() - start
    variant, rng = playable[0], np.random.default_rng(0)
    self_play(_untrained(game), variant, 1, SearchConfig(simulations=4), rng, max_plies=2)
    searcher = parse_player("mcts:4", variant=variant)
    try:
        play_match(GreedyPlayer(), searcher, variant, 1, rng, opening_plies=0, max_plies=2)
    finally:
        close_player(searcher)
    return time.perf_counter() - start


def compile_families(names: Sequence[str], *, jobs: int = 1) -> dict[str, float]:
    """Compile every family of ``names`` (:func:`compile_family`), ``jobs`` processes at a time; each family's
    seconds. ``ValueError`` naming the family if one is not registered, before anything compiles."""
    from mmc.games import games

    known = {game.name for game in games()}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ValueError(f"unknown game family {unknown[0]!r} (known: {', '.join(sorted(known))})")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if jobs == 1 or len(names) == 1:
        return {name: compile_family(name) for name in names}
    context = multiprocessing.get_context("spawn")  # a fresh interpreter each: no inherited state or threads
    with ProcessPoolExecutor(max_workers=min(jobs, len(names)), mp_context=context) as pool:
        return dict(zip(names, pool.map(compile_family, names), strict=True))
