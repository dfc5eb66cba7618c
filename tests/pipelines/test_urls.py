"""The MLflow address that make ui and make study print opens the experiment's runs, not its GenAI overview."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pipelines.paths import Paths
from pipelines.study import print_urls


def test_the_mlflow_address_opens_the_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:4200/api")
    print_urls(Paths(tmp_path), 5000, mlflow_running=True)
    out = capsys.readouterr().out
    assert "Prefect UI: http://127.0.0.1:4200\n" in out
    assert re.search(r"MLflow UI:  http://127\.0\.0\.1:5000/#/experiments/\d+/runs\n", out), out
