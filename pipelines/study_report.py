"""Stage ``report``: gather the study's results into the report's input files, render ``reports/study.html``.

Inputs (``reports/README.md`` has the contract): the losses of every training run of every replicate (the
experts' ``plots/losses/{v}-r{r}.csv``, the learners' ``plots/learn/{k}-r{r}.csv``) as
``data/report/losses.csv``; every target's evaluation rows as ``reports/evaluation.csv`` (the study's summary
table, seed format); the ratings, curves and comparisons of every target as ``data/report/{ratings,curves,
comparisons}.csv``; every model's mistake rate on its target's solver-labelled suite and the comparisons on it as
``data/report/{mistakes,mistake_comparisons}.csv``; a sample game (JOAT of the first replicate after the largest
adaptation against greedy, in the first target held out of meta-training) as ``data/report/sample.pgn``; the MLflow
runs of this study as ``data/report/runs.json``. Then
``pipelines.report.render_report`` executes ``reports/study.ipynb`` with papermill into offline HTML, which is
logged with its inputs to the stage's MLflow run.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

from mlflow.tracking import MlflowClient
from prefect import flow, get_run_logger
from prefect.runtime import flow_run

from mmc.evaluation.starts import Start, model_label
from mmc.play import GameRecord, write_records
from pipelines import timing, tracking
from pipelines.config import StudyConfig
from pipelines.files import write_json, write_text
from pipelines.jobs import cell_records
from pipelines.paths import Paths
from pipelines.records import (
    ComparisonRow,
    CurveRow,
    EvaluationRow,
    LossRow,
    MistakeRow,
    RatingRow,
    TrainingLossRow,
    read_rows,
    write_rows,
)
from pipelines.report import ReportError, ReportInputError, render_report

__all__ = ["official_beside", "report_flow", "study_runs"]

STAGE = "report"
R = TypeVar("R")


@flow(name="report", flow_run_name="report", validate_parameters=False)
def report_flow(study: StudyConfig, root: Path) -> Path:
    """Write the report's inputs and render ``reports/study.html`` under ``root``; the HTML's path."""
    clock = timing.Clock()
    logger = get_run_logger()
    paths = Paths(root)
    losses = [
        TrainingLossRow(f"expert-{v}", r, "expert", v, row.generation, row.policy, row.value, row.total)
        for r in study.replicates
        for v in study.variants
        for row in read_rows(paths.loss_curve(v, r), LossRow)
    ]
    for replicate in study.replicates:
        for name in study.learners.names:
            losses += read_rows(paths.learn_losses(name, replicate), TrainingLossRow)
    write_rows(paths.report_losses, TrainingLossRow, losses)
    table = _gather(study, paths.evaluation_table, EvaluationRow)
    write_rows(paths.summary_table, EvaluationRow, table)
    write_rows(paths.report_ratings, RatingRow, _gather(study, paths.rating_table, RatingRow))
    write_rows(paths.report_curves, CurveRow, _gather(study, paths.curve_table, CurveRow))
    write_rows(paths.report_comparisons, ComparisonRow, _gather(study, paths.comparison_table, ComparisonRow))
    write_rows(paths.report_mistakes, MistakeRow, _gather(study, paths.mistake_table, MistakeRow))
    write_rows(paths.report_mistake_comparisons, ComparisonRow,
               _gather(study, paths.mistake_comparison_table, ComparisonRow))  # fmt: skip
    write_records([_sample_game(paths, study)], paths.report_sample)
    write_json(paths.report_official, official_beside(study))
    with tracking.stage_run(paths, STAGE, "study", flow_run.id) as run:
        write_json(paths.report_runs, study_runs(run.client, run.run_id))
        parameters = {
            "params_path": paths.params,
            "losses_path": paths.report_losses,
            "evaluation_path": paths.summary_table,
            "games_path": paths.report_sample,
            "runs_path": paths.report_runs,
            "ratings_path": paths.report_ratings,
            "curves_path": paths.report_curves,
            "comparisons_path": paths.report_comparisons,
            "mistakes_path": paths.report_mistakes,
            "mistake_comparisons_path": paths.report_mistake_comparisons,
            "official_path": paths.report_official,
        }
        try:
            with clock.part("report"):
                html = render_report(paths.report_notebook, paths.report_html, parameters)
        except (ReportError, ReportInputError) as error:
            write_text(paths.report_failure, f"{error}\n")
            raise
        paths.report_failure.unlink(missing_ok=True)
        run.log_artifact(html, "report")
        for path in parameters.values():
            run.log_artifact(Path(path), "report/inputs")
        logger.info("report written to %s (%d evaluation rows)", paths.relative(html), len(table))
        run.log_metrics(timing.stage_metrics(clock.split([])))
    return html


def official_beside(study: StudyConfig) -> dict[str, Any]:
    """What the report sets beside the study's numbers: the frozen benchmark the study names or equals
    (``pipelines.benchmarks.matching``), how (``named`` or ``equal``), and that benchmark's official row's numbers
    and provenance (``pipelines.rows``), ``None`` where there is none."""
    from pipelines.benchmarks import matching
    from pipelines.rows import official_row

    benchmark = matching(study.raw)
    if benchmark is None:
        return {"benchmark": None, "how": None, "row": None}
    row = official_row(benchmark.name)
    kept = None if row is None else {key: row[key] for key in ("code", "cpu", "command", "learners", "targets")}
    return {"benchmark": benchmark.name, "how": "named" if study.benchmark else "equal", "row": kept}


def _gather(study: StudyConfig, path: Callable[[str], Path], cls: type[R]) -> list[R]:
    """The rows of every target's table ``path(target)``, in target order."""
    return [row for target in study.targets for row in read_rows(path(target), cls)]


