"""Why learning levels off: how a Gardner expert's games end, what its search targets teach about mates, how its
value head is calibrated, and its solve rates on a fixed suite of forced mates, generation by generation.

    python benchmarks/diagnose.py --make-suite [--per-kind 20] [--suite benchmarks/data/mates.csv]
    python benchmarks/diagnose.py [--generations 12] [--keep 0,4,8,12] [--games 100] [--search-games 50]
        [--seed 0] [--workers 2] [--params params.yaml] [--suite ...] [--out DIR]

``--make-suite`` draws positions from seeded playouts (``mmc.games.chess.puzzles.playout_positions``) of gardner,
baby and mallet, keeps those with a forced mate in 1, 2 or 3 found by the exact search
(``mmc.games.chess.puzzles.Puzzle.of``) -- ``--per-kind`` of each mate length and of stalemate traps (a mate in one
beside a stalemating move) per variant -- and keeps a position only where Fairy-Stockfish, asked for a mate in that
many moves (``go mate N``), reports the same length; it writes the suite (``mmc.games.chess.puzzles.write_puzzles``),
checked in so that the benchmark is fixed.

The diagnosis trains the study's expert loop for ``--variant`` (``pipelines.calls.expert_inputs`` and
``mmc.loops.alphazero.alphazero`` with ``params.yaml``'s recipe and replicate ``--seed``, as ``benchmarks/learning.py``)
and reports:

(a) ``terminations.csv``: how games end -- each generation's self-play, and for every kept network its raw
    policy (``PolicyPlayer``, no search; ``--games``) and its search player (``evaluate.search``;
    ``--search-games``) against random and greedy (``evaluate.opening_plies`` random plies first);
(b) ``targets.csv``: on the suite's mate-in-one and stalemate-trap positions, the self-play search's policy
    target (the expert's: ``search:`` with ``expert.search:`` over it) on the mating and on the stalemating moves,
    with and without root noise;
(c) ``calibration.csv``: the value head against the final result over self-play positions (the kept network's
    own self-play games), in 10 bins and where the side to move is a queen up or down;
(d) ``suite.csv``: raw-policy and search-player solve rates on the suite, with greedy and Fairy-Stockfish
    ``go nodes 100`` as references.

Tables are printed as Markdown, the numbers BENCHMARKS.md quotes. Kept networks are analysed in parallel on
``--workers`` processes of one torch thread each.
"""

from __future__ import annotations

import argparse
import copy
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from diagnosis import TERMINATIONS, calibration, game_positions, solved, target_mass, termination_counts
from learning import (  # benchmarks/learning.py, beside this script (run as python benchmarks/diagnose.py)
    SUITE,
    PoolRunner,
    study_of,
    write_csv,
)

from mmc.core.fanout import Job
from mmc.core.seeding import derive, rng
from mmc.evaluation.evaluate import EvaluateConfig
from mmc.games.chess.puzzles import Puzzle, playout_positions, read_puzzles, write_puzzles
from mmc.loops.alphazero import alphazero, play_games
from mmc.nn import NetworkEvaluator, PolicyValueNet
from mmc.play import FairyPlayer, GameRecord, GreedyPlayer, PolicyPlayer, close_player, parse_player, play_match
from mmc.play.search_players import MCTSPlayer
from mmc.search import NetworkLeafEvaluator, SearchConfig
from pipelines.calls import expert_inputs, keywords
from pipelines.config import StudyConfig

REPO = Path(__file__).resolve().parent.parent
SUITE_VARIANTS = ("gardner", "baby", "mallet")
BUCKETS = (("mate", 1), ("mate", 2), ("mate", 3), ("stalemate-trap", 1))


