"""Every artifact path of the study, in one place; ``dvc.yaml`` declares the same paths as stage outputs.

Layout under the project root (``{v}`` a variant, ``{k}`` a learner (``mmc.meta.learners``), ``{t}`` a target,
``{s}`` a start, ``{b:03d}`` a budget, ``{r}`` a training replicate (``replicates`` in params.yaml), ``{job}`` a job's
name as ``mmc`` gives it: ``self-play-gardner-gen003-chunk01``)::

    params.yaml                                   parameters (pipelines.config)
    data/jobs/{stage}/{name}/{job}.*              every finished job of a stage (pipelines.jobs): self-play games
                                                  (.npz examples, .pgn records), trained networks (.pt + .json
                                                  config), matches (.pgn); {job}.done.json, written last, has
                                                  its fingerprint, numbers and file hashes
                                                  ({stage}/{name}: expert/{v}-r{r}, learn/{k}-r{r}, adapt/{t}-r{r},
                                                  evaluate/{t})
    models/champion/r{r}/{v}.pt|.json             the expert's final champion (a start of adaptation)
    metrics/expert/{v}-r{r}.json                  expert summary (dvc metrics)
    plots/losses/{v}-r{r}.csv, plots/arena/...    per-generation curves (dvc plots)
    models/starts/r{r}/{k}.pt|.json               learner k's network (stage k@r): a start of adaptation
    models/starts/r{r}/{k}.state/                 what its own adaptation rule reads, for a learner that has one
                                                  (metafocus: focus.pt|.json, its meta-model of channel
                                                  keep-probabilities)
    plots/learn/{k}-r{r}.csv                      its losses per generation (report input format)
    plots/learn/{k}-r{r}-steps.csv                one row per step of its loop, its own columns (metafocus: every
                                                  masked adaptation's mask, reward and baseline)
    metrics/learn/{k}-r{r}.json                   its summary and the self-play games it played (dvc metrics)
    models/adapted/{t}/r{r}/{s}_b{b}.pt|.json     start {s} adapted to target {t} with {b} self-play games
    metrics/adapt/{t}-r{r}.json                   adaptation losses and sizes per start and budget (dvc metrics)
    metrics/evaluate/{t}.json                     W/D/L, score, Wilson 95 % interval per model and opponent
    plots/evaluation/{t}.csv                      the same as rows in the seed's table format
    metrics/rate/{t}.json, plots/ratings/{t}.csv  every model's and anchor's Elo (greedy = 0), 95 % interval
    plots/curves/{t}.csv                          each start's mean Elo per budget over the replicates, 95 % interval
    plots/comparisons/{t}.csv                     JOAT - each other start, adapted - unadapted, paired by replicate:
                                                  Elo, interval (game and training noise), verdict
    reports/evaluation.csv                        every target's rows: the study's summary table
    data/report/*.csv|sample.pgn|runs.json        the report's other inputs (losses, ratings, curves, comparisons,
    data/report/official.json                     the official row of the benchmark the study names or equals)
    reports/study.html                            the report (reports/study.ipynb executed)
    data/report.failed                            the report stage's error while it fails (make study names it)
    mlflow.db, mlartifacts/                       MLflow runs and artifacts (sqlite at an absolute URI)
    .prefect/                                     Prefect's home: server database, logs, pid file

A family's study (``studies/{family}``, :mod:`pipelines.studies`) has the same layout under its own folder, from its
``params.yaml`` down to ``reports/study.html``; ``mlflow.db``, ``mlartifacts/``, ``.prefect/`` and the report
notebook stay the project's. What the web app reads too (``models/``, ``data/jobs/``, MLflow's store, Prefect's home,
the study's name and project) is laid out by ``mmc.core.study_layout``, which this module builds those paths from.

The ``data/jobs`` folders are persistent DVC outputs: DVC leaves them in place when it reruns a stage, so
finished jobs survive a crash and a rerun computes only the jobs whose inputs changed (``pipelines.jobs``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mmc.core import study_layout as layout
from mmc.core.study_layout import project_of, replicate_name, study_name

__all__ = [
    "Paths",
    "code_root",
    "evaluate_code",
    "expert_code",
    "family_package",
    "learn_code",
    "meta_code",
    "replicate_name",
]

SHARED_CODE = (
    "mmc/__init__.py",
    "mmc/loops/alphazero.py",
    "mmc/core/configs.py",
    "mmc/core/fanout.py",
    "mmc/core/seeding.py",
    "mmc/games/__init__.py",
    "mmc/games/actions.py",
    "mmc/games/generated.py",
    "mmc/games/jit.py",
    "mmc/games/protocol.py",
)
"""Library code of every study before its game family's package (``mmc/games/{family}``)."""
TRAINING_CODE = ("mmc/nn", "mmc/play", "mmc/search", "mmc/train")
"""Library code of every study after its family's package."""


