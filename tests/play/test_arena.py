"""The arena: colours alternate, openings are paired, the tally adds up, seeds reproduce, gating."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from mmc.games import legal_moves
from mmc.games.chess import Move, State
from mmc.play import GreedyPlayer, MatchResult, Player, RandomPlayer, gate, play_match, play_matches, replay


class Counting:
    """A random player that remembers the size of every batch it was asked for."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.batches: list[int] = []
        self._random = RandomPlayer()

    def play(self, states: Sequence[State], rng: np.random.Generator) -> list[Move]:
        self.batches.append(len(states))
        return self._random.play(states, rng)


def test_a_plays_white_in_even_games_and_black_in_odd() -> None:
    result = play_match(GreedyPlayer(), RandomPlayer(), "gardner", 10, np.random.default_rng(0))
    assert [(r.first, r.second) for r in result.records] == [("greedy", "random"), ("random", "greedy")] * 5


def test_tally_adds_up_and_greedy_beats_random_in_gardner() -> None:
    result = play_match(GreedyPlayer(), RandomPlayer(), "gardner", 40, np.random.default_rng(1))
    assert result.wins + result.draws + result.losses == result.games == 40 == len(result.records)
    wins = sum(r.result == ("1-0" if i % 2 == 0 else "0-1") for i, r in enumerate(result.records))
    draws = sum(r.result == "1/2-1/2" for r in result.records)
    assert (result.wins, result.draws) == (wins, draws)
    assert result.score >= 0.9


def test_same_seed_same_records_other_seed_other_records() -> None:
    def match(seed: int) -> MatchResult:
        return play_match(GreedyPlayer(), RandomPlayer(), "atomic", 8, np.random.default_rng(seed))

    assert match(7).records == match(7).records
    assert match(7).records != match(8).records


def test_game_pairs_share_their_opening_and_pairs_differ() -> None:
    result = play_match(GreedyPlayer(), GreedyPlayer(), "gardner", 12, np.random.default_rng(3), opening_plies=4)
    records = result.records
    openings = [r.moves[:4] for r in records]
    for k in range(0, 12, 2):
        assert records[k].seed == records[k + 1].seed
        assert openings[k] == openings[k + 1]
        assert records[k].opening_plies == 4
    assert len(set(openings[::2])) == 6


def test_records_replay_to_their_results() -> None:
    result = play_match(RandomPlayer(), GreedyPlayer(), "extinction", 6, np.random.default_rng(4), max_plies=40)
    for record in result.records:
        states = replay(record)
        assert len(states) == len(record.moves) + 1 <= 41


def test_all_games_advance_together_in_batches() -> None:
    a, b = Counting("a"), Counting("b")
    result = play_match(a, b, "gardner", 10, np.random.default_rng(5), opening_plies=4)
    # After an even-length opening White is to move everywhere: a (White in the 5 even games) moves
    # first, then b moves in all 10 (as Black in the even games, as White in the odd ones).
    assert a.batches[0] == 5 and b.batches[0] == 10
    assert sum(a.batches) + sum(b.batches) == sum(len(r.moves) - 4 for r in result.records)
    assert len(a.batches) <= max(len(r.moves) for r in result.records)  # one call per step, not per game


def test_a_settled_first_round_ends_the_match_on_the_same_openings() -> None:
    def match(**rounds: object) -> MatchResult:
        return play_match(GreedyPlayer(), RandomPlayer(), "gardner", 12, np.random.default_rng(9), **rounds)  # type: ignore[arg-type]

    full = match()
    seen: list[MatchResult] = []

    def settled(so_far: MatchResult) -> bool:
        seen.append(so_far)
        return True

    stopped = match(first_round=4, settled=settled)
    # the first round's four games, from the full match's first two openings, and nothing after them
    assert [r.seed for r in stopped.records] == [r.seed for r in full.records[:4]]
    assert stopped.games == 4 == stopped.wins + stopped.draws + stopped.losses and len(seen) == 1
    assert seen[0].records == stopped.records
    # not settled: every game, the same openings as in one round
    both = match(first_round=4, settled=lambda so_far: False)
    assert both.games == 12 and [r.seed for r in both.records] == [r.seed for r in full.records]
    # a first round of all the games, or no rule, is one round: the match of no rounds, game for game
    assert match(first_round=12, settled=lambda so_far: True).records == full.records
    assert match(first_round=4).records == full.records


