"""Learners from other packages in the study (``mmc.meta.learners``): the example learner package
(``examples/reptile_adam``, Reptile with an Adam outer step) installed into a temporary target as a user installs it
and studied to its report beside JOAT with no edit of ``mmc/``, ``pipelines/`` or ``reports/``; the budget, and each
bad learner refused in one line with the others' finished work kept."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mlflow
import pandas as pd
import pytest
import torch
import yaml

from mmc.meta import BudgetError, Learned, Learner, LearnerError, LearnerSetup, Service
from mmc.meta.registry import register_learner
from mmc.nn import NetworkConfig, build_network, load_checkpoint
from pipelines.config import ParamsError, load_params
from pipelines.learn import learn_flow
from pipelines.paths import Paths
from pipelines.runners import task_runner

from .conftest import REPO, TINY_PARAMS, make_project, tool_env
from .helpers import DELETE, write_params

EXAMPLE = REPO / "examples" / "reptile_adam"
REPTILE = {"generations": 2, "tasks": 2, "games": 2, "epochs": 1, "outer_lr": 0.005, "beta1": 0.9, "beta2": 0.999}
"""The example learner's settings in the small study: JOAT's tiny budget, 2 x 2 x 2 = 8 games."""


def install_learner(root: Path) -> Path:
    """The example learner installed into ``root/site`` as a user installs it (``pip install --target``, with no
    network); that folder."""
    from tests.test_example_package import install_package

    site = install_package(EXAMPLE, root)
    assert (site / "reptile_adam" / "__init__.py").is_file() and list(site.glob("mmc_reptile_adam-*.dist-info"))
    return site


def _env(site: Path) -> dict[str, str]:
    return {**tool_env(), "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}


def _small(**changes: Any) -> dict[str, Any]:
    """The tiny profile cut to one replicate, one target and three starts (JOAT, the example learner, scratch), no
    engine: the smallest study in which the example learner stands beside JOAT."""
    data = yaml.safe_load(TINY_PARAMS.read_text())
    data["replicates"] = [0]
    data["learners"] = {"budget": 8, "joat": {}, "reptile_adam": dict(REPTILE)}
    data["adapt"]["targets"] = ["gardner"]
    data["adapt"]["starts"] = ["joat", "reptile_adam", "scratch"]
    data["evaluate"]["opponents"] = ["random", "greedy", "unadapted"]
    data["rate"]["anchors"] = ["random", "mcts:4", "greedy"]
    for key, value in changes.items():
        data[key] = value
    return data


@pytest.mark.slow  # a pip install and a study: 2-3 minutes
@pytest.mark.xdist_group("pipelines")
def test_an_installed_learner_is_studied_beside_joat_to_the_report(prefect_server: str, tmp_path: Path) -> None:
    site = install_learner(tmp_path / "learner")
    env = _env(site)
    listed = subprocess.run([sys.executable, "-m", "pipelines", "learners"], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=300, check=True)  # fmt: skip
    assert re.search(r"^reptile_adam +first-order Reptile whose outer step is Adam's .* \(reptile_adam 0\.1\.0\)$",
                     listed.stdout, re.M), listed.stdout  # fmt: skip
    assert "mmc: plugin" not in listed.stderr
    project = make_project(tmp_path / "project")
    (project / "params.yaml").write_text(yaml.safe_dump(_small(), sort_keys=False))
    done = subprocess.run([sys.executable, "-m", "pipelines", "study"], cwd=project, env=env, capture_output=True,
                          text=True, timeout=1800)  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # the study wrote its learners' stages itself: the learner's package and version are its stage's deps
    assert "dvc.yaml: the learners' stages rewritten from params.yaml (learners: joat, reptile_adam)" in done.stdout
    lock = yaml.safe_load((project / "dvc.lock").read_text())["stages"]
    assert {"joat@0", "reptile_adam@0"} <= set(lock) and "multitask@0" not in lock
    deps = {d["path"] for d in lock["reptile_adam@0"]["deps"]}
    assert (site / "reptile_adam").resolve().as_posix() in deps
    assert any(d.endswith("mmc_reptile_adam-0.1.0.dist-info/METADATA") for d in deps)
    paths = Paths(project)
    summary = json.loads(paths.learn_metrics("reptile_adam", 0).read_text())
    assert summary["budget"] == 8 and summary["budget_games"] == summary["games_played"] == 8
    steps = pd.read_csv(paths.learn_steps("reptile_adam", 0))
    assert list(steps.columns) == ["generation", "tasks", "step_norm"] and len(steps) == 2
    # MLflow: its run and its registered model, named by the learner
    mlflow.set_tracking_uri(paths.mlflow_uri)
    registered = mlflow.pytorch.load_model("models:/reptile_adam@r0")
    mine = load_checkpoint(paths.start_model("reptile_adam", 0))[0]
    pairs = zip(registered.state_dict().values(), mine.state_dict().values(), strict=True)
    assert all(torch.equal(a, b) for a, b in pairs)
    # compared as JOAT is: with JOAT, with scratch, adapted with unadapted; and its row beside JOAT's in the report
    compared = set(pd.read_csv(paths.comparison_table("gardner")).apply(lambda r: f"{r.a} - {r.b}", axis=1))
    assert {"joat-b0 - reptile_adam-b0", "reptile_adam-b0 - scratch-b0", "reptile_adam-b2 - scratch-b2",
            "reptile_adam-b2 - reptile_adam-b0"} <= compared  # fmt: skip
    html = paths.report_html.read_text()
    assert "Reptile-Adam - scratch: after adaptation (2 games)" in html and "JOAT - Reptile-Adam" in html
    assert "Reptile-Adam is rated" in html and "JOAT is rated" in html
    assert "the learners (JOAT and Reptile-Adam) trained with the same budget of 8 self-play games each" in html
    assert "Reptile-Adam (first-order Reptile whose outer step is Adam's" in html  # in the question
    assert "reptile_adam-b2-r0" in html  # its models on the ladder and in the tables
    # nothing of the project names it
    for folder in ("mmc", "pipelines", "reports"):
        assert not any("reptile_adam" in p.read_text(errors="ignore") for p in (REPO / folder).rglob("*.py"))
    assert "reptile_adam" not in (REPO / "reports" / "study.ipynb").read_text()


@dataclass(frozen=True)
class _Greedy:
    """The settings of the learner that asks for more games than it declares."""

    rounds: int = 3


class _Overspender(Learner):
    name = "test_overspender"
    settings = _Greedy

    def learn(self, setup: LearnerSetup, service: Service) -> Learned:
        net = setup.initial_network()
        for round in range(setup.settings.rounds):
            service.self_play(net, list(setup.tasks.variants), setup.budget // 2, setup.seed, tag=f"r{round}",
                              search=setup.search, concurrent=2, max_plies=20)  # fmt: skip
        return Learned(net)


class _WrongShape(Learner):
    name = "test_wrong_shape"

    def learn(self, setup: LearnerSetup, service: Service) -> Learned:
        shape = {k: getattr(setup.network, k) for k in ("blocks", "value_hidden", "moves_left")}
        wider = 2 * setup.network.filters
        return Learned(build_network(NetworkConfig.for_game(setup.network.game, filters=wider, **shape)))


class _Raiser(Learner):
    name = "test_raiser"

    def learn(self, setup: LearnerSetup, service: Service) -> Learned:
        raise RuntimeError("the outer optimiser diverged\nat step 3")


for _learner in (_Overspender(), _WrongShape(), _Raiser()):
    register_learner(_learner)


def test_a_learner_cannot_play_past_its_budget() -> None:
    """Every game asked through the service counts; a batch that would pass the budget is refused before it runs,
    in one line naming the learner, the budget and the count."""
    ran: list[str] = []

    def runner(jobs: Any) -> list[Any]:
        ran.extend(job.name for job in jobs)
        return [None] * len(jobs)

    study = load_params(TINY_PARAMS)
    service = Service("mine", 10, runner)
    net = build_network(study.network)
    service.self_play(net, ["gardner", "dark"], 4, study.training_seed(0), tag="g0", search=study.search)
    assert service.played == 8 and service.left == 2 and ran == ["self-play-gardner-g0", "self-play-dark-g0"]
    with pytest.raises(BudgetError) as refused:
        service.self_play(net, ["gardner"], 3, study.training_seed(0), tag="g1", search=study.search)
    assert str(refused.value) == "learner 'mine' asked for 11 self-play games, over its budget of 10 (learners.budget)"
    assert service.played == 8 and len(ran) == 2  # nothing of the refused batch ran


def test_a_learners_settings_are_checked_before_any_work(tmp_path: Path) -> None:
    """Its own settings by its declaration, an unknown learner with the installed ones, a name no file could take;
    each refused in one line naming the key."""
    cases = {
        "learners.test_overspender": ({"rounds": "x"}, "learners.test_overspender.rounds: must be an int, got 'x'"),
        "learners.test_raiser": ({"speed": 1}, "learners.test_raiser.speed: unknown key"),
        "learners.nobody": ({}, "learners.nobody: unknown learner 'nobody' (installed: joat, metafocus, multitask, "),
        "learners.No-Body": ({}, "learners.No-Body: learner name 'No-Body' must be 1-32 lower-case letters"),
    }
    for key, (value, message) in cases.items():
        name = key.split(".")[1]
        starts = ["joat", "metafocus", "multitask", "expert-gardner", "scratch", name]
        path = write_params(tmp_path, TINY_PARAMS, {key: value, "adapt.starts": starts})
        with pytest.raises(ParamsError) as refused:
            load_params(path)
        assert str(refused.value).startswith(f"params.yaml: {message}"), str(refused.value)


def test_two_learners_under_one_name_are_refused(tmp_path: Path) -> None:
    """A name given twice under ``learners`` (YAML would keep the last one silently) stops the study in one line."""
    text = TINY_PARAMS.read_text().replace("  joat: {}", "  joat: {}\n  joat: {epsilon: 0.5}", 1)
    (tmp_path / "params.yaml").write_text(text)
    first = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("  joat:"))
    with pytest.raises(ParamsError) as refused:
        load_params(tmp_path / "params.yaml")
    assert str(refused.value) == f"params.yaml: joat: given twice in one mapping (lines {first} and {first + 1})"


@pytest.mark.xdist_group("pipelines")
def test_a_bad_learner_fails_its_own_stage_naming_it(prefect_server: str, tmp_path: Path) -> None:
    """A learner that plays past its budget, returns a network of another shape, or raises: its stage fails with
    one line naming it and writes no start; JOAT's finished stage is untouched."""
    bad = {"test_overspender": {"rounds": 3}, "test_wrong_shape": {}, "test_raiser": {}}
    changes: dict[str, Any] = {"runner.kind": "thread", "learners.multitask": DELETE, "learners.metafocus": DELETE}
    changes |= {f"learners.{name}": settings for name, settings in bad.items()}
    changes["adapt.starts"] = ["joat", "scratch", *bad]
    study = load_params(write_params(tmp_path, TINY_PARAMS, changes))
    paths = Paths(tmp_path)
    flow = learn_flow.with_options(task_runner=task_runner(study.runner))
    assert flow("joat", 0, study, tmp_path, return_state=True).is_completed()
    joat = {p: p.stat().st_mtime_ns for p in paths.start_model("joat", 0).parent.iterdir()}
    messages = {
        "test_overspender": "learner 'test_overspender' asked for 32 self-play games, over its budget of 16 "
        "(learners.budget)",
        "test_wrong_shape": "learner 'test_wrong_shape' returned a network of another configuration: filters 16 (the "
        "study's: 8)",
        "test_raiser": "learner 'test_raiser' failed: RuntimeError: the outer optimiser diverged at step 3",
    }
    for name, message in messages.items():
        with pytest.raises(LearnerError) as failed:
            flow(name, 0, study, tmp_path)
        assert str(failed.value) == message and "\n" not in str(failed.value)
        assert not paths.start_model(name, 0).exists()
    assert {p: p.stat().st_mtime_ns for p in paths.start_model("joat", 0).parent.iterdir()} == joat
    # the overspender's first round (16 games) was played and kept: a rerun with a larger budget resumes from it
    kept = sorted(p.name for p in paths.jobs("learn", "test_overspender-r0").glob("*.done.json"))
    assert kept == [f"self-play-{v}-r0.done.json" for v in ("dark", "gardner")]


