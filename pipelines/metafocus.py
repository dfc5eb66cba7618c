"""Stage ``metafocus@{r}``: the MetaFocus meta-model of training replicate ``r`` (``mmc.meta.metafocus``).

From replicate ``r``'s JOAT network (``models/starts/r{r}/joat.pt``, stage ``meta_train@{r}``) the stage calls
``mmc.meta.metafocus_train``, the one implementation of MetaFocus's training (REINFORCE over channel masks, see its
module), with the stage's job store as its runner (``data/jobs/metafocus/r{r}``: every self-play, masked training
and reward match is a Prefect task run, kept as it finishes). Each iteration is logged to MLflow (``step``); the
meta-model is published as ``models/starts/r{r}/metafocus.pt`` (+ ``.json``, its config; written by
``mmc.meta.save_focus``, read by ``mmc.meta.load_focus``) and registered in MLflow as ``metafocus`` (alias
``r{r}``); every sampled mask with its reward goes to ``plots/metafocus/r{r}.csv`` and the summary to
``metrics/metafocus/r{r}.json``. The ``metafocus`` start of ``adapt@T-R`` is JOAT adapted with the mask this model
gives for T (``pipelines.adapt``, ``mmc.starts``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from prefect import flow, get_run_logger

from mmc.meta import FocusStep, MetaFocusConfig, metafocus_train, save_focus
from mmc.nn import PolicyValueNet, load_checkpoint
from mmc.search import SearchConfig
from mmc.seeding import derive
from mmc.train import TrainConfig
from pipelines import metrics as names
from pipelines import tracking
from pipelines.calls import keywords
from pipelines.config import StudyConfig
from pipelines.files import write_json
from pipelines.jobs import JobStore
from pipelines.paths import Paths, meta_code
from pipelines.records import FocusRow, write_rows
from pipelines.stage import logged_params, open_stage

__all__ = ["STAGE", "MetaFocusInputs", "focus_rows", "inputs", "metafocus_flow"]

STAGE = "metafocus"


@dataclass(frozen=True)
class MetaFocusInputs:
    """The keyword arguments of ``mmc.meta.metafocus_train`` for one replicate (:func:`inputs`)."""

    joat: PolicyValueNet = field(repr=False)
    """The replicate's JOAT network."""
    variants: list[str]
    """The meta-training variants."""
    config: MetaFocusConfig
    search: SearchConfig
    training: TrainConfig
    """The masked adaptations' training (``metafocus.epochs``, one thread)."""
    seed: np.random.SeedSequence
    """``("metafocus",)`` of the replicate's seed."""
    device: str


def inputs(study: StudyConfig, paths: Paths, replicate: int) -> MetaFocusInputs:
    """The arguments of ``mmc.meta.metafocus_train`` for replicate ``replicate``: its JOAT network, the meta-training
    variants (MetaFocus learns on the tasks JOAT learned on; the targets held out of those stay held out), the
    stage's config, the self-play search, the masked adaptations' training (``metafocus.epochs``, one thread), its
    seed (``("metafocus",)`` of the replicate's) and the device."""
    joat = paths.start_model("joat", replicate)
    if not joat.is_file():
        raise FileNotFoundError(f"{joat} does not exist: run meta_train@{replicate} first")
    seed = derive(study.training_seed(replicate), STAGE)
    variants, training = list(study.meta.train_variants), study.metafocus.training(study.train)
    return MetaFocusInputs(load_checkpoint(joat)[0], variants, study.metafocus, study.search, training, seed,
                           study.device)  # fmt: skip