def make_suite(path: Path, per_kind: int, seed: int) -> list[Puzzle]:
    """``per_kind`` puzzles of each of :data:`BUCKETS` per variant, confirmed by Fairy-Stockfish."""
    puzzles, disagreements = [], 0
    for variant in SUITE_VARIANTS:
        stream = rng(derive(np.random.SeedSequence(seed), "mate-suite", variant))
        found: dict[tuple[str, int], list[Puzzle]] = defaultdict(list)
        seen, examined = set(), 0
        with FairyPlayer(variant, nodes=1, hash_mb=16) as fairy:  # its searches: mate (2M nodes)
            for state in playout_positions(variant, stream):
                if all(len(found[b]) >= per_kind for b in BUCKETS):
                    break
                if stream.random() > 0.25:  # a sample of each playout: fewer positions of one game
                    continue
                examined += 1
                puzzle = Puzzle.of(state, 3)
                if puzzle is None or len(found[(puzzle.kind, puzzle.mate_in)]) >= per_kind or puzzle.fen in seen:
                    continue
                _, reported = fairy.mate(puzzle.state, puzzle.mate_in, nodes=2_000_000)
                if reported != puzzle.mate_in:
                    disagreements += 1
                    print(f"  Fairy-Stockfish reports mate {reported}, the exact search {puzzle.mate_in}: {puzzle.fen}")
                    continue
                seen.add(puzzle.fen)
                found[(puzzle.kind, puzzle.mate_in)].append(puzzle)
        print(f"{variant}: {examined} positions examined")
        puzzles += [p for b in BUCKETS for p in found[b]]
    write_puzzles(puzzles, path)
    print(f"{len(puzzles)} puzzles written to {path}; {disagreements} disagreements with Fairy-Stockfish")
    return puzzles


# ---- the jobs (one torch thread each, in the pool)


def _match(net: PolicyValueNet, search: bool, opponent: str, variant: str, config: EvaluateConfig,
           seed: np.random.SeedSequence) -> list[GameRecord]:  # fmt: skip
    """The raw policy (``search`` false) or the search player at ``config.search`` against ``opponent``."""
    torch.set_num_threads(1)
    player = MCTSPlayer(NetworkLeafEvaluator(net), config.search, name="model") if search else None
    player = player or PolicyPlayer(NetworkEvaluator(net), name="model")
    other = parse_player(opponent, variant=variant)
    try:
        result = play_match(player, other, variant, config.games, rng(seed), opening_plies=config.opening_plies,
                            max_plies=config.max_plies)  # fmt: skip
    finally:
        close_player(other)
    return result.records


def _puzzles(net: PolicyValueNet, puzzles: list[Puzzle], selfplay: SearchConfig, evaluation: SearchConfig,
             seed: np.random.SeedSequence) -> dict[str, Any]:  # fmt: skip
    """(b) the self-play targets on mate-in-one and stalemate-trap puzzles, (d) the players' solve rates."""
    torch.set_num_threads(1)
    ones = [p for p in puzzles if p.mate_in == 1]
    return {
        "noise": target_mass(ones, net, selfplay, rng(derive(seed, "noise")), add_noise=True),
        "no-noise": target_mass(ones, net, selfplay, rng(derive(seed, "no-noise")), add_noise=False),
        "policy": solved(puzzles, PolicyPlayer(NetworkEvaluator(net)), rng(derive(seed, "policy"))),
        "search": solved(
            puzzles, MCTSPlayer(NetworkLeafEvaluator(net), evaluation, name="model"), rng(derive(seed, "search"))
        ),
    }


def _calibration(net: PolicyValueNet, records: list[GameRecord] | None, variant: str, study: StudyConfig,
                 seed: np.random.SeedSequence) -> tuple[Any, Any, list[GameRecord]]:  # fmt: skip
    """(c) the value head on the network's own self-play games (played here when ``records`` is None)."""
    torch.set_num_threads(1)
    if records is None:
        setup = study.experts[variant]
        loop = setup.loop
        records = play_games(net, variant, loop.games, setup.search, seed, loop.concurrent, loop.max_plies).records
    states, results = game_positions(records)
    binned, groups = calibration(net, states, results)
    return binned, groups, records


