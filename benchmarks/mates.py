"""Why the mate stays out of the policy: a study expert's kept networks against its own self-play rows (no training).

    python benchmarks/mates.py --jobs data/jobs/expert/gardner-r0 [--variant gardner] [--window 3]
        [--games 100] [--seed 0] [--params params.yaml] [--out DIR]
    python benchmarks/mates.py --supervised 20000 [--jobs ... | --steps S] [--networks 2x32,4x64] [--workers 2]

``--jobs`` is an expert stage's job folder (``data/jobs/expert/{variant}-r{replicate}``): every generation's
self-play rows (``self-play-{variant}-gen{g}-chunk{c}.npz``) and the network trained on them
(``train-{variant}-gen{g}.pt``: the champion of generation ``g``, trained on the rows of generations ``g - window +
1 .. g``; the study's recipe accepts every candidate). Nothing is trained: the benchmark reads what the stage kept.

A "mate row" is the last row of a won game (the side to move played the mate from it: ``plies_left == 1`` and a
positive value target); under the solver its policy target puts almost all its weight on the mate. It prints:

(e) per generation ``g``: the mate rows' share of the window, and network ``g``'s prior on the mate (the target's
    most weighted move) on the window's mate rows (fit: rows it was trained on) and on generation ``g + 1``'s
    (held out: rows its own search played next), with how often the prior's first choice is the mate;
(f) for the last network, KL(target || prior) over its window by plies to the end, in the games the side to move
    went on to win and to lose;
(g) bare kings: the window's rows where the side to move faces a lone king, against the positions the last
    network's raw policy (``PolicyPlayer``: most probable move, no search) meets against random in ``--games`` games
    at the evaluation's openings: how many, how many distinct, how many of those the window holds, how often a
    mate in one was there and how often the policy played it, and how the games ended (for the window: the rows
    from which the mate was played, and the prior on it there);
(i) the last network's raw policy on the mate suite (``benchmarks/data/mates.csv``), variant by variant.

With ``--supervised N`` it runs the supervised test instead: ``N`` distinct exact mate-in-one positions of
``--variant`` (from the seeded greedy-against-random playouts of ``mmc.games.chess.puzzles``, a mate in one checked
by the exact search), a tenth held out; each row's target spread evenly over its mating moves and its value a win.
Each of ``--networks`` (``BLOCKSxFILTERS``, ``kK`` for a KxK policy convolution; the first is the study's) is
trained on the rest with the study's training config for ``--steps`` minibatch steps (default: the steps the expert
stage of ``--jobs`` took, every generation's ``epochs x ceil(window rows / batch)``), and (h) prints its prior on
the mates, fit and held out, every ``--steps / 4`` steps.

Tables are printed as Markdown, the numbers BENCHMARKS.md quotes, and written as CSV under ``--out``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import re
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from diagnose import BUCKETS, SUITE, SUITE_VARIANTS, suite_rows, table  # benchmarks/diagnose.py, beside it
from diagnosis import facing_bare_king, prior_fit, solved, termination_counts
from learning import study_of, write_csv  # benchmarks/learning.py

from mmc.core.seeding import derive, int_seed, rng
from mmc.games.chess import Color, Termination, apply_move, from_fen, legal_moves, outcome
from mmc.games.chess.observe import OPPONENT_PIECES_PLANE, observation_planes
from mmc.games.chess.puzzles import Puzzle, playout_positions, read_puzzles
from mmc.nn import NetworkConfig, NetworkEvaluator, PolicyValueNet, build_network, load_checkpoint
from mmc.play import GameRecord, PolicyPlayer, RandomPlayer, play_match, replay
from mmc.train import ExampleBuilder, Examples, concatenate, load_examples, train

REPO = Path(__file__).resolve().parent.parent
PLIES_LEFT = ((1, 1), (2, 2), (3, 3), (4, 5), (6, 9), (10, 17), (18, 10_000))
"""The plies-to-the-end buckets of table (f)."""
SHAPE = r"(\d+)x([1-9]\d*)(?:k(\d+))?"
"""``--networks``' shapes: blocks, filters and the policy head's kernel (``2x32``, ``2x32k3``)."""
PIECES = OPPONENT_PIECES_PLANE + 6
"""The piece planes (both sides'), which identify a position in table (g)."""


def generations(jobs: Path, variant: str) -> dict[int, tuple[Examples, Path]]:
    """Every generation of ``jobs`` with both its self-play rows and its trained network, by index."""
    found: dict[int, tuple[Examples, Path]] = {}
    for weights in sorted(jobs.glob(f"train-{variant}-gen*.pt")):
        index = int(re.search(r"gen(\d+)", weights.name).group(1))  # type: ignore[union-attr]
        chunks = sorted(jobs.glob(f"self-play-{variant}-gen{index:03d}-chunk*.npz"))
        if chunks:
            found[index] = (concatenate([load_examples(c) for c in chunks]), weights)
    if not found:
        raise SystemExit(f"benchmarks/mates.py: --jobs {jobs}: no train-{variant}-gen*.pt with its self-play rows")
    return found


def mate_rows(examples: Examples) -> np.ndarray:
    """``bool[N]``: the rows from which the side to move played its game's winning last move."""
    return (examples.plies_left == 1) & (examples.value > 0)


def _mean(values: np.ndarray) -> float:
    return round(float(np.mean(values)), 3) if len(values) else float("nan")


def fit_rows(gens: dict[int, tuple[Examples, Path]], window: int) -> list[dict[str, Any]]:
    """Table (e): each network's prior on the mate, on its window's mate rows and on the next generation's."""
    rows = []
    for g in sorted(gens):
        net, _ = load_checkpoint(gens[g][1])
        seen = concatenate([gens[k][0] for k in range(max(0, g - window + 1), g + 1) if k in gens])
        fit = prior_fit(net, seen.take(mate_rows(seen)))
        row = {"generation": g, "window_rows": len(seen), "mate_rows": len(fit.on_top),
               "mate_share": round(len(fit.on_top) / max(1, len(seen)), 4), "target_on_mate": _mean(fit.top_share),
               "prior_fit": _mean(fit.on_top), "first_choice_fit": _mean(fit.agrees)}  # fmt: skip
        if g + 1 in gens:
            nxt = gens[g + 1][0]
            held = prior_fit(net, nxt.take(mate_rows(nxt)))
            row |= {"held_rows": len(held.on_top), "prior_held": _mean(held.on_top),
                    "first_choice_held": _mean(held.agrees)}  # fmt: skip
        else:
            row |= {"held_rows": 0, "prior_held": "", "first_choice_held": ""}
        rows.append(row)
    return rows


def kl_rows(net: PolicyValueNet, seen: Examples) -> list[dict[str, Any]]:
    """Table (f): KL(target || prior) over ``seen`` by plies to the end, in won and in lost games."""
    fit = prior_fit(net, seen)
    rows = []
    for side, mask in (("won", seen.value > 0), ("lost", seen.value < 0), ("drawn", seen.value == 0)):
        for low, high in PLIES_LEFT:
            picked = mask & (seen.plies_left >= low) & (seen.plies_left <= high)
            label = str(low) if low == high else (f"{low}+" if high >= 10_000 else f"{low}-{high}")
            rows.append({"games": side, "plies_left": label, "rows": int(picked.sum()),
                         "kl": _mean(fit.kl[picked]), "prior_on_top": _mean(fit.on_top[picked]),
                         "target_top": _mean(fit.top_share[picked])})  # fmt: skip
    return rows


def suite_table(net: PolicyValueNet, suite: Path, seed: np.random.SeedSequence) -> list[dict[str, Any]]:
    """Table (i): the raw policy's solve rates on the mate suite (``benchmarks/data/mates.csv``), variant by variant:
    ``benchmarks/diagnose.py``'s suite rows, one row a variant."""
    puzzles = read_puzzles(suite)
    marks = solved(puzzles, PolicyPlayer(NetworkEvaluator(net)), rng(seed))
    cells = {(r["variant"], r["kind"], r["mate_in"]): r for r in suite_rows("policy", "", puzzles, marks)}
    return [{"variant": v, **{f"{kind} {n}": cells[v, kind, n]["solved"] for kind, n in BUCKETS},
             "trap stalemated": cells[v, "stalemate-trap", 1]["stalemated"]}
            for v in SUITE_VARIANTS]  # fmt: skip


def _keys(planes: np.ndarray) -> set[bytes]:
    return {row.tobytes() for row in planes[:, :PIECES].astype(np.uint8)}


def _mates_in_one(state: Any) -> set[str]:
    """The moves of ``state`` that checkmate."""
    found = set()
    for move in legal_moves(state):
        end = outcome(apply_move(state, move))
        if end is not None and end.termination == Termination.CHECKMATE:
            found.add(move.uci())
    return found


def policy_positions(records: Sequence[GameRecord]) -> tuple[np.ndarray, int, int]:
    """The planes of the positions where the model (``"model"`` in ``records``) moved against a lone king, how
    many of them had a mate in one, and in how many of those it played a mate."""
    planes, with_mate, mated = [], 0, 0
    for record in records:
        color = Color.WHITE if record.first == "model" else Color.BLACK
        states = replay(record)
        for ply, state in enumerate(states[:-1]):
            if ply < record.opening_plies or state.turn != color:
                continue
            view = observation_planes(state)
            if not facing_bare_king(view[None])[0]:
                continue
            planes.append(view)
            mates = _mates_in_one(state)
            if mates:
                with_mate += 1
                mated += record.moves[ply] in mates
    return (np.stack(planes) if planes else np.zeros((0, PIECES, 1, 1), np.float32)), with_mate, mated


def bare_king_rows(net: PolicyValueNet, seen: Examples, variant: str, games: int, opening_plies: int, max_plies: int,
                   seed: np.random.SeedSequence) -> list[dict[str, Any]]:  # fmt: skip
    """Table (g): lone-king positions in the window against those the raw policy meets against random."""
    lone = facing_bare_king(seen.planes)
    mates = mate_rows(seen) & lone
    fit = prior_fit(net, seen.take(mates))
    in_window = _keys(seen.planes[lone])
    window = {"source": "window (self-play rows)", "positions": int(lone.sum()),
              "distinct": len(in_window), "in_window": "", "with_mate_in_one": "",
              "mate_played": int(mates.sum()), "prior_on_mate": _mean(fit.on_top)}  # fmt: skip
    result = play_match(PolicyPlayer(NetworkEvaluator(net), name="model"), RandomPlayer(), variant, games, rng(seed),
                        opening_plies=opening_plies, max_plies=max_plies)  # fmt: skip
    planes, with_mate, mated = policy_positions(result.records)
    distinct = _keys(planes)
    ends = termination_counts(result.records, "model")
    policy = {"source": f"raw policy vs random ({games} games: {result.wins}/{result.draws}/{result.losses}; "
                        f"stalemate {ends.get('stalemate', 0)})",
              "positions": len(planes), "distinct": len(distinct),
              "in_window": len(distinct & in_window), "with_mate_in_one": with_mate,
              "mate_played": mated, "prior_on_mate": ""}  # fmt: skip
    return [window, policy]


def _mate_positions(variant: str, count: int, seed: np.random.SeedSequence) -> list[tuple[str, tuple[str, ...]]]:
    """``count`` mate-in-one positions (FEN, mating moves) of one seeded stream of playouts, distinct in it."""
    found: dict[str, tuple[str, ...]] = {}
    for state in playout_positions(variant, rng(seed)):
        puzzle = Puzzle.of(state, 1)
        if puzzle is not None and puzzle.fen not in found:
            found[puzzle.fen] = puzzle.best
            if len(found) == count:
                break
    return list(found.items())


def mate_examples(positions: Sequence[tuple[str, tuple[str, ...]]], variant: str) -> Examples:
    """One row per position: the target spread evenly over its mating moves, the value a win."""
    builder = ExampleBuilder()
    for game_id, (fen, best) in enumerate(positions):
        state = from_fen(variant, fen)
        moves = [m.uci() for m in legal_moves(state)]
        target = np.array([m in best for m in moves], dtype=np.float64)
        builder.add(state, target / target.sum(), game_id, search_value=1.0)
        builder.finish_game(game_id, state.turn)
    return concatenate(builder.build())


def supervised(args: argparse.Namespace, study: Any, steps: int) -> list[dict[str, Any]]:
    """Table (h): networks trained on exact mate-in-one rows alone; their prior on the mates, fit and held out."""
    per_worker = -(-args.supervised * 11 // 10 // args.workers)  # a tenth more: duplicates across the streams
    seed = derive(np.random.SeedSequence(args.seed), "mates-supervised")
    with ProcessPoolExecutor(args.workers, mp_context=mp.get_context("spawn")) as pool:
        streams = pool.map(_mate_positions, [args.variant] * args.workers, [per_worker] * args.workers,
                           [derive(seed, "positions", w) for w in range(args.workers)])  # fmt: skip
        positions = dict(item for stream in streams for item in stream)
    distinct = sorted(positions.items())[: args.supervised]
    order = rng(derive(seed, "split")).permutation(len(distinct))
    held_count = len(distinct) // 10
    held = mate_examples([distinct[i] for i in order[:held_count]], args.variant)
    fit = mate_examples([distinct[i] for i in order[held_count:]], args.variant)
    print(f"{len(distinct)} distinct mate-in-one positions: {len(fit)} to train on, {len(held)} held out; "
          f"{steps} steps of {study.train.batch_size}", flush=True)  # fmt: skip
    batches = -(-len(fit) // study.train.batch_size)
    rows = []
    for shape in args.networks.split(","):
        blocks, filters, kernel = (int(x or 1) for x in re.fullmatch(SHAPE, shape).groups())  # type: ignore[union-attr]
        config = NetworkConfig.for_game(study.network.game, blocks=blocks, filters=filters,
                                        value_hidden=study.network.value_hidden, policy_kernel=kernel)  # fmt: skip
        net = build_network(config, seed=int_seed(derive(seed, "network", shape)))
        generator = torch.Generator().manual_seed(int_seed(derive(seed, "train", shape)))
        done, start = 0, time.process_time()
        for quarter in range(1, 5):
            epochs = max(1, round((steps * quarter // 4 - done) / batches))
            train(net, [fit], replace(study.train, epochs=epochs), generator)
            done += epochs * batches
            on_fit, on_held = prior_fit(net, fit), prior_fit(net, held)
            minutes = round((time.process_time() - start) / 60, 2)
            rows.append({"network": shape, "steps": done, "cpu_minutes": minutes,
                         "prior_fit": _mean(on_fit.on_support), "first_choice_fit": _mean(on_fit.agrees),
                         "prior_held": _mean(on_held.on_support),
                         "first_choice_held": _mean(on_held.agrees)})  # fmt: skip
            print(f"  {shape} after {done} steps: prior on the mates {rows[-1]['prior_fit']} fit, "
                  f"{rows[-1]['prior_held']} held out", flush=True)  # fmt: skip
    return rows


def _print(rows: list[dict[str, Any]]) -> None:
    table(rows, list(rows[0]))


def study_steps(gens: dict[int, tuple[Examples, Path]], window: int, epochs: int, batch: int) -> int:
    """The minibatch steps of the expert stage that made ``gens``: every generation's epochs over its window."""
    total = 0
    for g in gens:
        rows = sum(len(gens[k][0]) for k in range(max(0, g - window + 1), g + 1) if k in gens)
        total += epochs * -(-rows // batch)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=Path, default=None, help="an expert stage's job folder")
    parser.add_argument("--supervised", type=int, default=0, help="run the supervised test on this many positions")
    parser.add_argument("--steps", type=int, default=None, help="--supervised: default, the steps of --jobs' stage")
    parser.add_argument("--networks", default="2x32,4x64,2x32k3",
                        help="--supervised: BLOCKSxFILTERS[kK] (K: the policy kernel), comma-separated")  # fmt: skip
    parser.add_argument("--workers", type=int, default=2, help="--supervised: processes drawing the positions")
    parser.add_argument("--variant", default="gardner")
    parser.add_argument("--window", type=int, default=None, help="default: params.yaml's expert.window")
    parser.add_argument("--games", type=int, default=100, help="raw policy vs random, table (g)")
    parser.add_argument("--suite", type=Path, default=SUITE, help="the mate suite of table (i)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--params", type=Path, default=REPO / "params.yaml")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.jobs is None and not (args.supervised and args.steps):
        raise SystemExit("benchmarks/mates.py: --jobs is needed (with --supervised, --steps may replace it)")
    if args.jobs is not None and not args.jobs.is_dir():
        raise SystemExit(f"benchmarks/mates.py: --jobs {args.jobs}: no such folder")
    for shape in args.networks.split(","):
        if not re.fullmatch(SHAPE, shape) or shape.endswith(("k0", "k2", "k4", "k6", "k8")):
            raise SystemExit(f"benchmarks/mates.py: --networks: {shape!r} is not BLOCKSxFILTERS[kK] with K odd "
                             "(such as 2x32, or 2x32k3 for a 3x3 policy convolution)")  # fmt: skip
    study = study_of(yaml.safe_load(args.params.read_text()), {})
    if args.variant not in study.experts:
        raise SystemExit(f"benchmarks/mates.py: --variant {args.variant}: {args.params} trains no such expert")
    loop = study.experts[args.variant].loop
    window = args.window or loop.window
    torch.set_num_threads(1)
    out = args.out or Path(tempfile.mkdtemp(prefix="mates-"))
    out.mkdir(parents=True, exist_ok=True)

    if args.supervised:
        steps = args.steps or study_steps(generations(args.jobs, args.variant), window, study.train.epochs,
                                          study.train.batch_size)  # fmt: skip
        rows = supervised(args, study, steps)
        print(f"\n(h) Networks trained on exact mate-in-one rows alone ({args.variant}): the prior on the mates")
        _print(rows)
        write_csv(out / "supervised.csv", rows)
        print(f"\nwritten under {out}: supervised.csv")
        return

    gens = generations(args.jobs, args.variant)
    fits = fit_rows(gens, window)
    last = max(gens)
    net, _ = load_checkpoint(gens[last][1])
    seen = concatenate([gens[k][0] for k in range(max(0, last - window + 1), last + 1) if k in gens])
    kls = kl_rows(net, seen)
    config = study.evaluate.config
    seed = derive(np.random.SeedSequence(args.seed), "mates-benchmark")
    lone = bare_king_rows(net, seen, args.variant, args.games, config.opening_plies, config.max_plies, seed)
    suite = suite_table(net, args.suite, derive(seed, "suite"))

    print(f"(e) The prior on the mate, {args.jobs} (window {window}): fit = the network's own window, held = the next "
          "generation's mate rows")  # fmt: skip
    _print(fits)
    print(f"\n(f) KL(target || prior) of generation {last}'s network over its window, by plies to the end:")
    _print([r for r in kls if r["rows"]])
    print(f"\n(g) Lone kings: generation {last}'s window against its raw policy's games:")
    _print(lone)
    print(f"\n(i) Generation {last}'s raw policy on the mate suite ({args.suite.name}), by variant (a best move "
          "found; the stalemating move played in the traps):")  # fmt: skip
    _print(suite)
    for name, rows in (("fit", fits), ("kl", kls), ("bare_king", lone), ("suite", suite)):
        write_csv(out / f"{name}.csv", rows)
    print(f"\nwritten under {out}: fit.csv, kl.csv, bare_king.csv, suite.csv")


if __name__ == "__main__":
    main()
