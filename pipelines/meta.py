"""Stages ``meta_train@{r}`` (JOAT, first-order Reptile across variants) and ``multitask@{r}`` (its equal-budget
baseline), one of each per training replicate ``r``.

Both call ``mmc.meta.meta_train`` (the one implementation of a meta-generation, see its module) with the same
initial network and seed (``("meta",)`` of the replicate's seed), so within a replicate they draw the same task
batches and play the same first meta-generation's games; only what happens to the games differs (JOAT: an
inner update per task and the Reptile step; multitask: one network trained on the pooled games). The stage's
job store (``pipelines.jobs``) runs every task's self-play and training as a Prefect task run and keeps it
under ``data/jobs/meta/{k}-r{r}``, so a rerun computes only what is missing. The final network is published as
``models/starts/r{r}/{k}.pt`` and registered in MLflow as ``joat`` / ``multitask`` with alias ``r{r}``; per-task
inner losses are logged per meta-generation (``step``).
"""

from __future__ import annotations

import functools
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from prefect import flow, get_run_logger

from mmc.meta import KINDS, MetaConfig, MetaGeneration, meta_train
from mmc.nn import PolicyValueNet, build_network, save_checkpoint
from mmc.play import write_records
from mmc.search import SearchConfig
from mmc.seeding import derive, int_seed
from mmc.train import TrainConfig
from pipelines import metrics as names
from pipelines import tracking
from pipelines.calls import keywords
from pipelines.config import StudyConfig
from pipelines.files import write_json
from pipelines.jobs import JobStore
from pipelines.paths import Paths, meta_code, replicate_name
from pipelines.records import TrainingLossRow, write_rows
from pipelines.stage import logged_params, open_stage

__all__ = ["STAGES", "MetaInputs", "inputs", "loss_rows", "meta_flow"]

STAGES = {"joat": "meta_train", "multitask": "multitask"}
"""The two meta stages: the network they make -> their DVC stage (and MLflow child run) name."""
SAMPLE_GAMES = 4


@dataclass(frozen=True)
class MetaInputs:
    """The keyword arguments of ``mmc.meta.meta_train`` for one meta stage (:func:`inputs`)."""

    kind: str
    """``joat`` or ``multitask``."""
    net: PolicyValueNet = field(repr=False)
    """The initial network, the same for both kinds."""
    config: MetaConfig
    search: SearchConfig
    training: TrainConfig
    seed: np.random.SeedSequence
    """``("meta",)`` of the replicate's seed, the same for both kinds."""
    device: str


def inputs(study: StudyConfig, kind: str, replicate: int) -> MetaInputs:
    """The arguments of ``mmc.meta.meta_train`` for ``kind`` in replicate ``replicate``: the same network and seed
    for both kinds, and the device."""
    seed = derive(study.training_seed(replicate), "meta")
    net = build_network(study.network, int_seed(derive(seed, "network")))
    return MetaInputs(kind, net, study.meta, study.search, study.train, seed, study.device)


