"""Stage ``evaluate@{target}``: every adapted model of ``target``, of every training replicate, against every
opponent (``mmc.evaluation.evaluate``), then every model's Elo and the paired comparisons that answer the study's
question.

A cell is (replicate, start, budget, opponent): the model ``models/adapted/{t}/r{r}/{start}_b{budget}.pt`` with
MCTS (``evaluate.search``) plays ``evaluate.games`` games against each opponent of ``evaluate.opponents`` that
plays the target (Fairy-Stockfish only where the engine knows it), and against its own unadapted start of the
same replicate (``unadapted``, budgets > 0); a cell whose first ``evaluate.settle_games`` games settle it (a score
of ``evaluate.settle_score`` or more, or its complement or less) stops there. The stage lists the cells
(:func:`inputs`) and calls ``mmc.evaluation.evaluate.evaluate_and_rate`` with its job store (``data/jobs/evaluate/{t}``:
one Prefect task run per cell, its games kept as they finish). All cells against one opponent share the openings, so
starts, budgets and replicates are compared on the same positions. That function also puts every model on one Elo
scale with the cells' games, the anchors' ladder (played in one batch with the cells) and each model's games near
its first estimate (``greedy`` = 0, bootstrap 95 % intervals over games): ``plots/ratings/{t}.csv``. The stage
writes W/D/L, score and Wilson 95 % interval per cell (``metrics/evaluate/{t}.json``, ``dvc metrics``) and the rows
of the study's table in the seed's format (``plots/evaluation/{t}.csv``). Over the replicates
(``mmc.evaluation.comparison.replicated`` and ``compare``, a two-level bootstrap: games and training runs) come each
start's mean Elo per budget (``plots/curves/{t}.csv``) and the paired comparisons with their verdicts
(``plots/comparisons/{t}.csv``: a comparison is ``uninformative`` where one of its starts did not beat scratch at budget
0, ``mmc.evaluation.comparison.learned``; each states its probability of improvement, its interquartile mean from 5
replicates, and whether its verdict holds when any one replicate is left out, ``mmc.evaluation.comparison.holds``: a
verdict that does not is fragile); all of them in ``metrics/rate/{t}.json`` (``dvc metrics``) and MLflow ``elo.*``,
``difference.*``.
"""

from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from prefect import flow, get_run_logger

from mmc.core.seeding import derive, rng, root
from mmc.evaluation.comparison import replicate_summary
from mmc.evaluation.evaluate import Cell, EvaluateConfig, RateConfig, evaluate_and_rate
from mmc.evaluation.mistakes import MistakeRate, mistake_jobs, mistake_ratings, suite_for
from mmc.evaluation.rating import Ratings
from mmc.evaluation.starts import Start, adapted_models, learning_verdict, model_label, scratch_margins
from mmc.evaluation.starts import comparisons as compare_starts
from mmc.nn import PolicyValueNet, load_checkpoint
from mmc.play import write_records
from pipelines import metrics as names
from pipelines import tracking
from pipelines.calls import keywords
from pipelines.config import UNADAPTED, StudyConfig, opponent_slug
from pipelines.files import write_json
from pipelines.paths import Paths, evaluate_code
from pipelines.records import (
    ComparisonRow,
    CurveRow,
    EvaluationRow,
    MatchSummary,
    MistakeRow,
    RatingRow,
    write_rows,
)
from pipelines.stage import logged_params, open_stage
from pipelines.starts import load_start

__all__ = [
    "EvaluateInputs",
    "RatingInputs",
    "cells",
    "comparisons",
    "evaluate_flow",
    "inputs",
    "rated_models",
    "rating_inputs",
]

STAGE = "evaluate"
SAMPLE_GAMES = 2
"""Games per cell logged to MLflow as a sample."""


def rated_models(study: StudyConfig) -> list[tuple[int, Start, int]]:
    """Every model of a target as (replicate, start, budget): replicate, then budget, then start."""
    models = adapted_models(study.adapt.starts, study.adapt.budgets)
    return [(replicate, start, budget) for replicate in study.replicates for start, budget in models]


def cells(study: StudyConfig, target: str) -> list[tuple[int, Start, int, str]]:
    """The target's cells as (replicate, start, budget, opponent spec) in table order: replicate, budget, start,
    opponent (no ``unadapted`` at budget 0, no ``fairy`` where the engine does not play the target)."""
    return [
        (replicate, start, budget, spec)
        for replicate, start, budget in rated_models(study)
        for spec in study.opponents(target)
        if not (spec == UNADAPTED and budget == 0)
    ]


@dataclass(frozen=True)
class EvaluateInputs:
    """The keyword arguments of ``mmc.evaluation.evaluate.evaluate_and_rate`` for one target's cells
    (:func:`inputs`)."""

    cells: list[Cell]
    """Every cell, networks loaded, in table order (:func:`cells`)."""
    variant: str
    config: EvaluateConfig
    seed: np.random.SeedSequence
    """``("evaluate", target)`` of the study's seed: the same openings for every replicate."""
    device: str


