"""Do the study's verdicts hold? The coverage of its 2-replicate intervals and the flips between stopping points
(issue 61).

    python benchmarks/verdicts.py [--params studies/gomoku/params.yaml] [--seeds 0-15] [--stops -1,0,1]
        [--averages 1,4] [--budgets 0,64] [--targets T,...] [--replicates 2,3] [--draws 400] [--workers 2]
        [--out DIR]

JOAT and multitask are meta-trained as the study's ``joat@R`` and ``multitask@R`` stages train them
(``pipelines.starts.learner_setup``: the study's network, search, training and ``meta`` section, replicate ``R``'s
seed) once per seed of ``--seeds``, to ``meta.generations`` plus the largest of ``--stops``; a meta-generation does
not depend on how many follow it, so one run gives every stopping point ``G + s``. At each stopping point, each
*design* of ``--averages`` makes a start: ``a1`` the stopping generation's network (the study's design until issue
61), ``aK`` the mean of the weights of the last K generations (``mmc.meta.tail_average``, the ``meta.average`` key).
Every start is adapted to every target with every budget as ``adapt@T-R`` adapts it (``benchmarks/meta.py``'s
``adapted``) and every adapted network of a target is rated in one pool with the study's rating
(``benchmarks/learning.py``'s ``rate_pool``: greedy = 0, bootstrap samples over games).

Then, per target, budget, design and stopping point, with the difference ``d_s = joat_s - multitask_s`` of seed ``s``:

- **the reference**: the mean of ``d_s`` over all the seeds;
- **coverage**: for ``--draws`` draws of n distinct seeds (n of ``--replicates``; every subset when there are fewer),
  the study's interval (``mmc.evaluation.comparison.compare``: the two-level bootstrap over games and the n
  replicates) and how often it contains the reference; the reference has its own error (its standard error is
  printed beside it), so the rate is of containing the best estimate there is, not the truth;
- **flips**: for the same draws, whether the verdict at ``G + s`` differs from the one at the next stopping point
  (the same seeds, a generation more);
- **the fragile check** (``mmc.evaluation.comparison.holds``): how often the study's own check calls a verdict
  fragile, and how many of the verdicts that flip it had called fragile.

It writes ``models.csv`` (every adapted network's Elo), ``draws.csv`` (every draw's interval and verdict) and
``summary.csv`` under ``--out`` (default: a new temporary directory) and prints the summary as BENCHMARKS.md
quotes it. Networks are kept under ``--out/nets`` and each target's ratings in ``--out/ratings-T.npz``: the same
``--out`` again resumes and re-analyses without playing again.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import statistics
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from learning import PoolRunner, check_anchors, rate_pool, study_of, write_csv  # benchmarks/learning.py
from meta import Trained, adapted, family_targets  # benchmarks/meta.py

from mmc.core.atomic import atomic_write
from mmc.core.seeding import derive
from mmc.evaluation.comparison import NO_DIFFERENCE, Comparison, compare, pooled, widened
from mmc.evaluation.rating import Ratings
from mmc.meta import meta_train, tail_average
from mmc.nn import load_checkpoint, save_checkpoint
from pipelines.config import StudyConfig
from pipelines.paths import Paths
from pipelines.starts import learner_setup

REPO = Path(__file__).resolve().parent.parent
SCRIPT = "benchmarks/verdicts.py"
KINDS = ("joat", "multitask")


def numbers(text: str, option: str) -> list[int]:
    """``0,1,2`` or ``0-15`` (inclusive) or a mix; ``SystemExit`` naming ``option``."""
    found: list[int] = []
    try:
        for part in text.split(","):
            first, _, last = part.partition("-") if not part.startswith("-") else (part, "", "")
            found += list(range(int(first), int(last) + 1)) if last else [int(first)]
    except ValueError:
        raise SystemExit(f"{SCRIPT}: {option}: comma-separated whole numbers or ranges A-B, got {text!r}") from None
    return found


def label(kind: str, stop: int, average: int) -> str:
    """A start's name: ``joat@g16a4`` (JOAT stopped at generation 16, its last 4 generations averaged)."""
    return f"{kind}@g{stop}a{average}"


