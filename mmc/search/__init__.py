"""Batched Monte-Carlo tree search: PUCT with Dirichlet noise or Gumbel sequential halving, many games at once.

>>> from mmc.search import SearchConfig, NetworkLeafEvaluator, search, select_move
>>> results = search(states, NetworkLeafEvaluator(net), SearchConfig(simulations=64), rng, add_noise=True)
"""

from mmc.search.config import PRECISIONS, SearchConfig
from mmc.search.evaluators import BF16_TOLERANCE, LeafBatch, LeafEvaluator, NetworkLeafEvaluator, RolloutEvaluator
from mmc.search.forest import Forest, RootStats
from mmc.search.mcts import SearchResult, improved_policy, result_of, search, select_move

__all__ = [
    "BF16_TOLERANCE",
    "PRECISIONS",
    "Forest",
    "LeafBatch",
    "LeafEvaluator",
    "NetworkLeafEvaluator",
    "RolloutEvaluator",
    "RootStats",
    "SearchConfig",
    "SearchResult",
    "improved_policy",
    "result_of",
    "search",
    "select_move",
]
