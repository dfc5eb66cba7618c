"""The k-in-a-row solver's reach (issue 65): known results from the start, then how far into a game it solves
connect4 and mnk_7x7_k4.

    python benchmarks/solver.py [--positions 8] [--limit 200000000] [--seed 0]

First every board of the known-results list from the start: its value, positions searched and seconds. Then, per
variant and ply, ``--positions`` positions of seeded random games at that ply (games over before it are skipped):
how many the solver labels (value and keeping moves, ``mmc.games.gomoku.solver.Solver.solve``) within ``--limit``
positions, and the median and largest positions and seconds of those it labels. One table each, as BENCHMARKS.md
quotes them.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from mmc.games import apply_move, initial_state, legal_moves, outcome
from mmc.games.gomoku.solver import Solver, SolverLimit

KNOWN = (
    ("tictactoe", "draw"),
    ("mnk_4x3_k3", "first-player win"),
    ("mnk_4x4_k3", "first-player win"),
    ("mnk_4x4_k4", "draw"),
    ("mnk_5x4_k4", "draw"),
    ("mnk_5x5_k4", "draw"),
    ("grav_4x4_k4", "draw"),
    ("grav_5x4_k4", "draw"),
)
PLIES = {"connect4": (6, 8, 10, 12, 16), "mnk_7x7_k4": (8, 10, 12, 14, 18)}
NAMES = {1: "first-player win", 0: "draw", -1: "second-player win"}


def random_position(variant: str, ply: int, rng: np.random.Generator) -> object | None:
    state = initial_state(variant)
    for _ in range(ply):
        if outcome(state) is not None:
            return None
        moves = legal_moves(state)
        state = apply_move(state, moves[int(rng.integers(len(moves)))])
    return state if outcome(state) is None else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--limit", type=int, default=200_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    Solver("tictactoe").solve(initial_state("tictactoe"))  # compile (or load) the kernels outside the timings
    print("| board | known | solved | positions | seconds |\n|---|---|---|---|---|")
    for variant, known in KNOWN:
        t0 = time.perf_counter()
        s = Solver(variant, node_limit=args.limit).solve(initial_state(variant))
        print(f"| {variant} | {known} | {NAMES[s.value]} | {s.nodes:,} | {time.perf_counter() - t0:.2f} |")
    print("\n| variant | ply | labelled | median positions | most positions | median s | most s |")
    print("|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(args.seed)
    for variant, plies in PLIES.items():
        for ply in plies:
            solved, nodes, seconds, tried = 0, [], [], 0
            while tried < args.positions:
                state = random_position(variant, ply, rng)
                if state is None:
                    continue
                tried += 1
                t0 = time.perf_counter()
                try:
                    s = Solver(variant, node_limit=args.limit).solve(state)
                except SolverLimit:
                    continue
                solved += 1
                nodes.append(s.nodes)
                seconds.append(time.perf_counter() - t0)
            if nodes:
                print(f"| {variant} | {ply} | {solved}/{tried} | {statistics.median(nodes):,.0f} | {max(nodes):,} | "
                      f"{statistics.median(seconds):.1f} | {max(seconds):.1f} |", flush=True)  # fmt: skip
            else:
                print(f"| {variant} | {ply} | 0/{tried} | - | - | - | - |", flush=True)


if __name__ == "__main__":
    main()
