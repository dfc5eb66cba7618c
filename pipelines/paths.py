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
    data/evaluate/{v}/vs_{opponent}.pgn           evaluation games
    metrics/evaluate/{v}.json                     W/D/L, score, Wilson 95 % interval per opponent (dvc metrics)
    mlflow.db, mlartifacts/                       MLflow runs and artifacts (sqlite at an absolute URI)
    .prefect/                                     Prefect's home: server database, logs, pid file

``data/selfplay/{v}`` and ``models/expert/{v}`` are the expert stage's persistent outputs: DVC leaves them in
place when it reruns the stage, so finished generations survive a crash (see ``pipelines.generations``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["EVALUATE_CODE", "EXPERT_CODE", "Paths", "stage_name"]

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

    # evaluate@{v}
    def evaluation_dir(self, variant: str) -> Path:
        return self.root / "data" / "evaluate" / variant

    def evaluation_records(self, variant: str, opponent_slug: str) -> Path:
        return self.evaluation_dir(variant) / f"vs_{opponent_slug}.pgn"

    def evaluation_metrics(self, variant: str) -> Path:
        return self.root / "metrics" / "evaluate" / f"{variant}.json"

    def relative(self, path: Path) -> str:
        """``path`` relative to the root, with forward slashes (as manifests and MLflow show it)."""
        return Path(path).resolve().relative_to(self.root).as_posix()
