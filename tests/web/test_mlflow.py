"""The web app over a real MLflow store: registered models by name and alias resolved through the registry, and
each model's and stage's links (MLflow run, Prefect flow run, games). The store is written with the MLflow
client here; ``mmc`` only reads the sqlite file."""

from __future__ import annotations

import dataclasses
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytest.importorskip("mlflow")
from starlette.testclient import TestClient

from mmc.play.records import write_records
from mmc.web.app import create_app
from mmc.web.study import ModelError, Study
from tests.web.conftest import random_record

FLOW_RUN = "1e6e6283-ed8b-4356-b3f8-5ba5a228f85c"


def _stage_run(client: Any, experiment: str, name: str, **tags: str) -> str:
    run = client.create_run(experiment, run_name=name, tags={"mmc.kind": "stage", **tags})
    client.set_terminated(run.info.run_id)
    return str(run.info.run_id)


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """models/starts/r{0,1}/joat.pt, an adapted model, records, and mlflow.db where alias joat@r0 names the
    version logged by the replicate-1 run (so the registry, not the layout, decides) and joat@best has no
    layout meaning at all."""
    import mlflow
    from mlflow.tracking import MlflowClient

    from mmc.nn import NetworkConfig, build_network, save_checkpoint

    root = tmp_path_factory.mktemp("tracked")
    config = NetworkConfig(game="chess", blocks=1, filters=8)
    for path in ("starts/r0/joat.pt", "starts/r1/joat.pt", "adapted/mallet/r1/joat_b100.pt"):
        save_checkpoint(build_network(config, seed=0), config, root / "models" / path)
    record = dataclasses.replace(random_record("mallet", 5), first="joat-b100-r1", second="random")
    write_records([record], root / "data" / "jobs" / "evaluate" / "mallet" / "m.pgn")
    write_records(
        [random_record("gardner", 6)], root / "data" / "jobs" / "adapt" / "mallet-r1" / "self-play-joat-b100.pgn"
    )

    uri = f"sqlite:///{root}/mlflow.db"
    mlflow.set_tracking_uri(uri)
    client = MlflowClient(uri, registry_uri=uri)
    experiment = client.create_experiment("meta-minichess", artifact_location=(root / "mlartifacts").as_uri())
    runs = {
        "r1": _stage_run(
            client,
            experiment,
            "learn-joat-r1",
            **{"mmc.stage": "learn", "variant": "joat", "replicate": "1", "prefect_flow_run_id": FLOW_RUN},
        ),
        "r0": _stage_run(
            client,
            experiment,
            "learn-joat-r0",
            **{"mmc.stage": "learn", "variant": "joat", "replicate": "0", "prefect_flow_run_id": ""},
        ),
        "adapt": _stage_run(
            client,
            experiment,
            "adapt-mallet-r1",
            **{"mmc.stage": "adapt", "variant": "mallet", "replicate": "1", "prefect_flow_run_id": "abc"},
        ),
    }
    client.create_registered_model("joat")
    version = client.create_model_version("joat", f"runs:/{runs['r1']}/model", run_id=runs["r1"])
    client.set_registered_model_alias("joat", "r0", version.version)
    client.set_registered_model_alias("joat", "best", version.version)
    return root, {**runs, "experiment": experiment}


