"""Stage ``evaluate@{target}``: every adapted model of ``target`` against every opponent (``mmc.evaluate``).

A cell is (start, budget, opponent): the model ``models/adapted/{t}/{start}_b{budget}.pt`` with MCTS
(``evaluate.search``) plays ``evaluate.games`` games against random, greedy, Fairy-Stockfish (where the engine
plays the target) and its own unadapted start (budgets > 0; the same search). The stage lists the cells
(:func:`inputs`) and calls ``mmc.evaluate.evaluate`` with its job store (``data/jobs/evaluate/{t}``: one Prefect
task run per cell, its games kept as they finish). All cells against one opponent share the openings, so
starts and budgets are compared on the same positions. The stage writes W/D/L, score and Wilson 95 % interval
per cell (``metrics/evaluate/{t}.json``, ``dvc metrics``) and the rows of the study's table in the seed's
format (``plots/evaluation/{t}.csv``).
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
from prefect import flow, get_run_logger
from prefect.runtime import flow_run

from mmc.evaluate import Cell, EvaluateConfig, evaluate
from mmc.nn import PolicyValueNet, load_checkpoint
from mmc.play import write_records
from mmc.seeding import derive, root
from pipelines import tracking
from pipelines.adapt import label, load_start, models
from pipelines.config import UNADAPTED, StudyConfig, flatten, opponent_slug
from pipelines.files import write_json
from pipelines.jobs import job_store
from pipelines.paths import EVALUATE_CODE, Paths
from pipelines.records import EvaluationRow, MatchSummary, write_rows

__all__ = ["cells", "evaluate_flow", "inputs"]

STAGE = "evaluate"
SAMPLE_GAMES = 2
"""Games per cell logged to MLflow as a sample."""


def cells(study: StudyConfig, target: str) -> list[tuple[str, int, str]]:
    """The target's cells as (start, budget, opponent spec) in table order: budget, then start, then opponent
    (no ``unadapted`` at budget 0, no ``fairy`` where the engine does not play the target)."""
    return [
        (start, budget, spec)
        for start, budget in models(study)
        for spec in study.opponents(target)
        if not (spec == UNADAPTED and budget == 0)
    ]


def inputs(
    study: StudyConfig, paths: Paths, target: str
) -> tuple[list[Cell], str, EvaluateConfig, np.random.SeedSequence]:
    """The arguments of ``mmc.evaluate.evaluate`` for ``target``: its cells (networks loaded), the variant, the
    evaluation config and the seed (``("evaluate", target)``)."""
    adapted: dict[tuple[str, int], PolicyValueNet] = {}
    starts: dict[str, PolicyValueNet] = {}
    out: list[Cell] = []
    for start, budget, spec in cells(study, target):
        model = paths.adapted(target, start, budget)
        if (start, budget) not in adapted:
            if not model.is_file():
                raise FileNotFoundError(f"{model} does not exist: run adapt@{target} first")
            adapted[start, budget] = load_checkpoint(model)[0]
        player = label(start, budget)
        if spec == UNADAPTED:
            opponent = starts.setdefault(start, load_start(paths, study, start))
            out.append(Cell(player, adapted[start, budget], spec, opponent, f"{start} ({UNADAPTED})"))
        else:
            out.append(Cell(player, adapted[start, budget], spec))
    return out, target, study.evaluate.config, derive(root(study.seed), STAGE, target)


@flow(name="evaluate", flow_run_name="evaluate-{target}", validate_parameters=False)
def evaluate_flow(target: str, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Play every cell of ``target`` under ``root`` (keeping finished ones); the metrics."""
    logger = get_run_logger()
    torch.set_num_threads(1)
    paths = Paths(root)
    store = job_store(paths, STAGE, target, EVALUATE_CODE, study.runner)
    with tracking.stage_run(paths, STAGE, target, flow_run.id) as run:
        run.log_params(flatten({"seed": study.seed, "target": target, "evaluate": _logged(study)}))
        results = evaluate(*inputs(study, paths, target), run=store)
        store.finish(logger, target)
        metrics: dict[str, Any] = {}
        rows = []
        for (start, budget, spec), result in zip(cells(study, target), results, strict=True):
            summary = MatchSummary.of(result)
            metrics.setdefault(start, {}).setdefault(f"b{budget}", {})[opponent_slug(spec)] = asdict(summary)
            player = label(start, budget)
            rows.append(EvaluationRow(target, start, budget, player, spec, **asdict(summary)))
            logger.info("%s %s vs %s: %s", target, player, spec, _describe(summary))
        write_json(paths.evaluation_metrics(target), metrics)
        write_rows(paths.evaluation_table(target), EvaluationRow, rows)
        run.log_metrics({k: v for k, v in flatten(metrics).items() if isinstance(v, int | float)})
        run.log_metrics({"seconds": round(sum(store.seconds.values()), 3)})
        for path in (paths.evaluation_metrics(target), paths.evaluation_table(target)):
            run.log_artifact(path, "dvc")
        largest = max(study.adapt.budgets)
        sample = [
            record
            for (_, budget, _), result in zip(cells(study, target), results, strict=True)
            if budget == largest
            for record in result.records[:SAMPLE_GAMES]
        ]
        with tempfile.TemporaryDirectory() as scratch:
            run.log_artifact(write_records(sample, Path(scratch) / f"evaluate_{target}_sample.pgn"), "games")
    return metrics


def _describe(summary: MatchSummary) -> str:
    s = summary
    return f"{s.wins}/{s.draws}/{s.losses}, score {s.score:.3f} (95% CI {s.ci_low:.3f}-{s.ci_high:.3f})"


def _logged(study: StudyConfig) -> dict[str, Any]:
    config = study.evaluate.config
    return {"opponents": study.evaluate.opponents, **{k: v for k, v in asdict(config).items() if k != "search"},
            "search": asdict(config.search)}  # fmt: skip