def _references(puzzles: list[Puzzle], seed: np.random.SeedSequence) -> dict[str, list[tuple[bool, bool]]]:
    """Greedy's and Fairy-Stockfish ``go nodes 100``'s moves on the suite."""
    engines = {v: FairyPlayer(v, nodes=100) for v in SUITE_VARIANTS}
    try:
        moves = [engines[p.variant].best_move(p.state) for p in puzzles]
    finally:
        for engine in engines.values():
            engine.close()
    return {
        "greedy": solved(puzzles, GreedyPlayer(), rng(seed)),
        "fairy:nodes=100": [(m.uci() in p.best, m.uci() in p.stalemating) for p, m in zip(puzzles, moves, strict=True)],
    }


# ---- training and the tables

TARGET_FIELDS = (
    "best",
    "stalemating",
    "prior_best",
    "prior_stalemating",
    "most_visited_best",
    "best_visited",
    "q_other",
    "root_value",
)
MATCHES = (
    ("policy", False, "random"),
    ("policy", False, "greedy"),
    ("search", True, "random"),
    ("search", True, "greedy"),
)


def train(study: StudyConfig, variant: str, seed: int, keep: set[int], workers: int
          ) -> tuple[dict[int, PolicyValueNet], dict[int, list[GameRecord]]]:  # fmt: skip
    """The kept networks (0: the untrained one) and every generation's self-play records, by the generation of the
    network that played them."""
    inputs = keywords(expert_inputs(study, variant, seed))
    kept = {0: copy.deepcopy(inputs["net"])} if 0 in keep else {}
    records: dict[int, list[GameRecord]] = {}
    runner, start = PoolRunner(workers), time.perf_counter()
    try:
        for step in alphazero(**inputs, run=runner):
            records[step.index] = step.self_play.records
            if step.index + 1 in keep:
                kept[step.index + 1] = copy.deepcopy(step.champion)
            print(f"  generation {step.index + 1}: {(time.perf_counter() - start) / 60:.1f} min", flush=True)
    finally:
        runner.close()
    return kept, records


def _termination_row(generation: int, source: str, records: Sequence[GameRecord]) -> dict[str, Any]:
    player = None if source == "self-play" else "model"
    counts = termination_counts(records, player)
    wins = sum(v for k, v in counts.items() if k.endswith("-won"))
    losses = sum(v for k, v in counts.items() if k.endswith("-lost"))
    row: dict[str, Any] = {"generation": generation, "source": source, "games": len(records)}
    if player is not None:
        row |= {"wins": wins, "draws": len(records) - wins - losses, "losses": losses}
    else:
        row |= {"wins": "", "draws": sum(counts.get(t, 0) for t in TERMINATIONS[1:]), "losses": ""}
    row["checkmate"] = counts.get("checkmate", 0) + counts.get("checkmate-won", 0) + counts.get("checkmate-lost", 0)
    row["mated"] = counts.get("checkmate-lost", "") if player else ""
    for t in TERMINATIONS[1:]:
        row[t] = counts.get(t, 0)
    return row


def suite_rows(player: str, generation: int | str, puzzles: Sequence[Puzzle], marks: Sequence[tuple[bool, bool]]
                ) -> list[dict[str, Any]]:  # fmt: skip
    rows = []
    for variant in ("all", *SUITE_VARIANTS):
        for kind, mate_in in BUCKETS:
            picked = [m for p, m in zip(puzzles, marks, strict=True)
                      if (p.kind, p.mate_in) == (kind, mate_in) and variant in ("all", p.variant)]  # fmt: skip
            rows.append({"player": player, "generation": generation, "variant": variant, "kind": kind,
                         "mate_in": mate_in, "positions": len(picked),
                         "solved": round(float(np.mean([s for s, _ in picked])), 3),
                         "stalemated": round(float(np.mean([t for _, t in picked])), 3)})  # fmt: skip
    return rows