def test_mmc_reads_the_store_without_mlflow(study: tuple[Path, dict[str, str]]) -> None:
    root, _ = study
    with sqlite3.connect(root / "mlflow.db") as db:  # the store holds what the real tables hold
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"runs", "tags", "model_versions", "registered_model_aliases", "experiments"} <= tables
    code = (
        "import sys; from pathlib import Path; from mmc.web.app import create_app; from mmc.web.study import Study; "
        f"s = Study(Path({str(root)!r})); assert s.registered() and s.runs(); create_app(s.root); "
        "assert not {'mlflow', 'prefect'} & set(sys.modules), 'imported'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_registered_names_resolve_through_the_registry(study: tuple[Path, dict[str, str]]) -> None:
    root, _ = study
    s = Study(root)
    models = root.resolve() / "models"
    assert s.model_path("joat@r0") == models / "starts" / "r1" / "joat.pt"  # the alias's version's run
    assert s.model_path("joat@best") == models / "starts" / "r1" / "joat.pt"
    assert s.model_path("joat@r1") == models / "starts" / "r1" / "joat.pt"  # not registered: the layout
    assert sorted(s.registered()) == ["joat@best", "joat@r0"]
    for bad in ("joat@nope", "expert-gardner@r0", "../x@r0"):
        with pytest.raises(ModelError):
            s.model_path(bad)


def test_a_registered_model_outside_models_is_refused(tmp_path: Path, study: tuple[Path, dict[str, str]]) -> None:
    root, runs = study
    copy = tmp_path / "p"
    copy.mkdir()
    (copy / "mlflow.db").write_bytes((root / "mlflow.db").read_bytes())
    with sqlite3.connect(copy / "mlflow.db") as db:
        db.execute("UPDATE tags SET value = '../../../x' WHERE key = 'variant' AND run_uuid = ?", (runs["r1"],))
    (tmp_path / "x.pt").write_bytes(b"x")
    with pytest.raises(ModelError):
        Study(copy).model_path("joat@r0")


def test_options_link_models_and_stages(study: tuple[Path, dict[str, str]]) -> None:
    root, runs = study
    options = TestClient(create_app(root)).get("/api/options").json()
    assert options["registered"] == {"joat@best": "starts/r1/joat.pt", "joat@r0": "starts/r1/joat.pt"}
    links = options["model_links"]
    mlflow_run = f"http://127.0.0.1:5000/#/experiments/{runs['experiment']}/runs/{runs['r1']}"
    assert links["starts/r1/joat.pt"]["mlflow"] == mlflow_run
    assert links["starts/r1/joat.pt"]["prefect"] == f"http://127.0.0.1:4200/runs/flow-run/{FLOW_RUN}"
    assert links["starts/r0/joat.pt"]["prefect"] is None and links["starts/r0/joat.pt"]["run"] == "learn-joat-r0"
    adapted = links["adapted/mallet/r1/joat_b100.pt"]
    assert adapted["run"] == "adapt-mallet-r1" and adapted["prefect"].endswith("/runs/flow-run/abc")
    assert adapted["games"] == "/?tab=watch&player=joat-b100-r1"
    assert adapted["self_play"] == "/?tab=watch&stage=adapt%2Fmallet-r1%2Fself-play-joat-b100"
    assert links["starts/r0/joat.pt"]["self_play"] is None  # no such records
    stages = {s["run"]: s for s in options["stages"]}
    assert set(stages) == {"learn-joat-r1", "learn-joat-r0", "adapt-mallet-r1"}
    assert stages["learn-joat-r1"]["prefect"] == f"http://127.0.0.1:4200/runs/flow-run/{FLOW_RUN}"


def test_the_games_link_lists_the_models_games(study: tuple[Path, dict[str, str]]) -> None:
    root, _ = study
    client = TestClient(create_app(root))
    listed = client.get("/api/records", params={"player": "joat-b100-r1"}).json()["records"]
    assert [(g["first"], g["file"]) for g in listed] == [("joat-b100-r1", "evaluate/mallet/m.pgn")]
    listed = client.get("/api/records", params={"stage": "adapt/mallet-r1/self-play-joat-b100"}).json()["records"]
    assert len(listed) == 1


def test_play_a_registered_model(study: tuple[Path, dict[str, str]]) -> None:
    root, _ = study
    client = TestClient(create_app(root))
    response = client.post(
        "/api/games", json={"variant": "gardner", "opponent": "net:joat@best:sims=2", "color": "black"}
    )
    assert response.status_code == 200, response.text
    assert len(response.json()["moves"]) == 1


@pytest.mark.slow  # 2 s
def test_a_family_study_is_served_from_its_folder_over_the_projects_store(tmp_path: Path) -> None:
    """``mmc serve --project studies/gomoku``: its models from its folder, the runs of its own experiment from the
    project's store, its registered ``gomoku-joat`` asked for as ``joat@r0``; the default study's runs and models
    are not its."""
    import mlflow
    from mlflow.tracking import MlflowClient

    from mmc.nn import NetworkConfig, build_network, save_checkpoint

    project = tmp_path / "project"
    (project / ".dvc").mkdir(parents=True)
    folder = project / "studies" / "gomoku"
    config = NetworkConfig.for_game("gomoku", blocks=1, filters=8)
    save_checkpoint(build_network(config, seed=0), config, folder / "models" / "starts" / "r0" / "joat.pt")
    uri = f"sqlite:///{project}/mlflow.db"
    mlflow.set_tracking_uri(uri)
    client = MlflowClient(uri, registry_uri=uri)
    runs = {}
    for name in ("meta-minichess", "meta-minichess-gomoku"):
        experiment = client.create_experiment(name, artifact_location=(project / "mlartifacts").as_uri())
        tags = {"mmc.stage": "learn", "variant": "joat", "replicate": "0"}
        runs[name] = _stage_run(client, experiment, "learn-joat-r0", **tags)
    client.create_registered_model("gomoku-joat")
    version = client.create_model_version("gomoku-joat", "runs:/x/model", run_id=runs["meta-minichess-gomoku"])
    client.set_registered_model_alias("gomoku-joat", "r0", version.version)

    study = Study(folder)
    assert (study.project, study.experiment) == (project.resolve(), "meta-minichess-gomoku")
    assert set(study.runs()) == {runs["meta-minichess-gomoku"]}
    assert study.model_path("joat@r0") == folder.resolve() / "models" / "starts" / "r0" / "joat.pt"
    assert sorted(study.registered()) == ["joat@r0"]
    assert Study(project).experiment == "meta-minichess" and set(Study(project).runs()) == {runs["meta-minichess"]}
    assert study.experiment_id() != Study(project).experiment_id()
