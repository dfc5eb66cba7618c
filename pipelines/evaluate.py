"""Stage ``evaluate@{target}``: every adapted model of ``target`` against every opponent.

A cell is (start, budget, opponent): the model ``models/adapted/{t}/{start}_b{budget}.pt`` with MCTS
(``evaluate.simulations``) plays ``evaluate.games`` games against random, greedy, Fairy-Stockfish (where the
engine plays the target) and its own unadapted start (budgets > 0; the same search), one ``evaluate`` task
run per cell over the task runner. Colours alternate and every pair of games starts from its own random
opening (``mmc.play.play_match``); all cells against one opponent share the openings (the same seed), so
starts and budgets are compared on the same positions.

Each cell's games and tally are written as they finish (``data/evaluate/{t}/..._vs_{o}.pgn|.json``, the JSON
last; a killed stage replays only unfinished cells). The stage writes W/D/L, score and Wilson 95 % interval
per cell (``metrics/evaluate/{t}.json``, ``dvc metrics``) and the rows of the study's table in the seed's
format (``plots/evaluation/{t}.csv``: game, start, budget, player 1, player 2, wins, draws, losses, ...).
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
from prefect import flow, get_run_logger
from prefect.futures import PrefectFuture, as_completed
from prefect.runtime import flow_run

from mmc.nn import PolicyValueNet, load_checkpoint
from mmc.play import MatchResult, read_records, write_records
from mmc.search import SearchConfig
from pipelines import tracking
from pipelines.adapt import load_start
from pipelines.config import UNADAPTED, StudyConfig, flatten, opponent_slug
from pipelines.files import (
    as_json,
    checked_json,
    file_hashes,
    remove_temporaries,
    sha256,
    tree_sha256,
    write_csv,
    write_json,
)
from pipelines.generations import match_summary
from pipelines.paths import EVALUATE_CODE, Paths
from pipelines.runners import single_threaded
from pipelines.seeds import seed_sequence
from pipelines.tasks import EvaluationJob, Timed, evaluation_task

__all__ = ["TABLE_HEADER", "Cell", "cells", "evaluate_flow", "player_name"]

STAGE = "evaluate"
SAMPLE_GAMES = 2
"""Games per cell logged to MLflow as a sample."""
TABLE_HEADER = [
    "game", "start", "budget", "player 1", "player 2", "wins", "draws", "losses", "games", "score", "ci_low", "ci_high",
]  # fmt: skip
"""Columns of ``plots/evaluation/{t}.csv`` and ``reports/evaluation.csv``."""

Cell = tuple[str, int, str]
"""(start, budget, opponent spec)."""


def player_name(start: str, budget: int) -> str:
    """The adapted model's name in tables and records: ``joat-b100``."""
    return f"{start}-b{budget}"


def cells(study: StudyConfig, target: str) -> list[Cell]:
    """The target's cells in table order: budget, then start, then opponent (no ``unadapted`` at budget 0,
    no ``fairy`` where the engine does not play the target)."""
    return [
        (start, budget, spec)
        for budget in study.adapt.budgets
        for start in study.adapt.starts
        for spec in study.opponents(target)
        if not (spec == UNADAPTED and budget == 0)
    ]


