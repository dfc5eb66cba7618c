"""Fairy-Stockfish over UCI: legal moves in its four variants, strength against random, clear errors, clean exit."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from mmc.games.chess import initial_state, legal_moves
from mmc.play import FairyError, FairyPlayer, RandomPlayer, engine_variants, parse_player, play_match, replay
from mmc.play.fairy import DEFAULT_BINARY, SMALL_HASH_MB, SMALL_SEARCH

needs_engine = pytest.mark.skipif(
    shutil.which(DEFAULT_BINARY) is None,
    reason=f"Fairy-Stockfish is not installed at {DEFAULT_BINARY} (apt-get install fairy-stockfish)",
)


@needs_engine
@pytest.mark.parametrize("variant", sorted(engine_variants("gardner")))
def test_plays_legal_moves_to_the_end_of_games(variant: str) -> None:
    with FairyPlayer(variant, nodes=20) as engine:
        result = play_match(engine, RandomPlayer(), variant, 2, np.random.default_rng(0), max_plies=60)
    for record in result.records:
        replay(record)  # every move legal in our engine, and the recorded result is the real one
    assert result.records[0].first == "fairy:nodes=20"


@needs_engine
def test_beats_random_clearly_in_gardner() -> None:
    with FairyPlayer("gardner", nodes=100) as engine:
        result = play_match(engine, RandomPlayer(), "gardner", 10, np.random.default_rng(0))
    assert result.wins >= 9


@needs_engine
def test_moves_depend_only_on_the_position_and_depth_limits_work() -> None:
    start = initial_state("los_alamos")
    with FairyPlayer("los_alamos", nodes=200) as first, FairyPlayer("los_alamos", nodes=200) as second:
        first.best_move(initial_state("los_alamos"))  # a search before must not change the next answer
        assert first.best_move(start) == second.best_move(start)
    with FairyPlayer("mallet", depth=2) as engine:
        assert engine.name == "fairy:depth=2"
        assert engine.best_move(initial_state("mallet")) in legal_moves(initial_state("mallet"))
        with pytest.raises(ValueError, match="set up for mallet"):
            engine.best_move(start)


@needs_engine
@pytest.mark.parametrize("variant", ["gardner", "los_alamos"])
def test_a_small_search_plays_the_default_tables_moves_with_the_smallest_table(variant: str) -> None:
    with FairyPlayer(variant, nodes=100) as small, FairyPlayer(variant, nodes=100, hash_mb=16) as default:
        assert (small.hash_mb, default.hash_mb) == (SMALL_HASH_MB, 16)
        result = play_match(small, RandomPlayer(), variant, 4, np.random.default_rng(1), max_plies=80)
        for record in result.records:  # every position fairy moved from, and the positions random left it
            states = replay(record)[record.opening_plies : len(record.moves)]
            assert [small.best_move(s) for s in states] == [default.best_move(s) for s in states]
    with FairyPlayer("gardner", depth=2) as deep, FairyPlayer("gardner", nodes=SMALL_SEARCH + 1) as large:
        assert deep.hash_mb == large.hash_mb == 16  # no node limit, or a large one: the engine's default table


@needs_engine
def test_close_ends_the_process_and_is_idempotent() -> None:
    engine = FairyPlayer("baby", nodes=10)
    process = engine._process
    assert process is not None
    engine.close()
    engine.close()
    assert process.poll() is not None
    with pytest.raises(FairyError, match="closed"):
        engine.best_move(initial_state("baby"))


@needs_engine
def test_parse_player_builds_it() -> None:
    player = parse_player("fairy:nodes=10", variant="gardner")
    assert isinstance(player, FairyPlayer) and player.name == "fairy:nodes=10"
    player.close()


def test_missing_binary_says_how_to_install(tmp_path: Path) -> None:
    with pytest.raises(FairyError, match="apt-get install fairy-stockfish"):
        FairyPlayer("gardner", nodes=10, binary=str(tmp_path / "fairy-stockfish"))


@pytest.mark.parametrize("variant", ["atomic", "extinction", "dark", "rifle"])
def test_variants_it_cannot_play_fail_before_it_starts(variant: str) -> None:
    with pytest.raises(FairyError, match=f"does not play {variant}"):
        FairyPlayer(variant, nodes=10)


def test_a_search_limit_is_required() -> None:
    with pytest.raises(ValueError, match="needs nodes=N or depth=N"):
        FairyPlayer("gardner")
    with pytest.raises(ValueError, match="must be >= 1"):
        FairyPlayer("gardner", nodes=0)
