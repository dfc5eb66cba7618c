"""The meta-training recipe: JOAT's settings against the multitask baseline, each start adapted and rated.

    python benchmarks/meta.py [--recipes multitask,joat] [--seeds 0,1] [--targets gardner,mallet]
        [--budgets 0,100] [--workers 2] [--params params.yaml] [--out DIR]
        [--task-counts 5,10,20,40 [--pool PATTERNS]]

A recipe is one of the study's meta stages -- ``pipelines.starts.learner_setup``: ``params.yaml``'s network, search,
train and meta sections and a replicate's seed, exactly what ``joat@R`` or ``multitask@R`` runs
-- with some keys changed (:data:`RECIPES`): ``meta``'s, or the self-play search and training that the meta
stages share with the adaptation. For each recipe and seed (a replicate) the benchmark runs the learner
(``mmc.meta.meta_train`` inside) on a pool of ``--workers`` processes of one torch thread each (``PoolRunner``, as
``benchmarks/learning.py``) and records the CPU-minutes it spent; then it adapts the final network to every
target with every budget as ``adapt@T-R`` does (``mmc.meta.adapt_many`` with the recipe's search and training
and the stage's seeds, so every recipe's adaptation plays from the same random streams), and rates every
adapted network of a target in one pool with the study's rating (``benchmarks.learning.rate_pool``: greedy = 0,
bootstrap 95 % intervals).

It prints one row per model and a summary per recipe x target x budget -- the Elo averaged over the seeds and its
difference from ``multitask``'s, seed by seed (the same seed is the same task batches, the same first games and
the same adaptation streams) -- and writes ``models.csv``, ``summary.csv`` and ``anchors.csv`` under ``--out``
(default: a new temporary directory), the numbers BENCHMARKS.md quotes. The meta-training's CPU-minutes are
beside each recipe, so that a recipe that spends more is seen to. ``--targets`` (default: the study's
``adapt.targets``) are variants of the study's family, generated ids included.

**The task-count sweep** (``--task-counts``, issue 47 part 7): how the answer moves with the number of meta-training
variants, as Procgen swept its number of levels. Each recipe meta-trains once per count N and seed on N variants
drawn without replacement from the study's distribution (``meta.train_variants``, a mapping; ``--pool`` replaces its
``variants`` patterns, and the targets are always left out of it), at the same total games whatever N (the task
batch, the games per task and the generations stay the study's, so N must be at least ``meta.tasks``). Each seed
draws its own N variants (``tasks.csv``): a replicate's spread covers the draw as well as the training. Every seed's
``scratch`` (the untrained network the study rates, budget 0) joins each target's pool, and the sweep's table gives,
per target, budget and N, JOAT - multitask paired by seed with its two-level bootstrap interval and verdict
(``mmc.evaluation.comparison.compare``; ``uninformative`` where either start did not beat scratch at budget 0 by more
than that margin's half-width, as the study's verdicts), written as ``sweep.csv``.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
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

from mmc.core.atomic import atomic_write
from mmc.core.configs import ConfigError
from mmc.core.seeding import derive, int_seed
from mmc.evaluation.comparison import UNINFORMATIVE, Comparison, compare, learned
from mmc.evaluation.rating import Ratings
from mmc.evaluation.starts import SCRATCH
from mmc.games import get_family, get_game
from mmc.meta import Adaptation, Service, adapt_many, get_learner
from mmc.meta.tasks import TaskDistribution, task_seed
from mmc.nn import PolicyValueNet, build_network, load_checkpoint, save_checkpoint
from pipelines.adapt import STAGE as ADAPT_STAGE
from pipelines.config import StudyConfig
from pipelines.paths import Paths
from pipelines.starts import learner_setup

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
    """The recipe's name, with ``@nN`` in the task-count sweep (``joat@n5``: JOAT on 5 variants)."""
    seed: int
    cpu_minutes: float
    wall_minutes: float
    net: PolicyValueNet

    def label(self, budget: int) -> str:
        """The name of this network adapted with ``budget`` games."""
        return f"{self.recipe}-s{self.seed}-b{budget}"


@dataclass(frozen=True)
class Arm:
    """A recipe as the benchmark runs it: its name (``joat``, or ``joat@n5`` in the sweep), its :data:`RECIPES` entry
    and its study per seed (in the sweep each seed meta-trains on variants of its own draw)."""

    name: str
    recipe: str
    studies: dict[int, StudyConfig]
    count: int | None = None
    """The number of meta-training variants in the task-count sweep; ``None`` outside it."""