@flow(name="metafocus", flow_run_name="metafocus-r{replicate}", validate_parameters=False)
def metafocus_flow(replicate: int, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Train (or resume) replicate ``replicate``'s MetaFocus meta-model under ``root``; its summary metrics."""
    params = logged_params(study, replicate, {}, train_variants=list(study.meta.train_variants),
                           metafocus=study.metafocus, search=study.search, train=study.train,
                           runner=study.runner)  # fmt: skip
    jobs = (STAGE, f"r{replicate}")
    code = meta_code(study.family)
    with open_stage(study, root, STAGE, replicate=replicate, jobs=jobs, code=code, params=params) as stage:
        steps: list[FocusStep] = []
        for step in metafocus_train(**keywords(inputs(study, stage.paths, replicate)), run=stage.store):
            steps.append(step)
            stage.run.log_metrics(_metrics(step, stage.store), step=step.index)
            stage.logger.info("metafocus iteration %d: %s", step.index, _describe(step))
        return _publish(stage.paths, replicate, study, steps, stage.run)


def focus_rows(replicate: int, steps: Sequence[FocusStep]) -> list[FocusRow]:
    """One row per masked adaptation of every iteration."""
    return [
        FocusRow(
            replicate,
            step.index,
            task,
            "".join("1" if kept else "0" for kept in step.masks[task]),
            int(np.count_nonzero(step.masks[task])),
            round(float(np.mean(step.keep_probabilities[task])), 6),
            round(float(step.rewards[task]), 6),
            round(float(step.baseline), 6),
        )
        for step in steps
        for task in step.tasks
    ]


def _metrics(step: FocusStep, store: JobStore) -> dict[str, float]:
    metrics: dict[str, float] = {names.ITERATION: step.index, names.BASELINE: step.baseline}
    metrics[names.REWARD_MEAN] = float(np.mean([step.rewards[t] for t in step.tasks]))
    for task in step.tasks:
        metrics[names.per(names.REWARD, task)] = float(step.rewards[task])
        metrics[names.per(names.KEPT, task)] = int(np.count_nonzero(step.masks[task]))
        metrics[names.per(names.KEEP_PROBABILITY, task)] = float(np.mean(step.keep_probabilities[task]))
    keys = [(task, f"gen{step.index:03d}") for task in step.tasks]
    for kind in ("self-play", "train", "reward"):
        metrics[names.seconds(kind)] = store.job_seconds([kind], keys)
    return metrics


def _describe(step: FocusStep) -> str:
    tasks = ", ".join(
        f"{t} kept {int(np.count_nonzero(step.masks[t]))}/{len(step.masks[t])} reward {step.rewards[t]:.2f}"
        for t in step.tasks
    )
    return f"{tasks}; baseline {step.baseline:.3f}"


def _publish(
    paths: Paths, replicate: int, study: StudyConfig, steps: list[FocusStep], run: tracking.StageRun
) -> dict[str, Any]:
    model = steps[-1].model
    save_focus(model, paths.focus_model(replicate))
    write_rows(paths.focus_masks(replicate), FocusRow, focus_rows(replicate, steps))
    rewards = [step.rewards[t] for step in steps for t in step.tasks]
    summary = {
        "iterations": len(steps),
        "adaptations": len(rewards),
        "reward_mean": round(float(np.mean(rewards)), 6),
        "reward_last": round(float(np.mean([steps[-1].rewards[t] for t in steps[-1].tasks])), 6),
        "final_baseline": round(float(steps[-1].baseline), 6),
        "kept_mean": round(float(np.mean([np.count_nonzero(m) for s in steps for m in s.masks.values()])), 3),
    }
    write_json(paths.focus_metrics(replicate), summary)
    run.log_metrics(names.from_json(summary))
    for path in (paths.focus_masks(replicate), paths.focus_metrics(replicate)):
        run.log_artifact(path, "dvc")
    variants = ", ".join(study.meta.train_variants)
    description = (
        f"MetaFocus meta-model of replicate {replicate}: channel keep-probabilities of joat r{replicate} from task "
        f"features, trained by REINFORCE over {len(rewards)} masked adaptations on {variants}"
    )
    version = run.register_model(model, STAGE, description, replicate)
    get_run_logger().info("registered %s version %s (alias r%d)", STAGE, version, replicate)
    return summary
