"""The study driver (``make study``): one MLflow parent run around ``dvc repro``.

``python -m pipelines study [DVC ARGS...]`` (default ``repro``) checks ``params.yaml`` (a problem stops it
before anything is started or written), makes sure the Prefect server answers, marks the runs of killed
processes ``KILLED``, opens the parent run (``study-<time>``, with the flattened parameters and the git
commit), runs ``dvc DVC ARGS`` with ``MMC_MLFLOW_PARENT_RUN_ID`` set so that each stage's run becomes its
child, then closes the parent with DVC's outcome, the evaluation scores and the wall time, and prints them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from pipelines import services, tracking
from pipelines.config import StudyConfig, flatten
from pipelines.paths import Paths

__all__ = ["evaluation_lines", "run_study"]


def run_study(paths: Paths, study: StudyConfig, dvc_args: list[str]) -> int:
    """Run ``dvc dvc_args`` under a new parent run; DVC's exit status."""
    services.ensure_prefect(paths)
    tracking.close_orphans(paths)
    command = ["dvc", *(dvc_args or ["repro"])]
    parent = tracking.open_parent(
        paths, time.strftime("study-%Y%m%d-%H%M%S"), flatten(study.raw), {"mmc.dvc_command": " ".join(command)}
    )
    env = {**os.environ, tracking.PARENT_ENV: parent}
    start = time.monotonic()
    status = "FAILED"
    code = 1
    try:
        code = subprocess.run(
            [services.executable("dvc"), *command[1:]], cwd=paths.root, env=env, check=False
        ).returncode
        status = "FINISHED" if code == 0 else "FAILED"
    except KeyboardInterrupt:
        status = "KILLED"
        raise
    finally:
        seconds = time.monotonic() - start
        metrics = {**_evaluation_metrics(paths, study), "wall_seconds": round(seconds, 1)}
        tracking.close_parent(paths, parent, status, metrics)
        for path in (paths.root / "dvc.lock", *sorted((paths.root / "metrics").rglob("*.json"))):
            if path.is_file():
                _log_quietly(paths, parent, path)
    print(f"study {status.lower()} in {seconds / 60:.1f} min (dvc exit status {code}); MLflow parent run {parent}")
    for line in evaluation_lines(paths, study):
        print(line)
    return code


def _log_quietly(paths: Paths, run_id: str, path: Path) -> None:
    client, _ = tracking.configure(paths)
    folder = Path("dvc") / path.parent.relative_to(paths.root)
    client.log_artifact(run_id, str(path), folder.as_posix())


def _read_metrics(paths: Paths, target: str) -> dict[str, Any]:
    path = paths.evaluation_metrics(target)
    return dict(json.loads(path.read_text())) if path.is_file() else {}


def _evaluation_metrics(paths: Paths, study: StudyConfig) -> dict[str, float]:
    """Every evaluation cell's score, ``{target}.{start}.b{budget}.{opponent}.score``, for the parent run."""
    return {
        f"{target}.{key}": float(value)
        for target in study.targets
        for key, value in flatten(_read_metrics(paths, target)).items()
        if key.endswith(".score")
    }


def evaluation_lines(paths: Paths, study: StudyConfig) -> list[str]:
    """One line per target and start after the largest budget: the score and its 95 % interval per opponent
    (from ``metrics/evaluate``; every cell is in ``reports/evaluation.csv``)."""
    budget = f"b{max(study.adapt.budgets)}"
    lines = []
    for target in study.targets:
        for start, budgets in _read_metrics(paths, target).items():
            cells = budgets.get(budget, {})
            scores = ", ".join(
                f"{opponent} {m['wins']}/{m['draws']}/{m['losses']} "
                f"({m['score']:.2f}, {m['ci_low']:.2f}-{m['ci_high']:.2f})"
                for opponent, m in cells.items()
            )
            lines.append(f"{target}: {start}-{budget} vs {scores}")
        lines += _rating_line(paths, study, target)
    if lines:
        lines.append(
            f"every cell: {paths.relative(paths.summary_table)}; the report: {paths.relative(paths.report_html)}"
        )
    return lines


def _rating_line(paths: Paths, study: StudyConfig, target: str) -> list[str]:
    """The target's Elo of every start at each budget (from ``metrics/rate``), greedy = 0."""
    if not paths.ratings(target).is_file():
        return []
    ratings = json.loads(paths.ratings(target).read_text())["elo"]
    parts = [
        f"{start} " + " ".join(f"b{b} {r['elo']:+.0f} ({r['low']:+.0f}..{r['high']:+.0f})"
                                for b in study.adapt.budgets if (r := ratings.get(f"{start}-b{b}")))
        for start in study.adapt.starts
    ]  # fmt: skip
    return [f"{target}: Elo (greedy = 0, 95% interval): " + "; ".join(parts)]


def print_urls(mlflow_port: int | None = None) -> None:
    """Where the UIs are."""
    print(f"Prefect UI: {os.environ['PREFECT_API_URL'].removesuffix('/api')}", file=sys.stdout)
    if mlflow_port:
        print(f"MLflow UI:  http://127.0.0.1:{mlflow_port}")
