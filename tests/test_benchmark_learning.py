"""benchmarks/learning.py on the tiny profile: recipes trained, rated together and written as the CSVs that
BENCHMARKS.md quotes (the benchmark itself measures; this checks that it runs what the study runs)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from benchmarks.learning import PREVIOUS, RECIPES, study_of

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "pipelines" / "params-tiny.yaml"


def test_recipes_are_valid_studies_and_previous_pins_the_old_expert() -> None:
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    for changes in RECIPES.values():
        study_of(params, changes)  # every recipe parses (a renamed key would stop it)
    previous = study_of(params, PREVIOUS).experts["gardner"]
    assert (previous.loop.generations, previous.loop.arena_games, previous.train.epochs) == (6, 40, 2)
    assert previous.train.value_discount == 1.0 and previous.search.fast_simulations == 0
    current = study_of(params, RECIPES["current"])
    assert current.experts == study_of(params, {}).experts, "current is params.yaml as it is"
    assert current.experts["gardner"].train.threads == 2
    assert study_of(params, RECIPES["one-thread"]).experts["gardner"].train.threads == 1
    with pytest.raises(SystemExit, match=r"recipe key train\.nope is not in params\.yaml"):
        study_of(params, {"train.nope": 1})


@pytest.mark.slow
def test_the_benchmark_trains_rates_and_writes_its_tables(tmp_path: Path) -> None:
    command = [sys.executable, str(REPO / "benchmarks" / "learning.py"), "--params", str(TINY),
               "--recipes", "previous,current", "--generations", "2", "--every", "1", "--policy-games", "4",
               "--greedy-games", "2", "--out", str(tmp_path)]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    curves = list(csv.DictReader((tmp_path / "curves.csv").open()))
    assert [(r["recipe"], r["generation"]) for r in curves] == [
        ("previous", "1"),
        ("previous", "2"),
        ("current", "1"),
        ("current", "2"),
    ]
    for row in curves:
        assert int(row["low"]) <= int(row["elo"]) <= int(row["high"])
        assert float(row["cpu_minutes"]) > 0
        tally = [int(row[f"greedy_{k}"]) for k in ("wins", "draws", "losses")]
        assert sum(tally) == 2, "every kept champion plays --greedy-games against greedy"
        assert float(row["greedy_win_rate"]) == tally[0] / 2
        assert 0 <= float(row["policy_vs_random"]) <= 1
    assert float(curves[1]["cpu_minutes"]) > float(curves[0]["cpu_minutes"]), "CPU time adds up"
    anchors = {r["anchor"]: int(r["elo"]) for r in csv.DictReader((tmp_path / "anchors.csv").open())}
    assert anchors["greedy"] == 0 and "random" in anchors, "the anchors' ratings, greedy at 0"
    summary = {r["recipe"]: r for r in csv.DictReader((tmp_path / "summary.csv").open())}
    assert set(summary) == {"previous", "current"}
    assert all(0 <= float(r["policy_vs_random"]) <= 1 for r in summary.values())
    assert "| recipe | seeds | CPU-min (mean) | final Elo (mean) | raw policy vs random |" in done.stdout