def meta_recipe(study: StudyConfig, arm: str, kind: str, seed: int, workers: int, out: Path) -> Trained:
    """The meta stage of ``kind`` with ``study`` in replicate ``seed``: its final network and the CPU and wall time it
    took. The network is kept under ``out/nets`` with its times, keyed by everything the meta-training reads, and
    taken from there when the benchmark runs again with the same ``--out``: a benchmark stopped midway keeps the
    recipes it finished."""
    key = hashlib.sha256(repr((kind, study.seed, seed, study.network, study.meta, study.search, study.train)).encode())
    path = out / "nets" / f"{arm}-s{seed}-{key.hexdigest()[:12]}.pt"
    times = path.with_suffix(".times.json")
    if path.is_file() and times.is_file():
        cpu, wall = json.loads(times.read_text())
        print(f"  {arm} seed {seed}: kept from {path}", flush=True)
        return Trained(arm, seed, cpu, wall, load_checkpoint(path)[0])
    runner = PoolRunner(workers)
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    try:
        setup = learner_setup(study, Paths(out), kind, seed)
        net = get_learner(kind).learn(setup, Service(kind, study.learners.budget, runner)).net
    finally:
        runner.close()
    cpu = (runner.cpu_seconds + time.process_time() - start_cpu) / 60
    wall = (time.perf_counter() - start_wall) / 60
    print(f"  {arm} seed {seed}: {cpu:.1f} CPU-min, {wall:.1f} min", flush=True)
    save_checkpoint(net, net.config, path)
    atomic_write(times, lambda file: file.write(json.dumps([cpu, wall]).encode()))
    return Trained(arm, seed, cpu, wall, net.eval())


def scratch(study: StudyConfig, seed: int) -> Trained:
    """Replicate ``seed``'s ``scratch``: the untrained network the study's adapt and evaluate stages make
    (``pipelines.starts.load_start``), in eval mode."""
    net = build_network(study.network, int_seed(derive(study.training_seed(seed), SCRATCH, "network")))
    return Trained(SCRATCH, seed, 0.0, 0.0, net.eval())


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


def baseline(arm: str) -> str:
    """The multitask arm that ``arm`` is compared with: ``multitask``, or ``multitask@n5`` for ``joat@n5``."""
    return "multitask" + arm[arm.index("@") :] if "@" in arm else "multitask"


def summarise(rows: Sequence[Mapping[str, Any]], recipes: Sequence[str]) -> list[dict[str, Any]]:
    """One row per recipe x target x budget from ``models.csv``'s rows: the Elo (and interval ends) averaged over
    the seeds, and the mean over seeds of its difference from ``multitask``'s model of the same seed (when
    multitask ran; in the sweep, multitask's on as many variants: :func:`baseline`), with the smallest and largest
    of those differences."""
    by: dict[tuple[str, str, int], dict[int, Mapping[str, Any]]] = {}
    for row in rows:
        by.setdefault((row["recipe"], row["target"], row["budget"]), {})[row["seed"]] = row
    summary = []
    for (recipe, target, budget), seeds in by.items():
        if recipe not in recipes:
            continue
        base = by.get((baseline(recipe), target, budget), {})
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


SCRIPT = "benchmarks/meta.py"


def family_targets(text: str | None, study: StudyConfig) -> list[str]:
    """``--targets``: comma-separated variants of the study's family (generated ids too); the study's
    ``adapt.targets`` when not given. ``SystemExit`` naming the unknown ones (before any work starts)."""
    if text is None:
        return list(study.targets)
    names = text.split(",")
    unknown = []
    for name in names:
        try:
            known = get_game(name).name == study.family
        except ValueError:
            known = False
        if not known:
            unknown.append(name)
    if unknown:
        named = ", ".join(get_family(study.family).variants)
        raise SystemExit(f"{SCRIPT}: --targets: unknown {unknown}; known: {named} (and the family's generated ids)")
    return names


def sweep_pool(params: Mapping[str, Any], pool: str | None, targets: Sequence[str]) -> dict[str, Any]:
    """The task-count sweep's distribution: ``params``'s ``meta.train_variants`` (a mapping), its ``variants``
    replaced by ``pool``'s space-separated patterns if given, the targets added to what it leaves out.
    ``SystemExit`` naming the option or key at fault."""
    spec = params["meta"]["train_variants"]
    if not isinstance(spec, Mapping) and pool is None:
        raise SystemExit(
            f"{SCRIPT}: --task-counts: meta.train_variants is a list, not a distribution to draw from; give --pool"
        )
    spec = dict(spec) if isinstance(spec, Mapping) else {}
    if pool is not None:
        spec["variants"] = pool.split()
    spec["exclude"] = [*spec.get("exclude", []), *targets]
    spec.pop("draw", None)
    try:
        TaskDistribution.from_params(spec)
    except ConfigError as error:
        raise SystemExit(f"{SCRIPT}: --pool: {error.field}: {error.problem}") from None
    return spec


