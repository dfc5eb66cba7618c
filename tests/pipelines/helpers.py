"""Queries the pipeline tests make: the Prefect server's REST API and the MLflow store of a project."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from mlflow.tracking import MlflowClient

from pipelines.paths import Paths
from pipelines.tracking import EXPERIMENT


def prefect_post(api_url: str, route: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        f"{api_url}/{route}",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def task_runs(api_url: str, flow_run_id: str) -> dict[str, str]:
    """Task-run name -> state type of one flow run."""
    runs = prefect_post(api_url, "task_runs/filter", {"flow_runs": {"id": {"any_": [flow_run_id]}}, "limit": 200})
    return {run["name"]: run["state_type"] for run in runs}


def flow_run(api_url: str, flow_run_id: str) -> dict[str, Any]:
    (run,) = prefect_post(api_url, "flow_runs/filter", {"flow_runs": {"id": {"any_": [flow_run_id]}}})
    return dict(run)


def mlflow_runs(root: Path) -> list[Any]:
    """Every run of the project's MLflow store, oldest first."""
    client = MlflowClient(Paths(root).mlflow_uri)
    experiment = client.get_experiment_by_name(EXPERIMENT)
    assert experiment is not None
    return list(reversed(client.search_runs([experiment.experiment_id], max_results=500)))


DELETE = object()
"""A change's value that removes its key (``{"learners.multitask": DELETE}``)."""


def write_params(root: Path, source: Path, changes: dict[str, Any]) -> Path:
    """``source`` with dotted-key ``changes`` applied (a value :data:`DELETE` removes the key), written as
    ``root/params.yaml``."""
    data = yaml.safe_load(source.read_text())
    for key, value in changes.items():
        *parents, last = key.split(".")
        node = data
        for part in parents:
            node = node[part]
        if value is DELETE:
            del node[last]
        else:
            node[last] = value
    root.mkdir(parents=True, exist_ok=True)
    (root / "params.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return root / "params.yaml"
