"""The shipped baseline networks (``mmc/play/baseline_models``): train a family's set, pin it, measure it.

    python benchmarks/baselines.py train FAMILY [--hours 4] [--workers 2] [--out DIR] [--seed 0]
    python benchmarks/baselines.py pin FAMILY [--out DIR]
    python benchmarks/baselines.py measure NAME... [--games 60] [--seed 0] [--workers 2] [--ladder]

``train`` runs a family's recipe (:data:`RECIPES`): the family's frozen benchmark's expert recipe
(``pipelines/frozen/FAMILY-v1.yaml``: its network, search, train and expert sections, the expert's own keys applied),
with the changes the recipe names, on every variant of the recipe in turn -- generation ``g`` plays
``variants[g % len(variants)]``, one network for all of them, its replay window spanning each variant's latest
generations. It runs generation after generation of ``mmc.loops.alphazero.generation`` on a pool of ``--workers``
processes until ``--hours`` of wall time (the issue's budget: at most 4 hours on 2 cores) or the recipe's last
generation. After every generation it saves the whole loop (the champion, the replay window, the time spent) to
``DIR/state.pt`` in one atomic write, so a killed run started again with the same command continues from the last
generation it finished, and the same seed plays the same games. ``--hours`` counts the wall time of every run
together. The champion is also kept every ``--every`` generations as ``DIR/gen{G:03d}.pt``.

``pin`` copies the last champion of ``DIR`` into the package as ``mmc/play/baseline_models/FAMILY-vN.pt`` and writes
every name of the family into ``mmc/play/baseline_models/baselines.json`` with the file's SHA-256, the training command,
its generations, minutes, CPU and games (the manifest ``mmc.play.baselines`` checks every load against).

``measure`` plays each shipped baseline (``baseline:NAME``, at the study's evaluation search: 24 simulations) against
its family's target opponents (:data:`TARGETS`), ``--games`` games each with paired random openings, and with
``--ladder`` rates it on its variant's ladder (the study's anchors and rating, greedy = 0) -- the numbers
BENCHMARKS.md and the docs' results page quote.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import multiprocessing as mp
import pickle
import shutil
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from learning import PoolRunner, rate_pool
from learning import study_of as with_changes

from mmc.core.atomic import atomic_write
from mmc.core.fanout import Job, serial
from mmc.core.seeding import derive, rng
from mmc.loops.alphazero import generation
from mmc.nn import PolicyValueNet, load_checkpoint, save_checkpoint
from mmc.play import MatchResult, baselines, close_player, parse_player, play_match
from pipelines.benchmarks import get_benchmark
from pipelines.calls import expert_inputs
from pipelines.config import StudyConfig
from pipelines.rows import cpu_model

REPO = Path(__file__).resolve().parent.parent
SCRIPT = "benchmarks/baselines.py"


@dataclass(frozen=True)
class Recipe:
    """How one family's baseline network is trained."""

    family: str
    benchmark: str
    """The frozen benchmark whose expert recipe this starts from."""
    variants: tuple[str, ...]
    """Played in turn, one generation each."""
    names: dict[str, str]
    """The shipped names of the network -> the variant each is meant for (``baseline:NAME``)."""
    version: int = 1
    changes: dict[str, Any] = field(default_factory=dict)
    """Dotted keys of the benchmark's params set before the study is parsed (``expert.games``)."""

    @property
    def file(self) -> str:
        return f"{self.family}-v{self.version}.pt"


