"""Self-play's curriculum: random openings and endgame starts, legal, seeded, self-play only, and off by default."""

from __future__ import annotations

import numpy as np
import pytest

from mmc.core.configs import ConfigError
from mmc.evaluation.evaluate import EvaluateConfig
from mmc.games.chess import from_fen, initial_state, outcome
from mmc.games.chess.endgame import KING, endgame
from mmc.nn import NetworkConfig, build_network
from mmc.play import replay
from mmc.play.curriculum import self_play_start
from mmc.play.selfplay import self_play
from mmc.search import NetworkLeafEvaluator, SearchConfig


@pytest.fixture(scope="module")
def evaluator() -> NetworkLeafEvaluator:
    return NetworkLeafEvaluator(build_network(NetworkConfig(game="chess", blocks=1, filters=8), seed=0))


@pytest.mark.parametrize("variant", ["gardner", "los_alamos", "atomic", "rifle", "dark"])
def test_endgames_are_legal_thinner_and_going(variant: str) -> None:
    rng = np.random.default_rng(0)
    start = initial_state(variant, max_plies=60)
    sides = set()
    for _ in range(40):
        state = endgame(start, rng)
        assert state is not start, "an endgame of the start position turns up within the tries"
        board, before = state.board_array(), start.board_array()
        assert np.count_nonzero(board) < np.count_nonzero(before)
        assert np.count_nonzero(board == KING) == 1 and np.count_nonzero(board == -KING) == 1, "both kings stay"
        assert np.all((board == before) | (board == 0)), "pieces are only taken off"
        assert outcome(state) is None and state.turn == start.turn and state.max_plies == 60
        # from_fen checks the kings and that the side not to move is not in check
        assert from_fen(variant, state.fen()).board == state.board
        lost = [np.count_nonzero((board != before) & (np.sign(before) == side)) > 0 for side in (1, -1)]
        sides.add(tuple(lost))
    assert sides == {(True, False), (False, True), (True, True)}, "material odds either way, and thinned boards"


def test_the_default_start_draws_nothing_and_openings_are_seeded() -> None:
    start = initial_state("gardner")
    rng = np.random.default_rng(5)
    state, moves = self_play_start(start, SearchConfig(), rng)
    assert state is start and moves == []
    assert rng.random() == np.random.default_rng(5).random(), "no draw from the game's generator when off"
    config = SearchConfig(random_opening_plies=6)
    a = self_play_start(start, config, np.random.default_rng(1))
    b = self_play_start(start, config, np.random.default_rng(1))
    assert a == b and len(a[1]) == 6 and a[0].ply == 6


def test_self_play_from_random_openings_records_them_but_learns_from_the_searched_plies(
    evaluator: NetworkLeafEvaluator,
) -> None:
    config = SearchConfig(simulations=4, random_opening_plies=4)
    result = self_play(evaluator, "gardner", 4, config, np.random.default_rng(0), concurrent=2, max_plies=30)
    (examples,) = result.examples
    start = initial_state("gardner").fen()
    assert len({r.moves[:4] for r in result.records}) > 1, "the games open differently"
    for record in result.records:
        assert record.opening_plies == 4 and record.start_fen == start
        replay(record)  # the opening and the searched moves replay from the start position
    assert len(examples) == result.plies == sum(len(r.moves) - 4 for r in result.records)
    assert examples.ply.min() == 4, "the random plies are no examples"


def test_self_play_from_endgames_starts_from_their_fen(evaluator: NetworkLeafEvaluator) -> None:
    config = SearchConfig(simulations=4, endgame_starts=1.0)
    result = self_play(evaluator, "gardner", 4, config, np.random.default_rng(0), concurrent=4, max_plies=30)
    start = initial_state("gardner")
    for record in result.records:
        first = from_fen("gardner", record.start_fen)
        assert np.count_nonzero(first.board_array()) < np.count_nonzero(start.board_array())
        assert record.opening_plies == 0
        replay(record)
    (examples,) = result.examples
    assert len(examples) == sum(len(r.moves) for r in result.records)


def test_the_curriculum_is_checked_and_kept_out_of_the_evaluation(evaluator: NetworkLeafEvaluator) -> None:
    with pytest.raises(ConfigError, match=r"SearchConfig\.random_opening_plies must be >= 0"):
        SearchConfig(random_opening_plies=-1)
    with pytest.raises(ConfigError, match=r"SearchConfig\.endgame_starts must be in \[0, 1\]"):
        SearchConfig(endgame_starts=1.5)
    with pytest.raises(ConfigError, match=r"SearchConfig\.gumbel_sampling must be a bool"):
        SearchConfig(gumbel_sampling=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"random_opening_plies must be < max_plies=10, got 10"):
        config = SearchConfig(random_opening_plies=10)
        self_play(evaluator, "gardner", 1, config, np.random.default_rng(0), max_plies=10)
    for field, value in (("random_opening_plies", 2), ("endgame_starts", 0.5)):
        with pytest.raises(ConfigError, match=rf"EvaluateConfig\.search\.{field} is self-play only"):
            EvaluateConfig(search=SearchConfig(**{field: value}))  # type: ignore[arg-type]