@flow(name="meta", flow_run_name="{kind}-r{replicate}", validate_parameters=False)
def meta_flow(kind: str, replicate: int, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Run (or resume) the ``joat`` or ``multitask`` meta-training of replicate ``replicate`` under ``root``; its
    summary metrics."""
    if kind not in KINDS:
        raise ValueError(f"meta stage kind must be one of {', '.join(KINDS)}, got {kind!r}")
    drawn = {} if study.distribution is None else {"distribution": study.distribution}  # meta: the variants drawn
    params = logged_params(study, replicate, {"kind": kind}, network=study.network, meta=study.meta, **drawn,
                           search=study.search, train=study.train, runner=study.runner)  # fmt: skip
    jobs = ("meta", replicate_name(kind, replicate))
    code = meta_code(study.family)
    with open_stage(study, root, STAGES[kind], variant=kind, replicate=replicate, jobs=jobs, code=code,
                    params=params) as stage:  # fmt: skip
        generations: list[MetaGeneration] = []
        for generation in meta_train(**keywords(inputs(study, kind, replicate)), run=stage.store):
            generations.append(generation)
            stage.run.log_metrics(_metrics(generation, stage.store), step=generation.index)
            stage.logger.info("%s meta-generation %d: %s", kind, generation.index, _describe(generation))
        return _publish(stage.paths, kind, replicate, study, generations, stage.run)


def loss_rows(kind: str, replicate: int, generations: list[MetaGeneration]) -> list[TrainingLossRow]:
    """The report's loss rows: JOAT's inner update per task (``inner``) and their mean (``meta_train``), or the
    multitask network's pooled training (``multitask``); the last epoch of each training run."""
    rows = []
    for generation in generations:
        last = {variant: epochs[-1] for variant, epochs in generation.losses.items()}
        g = generation.index
        if kind == "joat":
            rows += [
                TrainingLossRow(kind, replicate, "inner", v, g, e.policy, e.value, e.total) for v, e in last.items()
            ]
            mean = [sum(getattr(e, k) for e in last.values()) / len(last) for k in ("policy", "value", "total")]
            rows.append(TrainingLossRow(kind, replicate, "meta_train", "mean", g, *mean))
        else:
            e = last["pooled"]
            rows.append(TrainingLossRow(kind, replicate, "multitask", "pooled", g, e.policy, e.value, e.total))
    return rows


def _metrics(generation: MetaGeneration, store: JobStore) -> dict[str, float]:
    metrics: dict[str, float] = {names.META_GENERATION: generation.index}
    for variant, epochs in generation.losses.items():
        loss = names.pooled_loss if variant == "pooled" else functools.partial(names.inner_loss, variant)
        metrics |= {loss(part): getattr(epochs[-1], part) for part in names.LOSS_PARTS}
    for variant, played in generation.self_play.items():
        games = len(played.records)
        metrics[names.per(names.SELFPLAY_PLIES_PER_GAME, variant)] = played.plies / max(1, games)
        draws = sum(r.result == "1/2-1/2" for r in played.records)
        metrics[names.per(names.SELFPLAY_DRAW_RATE, variant)] = draws / max(1, games)
    tag = f"gen{generation.index:03d}"
    metrics[names.seconds("self-play")] = store.job_seconds(["self-play"], [(v, tag) for v in generation.self_play])
    metrics[names.seconds("train")] = store.job_seconds(["train"], [(v, tag) for v in generation.losses])  # or "pooled"
    return metrics


def _describe(generation: MetaGeneration) -> str:
    losses = ", ".join(f"{v} {e[-1].policy:.3f}/{e[-1].value:.3f}" for v, e in generation.losses.items())
    games = sum(len(p.records) for p in generation.self_play.values())
    return f"tasks {', '.join(generation.tasks)}: {games} games, loss policy/value {losses}"


def _publish(
    paths: Paths, kind: str, replicate: int, study: StudyConfig, generations: list[MetaGeneration],
    run: tracking.StageRun,
) -> dict[str, Any]:  # fmt: skip
    net = generations[-1].net
    save_checkpoint(net, net.config, paths.start_model(kind, replicate))
    write_rows(paths.meta_losses(kind, replicate), TrainingLossRow, loss_rows(kind, replicate, generations))
    plays = Counter(variant for g in generations for variant in g.tasks)
    summary = {
        "generations": len(generations),
        **({"epsilon": study.meta.epsilon} if kind == "joat" else {}),
        "selfplay_games": sum(len(p.records) for g in generations for p in g.self_play.values()),
        "selfplay_examples": sum(len(e) for g in generations for p in g.self_play.values() for e in p.examples),
        "train_variants": list(study.meta.train_variants),
        **({"distribution": study.distribution.describe()} if study.distribution is not None else {}),
        "tasks_per_variant": dict(sorted(plays.items())),
        "final_loss": {variant: round(epochs[-1].total, 6) for variant, epochs in generations[-1].losses.items()},
    }
    write_json(paths.meta_metrics(kind, replicate), summary)
    run.log_metrics(names.from_json(summary))
    with tempfile.TemporaryDirectory() as scratch:
        last = generations[-1]
        for variant, played in last.self_play.items():
            sample = Path(scratch) / f"selfplay_gen{last.index:03d}_{variant}_sample.pgn"
            run.log_artifact(write_records(played.records[:SAMPLE_GAMES], sample), "games")
    for path in (paths.meta_losses(kind, replicate), paths.meta_metrics(kind, replicate)):
        run.log_artifact(path, "dvc")
    variants = ", ".join(study.meta.train_variants)
    if study.distribution is not None:
        variants += f" (drawn: {study.distribution.describe()})"
    step = f" (epsilon {study.meta.epsilon})" if kind == "joat" else " (pooled data, same budget as joat)"
    description = f"{kind}, replicate {replicate}, after {len(generations)} meta-generations on {variants}{step}"
    version = run.register_model(net, kind, description, replicate)
    get_run_logger().info("registered %s version %s (alias r%d)", kind, version, replicate)
    return summary
