"""Suite solve rates (benchmarks/data/mates.csv) and the self-play target on mates in one, solver off and on.

An untrained params.yaml-sized network (seed: the first argument, 0 by default); run from the repository root,
`python benchmarks/solver_suite.py`. Prints one line per setting (BENCHMARKS.md, "MCTS-Solver on the suite")."""

import sys
import time

import numpy as np
import torch
from diagnosis import solved, target_mass

from mmc.games.chess.puzzles import read_puzzles
from mmc.nn import NetworkConfig, build_network
from mmc.play.search_players import MCTSPlayer
from mmc.search import NetworkLeafEvaluator, SearchConfig

torch.set_num_threads(1)
puzzles = read_puzzles("benchmarks/data/mates.csv")
net = build_network(
    NetworkConfig(game="chess", blocks=2, filters=32), seed=int(sys.argv[1]) if len(sys.argv) > 1 else 0
)
evaluation = SearchConfig(simulations=24, dirichlet_fraction=0.25, temperature_plies=0)
selfplay = SearchConfig(simulations=48)
ones = [p for p in puzzles if p.mate_in == 1]
for solver in (False, True):
    t0 = time.time()
    ev = SearchConfig(**{**evaluation.__dict__, "solver": solver})
    marks = solved(puzzles, MCTSPlayer(NetworkLeafEvaluator(net), ev, name="model"), np.random.default_rng(1))
    rows = {}
    for p, (s, st) in zip(puzzles, marks, strict=True):
        key = "stalemate-trap" if p.kind == "stalemate-trap" else f"mate-in-{p.mate_in}"
        rows.setdefault(key, []).append((s, st))
    sp = SearchConfig(**{**selfplay.__dict__, "solver": solver})
    mass = target_mass(ones, net, sp, np.random.default_rng(2), add_noise=False)
    noisy = target_mass(ones, net, sp, np.random.default_rng(3), add_noise=True)
    print(
        f"solver={solver}: "
        + ", ".join(f"{k} {np.mean([s for s, _ in v]):.2f} (n={len(v)})" for k, v in sorted(rows.items()))
        + f"; stalemated in traps {np.mean([st for _, st in rows['stalemate-trap']]):.2f}"
        + f"; 48-sim target on mate (mate-in-one + traps, n={len(ones)})"
        f" no noise {np.mean([m.best for m in mass]):.2f}, noise {np.mean([m.best for m in noisy]):.2f}"
        f"; target on stalemate {np.mean([m.stalemating for m in mass]):.2f}"
        f"; most visited mates {np.mean([m.most_visited_best for m in mass]):.2f}; {time.time() - t0:.1f} s",
        flush=True,
    )
