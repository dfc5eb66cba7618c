"""benchmarks.diagnosis on real parts: termination counts, search targets on a mate in one, value calibration, solving,
a network's prior against its targets."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from benchmarks.diagnosis import (
    calibration,
    facing_bare_king,
    game_positions,
    prior_fit,
    solved,
    target_mass,
    termination_counts,
)
from mmc.games.chess import Color, from_fen, initial_state, legal_moves, outcome
from mmc.games.chess.puzzles import Puzzle
from mmc.nn import NetworkConfig, build_network, masked_log_softmax
from mmc.play import GameRecord, GreedyPlayer, RandomPlayer, play_match
from mmc.search import SearchConfig
from mmc.train import ExampleBuilder

TRAP = "k4/5/1K3/4Q/5 w - - 0 1"  # Qe5 mates; Qd3, Qc4 and Ka3 stalemate


def _record(white: str, result: str, termination: str) -> GameRecord:
    return GameRecord("gardner", white, "other" if white == "me" else "me", 0, "", (), result, termination)


def test_termination_counts_split_checkmates_by_the_players_view() -> None:
    records = [
        _record("me", "1-0", "checkmate"),
        _record("other", "1-0", "checkmate"),
        _record("other", "0-1", "checkmate"),
        _record("me", "1/2-1/2", "stalemate"),
    ]
    assert termination_counts(records) == {"checkmate": 3, "stalemate": 1}
    assert termination_counts(records, "me") == {"checkmate-won": 2, "checkmate-lost": 1, "stalemate": 1}


def test_the_search_target_finds_the_mate_and_greed_solves_it() -> None:
    puzzle = Puzzle.of(from_fen("gardner", TRAP), 1)
    assert puzzle is not None and puzzle.kind == "stalemate-trap"
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8, value_hidden=8), seed=0)
    config = SearchConfig(simulations=64)
    for noise in (False, True):
        (mass,) = target_mass([puzzle], net, config, np.random.default_rng(0), add_noise=noise)
        assert 0 <= mass.best + mass.stalemating <= 1 + 1e-6
        assert 0 < mass.prior_best < 1 and 0 < mass.prior_stalemating < 1
        assert mass.most_visited_best and mass.best > 0.5, "a mate's exact +1 draws the visits"
        assert mass.best_visited and -1 <= mass.q_other < 1 and -1 <= mass.root_value <= 1
    assert solved([puzzle], GreedyPlayer(), np.random.default_rng(0)) == [(True, False)]


def test_calibration_bins_every_position_once_against_its_result() -> None:
    records = play_match(GreedyPlayer(), RandomPlayer(), "gardner", 4, np.random.default_rng(1)).records
    states, results = game_positions(records)
    assert len(states) == sum(len(r.moves) for r in records) and set(results) <= {-1.0, 0.0, 1.0}
    assert all(outcome(s) is None for s in states)
    first = records[0]
    sign = {"1-0": 1.0, "0-1": -1.0, "1/2-1/2": 0.0}[first.result]
    assert results[0] == sign and results[1] == -sign, "the result from each side to move's view"
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8, value_hidden=8), seed=0)
    binned, groups = calibration(net, states, results, bins=4, batch=7)
    assert len(binned) == 4 and sum(c.positions for c in binned) == groups["all"].positions == len(states)
    assert all(c.low < c.high for c in binned)
    assert abs(groups["all"].mean_result - float(np.mean(results))) < 1e-9
    assert groups["queen-up"].positions + groups["queen-down"].positions <= len(states)


def test_prior_fit_reads_the_prior_on_the_targets_move_and_the_kl() -> None:
    trap = from_fen("gardner", TRAP)
    start = initial_state("gardner")
    net = build_network(NetworkConfig(game="chess", blocks=1, filters=8, value_hidden=8), seed=0)
    builder = ExampleBuilder()
    moves = [m.uci() for m in legal_moves(trap)]
    one_hot = np.zeros(len(moves))
    one_hot[moves.index("e2e5")] = 1.0  # Qe5 mates
    builder.add(trap, one_hot, game_id=0, search_value=1.0)
    builder.finish_game(0, Color.WHITE)
    spread = np.full(len(legal_moves(start)), 1 / len(legal_moves(start)))
    builder.add(start, spread, game_id=1, search_value=0.0)
    builder.finish_game(1, None)
    (examples,) = builder.build()

    fit = prior_fit(net, examples, batch=1)
    with torch.no_grad():
        logits, _ = net.eval()(torch.from_numpy(examples.planes))
    prior = masked_log_softmax(logits.flatten(1), torch.from_numpy(examples.legal).flatten(1)).exp().numpy()
    target = examples.policy.reshape(len(examples), -1)
    top = target.argmax(axis=1)
    assert np.allclose(fit.on_top, prior[np.arange(2), top], atol=1e-6)
    assert np.allclose(fit.top_share, [1.0, 1 / len(legal_moves(start))], atol=1e-6)
    assert np.allclose(fit.on_support, [prior[0, top[0]], 1.0], atol=1e-5)  # a uniform target covers every move
    assert fit.kl[0] == pytest.approx(-np.log(prior[0, top[0]]), rel=1e-5)  # a one-hot target: -log prior
    spread_rows = target[1] > 0
    kl = np.sum(target[1, spread_rows] * (np.log(target[1, spread_rows]) - np.log(prior[1, spread_rows])))
    assert fit.kl[1] == pytest.approx(kl, rel=1e-4)
    assert list(fit.agrees) == [prior[0].argmax() == top[0], True]  # under an even target every move is first
    assert list(facing_bare_king(examples.planes)) == [True, False]
