"""Self-play speed, measured in one run, against the network's pure batched forward pass.

    python benchmarks/selfplay.py [--games 512] [--concurrent 256] [--simulations 200] [--workers 2] [--networks both]
        [--precision both] [--device cpu]

For each network (the default 4x64 and a 2-block x 32-filter one) and each leaf precision (float32, then
bfloat16: ``SearchConfig.precision``) it prints:

- the pure forward pass: positions/s of ``inference_copy(net)`` (in that precision) on a
  ``[concurrent, NUM_PLANES, H, W]`` batch, one thread (the physical limit of that network and batch size on this core);
- self-play: ``--variant`` games (gardner by default, any family's) at ``--simulations`` per move with the
  ``--max-plies`` cap (150 by default: the study's), ``--concurrent`` games
  searched together, in ``--workers`` processes of one thread each (one per core): games/hour per core
  and in total, and the positions/s the network evaluated inside self-play, with its ratio to the
  forward pass measured in the same process.

``--device cuda`` (or ``auto``: :func:`mmc.nn.resolve_device`) runs the networks of both measurements on the GPU,
every worker process sharing it; the tree search stays on the worker's core. "Per core" then means per worker
process, and the forward pass is the GPU's at that batch size.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time

import numpy as np
import torch

from mmc.games import get_game, get_variant
from mmc.nn import DeviceError, NetworkConfig, build_network, inference_copy, resolve_device
from mmc.play.selfplay import self_play
from mmc.search import NetworkLeafEvaluator, SearchConfig


def forward_rate(config: NetworkConfig, batch: int, precision: str, device: torch.device, board: tuple[int, int],
                 seconds: float = 3.0) -> float:  # fmt: skip
    """Positions/s of the evaluator's network snapshot on random input (best of three windows), the outputs
    brought back to the CPU as the evaluator does."""
    dtype = torch.bfloat16 if precision == "bf16" else torch.float32
    net = inference_copy(build_network(config, seed=0)).to(device, dtype)
    x = torch.randn(batch, config.in_planes, *board, dtype=dtype).contiguous(memory_format=torch.channels_last)
    best = 0.0
    with torch.inference_mode():
        for _ in range(3):
            net(x.to(device))
        for _ in range(3):
            count, start = 0, time.perf_counter()
            while time.perf_counter() - start < seconds / 3:
                policy, value = net(x.to(device))
                policy.float().cpu(), value.float().cpu()
                count += batch
            best = max(best, count / (time.perf_counter() - start))
    return best


def worker(args: tuple[dict[str, int], int, int, int, int, str, str, str, int]) -> dict[str, float]:
    """One core: the forward-pass reference, then self-play; numbers for this process."""
    config_dict, games, concurrent, simulations, seed, precision, device_name, variant, max_plies = args
    torch.set_num_threads(1)
    config = NetworkConfig(**config_dict)
    device = resolve_device(device_name)
    self_play(NetworkLeafEvaluator(build_network(config, seed=0).to(device), precision=precision), variant, 2,
              SearchConfig(simulations=8), np.random.default_rng(0), concurrent=2)  # fmt: skip  # code loaded
    v = get_variant(variant)
    reference = forward_rate(config, concurrent, precision, device, (v.height, v.width))
    evaluator = NetworkLeafEvaluator(build_network(config, seed=0).to(device), precision=precision)
    start = time.perf_counter()
    result = self_play(evaluator, variant, games, SearchConfig(simulations=simulations, precision=precision),
                       np.random.default_rng(seed), concurrent=concurrent, max_plies=max_plies)  # fmt: skip
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "games": games, "plies": result.plies, "positions": evaluator.positions,
            "reference": reference}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=512, help="games per worker for the small network")
    parser.add_argument("--concurrent", type=int, default=256)
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--networks", choices=["both", "small", "default"], default="both")
    parser.add_argument("--precision", choices=["both", "fp32", "bf16"], default="both")
    parser.add_argument("--device", choices=["cpu", "cuda", "auto"], default="cpu")
    parser.add_argument("--variant", default="gardner", help="a variant id of any game family (default gardner)")
    parser.add_argument("--max-plies", type=int, default=150, help="the move cap of a game (default 150)")
    args = parser.parse_args()
    try:
        device = resolve_device(args.device)
    except DeviceError as error:  # cuda asked for where torch sees none: one line, before any work
        parser.error(f"--{error}")
    precisions = ["fp32", "bf16"] if args.precision == "both" else [args.precision]
    family = get_game(args.variant)
    networks = [("2x32", NetworkConfig.for_game(family, blocks=2, filters=32), args.games),
                ("4x64 (default)", NetworkConfig.for_game(family), max(args.games // 4, args.concurrent))]  # fmt: skip
    networks = {"both": networks, "small": networks[:1], "default": networks[1:]}[args.networks]
    print(f"{args.variant} self-play, {args.simulations} simulations/move, {args.max_plies}-ply cap, "
          f"{args.concurrent} games searched together, {args.workers} worker processes x 1 thread, networks on "
          f"{device}")  # fmt: skip
    context = mp.get_context("spawn")
    for (name, config, games), precision in ((n, p) for n in networks for p in precisions):
        label = f"{name} {precision}"
        jobs = [(config.to_dict(), games, args.concurrent, args.simulations, seed, precision, args.device,
                 args.variant, args.max_plies) for seed in range(args.workers)]  # fmt: skip
        with context.Pool(args.workers) as pool:
            results = pool.map(worker, jobs)
        seconds = max(r["seconds"] for r in results)
        total_games = sum(r["games"] for r in results)
        rate = np.mean([r["positions"] / r["seconds"] for r in results])
        reference = np.mean([r["reference"] for r in results])
        plies = sum(r["plies"] for r in results)
        per_core = total_games / seconds * 3600 / args.workers
        print(f"{label}: forward pass {reference:,.0f} positions/s per core (batch {args.concurrent}); "
              f"self-play evaluates {rate:,.0f} positions/s per core, ratio {rate / reference:.2f}")  # fmt: skip
        print(f"{label}: {total_games} games ({plies / total_games:.0f} plies/game, "
              f"{sum(r['positions'] for r in results) / plies:.0f} evaluations/ply) in {seconds:.0f} s: "
              f"{per_core:,.0f} games/hour per core, {per_core * args.workers:,.0f} games/hour on {args.workers} "
              f"cores")  # fmt: skip


if __name__ == "__main__":
    main()
