"""A study anywhere (``python -m pipelines init``, ``pipelines.project``) of an outside game, run to its report from
a folder outside the project, its row made (``python -m pipelines row``) and checked (``check-row``): accepted as
made, refused in one line for a changed Elo, a swapped model, an edited game and a code version it does not hold. A
second study in another folder, the first one's Prefect server still up, gets a server of its own: each study's
flow runs and MLflow runs are in its own stores only."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import mlflow
import pytest
import yaml

from pipelines.paths import Paths
from pipelines.services import stop_pid_file

from .conftest import make_project
from .helpers import prefect_post
from .test_services import _env, _free_port

pytestmark = pytest.mark.slow


def _run(args: list[str], cwd: Path, env: dict[str, str], timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pipelines", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip


def test_an_outside_games_study_anywhere_runs_to_its_report_and_its_row_checks(tmp_path: Path) -> None:
    """The example game package installed into a temporary target, the project's code as an installed copy of its own
    (a committed repository, as a release would be), and the study in a third folder: ``init --family hexapawn``,
    ``study``, ``row``, ``check-row``; then a second study beside it. No address is given: each study chooses its
    own (a free port stands for 4200: ``MMC_PREFECT_PORT``)."""
    from tests.test_example_package import install_example

    site = install_example(tmp_path / "hexapawn")
    code = make_project(tmp_path / "code")  # this working tree, committed: the code a row names
    default = _free_port()
    env = {**_env(default, _free_port()), "PYTHONPATH": os.pathsep.join([str(site), str(code)])}
    folder, other = tmp_path / "elsewhere" / "hexapawn-study", tmp_path / "elsewhere" / "second-study"
    try:
        _outside_study(folder, other, code, site, env, default)
    finally:
        for study in (folder, other):
            stop_pid_file(study / ".prefect" / "server.pid")


def _outside_study(folder: Path, other: Path, code: Path, site: Path, env: dict[str, str], default: int) -> None:
    made = _run(["init", str(folder), "--family", "hexapawn", "--size", "tiny"], code.parent, env)
    assert made.returncode == 0, made.stderr
    assert (site / "hexapawn").resolve().as_posix() in (folder / "dvc.yaml").read_text()
    assert f"{code.resolve().as_posix()}/mmc/play" in (folder / "dvc.yaml").read_text()
    params = yaml.safe_load((folder / "params.yaml").read_text())
    (target,) = params["adapt"]["targets"]
    assert (target, params["meta"]["train_variants"]) == ("octapawn", ["hexapawn"])

    done = _run(["study"], folder, env, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"{target}: Elo (greedy = 0; mean of 1 replicate(s), 95% interval): joat b0" in done.stdout
    paths = Paths(folder)
    assert paths.report_html.is_file() and paths.mlflow_db == folder.resolve() / "mlflow.db"
    html = paths.report_html.read_text()
    assert "adapt to a new hexapawn variant within one iteration" in html
    assert "none of the frozen benchmarks" in html
    assert not (code / "models").exists() and not (code / "dvc.lock").exists()

    made_row = _run(["row"], folder, env)
    assert made_row.returncode == 0, made_row.stderr
    row = json.loads((folder / "reports" / "row.json").read_text())
    assert row["benchmark"] is None and row["code"]["commit"] and not row["code"]["modified"]
    assert "joat-b0 - scratch-b0" in row["targets"][target]["differences"] and row["models"]
    checked = _run(["check-row", "reports/row.json"], folder, env)
    assert checked.returncode == 0, checked.stderr
    assert "match jobs replayed game by game: the same games" in checked.stdout
    assert f"the code version: commit {row['code']['commit'][:12]} holds the code the row hashed" in checked.stdout
    assert checked.stdout.splitlines()[-1].startswith("reports/row.json: accepted (no benchmark, made at")

    def refused(tampered: dict[str, object]) -> str:
        (folder / "tampered.json").write_text(json.dumps(tampered))
        done = _run(["check-row", "tampered.json", "--replays", "0"], folder, env)
        assert done.returncode == 1 and len(done.stderr.splitlines()) == 1, done.stderr
        return done.stderr.strip()

    changed = json.loads(json.dumps(row))
    changed["targets"][target]["elo"]["joat-b0"]["elo"] += 5
    assert refused(changed).startswith(f"pipelines: tampered.json: refused: {target}: elo: joat-b0: elo is ")
    code_claim = json.loads(json.dumps(row))
    code_claim["code"]["mmc"] = "0" * 64
    assert refused(code_claim) == (
        f"pipelines: tampered.json: refused: the row's code is not commit {row['code']['commit'][:12]}'s: its mmc/ "
        "differs"
    )
    # a swapped model: the row's own file, checked against the study's folder
    first, second = (paths.adapted(target, 0, start, 0) for start in ("joat", "scratch"))
    saved = first.read_bytes()
    shutil.copyfile(second, first)
    assert refused(row) == (
        f"pipelines: tampered.json: refused: model {paths.relative(first)}: differs from the row's (SHA-256 "
        f"{row['models'][paths.relative(second)][:12]}, the row {row['models'][paths.relative(first)][:12]})"
    )
    first.write_bytes(saved)
    # an edited game: one move of a recorded game
    record = sorted(paths.jobs("evaluate", target).glob("match-*.pgn"))[0]
    text = record.read_text()
    record.write_text(text.replace("1/2-1/2", "1-0", 1) if "1/2-1/2" in text else text.replace("1-0", "0-1", 1))
    assert (
        refused(row) == f"pipelines: tampered.json: refused: game record {paths.relative(record)}: differs from the row"
    )
    record.write_text(text)
    assert _run(["check-row", "reports/row.json", "--replays", "0"], folder, env).returncode == 0

    # a second study, the first one's server still up: a server of its own, said in one line
    assert _run(["init", str(other), "--family", "hexapawn", "--size", "tiny", "--set", "seed=1"], folder,
                env).returncode == 0  # fmt: skip
    second = _run(["study"], other, env, timeout=1800)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    ports = [json.loads((f / ".prefect" / "server.pid").read_text())["port"] for f in (folder, other)]
    assert ports[0] == default and ports[1] != default
    assert (f"pipelines: port {default} is held by another Prefect server ({folder / '.prefect'}), not this study's; "
            f"this study's server takes port {ports[1]}") in second.stderr  # fmt: skip
    flow_runs = []
    for study, port in zip((folder, other), ports, strict=True):
        client = mlflow.tracking.MlflowClient(Paths(study).mlflow_uri)
        experiment = client.get_experiment_by_name("meta-minichess")  # a study anywhere is its project's own study
        assert experiment is not None
        runs = client.search_runs([experiment.experiment_id], "tags.`mmc.kind` = 'stage'", max_results=100)
        recorded = {r.data.tags["prefect_flow_run_id"] for r in runs}
        served = {r["id"] for r in prefect_post(f"http://127.0.0.1:{port}/api", "flow_runs/filter", {"limit": 200})}
        assert len(recorded) >= 5 and recorded <= served, study
        flow_runs.append(served)
    assert not flow_runs[0] & flow_runs[1]  # no flow run of one study in the other's server