@dataclass(frozen=True)
class RatingInputs:
    """The keyword arguments of ``mmc.evaluation.evaluate.evaluate_and_rate`` that the cells' do not give
    (:func:`rating_inputs`), and the seed of the rating's replicate bootstrap."""

    models: dict[str, PolicyValueNet] = field(repr=False)
    """Every model of the cells, by name."""
    anchors: list[str]
    """The anchors that play the target."""
    config: RateConfig
    seed: np.random.SeedSequence
    """``("rate",)`` of the evaluation's seed (the one ``evaluate_and_rate`` rates with)."""


def inputs(study: StudyConfig, paths: Paths, target: str) -> EvaluateInputs:
    """The arguments of ``mmc.evaluation.evaluate.evaluate_and_rate`` for ``target``'s cells: the cells (networks
    loaded), the variant, the evaluation config, the seed (``("evaluate", target)`` of the study's seed: the same
    openings for every replicate) and the device; :func:`rating_inputs` has the rating's."""
    adapted: dict[tuple[int, Start, int], PolicyValueNet] = {}
    starts: dict[tuple[int, Start], PolicyValueNet] = {}
    out: list[Cell] = []
    for replicate, start, budget, spec in cells(study, target):
        key = (replicate, start, budget)
        if key not in adapted:
            model = paths.adapted(target, replicate, str(start), budget)
            if not model.is_file():
                raise FileNotFoundError(f"{model} does not exist: run adapt@{target}-{replicate} first")
            adapted[key] = load_checkpoint(model)[0]
        player = model_label(start, budget, replicate)
        if spec == UNADAPTED:
            unadapted = start.adapts_from
            opponent = starts.setdefault((replicate, unadapted), load_start(paths, study, unadapted, replicate))
            out.append(Cell(player, adapted[key], spec, opponent, _opponent_name(study, start, spec, replicate)))
        else:
            out.append(Cell(player, adapted[key], spec))
    return EvaluateInputs(out, target, study.evaluate.config, derive(root(study.seed), STAGE, target), study.device)


def _opponent_name(study: StudyConfig, start: Start, spec: str, replicate: int) -> str:
    """The opponent of a cell in the rating pool: the unadapted start is its own budget-0 model when there is one
    (MetaFocus's is JOAT's)."""
    if spec != UNADAPTED:
        return spec
    unadapted = start.adapts_from
    return (
        model_label(unadapted, 0, replicate) if 0 in study.adapt.budgets else f"{unadapted}-r{replicate} ({UNADAPTED})"
    )


def rating_inputs(study: StudyConfig, matches: list[Cell], target: str, seed: np.random.SeedSequence) -> RatingInputs:
    """The models of the cells ``matches`` (by name), the anchors that play ``target``, the rating config and the
    rating's seed (``("rate",)`` of the evaluation's)."""
    rated: dict[str, PolicyValueNet] = {}
    for cell in matches:
        assert cell.net is not None
        rated.setdefault(cell.player, cell.net)
    return RatingInputs(rated, study.anchors(target), study.rate, derive(seed, "rate"))