@flow(name="evaluate", flow_run_name="evaluate-{target}", validate_parameters=False)
def evaluate_flow(target: str, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Play every cell of ``target`` under ``root`` (resuming finished ones); the metrics."""
    logger = get_run_logger()
    torch.set_num_threads(1)
    paths = Paths(root)
    config = study.evaluate
    search = SearchConfig(simulations=config.simulations, gumbel=config.gumbel)
    code = tree_sha256(paths.root, EVALUATE_CODE)
    remove_temporaries(paths.evaluation_dir(target))
    paths.evaluation_dir(target).mkdir(parents=True, exist_ok=True)
    models: dict[tuple[str, int], PolicyValueNet] = {}
    starts: dict[str, PolicyValueNet] = {}
    with tracking.stage_run(paths, STAGE, target, flow_run.id) as run:
        run.log_params(flatten({"seed": study.seed, "target": target, "evaluate": asdict(config)}))
        done: dict[Cell, dict[str, Any]] = {}
        pending: dict[PrefectFuture[Any], tuple[Cell, dict[str, Any]]] = {}
        for cell in cells(study, target):
            start, budget, spec = cell
            model = paths.adapted(target, start, budget)
            if not model.is_file():
                raise FileNotFoundError(f"{model} does not exist: run adapt@{target} first")
            fingerprint = as_json(
                {
                    "seed": study.seed,
                    "model": sha256(model),
                    "opponent": spec,
                    "evaluate": asdict(config),
                    "code": code,
                }
            )
            marker = checked_json(paths.root, _cell_path(paths, target, cell, ".json"))
            if marker is not None and marker.get("fingerprint") == fingerprint:
                done[cell] = marker
                continue
            if (start, budget) not in models:
                models[start, budget] = load_checkpoint(model)[0]
            opponent_net = None
            if spec == UNADAPTED:
                opponent_net = starts.setdefault(start, load_start(paths, study, start))
            job = EvaluationJob(
                target,
                player_name(start, budget),
                f"{start} ({UNADAPTED})" if spec == UNADAPTED else spec,
                config.games,
                search,
                config.opening_plies,
                config.max_plies,
                seed_sequence(study.seed, STAGE, target, purpose=spec),
                single_threaded(study.runner),
            )
            future = evaluation_task.submit(models[start, budget], job, opponent_net)
            pending[future] = (cell, fingerprint)
        logger.info("%s: %d cells done already, %d to play", target, len(done), len(pending))
        for future in as_completed(list(pending)):
            cell, fingerprint = pending[future]
            played: Timed[MatchResult] = future.result()
            done[cell] = _save_cell(paths, target, cell, played, fingerprint)
            m = done[cell]["summary"]
            logger.info(
                "%s %s vs %s: %d/%d/%d, score %.3f (95%% CI %.3f-%.3f)",
                target, player_name(cell[0], cell[1]), cell[2], m["wins"], m["draws"], m["losses"], m["score"],
                m["ci_low"], m["ci_high"],
            )  # fmt: skip
        return _publish(paths, study, target, done, run)


def _cell_path(paths: Paths, target: str, cell: Cell, suffix: str) -> Path:
    start, budget, spec = cell
    return paths.evaluation_cell(target, start, budget, opponent_slug(spec), suffix)


def _save_cell(
    paths: Paths, target: str, cell: Cell, played: Timed[MatchResult], fingerprint: dict[str, Any]
) -> dict[str, Any]:
    records = write_records(played.value.records, _cell_path(paths, target, cell, ".pgn"))
    marker = {
        "summary": match_summary(played.value),
        "seconds": round(played.seconds, 3),
        "fingerprint": fingerprint,
        "files": file_hashes(paths.root, [records]),
    }
    write_json(_cell_path(paths, target, cell, ".json"), marker)
    return marker


def _publish(
    paths: Paths, study: StudyConfig, target: str, done: dict[Cell, dict[str, Any]], run: tracking.StageRun
) -> dict[str, Any]:
    metrics: dict[str, Any] = {}
    rows = []
    for cell in cells(study, target):
        start, budget, spec = cell
        summary = done[cell]["summary"]
        metrics.setdefault(start, {}).setdefault(f"b{budget}", {})[opponent_slug(spec)] = summary
        rows.append(
            {
                "game": target,
                "start": start,
                "budget": budget,
                "player 1": player_name(start, budget),
                "player 2": spec,
                **{k: summary[k] for k in ("wins", "draws", "losses", "games", "score", "ci_low", "ci_high")},
            }
        )
    write_json(paths.evaluation_metrics(target), metrics)
    write_csv(paths.evaluation_table(target), TABLE_HEADER, rows)
    run.log_metrics({k: v for k, v in flatten(metrics).items() if isinstance(v, int | float)})
    run.log_metrics({"seconds": sum(d["seconds"] for d in done.values())})
    for path in (paths.evaluation_metrics(target), paths.evaluation_table(target)):
        run.log_artifact(path, "dvc")
    with tempfile.TemporaryDirectory() as scratch:
        sample = [
            record
            for cell in cells(study, target)
            if cell[1] == max(study.adapt.budgets)
            for record in read_records(_cell_path(paths, target, cell, ".pgn"))[:SAMPLE_GAMES]
        ]
        run.log_artifact(write_records(sample, Path(scratch) / f"evaluate_{target}_sample.pgn"), "games")
    return metrics