def task_counts(text: str, spec: Mapping[str, Any], study: StudyConfig, budgets: Sequence[int]) -> list[int]:
    """``--task-counts``: numbers of meta-training variants, each at least the task batch (``meta.tasks``: fewer
    variants than a batch would play fewer games) and at most the distribution's size. ``SystemExit`` naming the
    option at fault."""
    try:
        counts = [int(c) for c in text.split(",")]
    except ValueError:
        raise SystemExit(f"{SCRIPT}: --task-counts: comma-separated whole numbers, got {text!r}") from None
    size = len(TaskDistribution.from_params(spec).support())
    wrong = [c for c in counts if not study.meta.tasks <= c <= size]
    if wrong:
        raise SystemExit(
            f"{SCRIPT}: --task-counts: {wrong} outside {study.meta.tasks}..{size}: at least meta.tasks (a task batch"
            f" of {study.meta.tasks}: the same games per generation) and at most the {size} variants of the pool"
        )
    if 0 not in budgets:
        raise SystemExit(f"{SCRIPT}: --budgets: must include 0 with --task-counts (each start is checked against "
                         "scratch at budget 0)")  # fmt: skip
    return counts


def arms(params: Mapping[str, Any], recipes: Sequence[str], seeds: Sequence[int], counts: Sequence[int],
         spec: Mapping[str, Any] | None) -> list[Arm]:  # fmt: skip
    """Every recipe as it runs: once, or once per task count of the sweep, where seed ``s`` of count ``N`` meta-trains
    on N variants drawn from ``spec`` with the stream ``("sweep", N, s)`` of the study's task draw."""
    if not counts or spec is None:
        return [Arm(r, r, dict.fromkeys(seeds, study_of(params, RECIPES[r][1]))) for r in recipes]
    root_seed = study_of(params, {}).seed
    found = []
    for count in counts:
        distribution = TaskDistribution.from_params({**spec, "draw": count})
        drawn = {s: distribution.sample(derive(task_seed(root_seed), "sweep", count, s)) for s in seeds}
        for recipe in recipes:
            changes = RECIPES[recipe][1]
            studies = {s: study_of(params, {**changes, "meta.train_variants": list(drawn[s])}) for s in seeds}
            found.append(Arm(f"{recipe}@n{count}", recipe, studies, count))
    return found


