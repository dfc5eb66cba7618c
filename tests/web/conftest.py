"""A study folder in a temporary directory: a tiny network under models/ and game records under data/jobs/."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mmc.games.chess import apply_move, initial_state, legal_moves, outcome
from mmc.play.players import RandomPlayer
from mmc.play.records import GameRecord, write_records


def random_record(variant: str, seed: int) -> GameRecord:
    """One game of random against random, as the arena records it."""
    rng = np.random.default_rng(seed)
    state, moves, player = initial_state(variant), [], RandomPlayer()
    start = state.fen()
    while outcome(state) is None:
        move = player.play([state], rng)[0]
        assert move in legal_moves(state)
        state = apply_move(state, move)
        moves.append(move.uci())
    final = outcome(state)
    assert final is not None
    return GameRecord(variant, "random", "greedy", seed, start, tuple(moves), final.result(), final.termination.value)


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mmc.nn import NetworkConfig, build_network, save_checkpoint

    root = tmp_path_factory.mktemp("study")
    config = NetworkConfig(game="chess", blocks=1, filters=8)
    save_checkpoint(build_network(config, seed=0), config, root / "models" / "starts" / "r0" / "joat.pt")
    jobs = root / "data" / "jobs" / "evaluate" / "gardner"
    write_records([random_record("gardner", 1), random_record("gardner", 2)], jobs / "match-joat-vs-greedy.pgn")
    write_records([random_record("los_alamos", 3)], root / "data" / "jobs" / "evaluate" / "los_alamos" / "m.pgn")
    (root / "secret.pt").write_bytes(b"not a model")
    return root
