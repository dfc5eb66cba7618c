"""The study driver (``make study``): one MLflow parent run around ``dvc repro``.

``python -m pipelines study [DVC ARGS...]`` (default ``repro``) checks ``params.yaml`` (a problem stops it
before anything is started or written), makes sure the Prefect server answers, marks the runs of killed
processes ``KILLED``, opens the parent run (``study-<time>``, with the flattened parameters and the git
commit), runs ``dvc DVC ARGS`` with ``MMC_MLFLOW_PARENT_RUN_ID`` set so that each stage's run becomes its
child, then closes the parent with DVC's outcome, the evaluation scores, each start's mean Elo, the wall time, the
CPU use and where the time went (:mod:`pipelines.timing`), and prints the time split, the Elo and the comparisons.

The stages run in a warm worker that this driver starts and stops (:mod:`pipelines.worker`): each stage command
that DVC runs hands its work to it, so imports and the task runner's processes are paid once per study.

CPU use is the CPU time of ``dvc`` and everything it started and waited for (the stages and their worker
processes, the warm worker and its pool; not the Prefect server, which outlives the run) over the wall time:
``cpu_cores_used`` cores on average, ``cpu_utilisation`` of the cores this process may run on.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mmc.evaluation.starts import model_label
from pipelines import handover, services, timing, tracking
from pipelines import metrics as names
from pipelines.config import ParamsError, StudyConfig, flatten, load_params
from pipelines.paths import Paths

__all__ = ["evaluation_lines", "params_after", "report_failure", "run_study"]


def run_study(paths: Paths, study: StudyConfig, dvc_args: list[str]) -> int:
    """Run ``dvc dvc_args`` under a new parent run; DVC's exit status."""
    from pipelines.studies import refresh_study

    if (rewritten := refresh_study(paths.root, paths.project)) is not None:
        learners = ", ".join(study.learners.names)
        print(f"{paths.relative(rewritten)}: the learners' stages rewritten from params.yaml (learners: {learners})")
    services.ensure_prefect(paths)
    tracking.close_orphans(paths)
    command = ["dvc", *(dvc_args or ["repro"])]
    parent = tracking.open_parent(
        paths, time.strftime("study-%Y%m%d-%H%M%S"), flatten(study.raw), {"mmc.dvc_command": " ".join(command)}
    )
    env = {**os.environ, tracking.PARENT_ENV: parent}
    paths.report_failure.unlink(missing_ok=True)  # a failure note of an earlier run says nothing of this one
    start, cpu_start = time.monotonic(), _children_cpu_seconds()
    status = "FAILED"
    code = 1
    try:
        with handover.running(paths.root, study.runner.workers if study.runner.kind == "process" else 0, env):
            code = subprocess.run(
                [services.executable("dvc"), *command[1:]], cwd=paths.root, env=env, check=False
            ).returncode
        status = "FINISHED" if code == 0 else "FAILED"
    except KeyboardInterrupt:
        status = "KILLED"
        raise
    finally:
        seconds = time.monotonic() - start
        cpu = cpu_use(_children_cpu_seconds() - cpu_start, seconds)
        study, changed = params_after(paths, study)
        split = timing.study_split(_stage_metrics(paths, parent), seconds, cpu[names.CPU_SECONDS])
        metrics = {**_evaluation_metrics(paths, study), names.WALL_SECONDS: round(seconds, 1), **cpu,
                   **timing.totals(split)}  # fmt: skip
        tags = {"mmc.params_changed": "; ".join(f"{k}={v}" for k, v in changed.items())} if changed else {}
        tracking.close_parent(paths, parent, status, metrics, tags)
        for path in (paths.root / "dvc.lock", *sorted((paths.root / "metrics").rglob("*.json"))):
            if path.is_file():
                _log_quietly(paths, parent, path)
    print(f"study {status.lower()} in {seconds / 60:.1f} min (dvc exit status {code}); CPU {cpu['cpu_cores_used']:.2f} "
          f"of {_cores()} cores ({cpu['cpu_utilisation']:.0%}); MLflow parent run {parent}")  # fmt: skip
    print("Where the time went (every stage of this run; wall seconds share the study's, CPU seconds are all "
          "processes'):")  # fmt: skip
    for line in timing.split_lines(split):
        print(line)
    for line in evaluation_lines(paths, study):
        print(line)
    if code != 0 and (failed := report_failure(paths)):
        print(failed)
    return code


def report_failure(paths: Paths) -> str:
    """One line when this run's report stage failed (its error, kept in ``data/report.failed``): the stages before
    it finished and their results stay usable; empty otherwise."""
    if not paths.report_failure.is_file():
        return ""
    error = " ".join(paths.report_failure.read_text(encoding="utf-8").split())
    return (
        f"the report failed, nothing before it: {error}. Every finished stage's results are kept and usable: "
        "`dvc metrics show`, the MLflow UI (`make ui`), the web app (`make play`); `make study` again runs only "
        "what is not finished"
    )


