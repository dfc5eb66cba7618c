"""The family studies (``studies/{family}``): their parameters load, their ``dvc.yaml`` is the project's made for
the family, and each family's smallest study runs end to end in its folder with real DVC, Prefect and MLflow, its
report included."""

from __future__ import annotations

import html as htmllib
import json
import re
import subprocess
import sys
from pathlib import Path

import mlflow
import pytest
import yaml

from mmc.evaluation.analysis import game_diagram
from mmc.games import get_game
from mmc.play import read_records
from pipelines.__main__ import main
from pipelines.config import flatten, load_params
from pipelines.paths import Paths, evaluate_code, expert_code, meta_code
from pipelines.studies import check_studies, family_dvc_yaml, refresh_study, rules_package, study_folders
from pipelines.tracking import experiment_name, model_name

from .conftest import REPO, TINY_PARAMS, make_project, project_files, tool_env

DEFAULT = yaml.safe_load((REPO / "params.yaml").read_text())
FOLDERS = study_folders(REPO)


def test_the_family_studies_are_shipped() -> None:
    assert [f.name for f in FOLDERS] == ["gomoku", "jump"]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_a_family_study_has_the_default_studys_keys_and_holds_a_variant_out(folder: Path) -> None:
    """Every key of the default study and no other; one family, the folder's; a target held out of meta-training."""
    study = load_params(folder / "params.yaml")
    keys = {
        key.split(".train_variants.")[0] + ".train_variants" if ".train_variants." in key else key
        for key in flatten(yaml.safe_load((folder / "params.yaml").read_text()))
    }  # a distribution: one key
    assert keys - {f"expert.variants.{v}" for v in study.variants} == set(flatten(DEFAULT)) - {
        "expert.variants.gardner"
    }
    assert study.family == folder.name and all(get_game(t).name == folder.name for t in study.targets)
    assert [t for t in study.targets if t not in study.meta.train_variants]
    assert len(study.replicates) >= 2


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_check_plays_a_family_studys_opponents(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(folder)
    assert main(["check"]) == 0
    assert capsys.readouterr().out.startswith("params.yaml: OK")


def test_every_family_studys_dvc_yaml_is_current() -> None:
    """``python -m pipelines studies`` would write no file: the committed pipelines are the project's."""
    assert check_studies(REPO) == []


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_a_family_dvc_yaml_runs_the_familys_code_from_its_folder(folder: Path) -> None:
    """The project's stages, commands, params and outs; code deps that exist from the study's folder, with the
    family's rules package in place of chess's."""
    family = folder.name
    own = yaml.safe_load((folder / "dvc.yaml").read_text())["stages"]
    default = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    assert list(own) == list(default)
    for name, stage in own.items():
        body, base = stage.get("do", stage), default[name].get("do", default[name])
        assert {k: v for k, v in body.items() if k != "deps"} == {k: v for k, v in base.items() if k != "deps"}
        code = [d for d in body["deps"] if d.startswith("../../")]
        assert code and all((folder / d).exists() for d in code), name
        assert "../../mmc/games/chess" not in body["deps"]
        assert len(body["deps"]) == len(base["deps"])
    deps = {name: {d.removeprefix("../../") for d in stage.get("do", stage)["deps"]} for name, stage in own.items()}
    assert set(expert_code(family)) <= deps["expert"] and set(evaluate_code(family)) <= deps["evaluate"]
    assert set(meta_code(family)) <= deps["joat"] & deps["multitask"] & deps["adapt"] & deps["metafocus"]


def test_a_stale_family_dvc_yaml_is_named(tmp_path: Path) -> None:
    (tmp_path / ".dvc").mkdir()
    (tmp_path / "dvc.yaml").write_text((REPO / "dvc.yaml").read_text())
    (tmp_path / "params.yaml").write_text((REPO / "params.yaml").read_text())
    (tmp_path / "studies" / "gomoku").mkdir(parents=True)
    (tmp_path / "studies" / "gomoku" / "params.yaml").write_text((REPO / "studies/gomoku/params.yaml").read_text())
    assert check_studies(tmp_path) == [tmp_path / "studies" / "gomoku" / "dvc.yaml"]
    made = family_dvc_yaml(tmp_path, "gomoku")
    (tmp_path / "studies" / "gomoku" / "dvc.yaml").write_text(made)
    assert check_studies(tmp_path) == []
    # a learner the study no longer names: its stage leaves the generated pipeline, in the project's file too
    params = yaml.safe_load((tmp_path / "params.yaml").read_text())
    del params["learners"]["metafocus"]
    params["adapt"]["starts"].remove("metafocus")
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    assert check_studies(tmp_path) == [tmp_path / "dvc.yaml"]
    assert refresh_study(tmp_path, tmp_path) == tmp_path / "dvc.yaml" and check_studies(tmp_path) == []
    stages = yaml.safe_load((tmp_path / "dvc.yaml").read_text())["stages"]
    assert list(stages)[:3] == ["expert", "joat", "multitask"] and "metafocus" not in stages
    assert (tmp_path / "dvc.yaml").read_text().startswith((REPO / "dvc.yaml").read_text()[:200])  # its comments kept


def test_the_rules_package_replaced_is_the_one_the_pipeline_lists() -> None:
    """A family's study lists its rules package in place of the one its pipeline lists (no family is assumed); a
    pipeline that lists none, or two, is refused naming its file."""
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())
    own = load_params(REPO / "params.yaml").family
    assert rules_package(stages, REPO / "dvc.yaml") == f"mmc/games/{own}"
    for deps in ([], ["mmc/games/chess", "mmc/games/gomoku"]):
        with pytest.raises(ValueError, match=r"^elsewhere/dvc.yaml: its stages must list one game family's rules"):
            rules_package(
                {"stages": {"expert": {"deps": ["mmc/games/__init__.py", *deps]}}}, Path("elsewhere/dvc.yaml")
            )


