"""benchmarks/meta.py on the tiny profile: meta-trained starts adapted, rated together and written as the CSVs that
BENCHMARKS.md quotes (the benchmark itself measures; this checks that it runs what the study's meta stages run)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))  # the script imports learning.py from beside it, as it runs

from learning import study_of  # noqa: E402
from meta import RECIPES, arms, baseline, main, meta_recipe, summarise, sweep, sweep_pool  # noqa: E402

from mmc.evaluation.comparison import BETTER, NO_DIFFERENCE, UNINFORMATIVE  # noqa: E402
from mmc.evaluation.rating import Ratings  # noqa: E402
from mmc.meta.tasks import TaskDistribution  # noqa: E402

TINY = REPO / "tests" / "pipelines" / "params-tiny.yaml"
GOMOKU = REPO / "studies" / "gomoku" / "params.yaml"


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
    ("params", "options", "said"),
    [(TINY, ["--recipes", "joat,nope"], "--recipes: unknown ['nope']"),
     (TINY, ["--targets", "gardner,xiangqi"], "--targets: unknown ['xiangqi']"),
     (GOMOKU, ["--targets", "mnk_7x7_k4,gardner"], "--targets: unknown ['gardner']"),  # another family's variant
     (GOMOKU, ["--targets", "mnk_3x3_k4"], "--targets: unknown ['mnk_3x3_k4']"),  # a malformed generated id
     (TINY, ["--task-counts", "2"], "--task-counts: meta.train_variants is a list, not a distribution"),
     (GOMOKU, ["--task-counts", "3,8"], "--task-counts: [3] outside 4..23"),  # a task batch of 4; 23 boards
     (GOMOKU, ["--task-counts", "5,50", "--pool", "mnk_{4..8}x{4..8}_k{3..4}"], "--task-counts: [50] outside 4..48"),
     (GOMOKU, ["--task-counts", "five"], "--task-counts: comma-separated whole numbers, got 'five'"),
     (GOMOKU, ["--task-counts", "5", "--pool", "mnk_{4..16}x4_k3"], "--pool: variants: "),  # a board over 15
     (GOMOKU, ["--task-counts", "5", "--budgets", "64"], "--budgets: must include 0 with --task-counts"),
     (GOMOKU, ["--pool", "mnk_{4..8}x{4..8}_k3"], "--pool: only with --task-counts")],
)  # fmt: skip
def test_bad_arguments_stop_before_any_training(
    params: Path, options: list[str], said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The script's own ``main`` with these arguments (in this process: a benchmark process takes 8-10 s to start)."""
    monkeypatch.setattr(sys, "argv", ["benchmarks/meta.py", "--params", str(params), *options])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert said in str(stopped.value) and "\n" not in str(stopped.value)
    assert "meta-training" not in capsys.readouterr().out


def test_the_sweep_draws_each_count_per_seed_from_the_pool_less_the_targets_at_the_same_games() -> None:
    params = yaml.safe_load(GOMOKU.read_text())
    targets = ["mnk_7x7_k4", "connect4"]
    spec = sweep_pool(params, "mnk_{4..8}x{4..8}_k{3..4}", targets)
    assert spec["exclude"] == ["mnk_7x6_k4", "mnk_7x7_k4", "connect4"]
    assert len(TaskDistribution.from_params(spec).support()) == 48
    params["meta"]["train_variants"] = spec
    found = arms(params, ["multitask", "joat"], [0, 1], [5, 40], spec)
    assert [(a.name, a.recipe, a.count) for a in found] == [
        ("multitask@n5", "multitask", 5), ("joat@n5", "joat", 5), ("multitask@n40", "multitask", 40),
        ("joat@n40", "joat", 40)]  # fmt: skip
    games = {a.studies[0].meta.generations * a.studies[0].meta.tasks * a.studies[0].meta.games for a in found}
    assert len(games) == 1, "every count meta-trains on as many games"
    for first, second in (found[0:2], found[2:4]):
        for seed in (0, 1):  # both recipes of a count and seed: the same variants
            drawn = first.studies[seed].meta.train_variants
            assert drawn == second.studies[seed].meta.train_variants and len(drawn) == first.count
            assert not set(drawn) & {"mnk_7x7_k4", "mnk_7x6_k4"} and all(v.startswith("mnk_") for v in drawn)
        assert first.studies[0].meta.train_variants != first.studies[1].meta.train_variants, "each seed its own draw"
    assert baseline("joat@n5") == "multitask@n5" and baseline("joat-sd97") == "multitask"
    (plain,) = arms(params, ["joat"], [0, 1], [], None)
    assert plain.name == "joat" and plain.count is None and plain.studies[0] is plain.studies[1]


def _ratings(elo: dict[str, float], spread: float = 10.0) -> Ratings:
    """A pool with these ratings and a bootstrap of independent normal noise of ``spread`` Elo around them."""
    players = tuple(elo)
    samples = np.random.default_rng(0).normal(list(elo.values()), spread, size=(400, len(players)))
    return Ratings(players, dict(elo), {p: e - 2 * spread for p, e in elo.items()},
                   {p: e + 2 * spread for p, e in elo.items()}, dict.fromkeys(players, 100), "scratch-s0-b0", 0.95,
                   samples)  # fmt: skip