def trained(study: StudyConfig, kind: str, seed: int, stops: Sequence[int], averages: Sequence[int], workers: int,
            out: Path) -> list[Trained]:  # fmt: skip
    """Replicate ``seed``'s ``kind`` meta-trained to the last of ``stops`` (generations), one start per stop and
    average; kept under ``out/nets`` keyed by what the training reads, so that a second run takes them from there."""
    key = hashlib.sha256(repr((kind, study.seed, seed, study.network, study.meta, study.search, study.train,
                               tuple(stops), tuple(averages))).encode()).hexdigest()[:12]  # fmt: skip
    folder = out / "nets" / f"{kind}-s{seed}-{key}"
    names = [label(kind, g, a) for g in stops for a in averages]
    times = folder / "times.json"
    if times.is_file():
        cpu, wall = json.loads(times.read_text())
        print(f"  {kind} seed {seed}: kept from {folder}", flush=True)
        return [Trained(n, seed, cpu, wall, load_checkpoint(folder / f"{n}.pt")[0].eval()) for n in names]
    runner = PoolRunner(workers)
    start_cpu, start_wall = time.process_time(), time.perf_counter()
    meta = replace(study.meta, generations=max(stops), average=1)
    setup = learner_setup(study, Paths(out), kind, seed)
    nets = []
    try:
        for generation in meta_train(kind, setup.initial_network(), meta, setup.search, setup.train, setup.seed,
                                     setup.device, run=runner):  # fmt: skip
            nets.append(generation.net)
    finally:
        runner.close()
    cpu = (runner.cpu_seconds + time.process_time() - start_cpu) / 60
    wall = (time.perf_counter() - start_wall) / 60
    print(f"  {kind} seed {seed}: {cpu:.1f} CPU-min, {wall:.1f} min", flush=True)
    folder.mkdir(parents=True, exist_ok=True)
    made = []
    for g in stops:
        for a in averages:
            net = tail_average(nets[g - a : g])
            save_checkpoint(net, net.config, folder / f"{label(kind, g, a)}.pt")
            made.append(Trained(label(kind, g, a), seed, cpu, wall, net))
    atomic_write(times, lambda file: file.write(json.dumps([cpu, wall]).encode()))
    return made


def rated(study: StudyConfig, started: Sequence[Trained], target: str, budgets: Sequence[int], workers: int,
          out: Path) -> Ratings:  # fmt: skip
    """Every start adapted to ``target`` with every budget and rated in one pool; kept in ``out/ratings-T.npz``."""
    path = out / f"ratings-{target}.npz"
    if path.is_file():
        kept = np.load(path, allow_pickle=False)
        players = tuple(str(p) for p in kept["players"])
        elo = dict(zip(players, kept["elo"].tolist(), strict=True))
        low, high = (dict(zip(players, kept[k].tolist(), strict=True)) for k in ("low", "high"))
        games = dict(zip(players, kept["games"].tolist(), strict=True))
        print(f"{target}: ratings kept from {path}", flush=True)
        return Ratings(players, elo, low, high, games, str(kept["anchor"]), float(kept["level"]), kept["samples"])
    start = time.perf_counter()
    runner = PoolRunner(workers)
    try:
        models = adapted(dict.fromkeys((t.recipe for t in started), study), started, target, budgets, runner)
        ratings = rate_pool(models, target, study, derive(np.random.SeedSequence(study.seed), "verdicts", target),
                            runner).ratings  # fmt: skip
    finally:
        runner.close()
    players = list(ratings.players)
    np.savez(path, players=np.array(players), elo=np.array([ratings.elo[p] for p in players]),
             low=np.array([ratings.low[p] for p in players]), high=np.array([ratings.high[p] for p in players]),
             games=np.array([ratings.games[p] for p in players]), anchor=ratings.anchor, level=ratings.level,
             samples=ratings.samples)  # fmt: skip
    print(f"{target}: adapted and rated {len(models)} models in {(time.perf_counter() - start) / 60:.1f} min",
          flush=True)  # fmt: skip
    return ratings


