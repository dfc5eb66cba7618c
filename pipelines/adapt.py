"""Stage ``adapt@{target}-{r}``: every starting model of training replicate ``r`` adapted to ``target`` with every
budget (few-shot adaptation).

A start is a learner's network (``models/starts/r{r}/{k}.pt``: joat, multitask, metafocus, an installed learner),
``expert-V`` (``models/champion/r{r}/V.pt``) or ``scratch`` (a network initialised from the replicate's seed, the
same for every target). A learner with an adaptation rule of its own shapes its start's adaptations
(``mmc.meta.Learner.adaptation``, given its ``models/starts/r{r}/{k}.state.pt``): ``metafocus`` is JOAT adapted with
the channel mask its meta-model gives the target from JOAT's own self-play positions there (budgets > 0 only: with
no games it is JOAT). The stage lists one
``mmc.meta.Adaptation`` per start and budget (:func:`inputs`) and calls ``mmc.meta.adapt_many``, the one
implementation of "at most one AlphaZero iteration" (budget 0 is the start unchanged), with its job store
(``data/jobs/adapt/{t}-r{r}``: every self-play and training is a Prefect task run, kept as it finishes). All
the starts of one budget draw from the same seed (common random numbers: differences between starts come
from the starts). Each adapted model is written as ``models/adapted/{t}/r{r}/{start}_b{budget}.pt``, logged to
the stage's MLflow run, and its losses go to ``metrics/adapt/{t}-r{r}.json``.
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from prefect import flow

from mmc.core.seeding import derive
from mmc.evaluation.starts import Start, adapted_models, model_label
from mmc.meta import Adaptation, Adapted, adapt_many
from mmc.nn import config_path, save_checkpoint
from mmc.play import write_records
from mmc.search import SearchConfig
from mmc.train import TrainConfig
from pipelines import metrics as names
from pipelines import tracking
from pipelines.calls import keywords
from pipelines.config import StudyConfig
from pipelines.files import write_json
from pipelines.paths import Paths, meta_code, replicate_name
from pipelines.stage import logged_params, open_stage
from pipelines.starts import adaptation_rule, load_start

__all__ = ["AdaptInputs", "adapt_flow", "inputs"]

STAGE = "adapt"


@dataclass(frozen=True)
class AdaptInputs:
    """The keyword arguments of ``mmc.meta.adapt_many`` for one target and replicate (:func:`inputs`)."""

    adaptations: list[Adaptation]
    """Every start x budget, budget first (``mmc.evaluation.starts.adapted_models``)."""
    search: SearchConfig
    training: TrainConfig
    """The adaptation's training (``adapt.epochs``, one thread)."""
    concurrent: int
    max_plies: int
    device: str


def inputs(study: StudyConfig, paths: Paths, target: str, replicate: int) -> AdaptInputs:
    """The arguments of ``mmc.meta.adapt_many`` for ``target`` in replicate ``replicate``: every start x budget
    (budget first), the search, the adaptation's training, concurrency, ply cap and device."""
    config = study.adapt.config
    starts = {start: load_start(paths, study, start, replicate) for start in map(Start.parse, study.adapt.starts)}
    rules = {start: adaptation_rule(paths, start, replicate) for start in starts}
    seed = derive(study.training_seed(replicate), STAGE, target)
    adaptations = [
        rules[start](
            Adaptation(model_label(start, budget), starts[start], target, budget, derive(seed, "budget", budget))
        )
        for start, budget in adapted_models(study.adapt.starts, study.adapt.budgets)
    ]
    training = config.training(study.train)
    return AdaptInputs(adaptations, study.search, training, config.concurrent, config.max_plies, study.device)


@flow(name="adapt", flow_run_name="adapt-{target}-r{replicate}", validate_parameters=False)
def adapt_flow(target: str, replicate: int, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Adapt every start of replicate ``replicate`` to ``target`` with every budget under ``root``; the metrics
    (``metrics/adapt/{t}-r{r}.json``)."""
    adapt = {"starts": study.adapt.starts, **asdict(study.adapt.config)}
    params = logged_params(study, replicate, {"target": target}, adapt=adapt, search=study.search,
                           train=study.train, runner=study.runner)  # fmt: skip
    jobs = (STAGE, replicate_name(target, replicate))
    with open_stage(study, root, STAGE, variant=target, replicate=replicate, jobs=jobs, code=meta_code(study.family),
                    params=params) as stage:  # fmt: skip
        paths, run = stage.paths, stage.run
        given = inputs(study, paths, target, replicate)
        adapted = adapt_many(**keywords(given), run=stage.store)
        metrics: dict[str, dict[str, Any]] = {}
        models = adapted_models(study.adapt.starts, study.adapt.budgets)
        for (start, budget), item, result in zip(models, given.adaptations, adapted, strict=True):
            model = save_checkpoint(result.net, result.net.config, paths.adapted(target, replicate, str(start), budget))
            seconds = stage.store.job_seconds(["self-play", "train"], [(item.label,)])
            metrics.setdefault(str(start), {})[f"b{budget}"] = _summary(result, seconds)
            run.log_artifact(model, f"models/{model.stem}")
            run.log_artifact(config_path(model), f"models/{model.stem}")
            if result.losses:
                stage.logger.info("%s adapted to %s: %s", item.label, target, _describe(result))
        write_json(paths.adapt_metrics(target, replicate), metrics)
        run.log_metrics(names.from_json(metrics))
        run.log_artifact(paths.adapt_metrics(target, replicate), "dvc")
        _log_sample(target, given.adaptations, adapted, run)
    return metrics


def _summary(result: Adapted, seconds: float) -> dict[str, Any]:
    """An adapted model's numbers (``seconds``: its jobs'); a MetaFocus adaptation's mask (``1`` per trained trunk
    channel) and its size."""
    played = result.self_play
    last = result.losses[-1] if result.losses else None
    mask = {} if result.mask is None else {"mask": "".join("1" if k else "0" for k in result.mask),
                                            "kept": int(result.mask.sum())}  # fmt: skip
    return {
        "games": len(played.records) if played else 0,
        "examples": sum(len(e) for e in played.examples) if played else 0,
        "seconds": seconds,
        **({f"loss_{k}": round(getattr(last, k), 6) for k in ("policy", "value", "total")} if last else {}),
        **mask,
    }


def _describe(result: Adapted) -> str:
    last = result.losses[-1]
    examples = sum(len(e) for e in result.self_play.examples) if result.self_play else 0
    return f"{examples} examples, loss policy {last.policy:.3f} value {last.value:.3f}"


def _log_sample(target: str, adaptations: list[Adaptation], adapted: list[Adapted], run: tracking.StageRun) -> None:
    """The first game of each adaptation that played, as one game file."""
    records = [result.self_play.records[0] for result in adapted if result.self_play and result.self_play.records]
    if not records:
        return
    with tempfile.TemporaryDirectory() as scratch:
        run.log_artifact(write_records(records, Path(scratch) / f"adapt_{target}_sample.pgn"), "games")