def test_ply_cap_and_a_start_that_is_already_over() -> None:
    capped = play_match(RandomPlayer(), RandomPlayer(), "gardner", 4, np.random.default_rng(6), max_plies=6)
    assert all(len(r.moves) <= 6 for r in capped.records)
    assert any(r.termination == "ply-cap" for r in capped.records)
    over = play_match(RandomPlayer(), RandomPlayer(), "monochromatic", 2, np.random.default_rng(0), opening_plies=0)
    assert (over.draws, [r.termination for r in over.records]) == (2, ["stalemate", "stalemate"])
    with pytest.raises(ValueError, match="already over"):
        play_match(RandomPlayer(), RandomPlayer(), "monochromatic", 2, np.random.default_rng(0), opening_plies=2)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"games": 0}, "games must be >= 1"),
        ({"opening_plies": -1}, "opening_plies must be >= 0"),
        ({"opening_plies": 10, "max_plies": 10}, "must be below max_plies"),
        ({"variant": "shogi"}, "unknown variant 'shogi'"),
        ({"first_round": -2}, "first_round must be >= 0"),
    ],
)
def test_bad_arguments_fail_before_any_game(kwargs: dict[str, object], needle: str) -> None:
    args: dict[str, object] = {"variant": "gardner", "games": 2} | kwargs
    with pytest.raises(ValueError, match=needle):
        play_match(RandomPlayer(), RandomPlayer(), rng=np.random.default_rng(0), **args)  # type: ignore[arg-type]


def test_score_wilson_interval_and_gate() -> None:
    result = MatchResult(wins=8, draws=0, losses=2, records=[])
    low, high = result.wilson_interval()
    assert result.score == 0.8
    assert (round(low, 3), round(high, 3)) == (0.49, 0.943)
    even = MatchResult(wins=0, draws=10, losses=0, records=[])
    low, high = even.wilson_interval()
    assert even.score == 0.5 and low == pytest.approx(1 - high)
    assert MatchResult(0, 0, 5, []).wilson_interval()[0] == 0.0
    assert gate(MatchResult(6, 0, 4, []), 0.6) and not gate(MatchResult(5, 1, 4, []), 0.6)
    assert gate(MatchResult(5, 1, 4, []), threshold=0.55) and gate(MatchResult(5, 2, 3, []), 0.6)


class FirstMove:
    """A player that draws nothing: the first legal move, and the size of every batch it was asked for."""

    name = "first"

    def __init__(self) -> None:
        self.batches: list[int] = []

    def play(self, states: Sequence[State], rng: np.random.Generator) -> list[Move]:
        self.batches.append(len(states))
        return [legal_moves(state)[0] for state in states]


def test_one_player_against_several_plays_each_match_as_alone_in_one_batch_per_step() -> None:
    def rounds(so_far: MatchResult) -> bool:
        return so_far.score >= 0.75 or so_far.score <= 0.25

    kwargs: dict[str, Any] = dict(first_round=4, settled=rounds, max_plies=60)
    alone = [
        play_match(FirstMove(), opponent, "gardner", 12, np.random.default_rng(seed), **kwargs)
        for opponent, seed in ((RandomPlayer(), 1), (GreedyPlayer(), 2))
    ]
    opponents: list[Player] = [RandomPlayer(), GreedyPlayer()]
    first = FirstMove()
    together = play_matches(
        first,
        [RandomPlayer(), GreedyPlayer()],
        "gardner",
        [12, 12],
        [np.random.default_rng(1), np.random.default_rng(2)],
        **kwargs,
    )
    assert [m.records for m in together] == [m.records for m in alone]
    assert [(m.wins, m.draws, m.losses) for m in together] == [(m.wins, m.draws, m.losses) for m in alone]
    assert [m.games for m in together] == [12, 4]  # the second match is settled by its first round, the first is not
    # each step searched both matches' positions in one call: fewer calls than the two matches alone took
    counted = [FirstMove(), FirstMove()]
    for player, opponent, seed in zip(counted, opponents, (1, 2), strict=True):
        play_match(player, opponent, "gardner", 12, np.random.default_rng(seed), **kwargs)
    calls_alone = [len(p.batches) for p in counted]
    assert len(first.batches) < sum(calls_alone) and first.batches[0] == sum(p.batches[0] for p in counted)
    assert all(m.seconds > 0 for m in together)
    with pytest.raises(ValueError, match="as many game counts and rngs as opponents"):
        play_matches(first, [RandomPlayer()], "gardner", [12, 12], [np.random.default_rng(1)])