@flow(name="evaluate", flow_run_name="evaluate-{target}", validate_parameters=False)
def evaluate_flow(target: str, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Play every cell of ``target`` under ``root`` (keeping finished ones), rate every model; the metrics."""
    params = logged_params(study, None, {"target": target}, evaluate=_logged(study))
    with open_stage(study, root, STAGE, variant=target, jobs=(STAGE, target), code=evaluate_code(study.family),
                    params=params) as stage:  # fmt: skip
        paths, run, store, logger = stage.paths, stage.run, stage.store, stage.logger
        given = inputs(study, paths, target)
        rating = rating_inputs(study, given.cells, target, given.seed)
        with stage.clock.part("rating fits", lambda: store.waited):  # its games count as evaluation games
            results, rated = evaluate_and_rate(**keywords(given), models=rating.models, anchors=rating.anchors,
                                               rate_config=rating.config, run=store)  # fmt: skip
        _publish_ratings(paths, study, target, rated.ratings, derive(rating.seed, "replicates"), run)
        suite = suite_for(target)
        rates: list[MistakeRate] = []
        if suite is not None:
            rates = store(mistake_jobs(rating.models, target, suite, given.config.search,
                                       derive(given.seed, "mistakes"), given.device))  # fmt: skip
            for rate in rates:
                logger.info("%s %s on suite %s: %s", target, rate.player, suite, rate.summary())
        _publish_mistakes(paths, study, target, rates, suite, rated.ratings, derive(given.seed, "mistakes"), run)
        metrics: dict[str, Any] = {}
        rows = []
        for (replicate, start, budget, spec), result in zip(cells(study, target), results, strict=True):
            summary = MatchSummary.of(result)
            by_model = metrics.setdefault(f"r{replicate}", {}).setdefault(str(start), {}).setdefault(f"b{budget}", {})
            by_model[opponent_slug(spec)] = asdict(summary)
            player = model_label(start, budget, replicate)
            rows.append(EvaluationRow(target, str(start), budget, replicate, player, spec, **asdict(summary)))
            logger.info("%s %s vs %s: %s", target, player, spec, _describe(summary))
        write_json(paths.evaluation_metrics(target), metrics)
        write_rows(paths.evaluation_table(target), EvaluationRow, rows)
        run.log_metrics(names.from_json(metrics))
        run.log_metrics({names.SECONDS: store.job_seconds(["match"], [()])})
        for path in (paths.evaluation_metrics(target), paths.evaluation_table(target)):
            run.log_artifact(path, "dvc")
        largest = max(study.adapt.budgets)
        sample = [
            record
            for (_, _, budget, _), result in zip(cells(study, target), results, strict=True)
            if budget == largest
            for record in result.records[:SAMPLE_GAMES]
        ]
        with tempfile.TemporaryDirectory() as scratch:
            run.log_artifact(write_records(sample, Path(scratch) / f"evaluate_{target}_sample.pgn"), "games")
    return metrics


def comparisons(study: StudyConfig) -> list[tuple[tuple[Start, int], tuple[Start, int]]]:
    """The paired comparisons that answer the study's question (``mmc.evaluation.starts.comparisons``), as ((start,
    budget), (start, budget)) of the models ``a - b``."""
    return compare_starts(study.adapt.starts, study.adapt.budgets)


def _publish_ratings(
    paths: Paths, study: StudyConfig, target: str, ratings: Ratings, seed: np.random.SeedSequence,
    run: tracking.StageRun,
) -> None:  # fmt: skip
    """``plots/ratings/{t}.csv`` (every player's Elo and game interval), ``plots/curves/{t}.csv`` (each start's
    mean over the replicates), ``plots/comparisons/{t}.csv`` (paired by replicate, with verdicts), all in
    ``metrics/rate/{t}.json``; MLflow metrics. ``seed`` draws the replicates of the two-level bootstrap."""
    logger = get_run_logger()
    kinds = {model_label(start, budget, r): (str(start), budget, r) for r, start, budget in rated_models(study)}
    rows = []
    for player in sorted(ratings.players, key=lambda name: ratings.elo[name]):
        start, budget, replicate = kinds.get(player, ("", -1, -1))
        elo, low, high = (round(v[player], 1) for v in (ratings.elo, ratings.low, ratings.high))
        kind = "model" if player in kinds else "anchor"
        rows.append(RatingRow(target, player, kind, start, budget, replicate, elo, low, high, ratings.games[player]))
        # "mcts:100: Elo" would show ":100:" as an emoji in Prefect's rich console
        logger.info("%s %s = Elo %+.0f (95%% %+.0f..%+.0f)", target, player, elo, low, high)
    curves, compared = _answers(study, target, ratings, seed, "Elo")
    rated = {r.player: {k: getattr(r, k) for k in ("elo", "low", "high", "games")} for r in rows}
    by_start = {
        model_label(c.start, c.budget): {k: getattr(c, k) for k in ("elo", "low", "high", "spread")} for c in curves
    }
    by_pair = {
        f"{c.a} - {c.b}": {
            k: getattr(c, k)
            for k in ("difference", "low", "high", "verdict", "detectable", "learned", "improvement", "iqm", "holds")
        }
        for c in compared
    }
    write_json(paths.ratings(target), {"elo": rated, "starts": by_start, "comparisons": by_pair})
    write_rows(paths.rating_table(target), RatingRow, rows)
    write_rows(paths.curve_table(target), CurveRow, curves)
    write_rows(paths.comparison_table(target), ComparisonRow, compared)
    interval = ((names.ELO, "elo"), (names.ELO_LOW, "low"), (names.ELO_HIGH, "high"))
    run.log_metrics({names.per(name, r.player): getattr(r, field) for r in rows for name, field in interval})
    run.log_metrics({names.per(names.ELO_MEAN, model_label(c.start, c.budget)): c.elo for c in curves})
    run.log_metrics({names.comparison(c.a, c.b): c.difference for c in compared})
    tables = (paths.rating_table(target), paths.curve_table(target), paths.comparison_table(target))
    for path in (paths.ratings(target), *tables):
        run.log_artifact(path, "dvc")


def _answers(
    study: StudyConfig, target: str, ratings: Ratings, seed: np.random.SeedSequence, unit: str
) -> tuple[list[CurveRow], list[ComparisonRow]]:
    """Each start's mean per budget over the replicates and the paired comparisons with their verdicts, on the scale
    of ``ratings`` (Elo, or minus the mistake rate in percentage points: ``unit``), the bootstraps drawn from
    ``seed``; every comparison logged."""
    logger = get_run_logger()
    replicates, pairs = study.replicates, comparisons(study)
    models = adapted_models(study.adapt.starts, study.adapt.budgets)
    means, differences = replicate_summary(
        ratings,
        [[model_label(start, budget, r) for r in replicates] for start, budget in models],
        [([model_label(*a, r) for r in replicates], [model_label(*b, r) for r in replicates]) for a, b in pairs],
        rng(seed),
    )
    curves = []
    for model, mean in zip(models, means, strict=True):
        numbers = (round(mean.value, 1), round(mean.low, 1), round(mean.high, 1))
        curves.append(CurveRow(target, str(model[0]), model[1], *numbers, mean.replicates, round(mean.spread, 1)))
    # each start against scratch at budget 0, from a stream of its own (the comparisons' draws stay as they were)
    margins = scratch_margins(ratings, study.adapt.starts, replicates, rng(derive(seed, "learned")))
    compared = []
    for (a, b), c in zip(pairs, differences, strict=True):
        a_name, b_name = model_label(*a), model_label(*b)
        said, why = learning_verdict(a[0], b[0], c, margins)
        row = ComparisonRow.of(c, game=target, budget=a[1], a=a_name, b=b_name, verdict=said, learned=why)
        compared.append(row)
        fragile = "" if c.holds else " (fragile)"
        logger.info("%s %s - %s: %+.0f %s (95%% %+.0f..%+.0f): %s%s, P(improvement) %.2f", target, a_name, b_name,
                    row.difference, unit, row.low, row.high, said, fragile, c.improvement)  # fmt: skip
    return curves, compared


def _publish_mistakes(
    paths: Paths, study: StudyConfig, target: str, rates: list[MistakeRate], suite: str | None, elo: Ratings,
    seed: np.random.SeedSequence, run: tracking.StageRun,
) -> None:  # fmt: skip
    """``plots/mistakes/{t}.csv`` (every model's mistake rate on the target's suite beside its Elo) and
    ``plots/mistake_comparisons/{t}.csv`` (the paired comparisons of the study's question, on the mistake rate, with
    the same verdict rules as Elo's: ``a - b`` in percentage points of mistakes fewer), both in
    ``metrics/mistakes/{t}.json``; MLflow ``mistakes.*``. Empty tables where the target has no suite."""
    kinds = {model_label(start, budget, r): (str(start), budget, r) for r, start, budget in rated_models(study)}
    rows: list[MistakeRow] = []
    compared: list[ComparisonRow] = []
    for rate in rates:
        start, budget, replicate = kinds[rate.player]
        lo, hi = rate.ci
        clo, chi = rate.critical_ci
        rows.append(MistakeRow(target, suite or "", rate.player, start, budget, replicate, rate.positions,
                               rate.mistakes, round(rate.rate, 4), round(lo, 4), round(hi, 4),
                               rate.critical_positions, rate.critical_mistakes, round(rate.critical_rate, 4),
                               round(clo, 4), round(chi, 4), rate.illegal, round(elo.elo[rate.player], 1)))  # fmt: skip
    if rates:
        _, compared = _answers(study, target, mistake_ratings(rates, rng(derive(seed, "bootstrap"))), seed,
                               "points fewer mistakes")  # fmt: skip
    by_pair = {
        f"{c.a} - {c.b}": {k: getattr(c, k) for k in ("difference", "low", "high", "verdict", "detectable", "learned")}
        for c in compared
    }
    by_model = {r.player: {"rate": r.rate, "low": r.low, "high": r.high, "critical_rate": r.critical_rate}
                for r in rows}  # fmt: skip
    write_json(paths.mistake_metrics(target), {"suite": suite, "models": by_model, "comparisons": by_pair})
    write_rows(paths.mistake_table(target), MistakeRow, rows)
    write_rows(paths.mistake_comparison_table(target), ComparisonRow, compared)
    run.log_metrics({names.per(names.MISTAKES, r.player): r.rate for r in rows})
    for path in (paths.mistake_metrics(target), paths.mistake_table(target), paths.mistake_comparison_table(target)):
        run.log_artifact(path, "dvc")


def _describe(summary: MatchSummary) -> str:
    s = summary
    return f"{s.wins}/{s.draws}/{s.losses}, score {s.score:.3f} (95% CI {s.ci_low:.3f}-{s.ci_high:.3f})"


def _logged(study: StudyConfig) -> dict[str, Any]:
    config = study.evaluate.config
    return {"opponents": study.evaluate.opponents, **{k: v for k, v in asdict(config).items() if k != "search"},
            "search": asdict(config.search)}  # fmt: skip
