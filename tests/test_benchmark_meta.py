"""benchmarks/meta.py on the tiny profile: meta-trained starts adapted, rated together and written as the CSVs that
BENCHMARKS.md quotes (the benchmark itself measures; this checks that it runs what the study's meta stages run)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))  # the script imports learning.py from beside it, as it runs

from learning import study_of  # noqa: E402
from meta import RECIPES, main, summarise  # noqa: E402

TINY = REPO / "tests" / "pipelines" / "params-tiny.yaml"


def test_every_recipe_is_a_valid_study_and_spends_the_same_self_play_games() -> None:
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    base = study_of(params, {})
    default = base.meta
    assert RECIPES["multitask"] == ("multitask", {}) and RECIPES["joat"] == ("joat", {})
    for name, (kind, changes) in RECIPES.items():
        assert kind in ("joat", "multitask"), name
        study = study_of(params, changes)
        config = study.meta
        assert config.generations * config.tasks * config.games == default.generations * default.tasks * default.games
        changed = (config, study.search, study.train) != (default, base.search, base.train)
        assert changed == bool(changes), f"{name} changes the meta recipe"
    solver = study_of(params, RECIPES["joat-sd97"][1])
    assert solver.search.solver and solver.train.value_discount == 0.97 and solver.meta == default


def test_the_summary_compares_seed_by_seed_with_multitask() -> None:
    def row(recipe: str, seed: int, budget: int, elo: int) -> dict[str, object]:
        return {"recipe": recipe, "seed": seed, "target": "gardner", "budget": budget, "cpu_minutes": 2.0,
                "elo": elo, "low": elo - 40, "high": elo + 40}  # fmt: skip

    rows = [row("multitask", 0, 0, 100), row("multitask", 1, 0, 200), row("joat", 0, 0, 50), row("joat", 1, 0, 230)]
    summary = {s["recipe"]: s for s in summarise(rows, ["multitask", "joat"])}
    assert summary["joat"]["elo"] == 140 and (summary["joat"]["low"], summary["joat"]["high"]) == (100, 180)
    assert (summary["joat"]["vs_multitask"], summary["joat"]["vs_multitask_min"]) == (-10, -50)
    assert summary["joat"]["vs_multitask_max"] == 30 and summary["multitask"]["vs_multitask"] == 0
    (alone,) = summarise([r for r in rows if r["recipe"] == "joat"], ["joat"])
    assert alone["vs_multitask"] == "", "no multitask, no difference"


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [("--recipes", "joat,nope", "--recipes: unknown ['nope']"),
     ("--targets", "gardner,xiangqi", "--targets: unknown ['xiangqi']")],
)  # fmt: skip
def test_an_unknown_recipe_or_target_stops_before_any_training(
    option: str, value: str, said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The script's own ``main`` with these arguments (in this process: a benchmark process takes 8-10 s to start)."""
    monkeypatch.setattr(sys, "argv", ["benchmarks/meta.py", "--params", str(TINY), option, value])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert said in str(stopped.value) and "\n" not in str(stopped.value)
    assert "meta-training" not in capsys.readouterr().out


@pytest.mark.slow
def test_the_benchmark_meta_trains_adapts_rates_and_writes_its_tables(tmp_path: Path) -> None:
    command = [sys.executable, str(REPO / "benchmarks" / "meta.py"), "--params", str(TINY),
               "--recipes", "multitask,joat", "--seeds", "0", "--targets", "gardner", "--budgets", "0,2",
               "--out", str(tmp_path)]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    models = list(csv.DictReader((tmp_path / "models.csv").open()))
    assert [(r["recipe"], r["budget"]) for r in models] == [("multitask", "0"), ("multitask", "2"), ("joat", "0"),
                                                            ("joat", "2")]  # fmt: skip
    for row in models:
        assert int(row["low"]) <= int(row["elo"]) <= int(row["high"])
        assert float(row["cpu_minutes"]) > 0
    anchors = {r["anchor"]: int(r["elo"]) for r in csv.DictReader((tmp_path / "anchors.csv").open())}
    assert anchors["greedy"] == 0 and "random" in anchors
    summary = {(r["recipe"], r["budget"]): r for r in csv.DictReader((tmp_path / "summary.csv").open())}
    assert int(summary[("multitask", "2")]["vs_multitask"]) == 0
    joat = models[3]
    assert int(summary[("joat", "2")]["vs_multitask"]) == int(joat["elo"]) - int(models[1]["elo"])
    assert "| recipe | target | budget | meta CPU-min | Elo [95 %] | vs multitask (min, max) |" in done.stdout