def _target_rows(generation: int, noise: str, puzzles: Sequence[Puzzle], masses: Sequence[Any]) -> list[dict[str, Any]]:
    ones = [p for p in puzzles if p.mate_in == 1]
    rows = []
    for kind in ("mate", "stalemate-trap"):
        picked = [m for p, m in zip(ones, masses, strict=True) if p.kind == kind]
        means = {k: round(float(np.mean([getattr(m, k) for m in picked])), 3) for k in TARGET_FIELDS}
        rows.append({"generation": generation, "noise": noise, "kind": kind, "positions": len(picked), **means})
    return rows


def diagnose(args: argparse.Namespace) -> None:
    params = yaml.safe_load(args.params.read_text())
    study = study_of(params, {})
    setup = study.experts[args.variant]
    generations = args.generations or setup.loop.generations
    study = replace(study, experts={args.variant: replace(setup, loop=replace(setup.loop, generations=generations))})
    keep = {int(g) for g in args.keep.split(",")} if args.keep else {0, generations}
    if not keep <= set(range(generations + 1)):
        raise SystemExit(f"benchmarks/diagnose.py: --keep must be within 0..{generations}, got {sorted(keep)}")
    puzzles = read_puzzles(args.suite)
    out = args.out or Path(tempfile.mkdtemp(prefix="diagnose-"))
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    start = time.perf_counter()

    print(f"training {args.variant}, replicate {args.seed}, {generations} generations; keeping {sorted(keep)}")
    kept, records = train(study, args.variant, args.seed, keep, args.workers)
    trained = time.perf_counter()
    seed = derive(np.random.SeedSequence(study.seed), "diagnose", args.variant)
    config = study.evaluate.config
    jobs: list[Job[Any]] = [
        Job("references", ("suite",), _references, dict(puzzles=puzzles, seed=derive(seed, "refs")))
    ]
    for g, net in sorted(kept.items()):
        for label, with_search, opponent in MATCHES:
            games = args.search_games if with_search else args.games
            kwargs = dict(net=net, search=with_search, opponent=opponent, variant=args.variant,
                          config=replace(config, games=games), seed=derive(seed, "match", label, opponent))  # fmt: skip
            jobs.append(Job("match", (str(g), label, opponent), _match, kwargs))
        jobs.append(Job("puzzles", (str(g),), _puzzles, dict(net=net, puzzles=puzzles, selfplay=setup.search,
                        evaluation=config.search, seed=derive(seed, "puzzles", str(g)))))  # fmt: skip
        jobs.append(Job("calibration", (str(g),), _calibration, dict(net=net, records=records.get(g),
                        variant=args.variant, study=study, seed=derive(seed, "selfplay", str(g)))))  # fmt: skip
    runner = PoolRunner(args.workers)
    try:
        results = iter(runner(jobs))
    finally:
        runner.close()
    references = next(results)

    terminations = [_termination_row(g, "self-play", r) for g, r in sorted(records.items())]
    targets, calibrations, suite = [], [], []
    for name, marks in references.items():
        suite += suite_rows(name, "", puzzles, marks)
    for g in sorted(kept):
        for label, _, opponent in MATCHES:
            terminations.append(_termination_row(g, f"{label}-vs-{opponent}", next(results)))
        found = next(results)
        for noise in ("no-noise", "noise"):
            targets += _target_rows(g, noise, puzzles, found[noise])
        suite += suite_rows("policy", g, puzzles, found["policy"]) + suite_rows("search", g, puzzles, found["search"])
        binned, groups, played = next(results)
        if g not in records:  # the last network's self-play, played for its calibration
            terminations.append(_termination_row(g, "self-play", played))
        for c in binned:
            calibrations.append({"generation": g, "group": f"[{c.low:+.1f}, {c.high:+.1f})", **_rounded(asdict(c))})
        for name, c in groups.items():
            calibrations.append({"generation": g, "group": name, **_rounded(asdict(c))})
    terminations.sort(key=lambda r: (r["source"] != "self-play", r["source"], r["generation"]))
    for name, rows in (("terminations", terminations), ("targets", targets), ("calibration", calibrations),
                       ("suite", suite)):  # fmt: skip
        write_csv(out / f"{name}.csv", rows)
    print(f"trained in {(trained - start) / 60:.1f} min, analysed in {(time.perf_counter() - trained) / 60:.1f} min")
    _print_tables(terminations, targets, calibrations, suite)
    print(f"\nwritten under {out}: terminations.csv, targets.csv, calibration.csv, suite.csv")


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}