def params_after(paths: Paths, study: StudyConfig) -> tuple[StudyConfig, dict[str, Any]]:
    """The parameters the stages ran with, and the flattened keys that differ from ``study``'s: ``dvc exp run -S
    KEY=VALUE`` writes its changes into the workspace's ``params.yaml`` before it runs the stages, so the summary
    must read the file again (``study`` where the file no longer loads)."""
    try:
        after = load_params(paths.params)
    except ParamsError:
        return study, {}
    before, now = flatten(study.raw), flatten(after.raw)
    changed = {key: now.get(key) for key in sorted(before.keys() | now.keys()) if before.get(key) != now.get(key)}
    return after, changed


def _children_cpu_seconds() -> float:
    """User + system CPU seconds of this process's finished, waited-for descendants."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cores() -> int:
    return len(os.sched_getaffinity(0))


def cpu_use(cpu_seconds: float, wall_seconds: float) -> dict[str, float]:
    """``cpu_seconds``, ``cpu_cores_used`` (CPU over wall time) and ``cpu_utilisation`` (that over the cores)."""
    cores_used = cpu_seconds / wall_seconds if wall_seconds > 0 else 0.0
    return {names.CPU_SECONDS: round(cpu_seconds, 1), names.CPU_CORES_USED: round(cores_used, 3),
            names.CPU_UTILISATION: round(cores_used / _cores(), 3)}  # fmt: skip


def _log_quietly(paths: Paths, run_id: str, path: Path) -> None:
    client, _ = tracking.configure(paths)
    folder = Path("dvc") / path.parent.relative_to(paths.root)
    client.log_artifact(run_id, str(path), folder.as_posix())


def _stage_metrics(paths: Paths, parent: str) -> dict[str, dict[str, float]]:
    """The metrics of the latest child run of ``parent`` per DVC stage: what each stage this run ran measured."""
    client, experiment = tracking.configure(paths)
    query = f"tags.`mlflow.parentRunId` = '{parent}'"
    found = client.search_runs([experiment], query, max_results=5000, order_by=["attributes.start_time DESC"])
    stages: dict[str, dict[str, float]] = {}
    for run in found:
        stages.setdefault(run.data.tags.get("dvc_stage", run.info.run_name), dict(run.data.metrics))
    return stages


def _read(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text())) if path.is_file() else {}


def _evaluation_metrics(paths: Paths, study: StudyConfig) -> dict[str, float]:
    """For the parent run: every evaluation cell's score, ``{target}.r{r}.{start}.b{budget}.{opponent}.score``,
    and each start's mean Elo per budget, ``{target}.elo_mean.{start}-b{budget}`` (``pipelines.metrics``)."""
    metrics: dict[str, float] = {}
    for target in study.targets:
        cells = flatten(_read(paths.evaluation_metrics(target)))
        metrics |= {names.target(target, key): float(value) for key, value in cells.items() if key.endswith(".score")}
        means = _read(paths.ratings(target)).get("starts", {})
        metrics |= {
            names.target(target, names.per(names.ELO_MEAN, model)): float(m["elo"]) for model, m in means.items()
        }
    return metrics


def evaluation_lines(paths: Paths, study: StudyConfig) -> list[str]:
    """Per target: each start's mean Elo at every budget, and the comparisons at the largest budget with their
    verdicts (from ``metrics/rate``; every model's Elo is in ``plots/ratings``, every cell in
    ``reports/evaluation.csv``)."""
    lines = []
    largest = max(study.adapt.budgets)
    replicates = len(study.replicates)
    for target in study.targets:
        rated = _read(paths.ratings(target))
        if not rated:
            continue
        means = rated.get("starts", {})
        parts = [
            f"{start} " + " ".join(f"b{b} {m['elo']:+.0f} ({m['low']:+.0f}..{m['high']:+.0f})"
                                    for b in study.adapt.budgets if (m := means.get(model_label(start, b))))
            for start in study.adapt.starts
        ]  # fmt: skip
        lines.append(
            f"{target}: Elo (greedy = 0; mean of {replicates} replicate(s), 95% interval): " + "; ".join(parts)
        )
        compared = [
            f"{name} {c['difference']:+.0f} ({c['low']:+.0f}..{c['high']:+.0f}) {c['verdict']}"
            for name, c in rated.get("comparisons", {}).items()
            if name.split(" - ")[0].endswith(f"-b{largest}")
        ]
        lines.append(f"{target}: at b{largest}: " + "; ".join(compared))
    if lines:
        lines.append(
            f"every model: {paths.relative(paths.rating_table(study.targets[0]).parent)}; every cell: "
            f"{paths.relative(paths.summary_table)}; the report: {paths.relative(paths.report_html)}"
        )
    return lines


def print_urls(paths: Paths, mlflow_port: int, *, mlflow_running: bool = False) -> None:
    """Where this study's UIs are: its Prefect server at ``PREFECT_API_URL`` (the study's own, chosen when ``pipelines``
    was imported), its MLflow UI on ``mlflow_port`` (``pipelines.services.mlflow_ui_port``). The MLflow address opens
    the experiment's training runs (``#/experiments/<id>/runs``), not the GenAI overview a bare experiment address
    lands on."""
    print(f"Prefect UI: {os.environ['PREFECT_API_URL'].removesuffix('/api')}", file=sys.stdout)
    _, experiment = tracking.configure(paths)
    where = "" if mlflow_running else " (make ui starts it)"
    print(f"MLflow UI:  http://127.0.0.1:{mlflow_port}/#/experiments/{experiment}/runs{where}")
