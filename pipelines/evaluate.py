"""Stage ``evaluate@{variant}``: the final expert against the baseline opponents (random and greedy by default).

One ``evaluate`` task per opponent, fanned out over the task runner. Each match alternates colours and
starts every pair of games from its own random opening (``mmc.play.play_match``); the metrics give W/D/L
from the model's view, its score (a draw counts half) and the score's Wilson 95 % interval.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import torch
from prefect import flow, get_run_logger
from prefect.runtime import flow_run

from mmc.nn import load_checkpoint
from mmc.play import write_records
from mmc.search import SearchConfig
from pipelines import tracking
from pipelines.config import StudyConfig, flatten, opponent_slug
from pipelines.files import write_json
from pipelines.generations import match_summary
from pipelines.paths import Paths
from pipelines.runners import single_threaded
from pipelines.seeds import seed_sequence
from pipelines.tasks import EvaluationJob, evaluation_task

__all__ = ["evaluate_flow"]

STAGE = "evaluate"
SAMPLE_GAMES = 4
"""Games per opponent logged to MLflow as a sample."""


@flow(name="evaluate", flow_run_name="evaluate-{variant}", validate_parameters=False)
def evaluate_flow(variant: str, study: StudyConfig, root: Path) -> dict[str, dict[str, Any]]:
    """Evaluate ``models/champion/{variant}.pt`` under ``root``; the metrics (``metrics/evaluate/{v}.json``)."""
    logger = get_run_logger()
    torch.set_num_threads(1)
    paths = Paths(root)
    config = study.evaluate
    net, _ = load_checkpoint(paths.champion(variant))
    search = SearchConfig(simulations=config.simulations, gumbel=config.gumbel)
    with tracking.stage_run(paths, STAGE, variant, flow_run.id) as run:
        run.log_params(flatten({"seed": study.seed, "variant": variant, "evaluate": config.__dict__}))
        futures = {}
        for index, spec in enumerate(config.opponents):
            job = EvaluationJob(
                variant,
                spec,
                config.games,
                search,
                config.opening_plies,
                config.max_plies,
                seed_sequence(study.seed, STAGE, variant, 0, index, spec),
                single_threaded(study.runner),
            )
            futures[spec] = evaluation_task.submit(net, job)
        metrics: dict[str, dict[str, Any]] = {}
        paths.evaluation_dir(variant).mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as scratch:
            for spec, future in futures.items():
                played = future.result()
                slug = opponent_slug(spec)
                write_records(played.value.records, paths.evaluation_records(variant, slug))
                metrics[slug] = match_summary(played.value)
                run.log_metrics({f"{slug}.{k}": v for k, v in metrics[slug].items()})
                sample = write_records(played.value.records[:SAMPLE_GAMES], Path(scratch) / f"vs_{slug}_sample.pgn")
                run.log_artifact(sample, "games")
                m = metrics[slug]
                logger.info(
                    "expert-%s vs %s: %d wins, %d draws, %d losses; score %.3f (95%% CI %.3f-%.3f)",
                    variant,
                    spec,
                    m["wins"],
                    m["draws"],
                    m["losses"],
                    m["score"],
                    m["ci_low"],
                    m["ci_high"],
                )
        write_json(paths.evaluation_metrics(variant), metrics)
        run.log_artifact(paths.evaluation_metrics(variant), "dvc")
    return metrics
