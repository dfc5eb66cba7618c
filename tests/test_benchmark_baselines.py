"""benchmarks/baselines.py, on a tiny recipe: a run stopped after a generation and started again continues where it
stopped, with the games an unbroken run plays; the shipped recipes parse; a pin names every file's hash. (The
shipped baselines are never trained here: tests/play/test_baselines.py loads them.)"""

from __future__ import annotations

import dataclasses
import json
import pickle
from pathlib import Path

import pytest
import torch

from benchmarks.baselines import RECIPES, TARGETS, Recipe, State, study_of, train
from mmc.games import get_game
from mmc.play.baselines import list_baselines

TINY = Recipe(
    "kinarow",
    "kinarow-v1",
    ("mnk_3x3_k3", "mnk_4x3_k3"),
    {"tiny-v1": "mnk_3x3_k3"},
    changes={
        "expert.generations": 2, "expert.games": 4, "expert.concurrent": 4, "expert.chunks": 1, "expert.window": 2,
        "search.simulations": 4, "train.epochs": 1,
    },
)  # fmt: skip


def _state(folder: Path) -> State:
    with (folder / "state.pt").open("rb") as file:
        state: State = pickle.load(file)
    return state


@pytest.mark.slow  # three short trainings
def test_a_stopped_run_continues_where_it_stopped(tmp_path: Path) -> None:
    whole = train(TINY, tmp_path / "whole", hours=1, workers=0, seed=3, every=1)
    assert (whole.generation, whole.games) == (2, 8)
    one = dataclasses.replace(TINY, changes={**TINY.changes, "expert.generations": 1})
    first = train(one, tmp_path / "split", hours=1, workers=0, seed=3, every=1)
    assert first.generation == 1 and not (tmp_path / "split" / "gen002.pt").exists()
    kept = (tmp_path / "split" / "gen001.pt").read_bytes()
    resumed = train(TINY, tmp_path / "split", hours=1, workers=0, seed=3, every=1)
    assert (resumed.generation, resumed.games) == (2, 8)
    assert (tmp_path / "split" / "gen001.pt").read_bytes() == kept  # the finished generation was not played again
    assert _state(tmp_path / "split").wall_seconds >= first.wall_seconds
    # generation 2 trained on the same window: the first generation's games came back from the state file
    split_history = _state(tmp_path / "split").history
    whole_history = _state(tmp_path / "whole").history
    assert len(split_history) == len(whole_history) == 2
    for mine, theirs in zip(split_history, whole_history, strict=True):
        for a, b in zip(mine, theirs, strict=True):
            assert torch.equal(torch.as_tensor(a.planes), torch.as_tensor(b.planes))


@pytest.mark.slow  # two short trainings
def test_a_spent_budget_trains_nothing_more(tmp_path: Path) -> None:
    first = train(TINY, tmp_path, hours=1e-9, workers=0, seed=0, every=1)
    assert first.generation == 1  # a run plays at least the generation it started before its budget ran out
    again = train(TINY, tmp_path, hours=1e-9, workers=0, seed=0, every=1)
    assert again.generation == 1 and (tmp_path / "champion.pt").exists()


def test_every_recipe_parses_and_names_its_variants_targets() -> None:
    for family, recipe in RECIPES.items():
        study = study_of(recipe)
        assert all(get_game(v).name == get_game(recipe.variants[0]).name for v in recipe.variants)
        assert set(recipe.names.values()) <= set(recipe.variants) <= set(study.experts)
        assert all(variant in TARGETS for variant in recipe.names.values()), family


def test_the_manifest_is_what_pin_writes() -> None:
    for name, baseline in list_baselines().items():
        recipe = RECIPES[baseline.info["family"]]
        assert recipe.names[name] == baseline.variant and baseline.file == recipe.file
        assert baseline.info["variants_trained"] == list(recipe.variants)
        assert json.loads(baseline.path.with_suffix(".json").read_text())["game"] == get_game(baseline.variant).name
