"""The jump game through the web app's routes: click paths for steps, hops and the end of a chain, the scores in
the caption, the target regions and the chain marked on the board, and a recorded game watched again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient

from mmc.games import apply_move, initial_state, legal_moves, outcome
from mmc.play.players import parse_player
from mmc.play.records import GameRecord, write_records
from mmc.web.app import create_app

pytestmark = pytest.mark.xdist_group("jump")


@pytest.fixture
def client(project: Path) -> TestClient:
    return TestClient(create_app(project, simulations=8))


def test_a_whole_jump_game_against_greedy(client: TestClient) -> None:
    """The person (Black) hops whenever it can and goes on with every chain: during a chain the moves are the
    chain's hops (the chain's cell, then a landing) and its end (the chain's cell alone); the caption keeps score."""
    response = client.post("/api/games", json={"variant": "jump_6x6", "opponent": "greedy", "seed": 1})
    game = response.json()
    assert game["players"] == ["black", "white"] and game["human"] == "black"
    assert game["position"]["caption"] == "score: black 0 of 6 home, white 0 of 6 home"
    assert "mark-target-first" in game["position"]["svg"] and "mark-target-second" in game["position"]["svg"]
    assert game["paths"]["c3-c4"] == ["c3", "c4"]
    chains = 0
    while not game["position"]["over"]:
        paths = game["paths"]
        hops = [m for m, p in paths.items() if len(p) == 2 and _hop(p)]
        ends = [m for m, p in paths.items() if m.startswith("end@")]
        if ends:
            chains += 1
            (end,) = ends
            assert paths[end] == [end[4:]] and all(paths[h][0] == end[4:] for h in hops)
            assert "mark-chain" in game["position"]["svg"] and "chain under way" in game["position"]["caption"]
        move = hops[0] if hops else max(paths, key=lambda m: (paths[m][-1][1:], m) if paths[m] else ("", m))
        game = client.post(f"/api/games/{game['id']}/move", json={"move": move}).json()
    assert game["position"]["termination"] in ("all-in-target", "move-cap")
    assert game["position"]["caption"].startswith("score: black ")


def _hop(path: list[str]) -> bool:
    return max(abs(ord(path[0][0]) - ord(path[1][0])), abs(int(path[0][1:]) - int(path[1][1:]))) == 2


def test_watch_a_jump_record(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    greedy = parse_player("greedy", variant="jump")
    state, moves = initial_state("jump"), []
    while outcome(state) is None:
        move = greedy.play([state], rng)[0]
        assert move in legal_moves(state)
        moves.append(move.text())
        state = apply_move(state, move)
    final = outcome(state)
    assert final is not None
    record = GameRecord("jump", "greedy", "greedy", 0, initial_state("jump").fen(), tuple(moves), final.result(),
                        final.termination.value)  # fmt: skip
    write_records([record], tmp_path / "data" / "jobs" / "jump" / "j.pgn")
    shown = TestClient(create_app(tmp_path)).get("/api/records/game", params={"file": "jump/j.pgn", "index": 0})
    body = shown.json()
    assert body["players"] == ["black", "white"] and len(body["positions"]) == len(moves) + 1
    assert len(body["captions"]) == len(moves) + 1 and body["captions"][0].startswith("score: black 0 of 9")
    assert all(cells == [m[4:]] for m, cells in zip(moves, body["cells"], strict=True) if m.startswith("end@"))
