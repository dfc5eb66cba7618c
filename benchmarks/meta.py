"""The meta-training recipe: JOAT's settings against the multitask baseline, each start adapted and rated.

    python benchmarks/meta.py [--recipes multitask,joat] [--seeds 0,1] [--targets gardner,mallet]
        [--budgets 0,100] [--workers 2] [--params params.yaml] [--out DIR]

A recipe is one of the study's meta stages -- ``pipelines.meta.inputs``: ``params.yaml``'s network, search,
train and meta sections and a replicate's seed, exactly what ``meta_train@R`` (``joat``) or ``multitask@R`` runs
-- with some keys changed (:data:`RECIPES`): ``meta``'s, or the self-play search and training that the meta
stages share with the adaptation. For each recipe and seed (a replicate) the benchmark runs
``mmc.meta.meta_train`` on a pool of ``--workers`` processes of one torch thread each (``PoolRunner``, as
``benchmarks/learning.py``) and records the CPU-minutes it spent; then it adapts the final network to every
target with every budget as ``adapt@T-R`` does (``mmc.meta.adapt_many`` with the recipe's search and training
and the stage's seeds, so every recipe's adaptation plays from the same random streams), and rates every
adapted network of a target in one pool with the study's rating (``benchmarks.learning.rate_pool``: greedy = 0,
bootstrap 95 % intervals).

It prints one row per model and a summary per recipe x target x budget -- the Elo averaged over the seeds and its
difference from ``multitask``'s, seed by seed (the same seed is the same task batches, the same first games and
the same adaptation streams) -- and writes ``models.csv``, ``summary.csv`` and ``anchors.csv`` under ``--out``
(default: a new temporary directory), the numbers BENCHMARKS.md quotes. The meta-training's CPU-minutes are
beside each recipe, so that a recipe that spends more is seen to.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from learning import (  # benchmarks/learning.py, beside this script
    PoolRunner,
    check_anchors,
    chosen,
    rate_pool,
    study_of,
    write_csv,
)

from mmc.games.chess import VARIANTS
from mmc.meta import Adaptation, adapt_many, meta_train
from mmc.nn import PolicyValueNet
from mmc.seeding import derive
from pipelines import meta
from pipelines.adapt import STAGE as ADAPT_STAGE
from pipelines.calls import keywords
from pipelines.config import StudyConfig

REPO = Path(__file__).resolve().parent.parent

CONVERT_ENDGAME = {"train.convert_weight": 4.0, "train.convert_plies": 5, "search.endgame_starts": 0.25}
"""Issue 34's change adopted for the experts (``benchmarks/learning.py``'s ``convert-4x5-endgame``), as shared keys."""

RECIPES: dict[str, tuple[str, dict[str, Any]]] = {
    "multitask": ("multitask", {}),
    "joat": ("joat", {}),
    "joat-e2": ("joat", {"meta.epochs": 2}),  # a short inner update: nearer a gradient step on each task
    "joat-g16": ("joat", {"meta.generations": 16, "meta.games": 24}),  # twice the outer steps, the same games
    "joat-t6": ("joat", {"meta.tasks": 6, "meta.games": 32}),  # every train variant in each batch, the same games
    "joat-eps05": ("joat", {"meta.epsilon": 0.5}),  # half the Reptile step
    # the expert screen's best candidate (benchmarks/learning.py's solver-d97, the expert recipe since issue 21) in the
    # meta stage's and the adaptations' self-play and training (the shared sections)
    "multitask-sd97": ("multitask", {"search.solver": True, "train.value_discount": 0.97}),
    "joat-sd97": ("joat", {"search.solver": True, "train.value_discount": 0.97}),
    # issue 34's adopted expert change (benchmarks/learning.py's convert-4x5-endgame on top of the expert recipe): the
    # winner's last three moves weighted 4x, a quarter of self-play's games from endgame starts, here in the shared
    # sections (the meta stages' self-play and training and the adaptations')
    "multitask-ce": ("multitask", CONVERT_ENDGAME),
    "joat-ce": ("joat", CONVERT_ENDGAME),
}
"""Recipes by name: the meta stage's kind (``joat`` or ``multitask``) and dotted ``params.yaml`` keys with their
values."""


@dataclass(frozen=True)
class Trained:
    recipe: str
    seed: int
    cpu_minutes: float
    wall_minutes: float
    net: PolicyValueNet

    def label(self, budget: int) -> str:
        """The name of this network adapted with ``budget`` games."""
        return f"{self.recipe}-s{self.seed}-b{budget}"


def meta_recipe(study: StudyConfig, recipe: str, seed: int, workers: int) -> Trained:
    """The meta stage of ``recipe`` in replicate ``seed``: its final network and the CPU and wall time it took."""
    kind, _ = RECIPES[recipe]
    runner = PoolRunner(workers)
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    net = None
    try:
        for generation in meta_train(**keywords(meta.inputs(study, kind, seed)), run=runner):
            net = generation.net
    finally:
        runner.close()
    assert net is not None, "meta.generations >= 1"
    cpu = (runner.cpu_seconds + time.process_time() - start_cpu) / 60
    wall = (time.perf_counter() - start_wall) / 60
    print(f"  {recipe} seed {seed}: {cpu:.1f} CPU-min, {wall:.1f} min", flush=True)
    return Trained(recipe, seed, cpu, wall, net)


def adapted(studies: Mapping[str, StudyConfig], started: Sequence[Trained], target: str, budgets: Sequence[int],
            runner: PoolRunner) -> dict[str, PolicyValueNet]:  # fmt: skip
    """Every network of ``started`` adapted to ``target`` with every budget, as ``adapt@T-R`` adapts a start: its
    seeds, concurrency and ply cap, and the search and training of the network's recipe (``studies``); by
    :meth:`Trained.label`."""
    models: dict[str, PolicyValueNet] = {}
    for recipe in dict.fromkeys(t.recipe for t in started):
        study = studies[recipe]
        config = study.adapt.config
        items = [
            Adaptation(t.label(b), t.net, target, b,
                       derive(derive(study.training_seed(t.seed), ADAPT_STAGE, target), "budget", b))
            for t in started if t.recipe == recipe for b in budgets
        ]  # fmt: skip
        done = adapt_many(items, study.search, config.training(study.train), concurrent=config.concurrent,
                          max_plies=config.max_plies, device=study.device, run=runner)  # fmt: skip
        models.update((item.label, result.net) for item, result in zip(items, done, strict=True))
    return models


def summarise(rows: Sequence[Mapping[str, Any]], recipes: Sequence[str]) -> list[dict[str, Any]]:
    """One row per recipe x target x budget from ``models.csv``'s rows: the Elo (and interval ends) averaged over
    the seeds, and the mean over seeds of its difference from ``multitask``'s model of the same seed (when
    multitask ran), with the smallest and largest of those differences."""
    by: dict[tuple[str, str, int], dict[int, Mapping[str, Any]]] = {}
    for row in rows:
        by.setdefault((row["recipe"], row["target"], row["budget"]), {})[row["seed"]] = row
    summary = []
    for (recipe, target, budget), seeds in by.items():
        if recipe not in recipes:
            continue
        base = by.get(("multitask", target, budget), {})
        differences = [seeds[s]["elo"] - base[s]["elo"] for s in seeds if s in base]
        summary.append({
            "recipe": recipe, "target": target, "budget": budget, "seeds": len(seeds),
            "cpu_minutes": round(float(np.mean([r["cpu_minutes"] for r in seeds.values()])), 2),
            "elo": round(float(np.mean([r["elo"] for r in seeds.values()]))),
            "low": round(float(np.mean([r["low"] for r in seeds.values()]))),
            "high": round(float(np.mean([r["high"] for r in seeds.values()]))),
            "vs_multitask": round(float(np.mean(differences))) if differences else "",
            "vs_multitask_min": min(differences) if differences else "",
            "vs_multitask_max": max(differences) if differences else "",
        })  # fmt: skip
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipes", default="multitask,joat", help=f"comma-separated, of {', '.join(RECIPES)}")
    parser.add_argument("--seeds", default="0,1", help="replicates to meta-train each recipe from (comma-separated)")
    parser.add_argument("--targets", default="gardner,mallet", help="variants to adapt to and rate on")
    parser.add_argument("--budgets", default="0,100", help="adaptation budgets, self-play games (0: zero-shot)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--params", type=Path, default=REPO / "params.yaml", help="the study's parameter file")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    recipes = chosen(args.recipes, RECIPES, "benchmarks/meta.py", "--recipes")
    targets = chosen(args.targets, VARIANTS, "benchmarks/meta.py", "--targets")
    seeds = [int(s) for s in args.seeds.split(",")]
    budgets = [int(b) for b in args.budgets.split(",")]
    params = yaml.safe_load(args.params.read_text())
    studies = {r: study_of(params, RECIPES[r][1]) for r in recipes}
    base = study_of(params, {})
    check_anchors(base, targets, "benchmarks/meta.py")
    out = args.out or Path(tempfile.mkdtemp(prefix="meta-"))
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)

    started: list[Trained] = []
    for recipe in recipes:
        kind, changes = RECIPES[recipe]
        print(f"meta-training {recipe} ({kind}): {changes or 'params.yaml'}", flush=True)
        started += [meta_recipe(studies[recipe], recipe, seed, args.workers) for seed in seeds]

    rows, anchors = [], []
    seed = derive(np.random.SeedSequence(base.seed), "meta-benchmark")
    runner = PoolRunner(args.workers)
    try:
        for target in targets:
            start = time.perf_counter()
            models = adapted(studies, started, target, budgets, runner)
            ratings = rate_pool(models, target, base, derive(seed, target), runner).ratings
            print(f"{target}: adapted and rated {len(models)} models in {(time.perf_counter() - start) / 60:.1f} min")
            anchors += [{"target": target, "anchor": a, "elo": round(ratings.elo[a]), "low": round(ratings.low[a]),
                         "high": round(ratings.high[a])} for a in base.anchors(target)]  # fmt: skip
            rows += [{"recipe": t.recipe, "seed": t.seed, "target": target, "budget": b,
                      "cpu_minutes": round(t.cpu_minutes, 3), "wall_minutes": round(t.wall_minutes, 3),
                      "elo": round(ratings.elo[t.label(b)]), "low": round(ratings.low[t.label(b)]),
                      "high": round(ratings.high[t.label(b)])} for t in started for b in budgets]  # fmt: skip
    finally:
        runner.close()
    write_csv(out / "models.csv", rows)
    write_csv(out / "anchors.csv", anchors)
    for target in targets:
        print(f"{target} anchors: " + ", ".join(f"{a['anchor']} {a['elo']:+d}" for a in anchors
                                                 if a["target"] == target))  # fmt: skip

    print("\nEvery model, Elo on its target's ladder (greedy = 0) with its 95 % interval; CPU-minutes of its "
          "meta-training:")  # fmt: skip
    print("| recipe | seed | target | budget | meta CPU-min | Elo [95 %] |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['recipe']} | {r['seed']} | {r['target']} | {r['budget']} | {r['cpu_minutes']:.1f} "
              f"| {r['elo']:+d} [{r['low']:+d}, {r['high']:+d}] |")  # fmt: skip

    summary = summarise(rows, recipes)
    write_csv(out / "summary.csv", summary)
    print("\nPer recipe, target and budget, averaged over the seeds; vs multitask: the mean of the seed-by-seed "
          "differences (smallest, largest):")  # fmt: skip
    print("| recipe | target | budget | meta CPU-min | Elo [95 %] | vs multitask (min, max) |")
    print("|---|---|---|---|---|---|")
    for s in summary:
        versus = "" if s["vs_multitask"] == "" else (
            f"{s['vs_multitask']:+d} ({s['vs_multitask_min']:+d}, {s['vs_multitask_max']:+d})")  # fmt: skip
        print(f"| {s['recipe']} | {s['target']} | {s['budget']} | {s['cpu_minutes']:.1f} "
              f"| {s['elo']:+d} [{s['low']:+d}, {s['high']:+d}] | {versus} |")  # fmt: skip
    print(f"\nwritten: {out / 'models.csv'}, {out / 'anchors.csv'}, {out / 'summary.csv'}")


if __name__ == "__main__":
    main()
