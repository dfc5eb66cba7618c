"""Evaluation cells and the Elo ladder: what the study's evaluate@T stage runs, on tiny budgets."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from mmc.core.configs import ConfigError
from mmc.core.fanout import Job, serial
from mmc.core.seeding import derive, root
from mmc.evaluation.evaluate import (
    Cell,
    EvaluateConfig,
    RateConfig,
    cell_names,
    evaluate,
    evaluate_and_rate,
    ladder,
    match_name,
    rate,
    settled,
)
from mmc.evaluation.rating import pairing
from mmc.meta import adapt
from mmc.nn import NetworkConfig, build_network
from mmc.play import MatchResult
from mmc.play.fairy import DEFAULT_BINARY
from mmc.search import SearchConfig
from mmc.train import TrainConfig

TINY = EvaluateConfig(games=2, search=SearchConfig(simulations=2, temperature_plies=0), opening_plies=2, max_plies=30)


def test_the_ladder_pairs_each_anchor_with_the_next_two() -> None:
    assert ladder(["a", "b", "c", "d"]) == [("a", "b"), ("a", "c"), ("b", "c"), ("b", "d"), ("c", "d")]
    with pytest.raises(ConfigError) as caught:
        RateConfig(anchors=("random", "mcts:4"), anchor="greedy")
    assert caught.value.field == "anchor"


def test_cells_against_one_opponent_share_their_openings() -> None:
    nets = [build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=s) for s in (0, 1)]
    cells = [Cell("a", nets[0], "random"), Cell("b", nets[1], "random"), Cell("greedy", None, "random")]
    results = evaluate(cells, "gardner", TINY, root(0))
    openings = [[r.start_fen + " ".join(r.moves[:2]) for r in result.records] for result in results]
    assert openings[0] == openings[1] == openings[2]
    assert all(result.games == 2 for result in results)
    assert match_name("gardner", "fairy:nodes=1", "greedy") == "match-gardner-fairy_nodes_1-vs-greedy"


def test_a_cell_settled_by_its_first_round_stops_there_and_the_others_play_on() -> None:
    config = replace(TINY, games=12, settle_games=4, settle_score=0.75, max_plies=60)
    cells = [Cell("greedy", None, "random"), Cell("random", None, "greedy"), Cell("random", None, "random")]
    for cell, result in zip(cells, evaluate(cells, "gardner", config, root(3)), strict=True):
        first_round = result.records[:4]
        wins = sum(r.result == ("1-0" if i % 2 == 0 else "0-1") for i, r in enumerate(first_round))
        draws = sum(r.result == "1/2-1/2" for r in first_round)
        early = MatchResult(wins, draws, 4 - wins - draws, first_round)
        assert result.games == (4 if settled(early, 0.75) else 12), cell
    # one cell each way at least: greedy crushes random in gardner, random against itself rarely settles
    assert [r.games for r in evaluate(cells[:2], "gardner", config, root(3))] == [4, 4]
    assert not settled(MatchResult(2, 1, 1, []), 0.75) and settled(MatchResult(0, 1, 3, []), 0.75)


def test_rate_places_models_and_anchors_on_one_scale_with_greedy_at_zero() -> None:
    models = {
        name: build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=s)
        for s, name in enumerate(("x", "y"))
    }
    names: list[str] = []

    def recording(jobs: Sequence[Job[Any]]) -> list[Any]:
        names.extend(job.name for job in jobs)
        return serial(jobs)

    cells = [Cell(name, net, "greedy") for name, net in models.items()]
    results = evaluate(cells, "gardner", TINY, root(1))
    played = [pairing(c.player, c.opponent, r) for c, r in zip(cells, results, strict=True)]
    config = RateConfig(anchors=("random", "mcts:4", "greedy"), ladder_games=4, games=2, neighbours=1, bootstrap=200)
    rated = rate(models, played, config.anchors, "gardner", TINY, config, root(2), run=recording)
    ratings = rated.ratings
    assert set(ratings.players) == {"x", "y", "random", "mcts:4", "greedy"}
    assert ratings.elo["greedy"] == ratings.low["greedy"] == ratings.high["greedy"] == 0
    assert all(ratings.low[p] <= ratings.elo[p] <= ratings.high[p] for p in ratings.players)
    assert len(names) == len(set(names))  # a job store keeps every job under its own name
    ladder_jobs = {"match-gardner-random-vs-mcts_4+greedy", "match-gardner-mcts_4-vs-greedy"}  # a player's cells
    assert set(names[:2]) == ladder_jobs
    # each model then met its nearest anchor not yet met (random or mcts:4) and the other model
    met = {frozenset((p.a, p.b)) for p in rated.pairings}
    assert frozenset(("x", "y")) in met
    assert all(any(frozenset((m, a)) in met for a in ("random", "mcts:4")) for m in models)
    assert sum(p.games for p in rated.pairings) == 2 * 2 + 3 * 4 + 2 * 2 + 2


def test_evaluate_and_rate_plays_the_ladder_in_the_cells_batch_and_rates_as_the_two_steps() -> None:
    models = {
        name: build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=s)
        for s, name in enumerate(("x", "y"))
    }
    cells = [Cell("x", models["x"], "greedy"), Cell("y", models["y"], "random")]
    config = RateConfig(anchors=("random", "mcts:4", "greedy"), ladder_games=4, games=2, neighbours=1, bootstrap=10)
    batches: list[list[str]] = []

    def recording(jobs: Sequence[Job[Any]]) -> list[Any]:
        batches.append([job.name for job in jobs])
        return serial(jobs)

    results, rated = evaluate_and_rate(cells, models, config.anchors, "gardner", TINY, config, root(1), run=recording)
    ladder_jobs = {"match-gardner-random-vs-mcts_4+greedy", "match-gardner-mcts_4-vs-greedy"}
    assert batches[0][:2] == ["match-gardner-x-vs-greedy", "match-gardner-y-vs-random"]
    assert set(batches[0][2:]) == ladder_jobs and len(batches) == 2  # then the neighbours
    apart = evaluate(cells, "gardner", TINY, root(1))
    assert [r.records for r in results] == [r.records for r in apart]
    played = [pairing(c.player, c.opponent, r) for c, r in zip(cells, apart, strict=True)]
    two_steps = rate(models, played, config.anchors, "gardner", TINY, config, derive(root(1), "rate"))
    assert rated.pairings == two_steps.pairings and rated.ratings.elo == two_steps.ratings.elo


@pytest.mark.skipif(shutil.which(DEFAULT_BINARY) is None, reason="Fairy-Stockfish is not installed")
def test_a_chess_target_adapts_on_8x8_and_is_rated_on_a_ladder_with_fairy_stockfish() -> None:
    """The larger profile's chess target, on a tiny budget: a network of the 5x5 studies adapts by self-play on 8x8
    (default training, where the mirror is off for chess), then is rated with Fairy-Stockfish at ``go nodes 1`` on
    the chess ladder."""
    start = build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0)
    adapted = adapt(start, "chess", 2, SearchConfig(simulations=2), TrainConfig(epochs=1), root(3), concurrent=2,
                    max_plies=12)  # fmt: skip
    assert adapted.self_play is not None and len(adapted.self_play.examples[0]) == 24
    assert adapted.self_play.examples[0].board_shape == (8, 8)
    models = {"start": start, "adapted": adapted.net}
    cells = [Cell(name, net, "fairy:nodes=1") for name, net in models.items()]
    config = EvaluateConfig(games=2, search=SearchConfig(simulations=2, temperature_plies=0), opening_plies=2,
                            max_plies=12)  # fmt: skip
    results = evaluate(cells, "chess", config, root(4))
    assert all(result.games == 2 and result.records[0].variant == "chess" for result in results)
    played = [pairing(c.player, c.opponent, r) for c, r in zip(cells, results, strict=True)]
    rating = RateConfig(anchors=("random", "greedy", "fairy:nodes=1"), ladder_games=2, games=2, neighbours=1,
                        bootstrap=10)  # fmt: skip
    ratings = rate(models, played, rating.anchors, "chess", config, rating, root(5)).ratings
    assert set(ratings.players) == {"start", "adapted", "random", "greedy", "fairy:nodes=1"}
    assert ratings.elo["greedy"] == 0


def test_a_models_cells_are_one_job_and_each_plays_its_own_openings() -> None:
    """A player's cells are one job (a model's network searches every cell's positions in one batch). Each cell
    plays the openings it plays alone, between the same players."""
    nets = [build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=s) for s in (0, 1)]
    config = replace(TINY, games=6, settle_games=2, settle_score=0.75)
    cells = [Cell("x", nets[0], "random"), Cell("greedy", None, "random"), Cell("x", nets[0], "greedy"),
             Cell("x", nets[0], "unadapted", nets[1], "y"), Cell("y", nets[1], "random")]  # fmt: skip
    names: list[str] = []

    def recording(jobs: Sequence[Job[Any]]) -> list[Any]:
        names.extend(job.name for job in jobs)
        return serial(jobs)

    together = evaluate(cells, "gardner", config, root(4), run=recording)
    assert names == ["match-gardner-x-vs-random+greedy+unadapted", "match-gardner-greedy-vs-random",
                     "match-gardner-y-vs-random"]  # fmt: skip
    assert cell_names(names[0]) == [match_name("gardner", "x", o) for o in ("random", "greedy", "unadapted")]
    for cell, result in zip(cells, together, strict=True):
        (alone,) = evaluate([cell], "gardner", config, root(4))
        games = min(result.games, alone.games)  # a first round may settle a cell alone and not together, or the
        assert (
            {result.games, alone.games} <= {2, 6}
            and [  # other way: the model's search draws its ties
                (r.seed, r.moves[:2], r.first, r.second) for r in result.records[:games]
            ]
            == [(r.seed, r.moves[:2], r.first, r.second) for r in alone.records[:games]]
        ), cell
    assert {r.second for r in together[3].records} == {"x", "y"}  # the unadapted opponent plays under its name