def test_the_sweep_says_uninformative_where_a_start_did_not_beat_scratch() -> None:
    params = yaml.safe_load(GOMOKU.read_text())
    found = arms(params, ["multitask", "joat"], [0], [5, 10], sweep_pool(params, None, ["mnk_7x7_k4"]))
    elo = {"scratch-s0-b0": 0.0}
    for count, joat, multitask in ((5, 300.0, 100.0), (10, 300.0, 5.0)):  # at 10, multitask is level with scratch
        for budget, gain in ((0, 0.0), (64, 50.0)):
            elo |= {f"joat@n{count}-s0-b{budget}": joat + gain, f"multitask@n{count}-s0-b{budget}": multitask + gain}
    rows = sweep(_ratings(elo), found, [0], "mnk_7x7_k4", [0, 64], np.random.default_rng(1))
    said = {(r["tasks"], r["budget"]): r for r in rows}
    assert set(said) == {(5, 0), (5, 64), (10, 0), (10, 64)} and {r["recipe"] for r in rows} == {"joat"}
    assert said[(5, 0)]["verdict"] == said[(5, 64)]["verdict"] == BETTER and said[(5, 0)]["difference"] == 200
    assert said[(10, 0)]["verdict"] == said[(10, 64)]["verdict"] == UNINFORMATIVE
    assert said[(10, 0)]["multitask_vs_scratch"] == 5 and said[(10, 0)]["recipe_vs_scratch"] == 300
    elo["multitask@n10-s0-b0"] = elo["multitask@n10-s0-b64"] = 300.0  # learned, and level with JOAT
    rows = sweep(_ratings(elo), found, [0], "mnk_7x7_k4", [0, 64], np.random.default_rng(1))
    assert {r["verdict"] for r in rows if r["tasks"] == 10 and r["budget"] == 0} == {NO_DIFFERENCE}


@pytest.mark.slow
def test_the_benchmark_meta_trains_adapts_rates_and_writes_its_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The task-count sweep at one count (as many meta-trainings as the plain benchmark's two recipes: the plain
    path differs only in :func:`arms`, tested above): each recipe on 2 variants drawn from a pool of 3, scratch
    rated beside them; run again with the same ``--out``, it keeps the meta-trained networks."""
    command = [sys.executable, str(REPO / "benchmarks" / "meta.py"), "--params", str(TINY),
               "--recipes", "multitask,joat", "--seeds", "0", "--targets", "gardner", "--budgets", "0,2",
               "--task-counts", "2", "--pool", "baby mallet dark", "--out", str(tmp_path)]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    models = list(csv.DictReader((tmp_path / "models.csv").open()))
    assert [(r["recipe"], r["budget"]) for r in models] == [("multitask@n2", "0"), ("multitask@n2", "2"),
                                                            ("joat@n2", "0"), ("joat@n2", "2"),
                                                            ("scratch", "0")]  # fmt: skip
    (drawn,) = csv.DictReader((tmp_path / "tasks.csv").open())
    assert drawn["arm"] == "multitask@n2" and len(set(drawn["variants"].split()) & {"baby", "mallet", "dark"}) == 2
    swept = list(csv.DictReader((tmp_path / "sweep.csv").open()))
    assert [(r["recipe"], r["tasks"], r["budget"]) for r in swept] == [("joat", "2", "0"), ("joat", "2", "2")]
    assert int(swept[1]["difference"]) == int(models[3]["elo"]) - int(models[1]["elo"])
    assert swept[0]["verdict"] in ("better", "worse", "no detectable difference", "uninformative")
    assert "| target | variants | budget | recipe - multitask [95 %] | verdict |" in done.stdout
    models = models[:4]
    for row in models:
        assert int(row["low"]) <= int(row["elo"]) <= int(row["high"])
        assert float(row["cpu_minutes"]) > 0
    anchors = {r["anchor"]: int(r["elo"]) for r in csv.DictReader((tmp_path / "anchors.csv").open())}
    assert anchors["greedy"] == 0 and "random" in anchors
    summary = {(r["recipe"], r["budget"]): r for r in csv.DictReader((tmp_path / "summary.csv").open())}
    assert int(summary[("multitask@n2", "2")]["vs_multitask"]) == 0
    joat = models[3]
    assert int(summary[("joat@n2", "2")]["vs_multitask"]) == int(joat["elo"]) - int(models[1]["elo"])
    assert "| recipe | target | budget | meta CPU-min | Elo [95 %] | vs multitask (min, max) |" in done.stdout

    # the same --out again: the meta-trained networks are kept (the arms as main makes them, in this process)
    params = yaml.safe_load(TINY.read_text())
    params["meta"]["train_variants"] = spec = sweep_pool(params, "baby mallet dark", ["gardner"])
    for arm in arms(params, ["multitask", "joat"], [0], [2], spec):
        kept = meta_recipe(arm.studies[0], arm.name, arm.recipe, 0, 1, tmp_path)
        spent = next(float(r["cpu_minutes"]) for r in models if r["recipe"] == arm.name)
        assert (round(kept.cpu_minutes, 3), kept.recipe) == (spent, arm.name)
    assert capsys.readouterr().out.count("kept from") == 2
