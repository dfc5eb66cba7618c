"""The recipe of ``tests/test_learning.py``, generation by generation: the raw policy's W/D/L against random.

    python benchmarks/learning_test.py SEED THREADS GENERATIONS [EPOCHS VALUE_DISCOUNT SIMULATIONS]

prints one JSON line: the untrained network's W/D/L and score against random (100 games, the test's openings)
and the champion's after every generation. ``SEED 0 THREADS 1 GENERATIONS 3`` with the defaults is the test.
Used for BENCHMARKS.md "The learning test across machines".
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from mmc.core.seeding import root
from mmc.loops.alphazero import AlphaZeroConfig, alphazero
from mmc.nn import NetworkConfig, NetworkEvaluator, build_network
from mmc.nn.network import PolicyValueNet
from mmc.play import PolicyPlayer, RandomPlayer, play_match
from mmc.search import SearchConfig
from mmc.train import TrainConfig


def against_random(net: PolicyValueNet) -> list[float]:
    """W, D, L and score of ``net``'s raw policy against random: the test's 100 games."""
    player = PolicyPlayer(NetworkEvaluator(net), name="policy")
    result = play_match(player, RandomPlayer(), "gardner", 100, np.random.default_rng(123))
    return [result.wins, result.draws, result.losses, result.score]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seed", type=int)
    parser.add_argument("threads", type=int)
    parser.add_argument("generations", type=int)
    parser.add_argument("epochs", type=int, nargs="?", default=8)
    parser.add_argument("value_discount", type=float, nargs="?", default=1.0)
    parser.add_argument("simulations", type=int, nargs="?", default=16)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    budget = AlphaZeroConfig(generations=args.generations, games=192, chunks=1, concurrent=192, window=4,
                             arena_games=0)  # fmt: skip
    search = SearchConfig(simulations=args.simulations, gumbel=True, gumbel_considered=8)
    training = TrainConfig(epochs=args.epochs, batch_size=128, learning_rate=0.05,
                           value_discount=args.value_discount, threads=args.threads)  # fmt: skip
    start = time.time()
    net = build_network(NetworkConfig(game="chess", blocks=2, filters=32), seed=args.seed)
    out: dict[str, object] = {**vars(args), "before": against_random(net)}
    for step in alphazero(net, "gardner", budget, search, training, root(args.seed)):
        out[f"g{step.index + 1}"] = against_random(step.champion)
    out["seconds"] = round(time.time() - start, 1)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
