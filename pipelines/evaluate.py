"""Stage ``evaluate@{target}``: every adapted model of ``target`` against every opponent (``mmc.evaluate``).

A cell is (start, budget, opponent): the model ``models/adapted/{t}/{start}_b{budget}.pt`` with MCTS
(``evaluate.search``) plays ``evaluate.games`` games against random, greedy, Fairy-Stockfish (where the engine
plays the target) and its own unadapted start (budgets > 0; the same search). The stage lists the cells
(:func:`inputs`) and calls ``mmc.evaluate.evaluate`` with its job store (``data/jobs/evaluate/{t}``: one Prefect
task run per cell, its games kept as they finish). All cells against one opponent share the openings, so
starts and budgets are compared on the same positions. The stage writes W/D/L, score and Wilson 95 % interval
per cell (``metrics/evaluate/{t}.json``, ``dvc metrics``) and the rows of the study's table in the seed's
format (``plots/evaluation/{t}.csv``). Then ``mmc.evaluate.rate`` puts every model on the Elo scale with the
cells' games, the anchors' ladder and each model's games near its first estimate (``greedy`` = 0, bootstrap
95 % intervals): ``metrics/rate/{t}.json`` (``dvc metrics``), ``plots/ratings/{t}.csv`` and MLflow ``elo.*``.
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

from mmc.evaluate import Cell, EvaluateConfig, RateConfig, evaluate, rate
from mmc.nn import PolicyValueNet, load_checkpoint
from mmc.play import write_records
from mmc.rating import Pairing, Ratings, compare
from mmc.seeding import derive, root
from pipelines import tracking
from pipelines.adapt import label, load_start, models
from pipelines.config import UNADAPTED, StudyConfig, flatten, opponent_slug
from pipelines.files import write_json
from pipelines.jobs import job_store
from pipelines.paths import EVALUATE_CODE, Paths
from pipelines.records import ComparisonRow, EvaluationRow, MatchSummary, RatingRow, write_rows

__all__ = ["cells", "comparisons", "evaluate_flow", "inputs", "rating_inputs"]

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
    evaluation config and the seed (``("evaluate", target)``); :func:`rating_inputs` has the rating's."""
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


def _opponent_name(study: StudyConfig, start: str, spec: str) -> str:
    """The opponent of a cell in the rating pool: the unadapted start is its own budget-0 model when there is one."""
    if spec != UNADAPTED:
        return spec
    return label(start, 0) if 0 in study.adapt.budgets else f"{start} ({UNADAPTED})"


def rating_inputs(
    study: StudyConfig, matches: list[Cell], target: str, seed: np.random.SeedSequence
) -> tuple[dict[str, PolicyValueNet], list[str], RateConfig, np.random.SeedSequence]:
    """The models of the cells ``matches`` (by name), the anchors that play ``target``, the rating config and the
    rating's seed (``("rate",)`` of the evaluation's)."""
    models: dict[str, PolicyValueNet] = {}
    for cell in matches:
        assert cell.net is not None
        models.setdefault(cell.player, cell.net)
    return models, study.anchors(target), study.rate, derive(seed, "rate")


