"""A study's folder layout (``mmc.core.study_layout``): what the pipeline writes each checkpoint as is what the web
app reads it back as, and a study's name, project and MLflow names follow from its folder."""

from __future__ import annotations

from pathlib import Path

from mmc.core.study_layout import (
    DEFAULT_STUDY,
    ModelFile,
    adapted_model,
    champion_model,
    experiment_name,
    model_file,
    model_name,
    project_of,
    stage_model,
    start_model,
    study_name,
)
from pipelines.paths import Paths


def test_every_checkpoint_a_stage_writes_reads_back_as_that_stage() -> None:
    assert model_file(champion_model("gardner", 1)) == ModelFile("expert", "gardner", 1)
    assert model_file(start_model("joat", 0)) == ModelFile("learn", "joat", 0)
    adapted = adapted_model("mallet", 1, "expert-gardner", 20)
    assert adapted == "adapted/mallet/r1/expert-gardner_b020.pt"
    assert model_file(adapted) == ModelFile("adapt", "mallet", 1, "expert-gardner", 20)
    assert [found.jobs for found in map(model_file, (champion_model("dark", 2), adapted))] == [
        "expert/dark-r2",
        "adapt/mallet-r1",
    ]
    assert stage_model("expert", "gardner", 1) == champion_model("gardner", 1) and stage_model("adapt", "x", 0) is None
    assert model_file("starts/r0/joat.state/focus.pt") is None and model_file("champion/gardner.pt") is None


def test_the_pipelines_paths_are_the_layouts(tmp_path: Path) -> None:
    paths = Paths(tmp_path)
    assert paths.champion("gardner", 1) == paths.models / champion_model("gardner", 1)
    assert paths.adapted("mallet", 1, "joat", 20) == paths.models / adapted_model("mallet", 1, "joat", 20)
    assert paths.start_model("joat", 0).relative_to(paths.models).as_posix() == start_model("joat", 0)


def test_a_study_is_named_after_its_folder_in_its_project(tmp_path: Path) -> None:
    (tmp_path / ".dvc").mkdir()
    folder = tmp_path / "studies" / "gomoku"
    folder.mkdir(parents=True)
    project = tmp_path.resolve()
    assert project_of(folder) == project_of(tmp_path) == project
    assert study_name(project, project) == DEFAULT_STUDY and study_name(folder.resolve(), project) == "gomoku"
    assert (experiment_name(DEFAULT_STUDY), experiment_name("gomoku")) == ("meta-minichess", "meta-minichess-gomoku")
    assert (model_name(DEFAULT_STUDY, "joat"), model_name("gomoku", "joat")) == ("joat", "gomoku-joat")