def test_a_family_studys_paths_keep_its_outputs_in_its_folder_and_share_the_projects_store(tmp_path: Path) -> None:
    (tmp_path / ".dvc").mkdir()
    folder = tmp_path / "studies" / "gomoku"
    folder.mkdir(parents=True)
    own, default = Paths(folder), Paths(tmp_path)
    assert own.project == default.project == default.root == tmp_path.resolve()
    assert (own.study, default.study) == ("gomoku", "default")
    assert own.params == folder.resolve() / "params.yaml" and own.report_html.is_relative_to(folder.resolve())
    assert own.champion("gomoku_8x8", 0).is_relative_to(folder.resolve())
    assert own.mlflow_db == default.mlflow_db and own.prefect_home == default.prefect_home
    assert own.report_notebook == tmp_path.resolve() / "reports" / "study.ipynb"
    assert (experiment_name(own), experiment_name(default)) == ("meta-minichess-gomoku", "meta-minichess")
    assert (model_name(own, "joat"), model_name(default, "joat")) == ("gomoku-joat", "joat")


def test_a_study_folder_refuses_another_familys_parameters(tmp_path: Path) -> None:
    (tmp_path / ".dvc").mkdir()
    folder = tmp_path / "studies" / "gomoku"
    folder.mkdir(parents=True)
    (folder / "params.yaml").write_text(TINY_PARAMS.read_text())
    done = subprocess.run(
        [sys.executable, "-m", "pipelines", "check"], cwd=folder, env={**tool_env(), "PYTHONPATH": str(REPO)},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == "params.yaml: is a chess study in the folder of the gomoku study\n"


SMALLEST = {
    # family: (expert variant, meta-training variants, the held-out target, opponents, anchors, the ply cap)
    "gomoku": ("tictactoe", ["tictactoe", "gomoku_6x6"], "connect4", ["random", "greedy", "unadapted",
               "fairy:nodes=1"], ["random", "greedy", "fairy:nodes=1"], 42),
    "jump": ("jump_6x6_p40", ["jump_6x6_p40", "jump_halma_p40"], "jump_diagonal_p40", ["greedy", "unadapted"],
             ["random", "greedy"], 40),  # races of 40 plies (a cap of 40 on jump_diagonal would be refused)
}  # fmt: skip
"""Each family study's smallest profile that still runs every stage and every cell of the report: one replicate, one
target (held out of meta-training), every start."""


def _smallest(family: str) -> str:
    """The tiny profile on ``family`` (:data:`SMALLEST`): one replicate, seconds a stage."""
    expert, trained, target, opponents, anchors, plies = SMALLEST[family]
    data = yaml.safe_load(TINY_PARAMS.read_text())
    data["replicates"] = [0]
    data["expert"]["variants"] = {expert: {}}
    data["expert"]["max_plies"] = plies
    data["meta"]["train_variants"] = trained
    data["meta"]["tasks"] = data["learners"]["metafocus"]["tasks"] = min(2, len(trained))
    data["adapt"]["targets"] = [target]
    data["adapt"]["starts"] = ["joat", "metafocus", "multitask", f"expert-{expert}", "scratch"]
    data["evaluate"]["opponents"] = opponents
    data["rate"]["anchors"] = anchors
    for section in (data["meta"], data["learners"]["metafocus"], data["adapt"], data["evaluate"]):
        section["max_plies"] = plies
    return yaml.safe_dump(data, sort_keys=False)


@pytest.mark.slow
@pytest.mark.parametrize("family", list(SMALLEST))
def test_a_family_study_runs_end_to_end_in_its_folder(family: str, prefect_server: str, tmp_path: Path) -> None:
    """``python -m pipelines study`` in ``studies/{family}`` of a project: DVC runs the folder's pipeline, every
    output lands in the folder, the runs go to the study's MLflow experiment and its models are registered under
    its name, and the report renders the family's outputs in every cell; the project's own study is left alone."""
    expert, _, target, *_ = SMALLEST[family]
    project = make_project(tmp_path / "project")
    folder = project / "studies" / family
    (folder / "params.yaml").write_text(_smallest(family))
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "tiny"], cwd=project, check=True
    )
    done = subprocess.run(
        [sys.executable, "-m", "pipelines", "study"], cwd=folder, env=tool_env(), capture_output=True, text=True,
        timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"{target}: Elo (greedy = 0; mean of 1 replicate(s), 95% interval): joat b0" in done.stdout
    paths = Paths(folder)
    assert paths.report_html.is_file() and paths.summary_table.is_file() and not paths.report_failure.exists()
    assert paths.champion(expert, 0).is_file() and paths.start_model("joat", 0).is_file()
    assert json.loads(paths.ratings(target).read_text())["starts"]
    lock = yaml.safe_load((folder / "dvc.lock").read_text())["stages"]
    assert f"../../mmc/games/{family}" in {d["path"] for d in lock[f"expert@{expert}-0"]["deps"]}
    assert set(lock) == {f"{s}@0" for s in ("joat", "multitask", "metafocus")} | {
        f"expert@{expert}-0",
        f"adapt@{target}-0",
        f"evaluate@{target}",
        "report",
    }
    assert not (project / "models").exists() and not (project / "dvc.lock").exists()
    # one MLflow store for the project, an experiment and registered names for the study
    client = mlflow.tracking.MlflowClient(paths.mlflow_uri)
    experiment = client.get_experiment_by_name(f"meta-minichess-{family}")
    assert experiment is not None and client.get_experiment_by_name("meta-minichess") is None
    runs = client.search_runs([experiment.experiment_id], "tags.`mmc.kind` = 'stage'", max_results=100)
    assert {r.data.tags["dvc_stage"] for r in runs} == set(lock)
    assert str(client.get_model_version_by_alias(f"{family}-joat", "r0").version) == "1"
    # the report: every figure, the family's question and its sample game drawn from the study's own record
    html = paths.report_html.read_text()
    assert f"adapt to a new {family} variant within one iteration" in html
    figures = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,', html)
    assert len(figures) == 7 and figures[-1] == "Wall seconds of each stage, stacked by what they went to"
    assert f"<strong>{target}</strong> (held out of meta-training)" in html
    sample = read_records(paths.report_sample)[0]
    assert sample.variant == target and htmllib.escape(game_diagram(sample).splitlines()[0]) in html


def test_a_tests_project_leaves_out_what_a_study_wrote_in_the_checkout() -> None:
    """After ``make study`` (or a family's), its ``dvc.lock``, metrics, plots and report sit untracked in the checkout;
    a test's project copies the code, never them (its DVC would take the checkout's stages for its own)."""
    names = ["mmc/evaluation/evaluate.py", "dvc.lock", "metrics/rate/gardner.json", "plots/ratings/gardner.csv",
             "reports/study.ipynb", "reports/study.html", "reports/evaluation.csv", "studies/jump/params.yaml",
             "studies/jump/dvc.lock", "studies/jump/plots/curves/jump_p100.csv", "studies/jump/dvc.yaml",
             "mmc/plots.py", "new_module.py"]  # fmt: skip
    assert project_files(names) == [
        "mmc/evaluation/evaluate.py", "reports/study.ipynb", "studies/jump/params.yaml", "studies/jump/dvc.yaml",
        "mmc/plots.py", "new_module.py",
    ]  # fmt: skip