def draws(seeds: Sequence[int], n: int, count: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """``count`` draws of ``n`` distinct seeds (every subset, once each, when there are no more than ``count``)."""
    every = list(itertools.combinations(seeds, n))
    if len(every) <= count:
        return every
    return [every[i] for i in rng.choice(len(every), size=count, replace=False)]


INTERVALS = ("bootstrap", "pooled")
"""The intervals the benchmark compares: the study's two-level bootstrap (``mmc.evaluation.comparison.compare``), and
the same widened to a t interval whose training spread is pooled over every target and budget of the draw
(``mmc.evaluation.comparison.pooled``)."""


def analyse(rated: Mapping[str, Ratings], seeds: Sequence[int], stops: Sequence[int], averages: Sequence[int],
            budgets: Sequence[int], sizes: Sequence[int], count: int,
            seed: np.random.SeedSequence) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    """The rows of ``draws.csv`` and ``summary.csv``: per interval design, target, budget, design (average), replicates
    and stopping point, over ``count`` draws of seeds (the same draws for every target, budget and stop)."""
    targets = list(rated)

    def names(kind: str, stop: int, average: int, budget: int, chosen: Sequence[int]) -> list[str]:
        return [f"{label(kind, stop, average)}-s{s}-b{budget}" for s in chosen]

    found: dict[tuple[str, str, int, int, int, int, tuple[int, ...]], tuple[Comparison, bool]] = {}
    references: dict[tuple[str, int, int, int], tuple[float, float, float]] = {}
    picks_of: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    for average, n in itertools.product(averages, sizes):
        rng = np.random.default_rng(derive(seed, average, n))
        picks = picks_of[(average, n)] = draws(seeds, n, count, rng)
        for target, budget, stop in itertools.product(targets, budgets, stops):
            ratings = rated[target]
            a_all, b_all = names("joat", stop, average, budget, seeds), names("multitask", stop, average, budget, seeds)
            per_seed = np.array([ratings.elo[a] - ratings.elo[b] for a, b in zip(a_all, b_all, strict=True)])
            references[(target, budget, stop, average)] = (
                float(per_seed.mean()),
                float(per_seed.std(ddof=1) / np.sqrt(len(seeds))),
                float(per_seed.std(ddof=1)),
            )
            for pick in picks:
                a, b = names("joat", stop, average, budget, pick), names("multitask", stop, average, budget, pick)
                c = compare(ratings, a, b, rng)
                found[("bootstrap", target, budget, stop, average, n, pick)] = (c, c.holds)
        for stop, pick in itertools.product(stops, picks):
            cells = {(t, b): found[("bootstrap", t, b, stop, average, n, pick)][0] for t in targets for b in budgets}
            differences = [
                [rated[t].elo[x] - rated[t].elo[y] for x, y in zip(names("joat", stop, average, b, pick),
                                                                    names("multitask", stop, average, b, pick),
                                                                    strict=True)]
                for t, b in cells
            ]  # fmt: skip
            spread = pooled(differences)
            for (t, b), c in cells.items():
                wide = widened(c, spread)
                found[("pooled", t, b, stop, average, n, pick)] = (wide, c.holds)
    drawn_rows, summary = [], []
    for interval, target, budget, average, n in itertools.product(INTERVALS, targets, budgets, averages, sizes):
        picks = picks_of[(average, n)]
        for stop in stops:
            reference, stderr, spread = references[(target, budget, stop, average)]
            following = stops[stops.index(stop) + 1] if stop != stops[-1] else None
            covered = flips = said = fragile = fragile_flips = 0
            widths = []
            for pick in picks:
                c, held = found[(interval, target, budget, stop, average, n, pick)]
                covered += c.low <= reference <= c.high
                widths.append(c.detectable)
                drawn_rows.append({"interval": interval, "target": target, "budget": budget, "average": average,
                                   "replicates": n, "stop": stop, "seeds": " ".join(map(str, pick)),
                                   "difference": round(c.difference), "low": round(c.low), "high": round(c.high),
                                   "verdict": c.verdict, "holds": held})  # fmt: skip
                if following is None:
                    continue
                claims = c.verdict != NO_DIFFERENCE
                said += claims
                fragile += claims and not held
                if c.verdict != found[(interval, target, budget, following, average, n, pick)][0].verdict:
                    flips += 1
                    fragile_flips += claims and not held
            last = following is None
            summary.append({
                "interval": interval, "target": target, "budget": budget, "average": average, "replicates": n,
                "stop": stop, "reference": round(reference), "reference_se": round(stderr), "spread": round(spread),
                "draws": len(picks), "coverage": round(covered / len(picks), 3),
                "half_width": round(statistics.median(widths)), "flips_to_next": "" if last else flips,
                "verdicts": "" if last else said, "fragile": "" if last else fragile,
                "fragile_flips": "" if last else fragile_flips,
            })  # fmt: skip
    return drawn_rows, summary


def overall(summary: Sequence[Mapping[str, Any]], drawn: Sequence[Mapping[str, Any]],
            stops: Sequence[int]) -> list[dict[str, Any]]:  # fmt: skip
    """Per interval, design and replicates: the mean and lowest coverage over the summary's cells, and over the draws
    of every target and budget, how many have a verdict at some stopping point unlike the next one's with neither
    labelled fragile (the issue's target: no unlabelled flip between G-1, G and G+1), with the claims at the middle
    stop and how many of them are fragile."""
    found = []
    for key in dict.fromkeys((r["interval"], r["average"], r["replicates"]) for r in summary):
        cells = [r for r in summary if (r["interval"], r["average"], r["replicates"]) == key]
        by: dict[tuple[str, int, str], dict[int, Mapping[str, Any]]] = {}
        for row in drawn:
            if (row["interval"], row["average"], row["replicates"]) == key:
                by.setdefault((row["target"], row["budget"], row["seeds"]), {})[row["stop"]] = row
        unlabelled = claims = fragile = 0
        middle = stops[len(stops) // 2]
        for rows in by.values():
            claim = {s: rows[s]["verdict"] != NO_DIFFERENCE for s in stops}
            weak = {s: claim[s] and not rows[s]["holds"] for s in stops}
            unlabelled += any(rows[x]["verdict"] != rows[y]["verdict"] and not (weak[x] or weak[y])
                              for x, y in itertools.pairwise(stops))  # fmt: skip
            claims += claim[middle]
            fragile += weak[middle]
        found.append({"interval": key[0], "average": key[1], "replicates": key[2],
                      "coverage": statistics.mean(r["coverage"] for r in cells),
                      "lowest": min(r["coverage"] for r in cells), "cells": len(by), "unlabelled": unlabelled,
                      "claims": claims, "fragile": fragile})  # fmt: skip
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--params", type=Path, default=REPO / "studies" / "gomoku" / "params.yaml")
    parser.add_argument("--seeds", default="0-15", help="replicates, comma-separated or A-B")
    parser.add_argument("--stops", default="-1,0,1", help="stopping points, generations after meta.generations")
    parser.add_argument("--averages", default="1,4", help="designs: the last K generations' weights averaged")
    parser.add_argument("--budgets", default=None, help="adaptation budgets (default: the study's adapt.budgets)")
    parser.add_argument("--targets", default=None, help="default: the study's adapt.targets")
    parser.add_argument("--replicates", default="2,3", help="replicates per drawn study")
    parser.add_argument("--draws", type=int, default=400, help="draws of replicates per cell")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None, help="a folder; the same one again resumes")
    args = parser.parse_args()
    params = yaml.safe_load(args.params.read_text())
    study = study_of(params, {})
    seeds = numbers(args.seeds, "--seeds")
    generations = study.meta.generations
    stops = [generations + s for s in numbers(args.stops, "--stops")]
    averages = numbers(args.averages, "--averages")
    budgets = numbers(args.budgets, "--budgets") if args.budgets else list(study.adapt.budgets)
    sizes = numbers(args.replicates, "--replicates")
    targets = family_targets(args.targets, study)
    if min(stops) - max(averages) < 0 or min(stops) < 1:
        raise SystemExit(f"{SCRIPT}: --stops/--averages: the earliest stop ({min(stops)}) has fewer generations "
                         f"than the largest average ({max(averages)})")  # fmt: skip
    if len(seeds) < 2 * max(sizes):
        raise SystemExit(f"{SCRIPT}: --seeds: at least twice the largest of --replicates ({max(sizes)}), got "
                         f"{len(seeds)}")  # fmt: skip
    check_anchors(study, targets, SCRIPT)
    out = args.out or Path(tempfile.mkdtemp(prefix="verdicts-"))
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    started: list[Trained] = []
    for kind in KINDS:
        print(f"meta-training {kind} to generation {max(stops)}", flush=True)
        started += [t for s in seeds for t in trained(study, kind, s, stops, averages, args.workers, out)]
    pools = {target: rated(study, started, target, budgets, args.workers, out) for target in targets}
    models = [
        {"target": target, "player": p, "elo": round(ratings.elo[p]), "low": round(ratings.low[p]),
         "high": round(ratings.high[p])}
        for target, ratings in pools.items() for p in ratings.players
    ]  # fmt: skip
    drawn, summary = analyse(pools, seeds, stops, averages, budgets, sizes, args.draws,
                             derive(np.random.SeedSequence(study.seed), "verdicts-draws"))  # fmt: skip
    write_csv(out / "models.csv", models)
    write_csv(out / "draws.csv", drawn)
    write_csv(out / "summary.csv", summary)
    print(f"\nJOAT - multitask, {len(seeds)} seeds; per interval, target, budget, design (aK: the last K generations "
          "averaged), replicates n and stopping point G:")  # fmt: skip
    print("| interval | target | budget | design | n | G | all-seeds mean (s.e.) | seed spread | half-width | coverage "
          "| flips to G+1 | verdicts | fragile | flips called fragile |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in summary:
        print(
            f"| {r['interval']} | {r['target']} | {r['budget']} | a{r['average']} | {r['replicates']} | {r['stop']} "
            f"| {r['reference']:+d} ({r['reference_se']}) | {r['spread']} | {r['half_width']} | {r['coverage']:.2f} "
            f"| {r['flips_to_next']}/{r['draws']} | {r['verdicts']} | {r['fragile']} | {r['fragile_flips']} |"
        )
    print(
        "\nPer interval, design and n, over targets, budgets and draws: coverage (the share of intervals containing "
        "the "
        "all-seeds mean), the cells (target x budget x draw) with a verdict at G-1, G or G+1 unlike its neighbour's "
        "where neither is labelled fragile, and the claims (better or worse) at G and those labelled fragile:"
    )
    print("| interval | design | n | coverage (lowest cell) | unlabelled flips | claims at G | fragile |")
    print("|---|---|---|---|---|---|---|")
    for r in overall(summary, drawn, stops):
        print(
            f"| {r['interval']} | a{r['average']} | {r['replicates']} | {r['coverage']:.2f} ({r['lowest']:.2f}) "
            f"| {r['unlabelled']}/{r['cells']} ({r['unlabelled'] / r['cells']:.2f}) | {r['claims']} "
            f"| {r['fragile']} |"
        )
    print(f"\nwritten under {out}: models.csv, draws.csv, summary.csv")


if __name__ == "__main__":
    main()
