"""benchmarks/verdicts.py: the coverage of the study's intervals and the flips between stopping points, computed on
a constructed pool whose truth is known (the benchmark itself measures; this checks what it counts)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))  # the script imports learning.py and meta.py from beside it

from verdicts import analyse, draws, label, numbers  # noqa: E402

from mmc.evaluation.rating import Pairing, fit_ratings  # noqa: E402


def test_numbers_and_draws() -> None:
    assert numbers("0-3,7", "--seeds") == [0, 1, 2, 3, 7] and numbers("-1,0,1", "--stops") == [-1, 0, 1]
    with pytest.raises(SystemExit, match="--seeds: comma-separated whole numbers or ranges A-B, got 'x'"):
        numbers("x", "--seeds")
    assert draws([0, 1, 2], 2, 10, np.random.default_rng(0)) == [(0, 1), (0, 2), (1, 2)]  # every pair, once
    drawn = draws(list(range(10)), 3, 20, np.random.default_rng(0))
    assert len(drawn) == len(set(drawn)) == 20 and all(len(set(d)) == 3 for d in drawn)


def _pool(true: dict[str, float], games: int, rng: np.random.Generator) -> list[Pairing]:
    """Every player against greedy and two anchors, ``games`` games each, drawn from the Elo model."""
    found = []
    for name, elo in true.items():
        for anchor, level in (("greedy", 0.0), ("low", -200.0), ("high", 200.0)):
            if name == anchor:
                continue
            score = 1 / (1 + 10 ** ((level - elo) / 400))
            wins = int(rng.binomial(games, score))
            found.append(Pairing(name, anchor, wins, 0, games - wins))
    return found


def test_a_steady_difference_is_covered_and_a_swinging_one_flips() -> None:
    """Six seeds, stops 2 and 3, one design. At budget 0 JOAT is 150 below multitask in every seed at both stops
    (the same models: no flip, intervals cover the mean); at budget 5 JOAT sits 150 below at stop 2 and level at
    stop 3, in every seed: a verdict of worse flips to no detectable difference in every draw."""
    true = {"low": -200.0, "high": 200.0}
    seeds = list(range(6))
    for s in seeds:
        for stop in (2, 3):
            true[f"{label('multitask', stop, 1)}-s{s}-b0"] = true[f"{label('multitask', stop, 1)}-s{s}-b5"] = 0.0
            true[f"{label('joat', stop, 1)}-s{s}-b0"] = -150.0
            true[f"{label('joat', stop, 1)}-s{s}-b5"] = -150.0 if stop == 2 else 0.0
    rng = np.random.default_rng(0)
    ratings = fit_ratings(_pool(true, 400, rng), "greedy", rng, samples=200)
    rows, summary = analyse({"t": ratings}, seeds, [2, 3], [1], [0, 5], [2], 10, np.random.SeedSequence(1))
    assert len(rows) == 2 * 2 * 2 * 10  # two intervals, two budgets, two stops, ten draws
    by = {(r["budget"], r["stop"]): r for r in summary if r["interval"] == "bootstrap"}
    assert {r["verdict"] for r in rows if r["budget"] == 0 and r["interval"] == "bootstrap"} == {"worse"}
    steady, swinging = by[(0, 2)], by[(5, 2)]
    assert steady["draws"] == 10 and steady["flips_to_next"] == 0 and steady["coverage"] >= 0.9
    assert -200 < steady["reference"] < -100 and steady["verdicts"] == 10
    assert swinging["flips_to_next"] == 10 and swinging["verdicts"] == 10
    assert by[(5, 3)]["flips_to_next"] == "" and abs(by[(5, 3)]["reference"]) < 50  # the last stop: nothing after
    # pooled over both budgets and stops' cells of a draw, the t interval is at least as wide as the bootstrap's
    wide = {(r["budget"], r["stop"]): r for r in summary if r["interval"] == "pooled"}
    assert all(wide[key]["half_width"] >= by[key]["half_width"] for key in by)