def sweep(ratings: Ratings, found: Sequence[Arm], seeds: Sequence[int], target: str, budgets: Sequence[int],
          rng: np.random.Generator) -> list[dict[str, Any]]:  # fmt: skip
    """The sweep's rows on ``target``: per task count, budget and recipe other than multitask, ``recipe -
    multitask`` paired by seed (``mmc.evaluation.comparison.compare``) with its verdict, ``uninformative`` unless both
    starts' budget-0 models beat scratch's by more than that margin's half-width
    (``mmc.evaluation.comparison.learned``), and both margins."""
    base = [f"{SCRATCH}-s{s}-b0" for s in seeds]

    def margin(arm: str) -> Comparison:
        return compare(ratings, [f"{arm}-s{s}-b0" for s in seeds], base, rng)

    rows = []
    for arm in found:
        if arm.recipe == "multitask" or arm.count is None:
            continue
        other = baseline(arm.name)
        own, theirs = margin(arm.name), margin(other)
        for budget in budgets:
            c = compare(ratings, [f"{arm.name}-s{s}-b{budget}" for s in seeds],
                        [f"{other}-s{s}-b{budget}" for s in seeds], rng)  # fmt: skip
            said = c.verdict if learned(own) and learned(theirs) else UNINFORMATIVE
            rows.append({"target": target, "tasks": arm.count, "budget": budget, "recipe": arm.recipe,
                         "seeds": len(seeds), "difference": round(c.difference), "low": round(c.low),
                         "high": round(c.high), "half_width": round(c.detectable), "verdict": said,
                         "recipe_vs_scratch": round(own.difference), "recipe_vs_scratch_half": round(own.detectable),
                         "multitask_vs_scratch": round(theirs.difference),
                         "multitask_vs_scratch_half": round(theirs.detectable)})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipes", default="multitask,joat", help=f"comma-separated, of {', '.join(RECIPES)}")
    parser.add_argument("--seeds", default="0,1", help="replicates to meta-train each recipe from (comma-separated)")
    parser.add_argument(
        "--targets",
        default=None,
        help="variants of the study's family to adapt to and rate on (default: its adapt.targets)",
    )
    parser.add_argument("--budgets", default="0,100", help="adaptation budgets, self-play games (0: zero-shot)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--params", type=Path, default=REPO / "params.yaml", help="the study's parameter file")
    parser.add_argument(
        "--task-counts",
        default=None,
        help="the task-count sweep: comma-separated numbers of meta-training variants, each recipe "
        "meta-trained on that many drawn from the study's distribution, at the same games",
    )
    parser.add_argument("--pool", default=None,
                        help="with --task-counts: space-separated id patterns the counts draw from, in place of the "
                             "distribution's own (the targets are left out)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help="a folder; the same one again resumes")
    args = parser.parse_args()
    recipes = chosen(args.recipes, RECIPES, SCRIPT, "--recipes")
    seeds = [int(s) for s in args.seeds.split(",")]
    budgets = [int(b) for b in args.budgets.split(",")]
    params = yaml.safe_load(args.params.read_text())
    base = study_of(params, {})
    targets = family_targets(args.targets, base)
    spec, counts = None, []
    if args.task_counts is not None:
        spec = sweep_pool(params, args.pool, targets)
        counts = task_counts(args.task_counts, spec, base, budgets)
        params = copy.deepcopy(params)
        params["meta"]["train_variants"] = spec
        base = study_of(params, {})
    elif args.pool is not None:
        raise SystemExit(f"{SCRIPT}: --pool: only with --task-counts")
    found = arms(params, recipes, seeds, counts, spec)
    check_anchors(base, targets, SCRIPT)
    out = args.out or Path(tempfile.mkdtemp(prefix="meta-"))
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    if spec is not None:
        tasks = [{"arm": a.name, "seed": s, "tasks": a.count, "variants": " ".join(a.studies[s].meta.train_variants)}
                 for a in found for s in seeds if a.recipe == recipes[0]]  # fmt: skip
        write_csv(out / "tasks.csv", tasks)
        assert base.distribution is not None  # the sweep's pool, as the study's config expanded it
        size = len(base.distribution.support())
        drawn = f"{' '.join(spec['variants'])} less {' '.join(spec['exclude'])}"
        print(f"the sweep draws from the {size} variants of {drawn}; each seed's draw: {out / 'tasks.csv'}", flush=True)

    started: list[Trained] = []
    for arm in found:
        kind, changes = RECIPES[arm.recipe]
        print(f"meta-training {arm.name} ({kind}): {changes or 'params.yaml'}", flush=True)
        started += [meta_recipe(arm.studies[s], arm.name, kind, s, args.workers, out) for s in seeds]
    scratches = [scratch(base, s) for s in seeds] if counts else []

    rows, anchors, swept = [], [], []
    seed = derive(np.random.SeedSequence(base.seed), "meta-benchmark")
    runner = PoolRunner(args.workers)
    try:
        for target in targets:
            start = time.perf_counter()
            models = adapted({a.name: a.studies[seeds[0]] for a in found}, started, target, budgets, runner)
            models |= {t.label(0): t.net for t in scratches}
            rated = rate_pool(models, target, base, derive(seed, target), runner).ratings
            print(f"{target}: adapted and rated {len(models)} models in {(time.perf_counter() - start) / 60:.1f} min")
            anchors += [{"target": target, "anchor": a, "elo": round(rated.elo[a]), "low": round(rated.low[a]),
                         "high": round(rated.high[a])} for a in base.anchors(target)]  # fmt: skip
            rows += [{"recipe": t.recipe, "seed": t.seed, "target": target, "budget": b,
                      "cpu_minutes": round(t.cpu_minutes, 3), "wall_minutes": round(t.wall_minutes, 3),
                      "elo": round(rated.elo[t.label(b)]), "low": round(rated.low[t.label(b)]),
                      "high": round(rated.high[t.label(b)])}
                     for t in [*started, *scratches] for b in budgets if t.recipe != SCRATCH or b == 0]  # fmt: skip
            if counts:
                stream = np.random.default_rng(derive(seed, target, "sweep"))
                swept += sweep(rated, found, seeds, target, budgets, stream)
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

    summary = summarise(rows, [a.name for a in found])
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
    if counts:
        write_csv(out / "sweep.csv", swept)
        print("\nThe task-count sweep: recipe - multitask on as many variants, paired by seed (mean of the seeds, 95 % "
              "interval, verdict); each start's budget-0 margin over scratch and its half-width:")  # fmt: skip
        print("| target | variants | budget | recipe - multitask [95 %] | verdict | recipe - scratch | "
              "multitask - scratch |")  # fmt: skip
        print("|---|---|---|---|---|---|---|")
        for r in swept:
            print(f"| {r['target']} | {r['tasks']} | {r['budget']} | {r['recipe']} {r['difference']:+d} "
                  f"[{r['low']:+d}, {r['high']:+d}] | {r['verdict']} | {r['recipe_vs_scratch']:+d} "
                  f"(±{r['recipe_vs_scratch_half']}) | {r['multitask_vs_scratch']:+d} "
                  f"(±{r['multitask_vs_scratch_half']}) |")  # fmt: skip
    written = ["models.csv", "anchors.csv", "summary.csv", *(["tasks.csv", "sweep.csv"] if counts else [])]
    print(f"\nwritten under {out}: {', '.join(written)}")


if __name__ == "__main__":
    main()