def code_root() -> Path:
    """The folder that holds the installed ``mmc`` and ``pipelines`` packages: the checkout in a development install,
    ``site-packages`` otherwise. Code entries (``mmc/nn``) are relative to it: a job's cache key hashes the code found
    there, wherever the study's own folder is."""
    import mmc

    return Path(mmc.__file__).resolve().parent.parent


def family_package(family: str) -> str:
    """Where the rules of ``family`` live, as a code entry: ``mmc/games/{family}`` (relative to the project) for a
    family of this package, else the absolute folder of the package its kernels come from (a game installed from
    another distribution: ``mmc.core.plugins``), which a study's ``dvc.yaml`` lists as an external dependency."""
    import mmc
    from mmc.games import get_family

    module = get_family(family).kernels
    folder = Path(module.__file__ or "").resolve().parent
    ours = Path(mmc.__file__).resolve().parent / "games" / family
    return f"mmc/games/{family}" if folder == ours else folder.as_posix()


def expert_code(family: str) -> tuple[str, ...]:
    """Library code that computes the expert stage's jobs in a study of ``family``: its hash is part of every job's
    fingerprint, so a change recomputes them. The stage's ``deps`` in the study's ``dvc.yaml`` list these and the
    pipeline modules (tests check it). The other families' packages are not in it: the study never runs them."""
    return (*SHARED_CODE, family_package(family), *TRAINING_CODE)


def meta_code(family: str) -> tuple[str, ...]:
    """Library code that computes the meta stages' jobs (and an adaptation's)."""
    return (*expert_code(family), "mmc/meta")


def learn_code(family: str, learner: str) -> tuple[str, ...]:
    """Library code that computes learner ``learner``'s jobs: the meta stages' (:func:`meta_code`), and for a learner
    of another distribution its package's folder (absolute; ``mmc.meta.learners.learner_code``)."""
    import mmc
    from mmc.meta import get_learner
    from mmc.meta.learners import learner_code

    where, _ = learner_code(get_learner(learner))
    ours = Path(mmc.__file__).resolve().parent
    return (*meta_code(family), *(() if where.is_relative_to(ours) else (where.as_posix(),)))


def evaluate_code(family: str) -> tuple[str, ...]:
    """Library code that computes the evaluation's jobs."""
    return (*expert_code(family), "mmc/evaluation/evaluate.py", "mmc/evaluation/rating.py",
            "mmc/evaluation/comparison.py", "mmc/evaluation/mistakes.py")  # fmt: skip