RECIPES: dict[str, Recipe] = {
    "chess": Recipe(
        "chess",
        "chess-v1",
        ("gardner", "los_alamos"),
        {"gardner-v1": "gardner", "los_alamos-v1": "los_alamos"},
        changes={"expert.generations": 1000, "expert.window": 4},
    ),
    "kinarow": Recipe(
        "kinarow",
        "kinarow-v1",
        ("gomoku_6x6", "connect4", "mnk_7x7_k4"),
        {"gomoku_6x6-v1": "gomoku_6x6", "connect4-v1": "connect4", "mnk_7x7_k4-v1": "mnk_7x7_k4"},
        changes={"expert.generations": 1000, "expert.window": 6},
    ),
    "jump": Recipe(
        "jump",
        "jump-v1",
        ("jump_6x6",),
        {"jump_6x6-v1": "jump_6x6"},
        changes={
            "expert.generations": 1000,
            "expert.max_plies": 200,
            "expert.games": 64,
            "expert.concurrent": 64,
            "evaluate.max_plies": 200,  # the rule book's full game, in the measurement and the ladder too
        },
    ),
}
"""The baseline recipes by family."""

TARGETS: dict[str, list[str]] = {
    "gardner": ["greedy", "fairy:nodes=10", "fairy:nodes=30", "fairy:nodes=100"],
    "los_alamos": ["greedy", "fairy:nodes=10", "fairy:nodes=100"],
    "gomoku_6x6": ["greedy", "mcts:800"],
    "connect4": ["greedy", "mcts:800", "fairy:nodes=100"],
    "mnk_7x7_k4": ["greedy", "mcts:800"],
    "jump_6x6": ["greedy", "mcts:100"],
}
"""The opponents each baseline's variant is measured against (issue 66's targets and reports)."""


def study_of(recipe: Recipe) -> StudyConfig:
    """The benchmark's study with the recipe's variants as its experts and its changes set."""
    data = copy.deepcopy(get_benchmark(recipe.benchmark).study_params())
    data["benchmark"] = None  # a recipe of its own, from the benchmark's definition
    for variant in recipe.variants:
        data["expert"]["variants"].setdefault(variant, {})
    return with_changes(data, recipe.changes)


@dataclass
class State:
    """The loop between generations: what ``state.pt`` keeps."""

    generation: int
    champion: PolicyValueNet
    champion_index: int
    history: list[Any]
    wall_seconds: float
    cpu_seconds: float
    games: int


def _save(path: Path, state: State) -> None:
    atomic_write(path, lambda file: pickle.dump(state, file, protocol=pickle.HIGHEST_PROTOCOL))


def _load(path: Path) -> State | None:
    if not path.exists():
        return None
    with path.open("rb") as file:
        state: State = pickle.load(file)
    return state


class InProcess:
    """The serial runner with :class:`PoolRunner`'s interface: every job in this process (``--workers 0``), its CPU
    time this process's own."""

    cpu_seconds = 0.0

    def __call__(self, jobs: Sequence[Job[Any]]) -> list[Any]:
        return serial(jobs)

    def close(self) -> None:
        return None


def train(recipe: Recipe, out: Path, hours: float, workers: int, seed: int, every: int) -> State:
    """Run (or continue) ``recipe`` in ``out`` until ``hours`` of wall time in all or its last generation."""
    study = study_of(recipe)
    root = derive(study.training_seed(seed), "baseline", recipe.family)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "state.pt"
    state = _load(path)
    if state is None:
        net = expert_inputs(study, recipe.variants[0], seed).net
        state = State(0, net, -1, [], 0.0, 0.0, 0)
        print(f"{recipe.family}: a new run in {out}", flush=True)
    else:
        print(f"{recipe.family}: continuing {out} after generation {state.generation} "
              f"({state.wall_seconds / 60:.1f} min so far)", flush=True)  # fmt: skip
    runner: PoolRunner | InProcess = PoolRunner(workers) if workers else InProcess()
    last = study.experts[recipe.variants[0]].loop.generations
    try:
        while state.generation < last and state.wall_seconds < hours * 3600:
            start_wall, start_cpu, jobs_cpu = time.perf_counter(), time.process_time(), runner.cpu_seconds
            index = state.generation
            variant = recipe.variants[index % len(recipe.variants)]
            expert = study.experts[variant]
            step = generation(
                index, state.champion, state.champion_index, state.history, variant, expert.loop, expert.search,
                expert.train, root, study.device, run=runner,
            )  # fmt: skip
            state.generation, state.champion, state.champion_index = index + 1, step.champion, step.champion_index
            state.games += len(step.self_play.records)
            state.wall_seconds += time.perf_counter() - start_wall
            state.cpu_seconds += time.process_time() - start_cpu + runner.cpu_seconds - jobs_cpu
            _save(path, state)
            if state.generation % every == 0:
                save_checkpoint(state.champion, state.champion.config, out / f"gen{state.generation:03d}.pt")
            print(f"{recipe.family} generation {state.generation} ({variant}): {state.wall_seconds / 60:.1f} min, "
                  f"{state.cpu_seconds / 60:.1f} CPU-min, {state.games} games", flush=True)  # fmt: skip
    finally:
        runner.close()
    save_checkpoint(state.champion, state.champion.config, out / "champion.pt")
    return state


