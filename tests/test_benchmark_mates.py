"""benchmarks/mates.py on a real tiny expert loop: the kept networks and rows of an expert stage's job folder (the
stage's own file names) give the prior-on-the-mate tables, and the supervised test trains on exact mates."""

from __future__ import annotations

import csv
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from mmc.core.fanout import Job
from mmc.loops.alphazero import alphazero
from mmc.nn import save_checkpoint
from mmc.play.selfplay import SelfPlayResult
from mmc.train import Examples, Trained, concatenate, load_examples, save_examples
from pipelines.calls import expert_inputs, keywords
from pipelines.config import parse_params
from pipelines.jobs import job_file

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "pipelines" / "params-tiny.yaml"


class KeepingRunner:
    """Runs an expert loop's jobs in this process and keeps their results under the names the stage's job store
    gives them (``pipelines.jobs.job_file``): what ``data/jobs/expert/{variant}-r{r}`` holds after the stage."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __call__(self, jobs: Sequence[Job[Any]]) -> list[Any]:
        results = []
        for job in jobs:
            value = job.fn(**job.kwargs)
            if isinstance(value, SelfPlayResult):
                save_examples(concatenate(value.examples), job_file(self.folder, job.name, ".npz"))
            elif isinstance(value, Trained):
                save_checkpoint(value.net, value.net.config, job_file(self.folder, job.name, ".pt"))
            results.append(value)
        return results


@pytest.mark.slow
def test_the_kept_networks_give_the_prior_on_the_mate_fit_and_held_out(tmp_path: Path) -> None:
    study = parse_params(yaml.safe_load(TINY.read_text()))
    folder = tmp_path / "gardner-r0"
    for _ in alphazero(**keywords(expert_inputs(study, "gardner", 0)), run=KeepingRunner(folder)):
        pass
    generations = study.experts["gardner"].loop.generations
    assert sorted(p.name for p in folder.glob("train-*.pt")) == [
        f"train-gardner-gen{g:03d}.pt" for g in range(generations)
    ]
    rows: list[Examples] = [
        concatenate([load_examples(p) for p in sorted(folder.glob(f"self-play-gardner-gen{g:03d}-*.npz"))])
        for g in range(generations)
    ]

    out = tmp_path / "out"
    command = [sys.executable, str(REPO / "benchmarks" / "mates.py"), "--jobs", str(folder), "--params", str(TINY),
               "--games", "4", "--out", str(out)]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    fit = list(csv.DictReader((out / "fit.csv").open()))
    assert [int(r["generation"]) for r in fit] == list(range(generations))
    window = study.experts["gardner"].loop.window
    for r in fit:
        g = int(r["generation"])
        seen = [rows[k] for k in range(max(0, g - window + 1), g + 1)]
        mates = sum(int(np.sum((e.plies_left == 1) & (e.value > 0))) for e in seen)
        assert int(r["window_rows"]) == sum(len(e) for e in seen) and int(r["mate_rows"]) == mates
        if mates:
            assert 0 < float(r["prior_fit"]) < 1 and 0 < float(r["target_on_mate"]) <= 1
    assert fit[-1]["held_rows"] == "0", "the last network has no next generation"
    kl = list(csv.DictReader((out / "kl.csv").open()))
    assert {r["games"] for r in kl} == {"won", "lost", "drawn"}
    assert all(float(r["kl"]) >= 0 for r in kl if int(r["rows"]))
    lone = list(csv.DictReader((out / "bare_king.csv").open()))
    assert lone[1]["source"].startswith("raw policy vs random (4 games")
    assert int(lone[1]["mate_played"]) <= int(lone[1]["with_mate_in_one"]) <= int(lone[1]["positions"])
    suite = list(csv.DictReader((out / "suite.csv").open()))
    assert [r["variant"] for r in suite] == ["gardner", "baby", "mallet"]
    assert all(0 <= float(r["mate 1"]) <= 1 for r in suite)


@pytest.mark.slow
def test_the_supervised_test_trains_each_network_on_exact_mates(tmp_path: Path) -> None:
    command = [sys.executable, str(REPO / "benchmarks" / "mates.py"), "--supervised", "60", "--steps", "8",
               "--networks", "1x8,1x8k3", "--params", str(TINY), "--out", str(tmp_path)]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "60 distinct mate-in-one positions: 54 to train on, 6 held out" in done.stdout
    rows = list(csv.DictReader((tmp_path / "supervised.csv").open()))
    assert [r["network"] for r in rows] == ["1x8"] * 4 + ["1x8k3"] * 4
    assert all(0 < float(r["prior_held"]) <= 1 and 0 < float(r["prior_fit"]) <= 1 for r in rows)
    assert [int(r["steps"]) for r in rows][-1] >= 8
    bad = subprocess.run([*command[:-2], "--networks", "2x32k2"], cwd=REPO, capture_output=True, text=True,
                         timeout=120, check=False)  # fmt: skip
    assert bad.returncode != 0 and "'2x32k2' is not BLOCKSxFILTERS[kK] with K odd" in bad.stderr