def _dist(site: Path, name: str, module: str, source: str, points: dict[str, str]) -> None:
    """An installed distribution ``name`` in ``site`` as pip lays one out: its module and its ``.dist-info`` with the
    metadata and the entry points of group ``mmc.learners``."""
    (site / f"{module}.py").write_text(source)
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "RECORD").write_text(f"{module}.py,,\n")
    lines = "".join(f"{point} = {target}\n" for point, target in points.items())
    (info / "entry_points.txt").write_text(f"[mmc.learners]\n{lines}")


LEARNER_SOURCE = """
from mmc.meta import Learned, Learner


class Fresh(Learner):
    name = "{name}"
    description = "a fresh network"

    def learn(self, setup, service):
        return Learned(setup.initial_network())


LEARNER = Fresh()
"""


def test_a_plugin_that_fails_is_left_out_in_one_line_and_a_claimed_name_is_refused(tmp_path: Path) -> None:
    """Installed packages: one whose module does not import, one that takes a built-in's name, two that claim one
    name, one that works. Each failure is one line naming the package; the working one is listed and usable; the
    doubly claimed name is refused when a study names it."""
    site = tmp_path / "site"
    site.mkdir()
    _dist(site, "mmc-broken", "broken_learner", "raise ImportError('no module named torch_scatter')\n",
          {"broken": "broken_learner:LEARNER"})  # fmt: skip
    _dist(site, "mmc-impostor", "impostor", LEARNER_SOURCE.format(name="joat"), {"joat": "impostor:LEARNER"})
    for dist in ("mmc-twin-a", "mmc-twin-b"):
        module = dist.replace("-", "_")
        _dist(site, dist, module, LEARNER_SOURCE.format(name="twin"), {"twin": f"{module}:LEARNER"})
    _dist(site, "mmc-fresh", "fresh", LEARNER_SOURCE.format(name="fresh"), {"fresh": "fresh:LEARNER"})
    env = _env(site)
    listed = subprocess.run([sys.executable, "-m", "pipelines", "learners"], cwd=REPO, env=env, capture_output=True,
                            text=True, timeout=300)  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert names == ["joat", "multitask", "metafocus", "scratch", "fresh", "twin"]
    problems = [line for line in listed.stderr.splitlines() if line.startswith("mmc: plugin")]
    assert problems == [
        "mmc: plugin broken = broken_learner:LEARNER of mmc-broken (mmc.learners) left out: ImportError: no module "
        "named torch_scatter",
        "mmc: plugin joat = impostor:LEARNER of mmc-impostor (mmc.learners) left out: ValueError: the learner name "
        "'joat' is taken (by meta-minichess)",
        "mmc: plugin twin = mmc_twin_b:LEARNER of mmc-twin-b (mmc.learners) left out: ValueError: the learner name "
        "'twin' is taken (by mmc-twin-a)",
    ]
    params = tmp_path / "params.yaml"
    for name, message in {
        "twin": "learners.twin: learner 'twin' is claimed by more than one package (mmc-twin-a, mmc-twin-b): "
        "uninstall all but one",
        "broken": "learners.broken: unknown learner 'broken' (installed: fresh, joat, metafocus, multitask, scratch",
    }.items():
        data = _small(learners={"budget": 8, "joat": {}, name: {}})
        data["adapt"]["starts"] = ["joat", name, "scratch"]
        params.write_text(yaml.safe_dump(data, sort_keys=False))
        checked = subprocess.run([sys.executable, "-m", "pipelines", "check"], cwd=tmp_path, env=env,
                                 capture_output=True, text=True, timeout=300)  # fmt: skip
        assert checked.returncode == 2 and checked.stderr.splitlines()[-1].startswith(f"params.yaml: {message}")
    data = _small(learners={"budget": 8, "joat": {}, "fresh": {}})
    data["adapt"]["starts"] = ["joat", "fresh", "scratch"]
    params.write_text(yaml.safe_dump(data, sort_keys=False))
    checked = subprocess.run([sys.executable, "-m", "pipelines", "check"], cwd=tmp_path, env=env, capture_output=True,
                             text=True, timeout=300)  # fmt: skip
    assert checked.returncode == 0 and "learners: joat, fresh with 8 self-play games each" in checked.stdout