@flow(name="evaluate", flow_run_name="evaluate-{target}", validate_parameters=False)
def evaluate_flow(target: str, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Play every cell of ``target`` under ``root`` (keeping finished ones); the metrics."""
    logger = get_run_logger()
    torch.set_num_threads(1)
    paths = Paths(root)
    store = job_store(paths, STAGE, target, EVALUATE_CODE, study.runner)
    with tracking.stage_run(paths, STAGE, target, flow_run.id) as run:
        run.log_params(flatten({"seed": study.seed, "target": target, "evaluate": _logged(study)}))
        matches, variant, config, seed = inputs(study, paths, target)
        results = evaluate(matches, variant, config, seed, run=store)
        played = [
            Pairing(label(start, budget), _opponent_name(study, start, spec), r.wins, r.draws, r.losses)
            for (start, budget, spec), r in zip(cells(study, target), results, strict=True)
        ]
        models, anchors, rate_config, rate_seed = rating_inputs(study, matches, target, seed)
        rated = rate(models, played, anchors, variant, config, rate_config, rate_seed, run=store)
        store.finish(logger, target)
        _publish_ratings(paths, study, target, rated.ratings, run)
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


def comparisons(study: StudyConfig) -> list[tuple[int, str, str]]:
    """The paired comparisons that answer the study's question, as (budget, a, b): at every budget JOAT against
    each other start, and every start adapted against itself unadapted (budget 0)."""
    budgets, starts = study.adapt.budgets, study.adapt.starts
    pairs = [(b, label("joat", b), label(s, b)) for b in budgets for s in starts if "joat" in starts and s != "joat"]
    if 0 in budgets:
        pairs += [(b, label(s, b), label(s, 0)) for b in budgets if b > 0 for s in starts]
    return pairs


def _publish_ratings(paths: Paths, study: StudyConfig, target: str, ratings: Ratings, run: tracking.StageRun) -> None:
    """``metrics/rate/{t}.json``, ``plots/ratings/{t}.csv`` and ``plots/comparisons/{t}.csv``: every player's
    Elo and interval, the paired comparisons and their verdicts; MLflow metrics."""
    logger = get_run_logger()
    kinds = {label(start, budget): (start, budget) for start, budget in models(study)}
    rows = []
    for player in sorted(ratings.players, key=lambda name: ratings.elo[name]):
        start, budget = kinds.get(player, ("", -1))
        elo, low, high = (round(v[player], 1) for v in (ratings.elo, ratings.low, ratings.high))
        kind = "model" if player in kinds else "anchor"
        rows.append(RatingRow(target, player, kind, start, budget, elo, low, high, ratings.games[player]))
        # "mcts:100: Elo" would show ":100:" as an emoji in Prefect's rich console
        logger.info("%s %s = Elo %+.0f (95%% %+.0f..%+.0f)", target, player, elo, low, high)
    compared = []
    for budget, a, b in comparisons(study):
        c = compare(ratings, a, b)
        numbers = (round(c.difference, 1), round(c.low, 1), round(c.high, 1))
        compared.append(ComparisonRow(target, budget, a, b, *numbers, c.verdict, round(c.detectable, 1)))
        logger.info("%s %s - %s: %+.0f Elo (95%% %+.0f..%+.0f): %s", target, a, b, *numbers, c.verdict)
    rated = {r.player: {k: getattr(r, k) for k in ("elo", "low", "high", "games")} for r in rows}
    differences = {
        f"{c.a} - {c.b}": {k: getattr(c, k) for k in ("difference", "low", "high", "verdict", "detectable")}
        for c in compared
    }
    write_json(paths.ratings(target), {"elo": rated, "comparisons": differences})
    write_rows(paths.rating_table(target), RatingRow, rows)
    write_rows(paths.comparison_table(target), ComparisonRow, compared)
    run.log_metrics({f"{key}.{opponent_slug(r.player)}": getattr(r, field) for r in rows
                     for key, field in (("elo", "elo"), ("elo_low", "low"), ("elo_high", "high"))})  # fmt: skip
    run.log_metrics({f"difference.{opponent_slug(c.a)}.{opponent_slug(c.b)}": c.difference for c in compared})
    for path in (paths.ratings(target), paths.rating_table(target), paths.comparison_table(target)):
        run.log_artifact(path, "dvc")


def _describe(summary: MatchSummary) -> str:
    s = summary
    return f"{s.wins}/{s.draws}/{s.losses}, score {s.score:.3f} (95% CI {s.ci_low:.3f}-{s.ci_high:.3f})"


def _logged(study: StudyConfig) -> dict[str, Any]:
    config = study.evaluate.config
    return {"opponents": study.evaluate.opponents, **{k: v for k, v in asdict(config).items() if k != "search"},
            "search": asdict(config.search)}  # fmt: skip