def _sample_game(paths: Paths, study: StudyConfig) -> GameRecord:
    """The first contender (a learner's start that is no baseline: JOAT; else the first start) of the first
    replicate after the largest budget against greedy (or the first opponent), in the first held-out target (or the
    first target): the cell's first game."""
    held_out = [t for t in study.targets if t not in study.meta.train_variants]
    target = (held_out or study.targets)[0]
    starts = [Start(s) for s in study.adapt.starts]
    start = next((s for s in starts if not s.baseline and s.zero_shot), starts[0])
    opponents = study.opponents(target)
    opponent = "greedy" if "greedy" in opponents else opponents[0]
    label = model_label(start, max(study.adapt.budgets), study.replicates[0])
    return cell_records(paths.root, paths.jobs("evaluate", target), target, label, opponent)[0]


def study_runs(client: MlflowClient, own_run: str) -> dict[str, Any]:
    """``{"parent": id, "children": {"DVC STAGE": id}, "time": [TimeRow, ...]}``: the study's parent run (the
    driver's or the DVC experiment's), its latest child per DVC stage (``adapt@gardner-0``; without a parent, the
    latest run of each stage), and where each of those stages' time went (:mod:`pipelines.timing`; a stage that
    DVC found up to date ran in no run of this study)."""
    run = client.get_run(own_run)
    parent = run.data.tags.get("mlflow.parentRunId")
    query = f"tags.`mlflow.parentRunId` = '{parent}'" if parent else "tags.`mmc.kind` = 'stage'"
    found = client.search_runs(
        [run.info.experiment_id], query, max_results=1000, order_by=["attributes.start_time DESC"]
    )
    children: dict[str, str] = {}
    spent: dict[str, dict[str, float]] = {}
    for child in found:
        name = (
            child.data.tags.get("dvc_stage")
            or f"{child.data.tags.get('mmc.stage', '?')}/{child.data.tags.get('variant', '?')}"
        )
        if name not in children:
            children[name] = str(child.info.run_id)
            spent[name] = dict(child.data.metrics)
    rows = [asdict(row) for stage in sorted(spent) for row in timing.rows_of(stage, spent[stage])]
    return {
        "parent": parent or os.environ.get(tracking.PARENT_ENV, "") or "none (a bare dvc repro)",
        "children": children,
        "time": rows,
    }
