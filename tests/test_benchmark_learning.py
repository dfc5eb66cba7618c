"""benchmarks/learning.py on the tiny profile: recipes trained, rated together and written as the CSVs that
BENCHMARKS.md quotes (the benchmark itself measures; this checks that it runs what the study runs)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from benchmarks.learning import (
    BEFORE_21,
    BEFORE_34,
    PREVIOUS,
    RECIPES,
    aimed_at,
    at_budget,
    check_recipe,
    mean_simulations,
    study_of,
    summarise,
)
from mmc.search import SearchConfig
from pipelines.config import ParamsError
from tests.games.jump import jump_moves_registered

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


def test_a_variant_of_another_family_becomes_the_studys_only_variant() -> None:
    """The encoding comparison of issue 33: the jump study's params aimed at jump_6x6_moves_p100 (the study's 100-ply
    race of jump_6x6 in the family jump_moves, the example package examples/jump_moves, registered by hand)."""
    params = yaml.safe_load((REPO / "studies" / "jump" / "params.yaml").read_text())
    with jump_moves_registered():
        aimed = study_of(aimed_at(params, "jump_6x6_moves_p100"), {})
        assert list(aimed.experts) == ["jump_6x6_moves_p100"] and aimed.meta.train_variants == ("jump_6x6_moves_p100",)
        assert aimed.adapt.targets == ("jump_6x6_moves_p100",) and "expert-jump_6x6_moves_p100" in aimed.adapt.starts
        moves, hop = aimed.experts["jump_6x6_moves_p100"], study_of(params, {}).experts["jump_6x6_p100"]
        assert (moves.loop, moves.search, moves.train) == (hop.loop, hop.search, hop.train), "the same expert recipe"
        with pytest.raises(ParamsError, match="rate jump_6x6_moves_p100, the game scored at ply 100"):
            study_of(aimed_at(params, "jump_6x6_moves"), {})  # the full game, whose evaluation the params would cut
    same = study_of(aimed_at(params, "jump_p100"), {})  # a variant of the study's family: an expert beside the others
    assert list(same.experts) == ["jump_6x6_p100", "jump_p100"]
    assert same.adapt.targets == study_of(params, {}).adapt.targets


def test_the_screen_has_its_candidates_each_an_option_of_the_recipe_it_ran_from() -> None:
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    screen = ["open-8", "endgame-0.25", "open8-endgame", "cosine-lr", "window-positions", "gumbel-16", "net-4x48",
              "net-4x64", "sims32-games192", "bf16", "solver", "discount-0.97", "solver-d97"]  # fmt: skip
    current = study_of(params, BEFORE_21).experts["gardner"]
    assert current != study_of(params, {}).experts["gardner"], "issue 21 changed the expert recipe"
    before_34 = study_of(params, BEFORE_34).experts
    assert study_of(params, RECIPES["solver-d97"]).experts == before_34, "issue 21 adopted it"
    assert before_34 != study_of(params, {}).experts, "issue 34 changed the expert recipe"
    adopted = study_of(params, RECIPES["convert-4x5-endgame"]).experts
    assert adopted == study_of(params, {}).experts, "issue 34 adopted it"
    assert adopted["gardner"].search.endgame_starts == 0.25 and adopted["gardner"].train.convert_weight == 4.0
    for name in screen:
        expert = study_of(params, RECIPES[name]).experts["gardner"]
        assert expert != current, f"{name} changes the recipe"
    gumbel = study_of(params, RECIPES["gumbel-16"]).experts["gardner"]
    assert gumbel.search.gumbel and gumbel.search.gumbel_sampling and gumbel.search.random_opening_plies == 8
    assert gumbel.search.simulations * gumbel.loop.games == current.search.simulations * current.loop.games
    assert study_of(params, RECIPES["net-4x64"]).network.filters == 64


def test_every_recipe_reaches_the_expert() -> None:
    """A recipe's change of a shared key that the expert recipe replaces would not reach the expert: every recipe
    passes the check, and a recipe that sets such a key is refused naming the key to set."""
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    for name, changes in RECIPES.items():
        check_recipe(params, name, changes)
    with pytest.raises(SystemExit, match=r"recipe shadowed: search\.solver does not reach the expert, .*"
                       r"expert\.search\.solver"):  # fmt: skip
        check_recipe(params, "shadowed", {"search.solver": False})


def test_recipes_compare_at_a_common_cpu_budget() -> None:
    assert at_budget([1.0, 2.0, 4.0], [100, 200, 300], 3.0) == 250
    assert at_budget([2.0, 1.0], [200, 100], 0.5) == 100, "held at the first champion below the curve"
    assert at_budget([1.0, 2.0], [100, 200], 9.0) == 200, "and at the last above it"

    def row(recipe: str, seed: int, generation: int, cpu: float, elo: int) -> dict[str, object]:
        return {"recipe": recipe, "seed": seed, "generation": generation, "cpu_minutes": cpu, "elo": elo,
                "low": elo - 50, "high": elo + 50, "policy_vs_random": 0.5}  # fmt: skip

    rows = [row("current", 0, 6, 1.0, 100), row("current", 0, 12, 2.0, 200),
            row("open-8", 0, 6, 2.0, 150), row("open-8", 0, 12, 4.0, 350)]  # fmt: skip
    current, opening = summarise(rows, ["current", "open-8"], None)
    assert current["budget_cpu_minutes"] == 2.0, "the least CPU a replicate spent"
    assert (current["elo_mean"], opening["elo_mean"]) == (200, 350), "final champions"
    assert (current["elo_at_budget"], opening["elo_at_budget"]) == (200, 150), "at equal CPU the cheaper one wins"
    assert (opening["low_at_budget"], opening["high_at_budget"], opening["vs_current"]) == (100, 200, -50)
    assert opening["clamped"] == 0
    (late,) = summarise(rows, ["open-8"], 3.0)
    assert late["elo_at_budget"] == 250 and late["vs_current"] == ""
    assert "elo_at_ksims" not in current, "rows without self-play simulations compare at equal CPU only"


def test_recipes_also_compare_at_equal_self_play_simulations() -> None:
    def row(recipe: str, generation: int, cpu: float, ksims: float, elo: int) -> dict[str, object]:
        return {"recipe": recipe, "seed": 0, "generation": generation, "cpu_minutes": cpu, "ksims": ksims,
                "elo": elo, "low": elo - 50, "high": elo + 50, "policy_vs_random": 0.5}  # fmt: skip

    # convert-4x5 ran on a slower hour (more CPU) but searched fewer simulations (shorter games)
    rows = [row("current", 6, 1.0, 100.0, 100), row("current", 12, 2.0, 200.0, 200),
            row("convert-4x5", 6, 1.5, 80.0, 120), row("convert-4x5", 12, 3.0, 160.0, 220)]  # fmt: skip
    current, convert = summarise(rows, ["current", "convert-4x5"], None)
    assert current["budget_ksims"] == 160.0, "the least simulations a replicate ran"
    assert (current["elo_at_ksims"], convert["elo_at_ksims"]) == (160, 220)
    assert (convert["vs_current_at_ksims"], convert["clamped_at_ksims"]) == (60, 0)
    assert convert["vs_current"] == 153 - 200, "while at equal CPU the slow hour counts against it"
    (fixed,) = summarise(rows, ["current"], None, 150.0)
    assert fixed["elo_at_ksims"] == 150 and fixed["ksims"] == 200.0


def test_self_play_simulations_a_move_follow_the_playout_cap() -> None:
    assert mean_simulations(SearchConfig(simulations=48)) == 48
    capped = SearchConfig(simulations=96, fast_simulations=16, full_search_fraction=0.25)
    assert mean_simulations(capped) == 0.25 * 96 + 0.75 * 16


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
        assert 0 <= int(row["policy_stalemates"]) <= 4, "of its --policy-games against random"
        assert 0 <= float(row["policy_mates_in_one"]) <= 1, "the suite's gardner mates in one"
    assert float(curves[1]["cpu_minutes"]) > float(curves[0]["cpu_minutes"]), "CPU time adds up"
    anchors = {r["anchor"]: int(r["elo"]) for r in csv.DictReader((tmp_path / "anchors.csv").open())}
    assert anchors["greedy"] == 0 and "random" in anchors, "the anchors' ratings, greedy at 0"
    summary = {r["recipe"]: r for r in csv.DictReader((tmp_path / "summary.csv").open())}
    assert set(summary) == {"previous", "current"}
    assert all(0 <= float(r["policy_vs_random"]) <= 1 for r in summary.values())
    assert all(0 <= float(r["policy_mates_in_one"]) <= 1 for r in summary.values())
    assert all(
        float(r["budget_cpu_minutes"]) == min(float(c["cpu_minutes"]) for c in curves[1::2]) for r in summary.values()
    )
    assert "| recipe | seeds | CPU-min (mean) | final Elo (mean) | Elo at budget [95 %] |" in done.stdout
    assert "| recipe | thousand simulations (mean) | Elo at equal simulations [95 %] |" in done.stdout
    assert float(curves[1]["ksims"]) > float(curves[0]["ksims"]) > 0, "self-play's simulations add up"
    assert all(float(r["budget_ksims"]) == min(float(c["ksims"]) for c in curves[1::2]) for r in summary.values())