def table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> None:
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for r in rows:
        print("| " + " | ".join(str(r[c]) for c in columns) + " |")


def _print_tables(terminations: list[dict[str, Any]], targets: list[dict[str, Any]],
                  calibrations: list[dict[str, Any]], suite: list[dict[str, Any]]) -> None:  # fmt: skip
    print("\n(a) How games end (self-play: by the generation's network; matches: the model's W/D/L, mated = it lost):")
    table(terminations, ["source", "generation", "games", "wins", "draws", "losses", "checkmate", "mated",
                          *TERMINATIONS[1:]])  # fmt: skip
    print("\n(b) Self-play search targets on mate-in-one positions (mean policy target on the mating / stalemating "
          "moves; the network's prior; most visited move mates):")  # fmt: skip
    table(targets, ["generation", "noise", "kind", "positions", "best", "stalemating", "prior_best",
                     "prior_stalemating", "most_visited_best", "best_visited", "q_other", "root_value"])  # fmt: skip
    print("\n(c) Value calibration over self-play positions (side to move's view):")
    table(
        [r for r in calibrations if r["positions"]],
        ["generation", "group", "positions", "mean_value", "mean_result", "wins", "draws", "losses"],
    )
    print("\n(d) Suite solve rates, all variants (solved: a best move; stalemated: played the stalemating move):")
    pooled = [r for r in suite if r["variant"] == "all"]
    keys = sorted(
        {(r["player"], str(r["generation"])) for r in pooled}, key=lambda k: (k[1] != "", int(k[1] or 0), k[0])
    )
    header = ["player", "generation", *[f"{k} {m}" for k, m in BUCKETS], "trap stalemated"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for player, generation in keys:
        mine = [r for r in pooled if (r["player"], str(r["generation"])) == (player, generation)]
        cells = {(r["kind"], r["mate_in"]): r for r in mine}
        solved_cells = [f"{cells[b]['solved']:.2f}" for b in BUCKETS]
        print(f"| {player} | {generation} | {' | '.join(solved_cells)} | {cells[BUCKETS[-1]]['stalemated']:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--make-suite", action="store_true", help="draw the puzzle suite and write it to --suite")
    parser.add_argument("--per-kind", type=int, default=20, help="--make-suite: puzzles per kind and variant")
    parser.add_argument("--suite", type=Path, default=SUITE)
    parser.add_argument("--variant", default="gardner")
    parser.add_argument("--seed", type=int, default=0, help="the replicate to train (and --make-suite's seed)")
    parser.add_argument("--generations", type=int, default=None, help="default: params.yaml's expert.generations")
    parser.add_argument("--keep", default=None, help="generations to analyse, comma-separated (default: 0 and last)")
    parser.add_argument("--games", type=int, default=100, help="raw-policy games per opponent and kept network")
    parser.add_argument("--search-games", type=int, default=50, help="search-player games per opponent and network")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--params", type=Path, default=REPO / "params.yaml")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.make_suite:
        make_suite(args.suite, args.per_kind, args.seed)
    else:
        diagnose(args)


if __name__ == "__main__":
    main()
