"""Every artifact path of the study, in one place; ``dvc.yaml`` declares the same paths as stage outputs.

Layout under the project root (``{v}`` is a variant, ``{g:03d}`` a generation, ``{c:02d}`` a chunk)::

    params.yaml                                   parameters (pipelines.config)
    data/selfplay/{v}/gen_{g}/chunk_{c}.npz       self-play examples of one chunk (mmc.train.save_examples)
    data/selfplay/{v}/gen_{g}/chunk_{c}.pgn       its game records (mmc.play.write_records)
    data/selfplay/{v}/gen_{g}/chunk_{c}.json      its stats and file hashes, written last: the chunk is done
    data/selfplay/{v}/gen_{g}/arena.pgn           candidate vs champion games of the generation
    models/expert/{v}/initial.pt|.json            the randomly initialised network (generation 0's champion)
    models/expert/{v}/gen_{g}.pt|.json            generation g's trained candidate (mmc.nn.save_checkpoint)
    models/expert/{v}/gen_{g}.manifest.json       generation g's record, written last: the generation is done
    models/expert/{v}/fingerprint.json            what the generations were made with (a change starts over)
    models/champion/{v}.pt|.json                  the final champion (input of the evaluation)
    metrics/expert/{v}.json                       expert summary (dvc metrics)
    plots/losses/{v}.csv, plots/arena/{v}.csv     per-generation curves (dvc plots)
    data/meta/{k}/gen_{g}/{task}.npz|.pgn|.json   meta-generation g's self-play of one task ({k}: joat, multitask)
    models/meta/{k}/initial.pt|.json              the initial network (theta_0)
    models/meta/{k}/gen_{g}.pt|.json              theta after meta-generation g (multitask: the network after it)
    models/meta/{k}/gen_{g}.manifest.json         meta-generation g's record, written last: it is done
    models/meta/{k}/fingerprint.json              what the meta-generations were made with
    models/starts/{k}.pt|.json                    the final joat / multitask network (a start of adaptation)
    plots/meta/{k}.csv                            losses per meta-generation (report input format)
    metrics/meta/{k}.json                         meta-training summary (dvc metrics)
    models/adapted/{t}/{s}_b{b}.pt|.json|.done.json   start {s} adapted to target {t} with {b} self-play games
    data/adapt/{t}/{s}_b{b}.npz|.pgn              the adaptation's self-play (budget > 0)
    metrics/adapt/{t}.json                        adaptation losses and sizes per start and budget (dvc metrics)
    data/evaluate/{t}/{s}_b{b}_vs_{o}.pgn|.json   one evaluation cell's games, and its tally (written last)
    metrics/evaluate/{t}.json                     W/D/L, score, Wilson 95 % interval per start, budget, opponent
    plots/evaluation/{t}.csv                      the same as rows in the seed's table format
    reports/evaluation.csv                        every target's rows: the study's summary table
    data/report/losses.csv|sample.pgn|runs.json   the report's other inputs
    reports/study.html                            the report (reports/study.ipynb executed)
    mlflow.db, mlartifacts/                       MLflow runs and artifacts (sqlite at an absolute URI)
    .prefect/                                     Prefect's home: server database, logs, pid file

``data/selfplay/{v}`` and ``models/expert/{v}`` are the expert stage's persistent outputs: DVC leaves them in
place when it reruns the stage, so finished generations survive a crash (see ``pipelines.generations``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["ADAPT_CODE", "EVALUATE_CODE", "EXPERT_CODE", "META_CODE", "Paths", "stage_name"]

EXPERT_CODE = (
    "mmc/__init__.py",
    "mmc/alphazero.py",
    "mmc/atomic.py",
    "mmc/engine",
    "mmc/nn",
    "mmc/play",
    "mmc/search",
    "mmc/train",
    "pipelines/seeds.py",
    "pipelines/tasks.py",
)
"""Code that decides what the expert stage computes: a change to it starts the generations over. The stage's
``deps`` in ``dvc.yaml`` list these and the modules that only move results around (tests check it)."""
EVALUATE_CODE = EXPERT_CODE
"""Code that decides what the evaluation computes."""
META_CODE = (*EXPERT_CODE, "mmc/meta")
"""Code that decides what the meta stages compute (a change starts their generations over)."""
ADAPT_CODE = META_CODE
"""Code that decides what an adaptation computes (a change redoes the target's adaptations)."""


def stage_name(stage: str, variant: str) -> str:
    """The DVC stage of ``stage`` for ``variant``, as ``foreach`` names it: ``expert@gardner``."""
    return f"{stage}@{variant}"


@dataclass(frozen=True)
class Paths:
    """The study's files under ``root`` (absolute)."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).resolve())

    # project-wide
    @property
    def params(self) -> Path:
        return self.root / "params.yaml"

    @property
    def mlflow_db(self) -> Path:
        return self.root / "mlflow.db"

    @property
    def mlflow_uri(self) -> str:
        """Absolute sqlite URI: a relative one would open a new database wherever a stage happens to run."""
        return f"sqlite:///{self.mlflow_db}"

    @property
    def mlflow_artifacts(self) -> Path:
        return self.root / "mlartifacts"

    @property
    def prefect_home(self) -> Path:
        return self.root / ".prefect"

    @property
    def mlflow_ui_dir(self) -> Path:
        """The MLflow UI's pid and log files."""
        return self.root / ".mlflow-ui"

    # expert@{v}
    def selfplay_dir(self, variant: str) -> Path:
        return self.root / "data" / "selfplay" / variant

    def generation_dir(self, variant: str, generation: int) -> Path:
        return self.selfplay_dir(variant) / f"gen_{generation:03d}"

    def chunk_examples(self, variant: str, generation: int, chunk: int) -> Path:
        return self.generation_dir(variant, generation) / f"chunk_{chunk:02d}.npz"

    def chunk_records(self, variant: str, generation: int, chunk: int) -> Path:
        return self.generation_dir(variant, generation) / f"chunk_{chunk:02d}.pgn"

    def chunk_done(self, variant: str, generation: int, chunk: int) -> Path:
        return self.generation_dir(variant, generation) / f"chunk_{chunk:02d}.json"

    def arena_records(self, variant: str, generation: int) -> Path:
        return self.generation_dir(variant, generation) / "arena.pgn"

    def models_dir(self, variant: str) -> Path:
        return self.root / "models" / "expert" / variant

    def initial_model(self, variant: str) -> Path:
        return self.models_dir(variant) / "initial.pt"

    def candidate(self, variant: str, generation: int) -> Path:
        return self.models_dir(variant) / f"gen_{generation:03d}.pt"

    def manifest(self, variant: str, generation: int) -> Path:
        return self.models_dir(variant) / f"gen_{generation:03d}.manifest.json"

    def fingerprint(self, variant: str) -> Path:
        return self.models_dir(variant) / "fingerprint.json"

    def champion(self, variant: str) -> Path:
        return self.root / "models" / "champion" / f"{variant}.pt"

    def expert_metrics(self, variant: str) -> Path:
        return self.root / "metrics" / "expert" / f"{variant}.json"

    def loss_curve(self, variant: str) -> Path:
        return self.root / "plots" / "losses" / f"{variant}.csv"

    def arena_curve(self, variant: str) -> Path:
        return self.root / "plots" / "arena" / f"{variant}.csv"

    def evaluation_dir(self, target: str) -> Path:
        return self.root / "data" / "evaluate" / target

    def evaluation_metrics(self, variant: str) -> Path:
        return self.root / "metrics" / "evaluate" / f"{variant}.json"

    # meta_train (k = joat), multitask (k = multitask)
    def meta_data_dir(self, kind: str) -> Path:
        return self.root / "data" / "meta" / kind

    def meta_task(self, kind: str, generation: int, task: str, suffix: str) -> Path:
        """Meta-generation ``generation``'s self-play of ``task``: ``.npz``, ``.pgn`` or ``.json`` (done)."""
        return self.meta_data_dir(kind) / f"gen_{generation:03d}" / f"{task}{suffix}"

    def meta_models_dir(self, kind: str) -> Path:
        return self.root / "models" / "meta" / kind

    def start_model(self, name: str) -> Path:
        """A published starting model of adaptation (``joat``, ``multitask``)."""
        return self.root / "models" / "starts" / f"{name}.pt"

    def meta_losses(self, kind: str) -> Path:
        return self.root / "plots" / "meta" / f"{kind}.csv"

    def meta_metrics(self, kind: str) -> Path:
        return self.root / "metrics" / "meta" / f"{kind}.json"

    # adapt@{t}
    def adapted_dir(self, target: str) -> Path:
        return self.root / "models" / "adapted" / target

    def adapted(self, target: str, start: str, budget: int, suffix: str = ".pt") -> Path:
        """Start ``start`` adapted to ``target`` with ``budget`` games: ``.pt`` or ``.done.json`` (written last)."""
        return self.adapted_dir(target) / f"{start}_b{budget:03d}{suffix}"

    def adapt_data_dir(self, target: str) -> Path:
        return self.root / "data" / "adapt" / target

    def adapt_games(self, target: str, start: str, budget: int, suffix: str) -> Path:
        return self.adapt_data_dir(target) / f"{start}_b{budget:03d}{suffix}"

    def adapt_metrics(self, target: str) -> Path:
        return self.root / "metrics" / "adapt" / f"{target}.json"

    # evaluate@{t}
    def evaluation_cell(self, target: str, start: str, budget: int, opponent_slug: str, suffix: str) -> Path:
        """One cell's games (``.pgn``) and tally (``.json``, written last)."""
        return self.evaluation_dir(target) / f"{start}_b{budget:03d}_vs_{opponent_slug}{suffix}"

    def evaluation_table(self, target: str) -> Path:
        return self.root / "plots" / "evaluation" / f"{target}.csv"

    # report
    @property
    def summary_table(self) -> Path:
        return self.root / "reports" / "evaluation.csv"

    @property
    def report_inputs(self) -> Path:
        return self.root / "data" / "report"

    @property
    def report_notebook(self) -> Path:
        return self.root / "reports" / "study.ipynb"

    @property
    def report_html(self) -> Path:
        return self.root / "reports" / "study.html"

    def relative(self, path: Path) -> str:
        """``path`` relative to the root, with forward slashes (as manifests and MLflow show it)."""
        return Path(path).resolve().relative_to(self.root).as_posix()
