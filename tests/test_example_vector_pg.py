"""The example agent of ``examples/vector_pg.py`` learns through the vector environment: trained on a task
distribution of k in a row against the random player, it scores at least 0.8 against random in 100 games of a board
it never played (``mnk_5x4_k4``), where the same network untrained does not (0.68-0.72 with these seeds: a fixed
way of playing already beats random often on boards this size)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import torch

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "vector_pg.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("vector_pg", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["vector_pg"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("vector_pg", None)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_the_agent_beats_random_on_a_held_out_board(example, seed: int) -> None:
    torch.set_num_threads(1)
    assert example.HELD_OUT not in example.TRAIN
    torch.manual_seed(seed)
    untrained = example.Agent(planes=9)
    assert example.score_against_random(untrained, seed=seed) < 0.8
    agent = example.train(updates=120, seed=seed)
    assert example.score_against_random(agent, seed=seed) >= 0.8