def pin(recipe: Recipe, out: Path, command: str, cpu: str) -> None:
    """Copy ``out``'s champion into the package and name it in the manifest."""
    state = _load(out / "state.pt")
    if state is None:
        raise SystemExit(f"{SCRIPT}: no training in {out} (run `{SCRIPT} train {recipe.family}` first)")
    source = out / "champion.pt"
    target = baselines.FOLDER / recipe.file
    shutil.copyfile(source, target)
    shutil.copyfile(source.with_suffix(".json"), target.with_suffix(".json"))
    manifest, digest = baselines.manifest(), baselines.sha256(target)
    for name, variant in recipe.names.items():
        manifest[name] = {
            "variant": variant,
            "file": recipe.file,
            "sha256": digest,
            "config_sha256": baselines.sha256(target.with_suffix(".json")),
            "family": recipe.family,
            "variants_trained": list(recipe.variants),
            "command": command,
            "generations": state.generation,
            "games": state.games,
            "wall_minutes": round(state.wall_seconds / 60, 1),
            "cpu_minutes": round(state.cpu_seconds / 60, 1),
            "cpu": cpu,
        }
    text = json.dumps(dict(sorted(manifest.items())), indent=2) + "\n"
    atomic_write(baselines.MANIFEST, lambda file: file.write(text.encode()))
    print(f"pinned {', '.join(recipe.names)}: {target} sha256 {digest}")


def _match(
    name: str, opponent: str, variant: str, games: int, seed: int, max_plies: int, opening_plies: int
) -> MatchResult:
    """``baseline:NAME`` against ``opponent`` on ``variant`` (a pool job: it builds its own players)."""
    torch.set_num_threads(1)
    a = parse_player(f"baseline:{name}", variant=variant)
    b = parse_player(opponent, variant=variant)
    try:
        generator = rng(derive(np.random.SeedSequence(seed), "baseline", name, opponent))
        return play_match(a, b, variant, games, generator, max_plies=max_plies, opening_plies=opening_plies)
    finally:
        close_player(b)


