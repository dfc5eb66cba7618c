"""Stage ``{k}@{r}``: learner ``k`` (``mmc.meta.learners``: joat, multitask, metafocus, or one of an installed
package) makes its start network for training replicate ``r``.

The stage gives the learner what the study gives every learner (:func:`pipelines.starts.learner_setup`: the training
tasks, the budget, the network configuration, its settings from ``learners.{k}``, the seed, the network of the learner
it starts from) and the platform's service (``mmc.meta.Service``) over the stage's job store: every self-play, training
or match it runs is a Prefect task run, kept under ``data/jobs/learn/{k}-r{r}`` (a rerun computes only what is
missing), and every game counts against ``learners.budget``. It calls the learner's ``learn`` once, checks the network
it returns (the study's family and shape) and publishes it as ``models/starts/r{r}/{k}.pt`` (its adaptation rule's state
in the folder ``{k}.state``), registered in MLflow as ``{k}`` with alias ``r{r}``; its loss curve goes to
``plots/learn/{k}-r{r}.csv``, its steps to ``plots/learn/{k}-r{r}-steps.csv`` and its summary, with the games it
played, to ``metrics/learn/{k}-r{r}.json``. A learner that raises, or breaks its contract, fails its stage with a line
naming it; the other learners' finished stages stay.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger

from mmc.core.fanout import Job
from mmc.meta import Learned, Learner, LearnerError, Service, get_learner
from mmc.meta.learners import check_network, learner_code
from mmc.nn import save_checkpoint
from mmc.play import write_records
from pipelines import metrics as names
from pipelines import tracking
from pipelines.config import StudyConfig
from pipelines.files import write_json, write_text
from pipelines.jobs import JobStore
from pipelines.paths import Paths, learn_code, replicate_name
from pipelines.records import TrainingLossRow, write_rows
from pipelines.stage import logged_params, open_stage
from pipelines.starts import has_state, learner_setup

__all__ = ["STAGE", "learn_flow", "loss_rows"]

STAGE = "learn"


@flow(name="learn", flow_run_name="{name}-r{replicate}", validate_parameters=False)
def learn_flow(name: str, replicate: int, study: StudyConfig, root: Path) -> dict[str, Any]:
    """Run (or resume) learner ``name`` in replicate ``replicate`` under ``root``; its summary metrics."""
    learner = get_learner(name)
    _, version = learner_code(learner)
    settings = study.learners.settings.get(name)
    own = dataclasses.asdict(settings) if dataclasses.is_dataclass(settings) and not isinstance(settings, type) else {}
    drawn = {} if study.distribution is None else {"distribution": study.distribution}  # meta: the variants drawn
    params = logged_params(study, replicate, {"learner": name, **({"version": version} if version else {})},
                           budget=study.learners.budget, settings=own, network=study.network, meta=study.meta,
                           **drawn, search=study.search, train=study.train, runner=study.runner)  # fmt: skip
    jobs = (STAGE, replicate_name(name, replicate))
    with open_stage(study, root, STAGE, variant=name, replicate=replicate, jobs=jobs,
                    code=learn_code(study.family, name), params=params) as stage:  # fmt: skip
        setup = learner_setup(study, stage.paths, name, replicate)
        steps = _StepLog(stage.store, stage.run)
        service = Service(name, study.learners.budget, steps.run, steps.log)
        try:
            learned = learner.learn(setup, service)
        except LearnerError:
            raise
        except Exception as error:
            problem = " ".join(str(error).split())
            raise LearnerError(f"learner {name!r} failed: {type(error).__name__}: {problem}") from error
        if not isinstance(learned, Learned):
            raise LearnerError(f"learner {name!r} returned a {type(learned).__name__}, not a mmc.meta.Learned")
        check_network(name, learned.net, study.network)
        stage.logger.info("%s r%d: %d of %d self-play games played", name, replicate, service.played, service.budget)
        return _publish(stage.paths, learner, replicate, learned, service, stage.run)


class _StepLog:
    """The service's runner and step log: the jobs go to the stage's store, and each step's metrics are logged with
    the seconds its jobs took, by kind (``selfplay_seconds``)."""

    def __init__(self, store: JobStore, run: tracking.StageRun) -> None:
        self.store, self.mlflow = store, run
        self.ran: list[Job[Any]] = []

    def run(self, jobs: Sequence[Job[Any]]) -> list[Any]:
        self.ran += jobs
        return self.store(jobs)

    def log(self, step: int, metrics: Mapping[str, float]) -> None:
        kinds = dict.fromkeys(job.kind for job in self.ran)
        seconds = {
            names.seconds(kind): self.store.job_seconds([kind], [job.key for job in self.ran if job.kind == kind])
            for kind in kinds
        }
        self.ran = []
        self.mlflow.log_metrics({**metrics, **seconds}, step=step)


def loss_rows(name: str, replicate: int, learned: Learned) -> list[TrainingLossRow]:
    """The report's loss rows of a learner: its loss curve as ``TrainingLossRow`` of series ``name``."""
    return [TrainingLossRow(name, replicate, *point) for point in learned.losses]


def _steps_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    header = list(dict.fromkeys(key for row in rows for key in row)) or ["step"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def _publish(
    paths: Paths, learner: Learner, replicate: int, learned: Learned, service: Service, run: tracking.StageRun
) -> dict[str, Any]:
    name = learner.name
    if has_state(learner) != (learned.state is not None):
        said = "saves a state for its adaptation rule but returned none" if has_state(learner) else (
            "returned a state but does not implement save_state()")  # fmt: skip
        raise LearnerError(f"learner {name!r} {said}")
    net = learned.net
    save_checkpoint(net, net.config, paths.start_model(name, replicate))
    if has_state(learner):
        folder = paths.start_state(name, replicate)
        shutil.rmtree(folder, ignore_errors=True)  # what an earlier run of another state left
        folder.mkdir(parents=True)
        learner.save_state(learned.state, folder)
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            run.log_artifact(path, (Path("state") / path.parent.relative_to(folder)).as_posix())
    write_rows(paths.learn_losses(name, replicate), TrainingLossRow, loss_rows(name, replicate, learned))
    write_text(paths.learn_steps(name, replicate), _steps_csv(learned.steps))
    summary = {**learned.summary, "budget": service.budget, "budget_games": service.played}
    write_json(paths.learn_metrics(name, replicate), summary)
    run.log_metrics(names.from_json(summary))
    if learned.sample:
        with tempfile.TemporaryDirectory() as scratch:
            sample = Path(scratch) / f"{name}_r{replicate}_sample.pgn"
            run.log_artifact(write_records(list(learned.sample), sample), "games")
    for path in (paths.learn_losses(name, replicate), paths.learn_steps(name, replicate),
                 paths.learn_metrics(name, replicate)):  # fmt: skip
        run.log_artifact(path, "dvc")
    description = (
        f"{learner.label}, replicate {replicate}: {learner.description or name} ({service.played} of "
        f"{service.budget} self-play games)"
    )
    version = run.register_model(net, name, description, replicate)
    get_run_logger().info("registered %s version %s (alias r%d)", name, version, replicate)
    return summary