@dataclass(frozen=True)
class Paths:
    """The files of one study: its parameters and outputs under ``root`` (absolute), the code, the report
    notebook, MLflow's store and Prefect's home under its ``project``. The default study's root is the project
    (``params.yaml``, ``dvc.yaml``); a family's study has a folder of its own, ``studies/{family}``, with its
    ``params.yaml`` and ``dvc.yaml`` (generated from the project's: ``pipelines.studies``) and its outputs."""

    root: Path
    project: Path = None  # type: ignore[assignment]  # set in __post_init__: project_of(root)

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).resolve())
        project = project_of(self.root) if self.project is None else Path(self.project).resolve()
        object.__setattr__(self, "project", project)

    @property
    def study(self) -> str:
        """The study's name: ``default`` for the project's own, else its folder's (``gomoku``)."""
        return study_name(self.root, self.project)

    # project-wide
    @property
    def params(self) -> Path:
        return self.root / layout.PARAMS

    @property
    def mlflow_db(self) -> Path:
        return self.project / layout.MLFLOW_DB

    @property
    def mlflow_uri(self) -> str:
        """Absolute sqlite URI: a relative one would open a new database wherever a stage happens to run."""
        return f"sqlite:///{self.mlflow_db}"

    @property
    def mlflow_artifacts(self) -> Path:
        return self.project / layout.MLFLOW_ARTIFACTS

    @property
    def prefect_home(self) -> Path:
        return self.project / layout.PREFECT_HOME

    @property
    def mlflow_ui_dir(self) -> Path:
        """The MLflow UI's pid and log files."""
        return self.project / ".mlflow-ui"

    @property
    def models(self) -> Path:
        """Every checkpoint of the study (``mmc.core.study_layout``: the layout under it)."""
        return self.root / layout.MODELS

    def jobs(self, stage: str, name: str) -> Path:
        """The finished jobs of stage ``stage`` for ``name`` (a variant, target or meta kind)."""
        return self.root / layout.JOBS / stage / name

    # expert@{v}-{r}
    def champion(self, variant: str, replicate: int) -> Path:
        return self.models / layout.champion_model(variant, replicate)

    def expert_metrics(self, variant: str, replicate: int) -> Path:
        return self.root / "metrics" / "expert" / f"{replicate_name(variant, replicate)}.json"

    def loss_curve(self, variant: str, replicate: int) -> Path:
        return self.root / "plots" / "losses" / f"{replicate_name(variant, replicate)}.csv"

    def arena_curve(self, variant: str, replicate: int) -> Path:
        return self.root / "plots" / "arena" / f"{replicate_name(variant, replicate)}.csv"

    # {k}@{r}: learner k
    def start_model(self, name: str, replicate: int) -> Path:
        """A published starting model of adaptation: learner ``name``'s network."""
        return self.models / layout.start_model(name, replicate)

    def start_state(self, name: str, replicate: int) -> Path:
        """The folder of what learner ``name``'s own adaptation rule reads (``mmc.meta.Learner.save_state``)."""
        return self.models / layout.start_state(name, replicate)

    def learn_losses(self, name: str, replicate: int) -> Path:
        return self.root / "plots" / "learn" / f"{replicate_name(name, replicate)}.csv"

    def learn_steps(self, name: str, replicate: int) -> Path:
        return self.root / "plots" / "learn" / f"{replicate_name(name, replicate)}-steps.csv"

    def learn_metrics(self, name: str, replicate: int) -> Path:
        return self.root / "metrics" / "learn" / f"{replicate_name(name, replicate)}.json"

    # adapt@{t}-{r}
    def adapted_dir(self, target: str, replicate: int) -> Path:
        return self.models / layout.adapted_folder(target, replicate)

    def adapted(self, target: str, replicate: int, start: str, budget: int) -> Path:
        """Start ``start`` of replicate ``replicate`` adapted to ``target`` with ``budget`` self-play games."""
        return self.models / layout.adapted_model(target, replicate, start, budget)

    def adapt_metrics(self, target: str, replicate: int) -> Path:
        return self.root / "metrics" / "adapt" / f"{replicate_name(target, replicate)}.json"

    # evaluate@{t}
    def evaluation_metrics(self, target: str) -> Path:
        return self.root / "metrics" / "evaluate" / f"{target}.json"

    def evaluation_table(self, target: str) -> Path:
        return self.root / "plots" / "evaluation" / f"{target}.csv"

    def ratings(self, target: str) -> Path:
        """Every model's and anchor's Elo with its 95 % interval (dvc metrics)."""
        return self.root / "metrics" / "rate" / f"{target}.json"

    def rating_table(self, target: str) -> Path:
        return self.root / "plots" / "ratings" / f"{target}.csv"

    def curve_table(self, target: str) -> Path:
        """Each start's mean Elo per budget over the replicates (the adaptation curves)."""
        return self.root / "plots" / "curves" / f"{target}.csv"

    def comparison_table(self, target: str) -> Path:
        return self.root / "plots" / "comparisons" / f"{target}.csv"

    def mistake_table(self, target: str) -> Path:
        """Every model's mistake rate on the target's solver-labelled suite, beside its Elo."""
        return self.root / "plots" / "mistakes" / f"{target}.csv"

    def mistake_comparison_table(self, target: str) -> Path:
        """The study's paired comparisons on the mistake rate."""
        return self.root / "plots" / "mistake_comparisons" / f"{target}.csv"

    def mistake_metrics(self, target: str) -> Path:
        """Both, for ``dvc metrics``."""
        return self.root / "metrics" / "mistakes" / f"{target}.json"

    # report
    @property
    def summary_table(self) -> Path:
        return self.root / "reports" / "evaluation.csv"

    @property
    def report_inputs(self) -> Path:
        return self.root / "data" / "report"

    @property
    def report_losses(self) -> Path:
        return self.report_inputs / "losses.csv"

    @property
    def report_sample(self) -> Path:
        return self.report_inputs / "sample.pgn"

    @property
    def report_runs(self) -> Path:
        return self.report_inputs / "runs.json"

    @property
    def report_ratings(self) -> Path:
        return self.report_inputs / "ratings.csv"

    @property
    def report_comparisons(self) -> Path:
        return self.report_inputs / "comparisons.csv"

    @property
    def report_curves(self) -> Path:
        return self.report_inputs / "curves.csv"

    @property
    def report_mistakes(self) -> Path:
        return self.report_inputs / "mistakes.csv"

    @property
    def report_mistake_comparisons(self) -> Path:
        return self.report_inputs / "mistake_comparisons.csv"

    @property
    def report_official(self) -> Path:
        """The benchmark's official row the report sets beside the study's numbers (``pipelines.rows``)."""
        return self.report_inputs / "official.json"

    @property
    def report_notebook(self) -> Path:
        return self.project / "reports" / "study.ipynb"

    @property
    def report_html(self) -> Path:
        return self.root / "reports" / "study.html"

    @property
    def report_failure(self) -> Path:
        """The last report stage's error, while the report fails (removed when it renders): ``make study`` reads it
        to say that the report, and nothing before it, failed."""
        return self.root / "data" / "report.failed"

    def relative(self, path: Path) -> str:
        """``path`` relative to the root, with forward slashes (as job records and MLflow show it)."""
        return Path(path).resolve().relative_to(self.root).as_posix()