def measure(
    names: list[str], games: int, seed: int, workers: int, ladder: bool, targets: bool = True
) -> list[dict[str, Any]]:
    """Each baseline against its variant's targets (:data:`TARGETS`), and with ``ladder`` its Elo on the variant's
    ladder (its family's frozen study's anchors and rating)."""
    shipped = baselines.list_baselines()
    jobs = []
    for name in names:
        variant = shipped[name].variant
        evaluation = study_of(RECIPES[shipped[name].info["family"]]).evaluate.config
        opponents = TARGETS.get(variant, ["greedy"]) if targets else []
        plies = (evaluation.max_plies, evaluation.opening_plies)
        jobs += [(name, opponent, variant, games, seed, *plies) for opponent in opponents]
    rows = []
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
        futures = [pool.submit(_match, *job) for job in jobs]
        for (name, opponent, variant, *_), future in zip(jobs, futures, strict=True):
            result = future.result()
            low, high = result.wilson_interval()
            rows.append({"baseline": name, "variant": variant, "opponent": opponent, "games": result.games,
                         "wins": result.wins, "draws": result.draws, "losses": result.losses,
                         "score": round(result.score, 3), "low": round(low, 3), "high": round(high, 3)})  # fmt: skip
            print(f"baseline:{name} vs {opponent} on {variant}: {result.wins}/{result.draws}/{result.losses}, "
                  f"score {result.score:.3f} [{low:.3f}, {high:.3f}]", flush=True)  # fmt: skip
    if ladder:
        runner = PoolRunner(workers)
        try:
            for name in names:
                variant = shipped[name].variant
                study = study_of(RECIPES[shipped[name].info["family"]])
                net, _ = load_checkpoint(baselines.baseline_path(name))
                rated = rate_pool({name: net}, variant, study, derive(np.random.SeedSequence(seed), "ladder", name),
                                  runner)  # fmt: skip
                elo = rated.ratings
                row = {"baseline": name, "variant": variant, "opponent": "ladder (Elo, greedy = 0)",
                       "elo": round(elo.elo[name]), "low": round(elo.low[name]), "high": round(elo.high[name]),
                       "anchors": "; ".join(f"{a} {elo.elo[a]:+.0f}" for a in study.anchors(variant))}  # fmt: skip
                rows.append(row)
                print(f"baseline:{name} on {variant}'s ladder: {row['elo']:+d} [{row['low']:+d}, {row['high']:+d}]; "
                      f"anchors {row['anchors']}", flush=True)  # fmt: skip
        finally:
            runner.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(prog=SCRIPT, description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("train", help="train (or continue) a family's baseline network")
    p.add_argument("family", choices=sorted(RECIPES))
    p.add_argument("--hours", type=float, default=4.0, help="wall-time budget of all runs together (default 4)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", type=Path, default=None, help="the run's folder (default: baseline-runs/FAMILY)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--every", type=int, default=10, help="keep the champion every this many generations")
    p = sub.add_parser("pin", help="copy a trained family's champion into the package and its manifest")
    p.add_argument("family", choices=sorted(RECIPES))
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--record", default=None, help="the training command to record (default: the usual one)")
    p = sub.add_parser("measure", help="play shipped baselines against their targets (and rate them on the ladder)")
    p.add_argument("names", nargs="*", metavar="NAME", help="shipped baselines (default: all)")
    p.add_argument("--games", type=int, default=60)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--ladder", action="store_true", help="also rate each on its variant's ladder")
    p.add_argument("--ladder-only", action="store_true", help="only the ladder, not the target opponents")
    p.add_argument("--csv", type=Path, default=None, help="write the rows here too")
    args = parser.parse_args()
    if args.command == "measure":
        names = args.names or list(baselines.list_baselines())
        for name in names:
            baselines.baseline_path(name)  # unknown or corrupted: one line, before any game
        rows = measure(names, args.games, args.seed, args.workers, args.ladder or args.ladder_only,
                       not args.ladder_only)  # fmt: skip
        if args.csv:
            keys = list(dict.fromkeys(key for row in rows for key in row))
            with args.csv.open("w", newline="") as file:
                writer = csv.DictWriter(file, keys)
                writer.writeheader()
                writer.writerows(rows)
        return None
    recipe = RECIPES[args.family]  # measure returned above
    out = args.out or REPO / "baseline-runs" / args.family
    if args.command == "train":
        if args.hours <= 0 or args.workers < 0:
            raise SystemExit(f"{SCRIPT}: --hours must be > 0 and --workers >= 0 (0: every job in this process)")
        state = train(recipe, out, args.hours, args.workers, args.seed, args.every)
        print(f"{recipe.family}: {state.generation} generations, {state.wall_seconds / 60:.1f} min wall, "
              f"{state.cpu_seconds / 60:.1f} CPU-min; champion {out / 'champion.pt'}")  # fmt: skip
    elif args.command == "pin":
        command = args.record or f"python {SCRIPT} train {recipe.family}"
        pin(recipe, out, command, cpu_model())
    return None


if __name__ == "__main__":
    torch.set_num_threads(1)
    np.set_printoptions(precision=3)
    sys.exit(main())
