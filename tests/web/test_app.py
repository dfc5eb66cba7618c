"""The web app's routes through Starlette's TestClient: play, inspect, watch, and bad or hostile input."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient

from mmc.play.players import PLAYER_KINDS, PlayerKind
from mmc.web.app import create_app


@pytest.fixture
def client(project: Path) -> TestClient:
    return TestClient(create_app(project, simulations=8))


def new_game(client: TestClient, **body: object) -> dict:
    response = client.post("/api/games", json={"variant": "gardner", "opponent": "random", **body})
    assert response.status_code == 200, response.text
    return response.json()


def test_page_and_options(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "meta-minichess" in page.text
    assert client.get("/static/app.js").status_code == 200
    options = client.get("/api/options").json()
    names = [v["name"] for v in options["variants"]]
    assert "gardner" in names and "los_alamos" in names and "monochromatic" not in names  # no move at the start
    assert options["families"][0] == {"name": "chess", "description": options["families"][0]["description"],
                                      "players": ["white", "black"], "generated": ""}  # fmt: skip
    assert "mnk_WxH_kK" in options["families"][1]["generated"]
    chess = [v for v in options["variants"] if v["family"] == "chess"]
    assert chess and all(v["players"] == ["white", "black"] for v in chess)
    assert [f["name"] for f in options["families"]][:3] == ["chess", "gomoku", "jump"]
    assert options["models"] == ["starts/r0/joat.pt"]
    assert not any(k.startswith(("python", "human")) for k in options["kinds"])
    assert options["links"]["mlflow"].startswith("http://127.0.0.1:5000")
    shown = " ".join([f["description"] for f in options["families"]] + [v["description"] for v in options["variants"]])
    assert "issue" not in shown.lower()  # what a person reads names no issue of the project's tracker


def test_the_shipped_baselines_are_offered_played_and_inspected(client: TestClient) -> None:
    options = client.get("/api/options").json()
    offered = {b["name"]: (b["variant"], b["family"]) for b in options["baselines"]}
    assert offered["gardner-v1"] == ("gardner", "chess") and offered["connect4-v1"] == ("connect4", "gomoku")
    assert "baseline[:NAME][:sims=N]" in options["kinds"]
    game = new_game(client, variant="connect4", opponent="baseline", color="white")  # black moves first
    assert game["opponent"] == "baseline" and len(game["moves"]) == 1  # the baseline moved first
    response = client.post(f"/api/games/{game['id']}/inspect", json={"simulations": 8})
    assert response.status_code == 200, response.text
    assert response.json()["model"] == "baseline:connect4-v1" and set(response.json()["priors"]) == set(game["legal"])
    response = client.post("/api/games", json={"variant": "gardner", "opponent": "baseline:nope"})
    assert response.status_code == 400 and "unknown baseline 'nope'" in response.json()["error"]


def test_mlflow_link_opens_the_runs_of_the_experiment(tmp_path: Path) -> None:
    import sqlite3

    with sqlite3.connect(tmp_path / "mlflow.db") as db:
        db.execute("CREATE TABLE experiments (experiment_id INTEGER, name TEXT)")
        db.execute("INSERT INTO experiments VALUES (7, 'meta-minichess')")
    links = TestClient(create_app(tmp_path)).get("/api/options").json()["links"]
    assert links["mlflow"] == "http://127.0.0.1:5000/#/experiments/7/runs"


@pytest.mark.parametrize("variant", ["gardner", "los_alamos"])
def test_a_whole_game_against_random(client: TestClient, variant: str) -> None:
    game = new_game(client, variant=variant, color="black", seed=3)
    assert game["human"] == "black" and len(game["moves"]) == 1  # random opened
    assert game["players"] == ["white", "black"] and game["position"]["turn"] == "black"
    assert 'data-flipped="1"' in game["position"]["svg"]
    rng = np.random.default_rng(0)
    while not game["position"]["over"]:
        move = game["legal"][int(rng.integers(len(game["legal"])))]
        assert list(game["paths"]) == game["legal"] and game["paths"][move] == [move[:2], move[2:4]]
        assert game["last_cells"] == [game["last"][:2], game["last"][2:4]]
        response = client.post(f"/api/games/{game['id']}/move", json={"move": move})
        assert response.status_code == 200, response.text
        game = response.json()
    assert game["position"]["result"] in ("1-0", "0-1", "1/2-1/2") and game["position"]["termination"]
    assert game["legal"] == []
    again = client.post(f"/api/games/{game['id']}/move", json={"move": "a2a3"})
    assert again.status_code == 400 and "over" in again.json()["error"]


@pytest.mark.parametrize(
    "body",
    [
        {"move": "zz"},
        {"move": "a2a5"},
        {"move": ""},
        {"move": 5},
        {},
    ],
)
def test_bad_moves_are_a_400_message(client: TestClient, body: dict) -> None:
    game = new_game(client)
    response = client.post(f"/api/games/{game['id']}/move", json=body)
    assert response.status_code == 400
    assert response.json()["error"]


def test_bad_requests_are_4xx_messages(client: TestClient) -> None:
    bad = [
        {"variant": "gardner", "opponent": "random", "fen": "not a fen"},
        {"variant": "nonsense", "opponent": "random"},
        {"variant": "gardner", "opponent": "wizard"},
        {"variant": "gardner", "opponent": "mcts:-1"},
        {"variant": "gardner", "opponent": "random", "color": "green"},
        {"variant": "gardner", "opponent": "random", "seed": "x"},
    ]
    for body in bad:
        response = client.post("/api/games", json=body)
        assert response.status_code == 400, (body, response.text)
        assert response.json()["error"]
    assert client.post("/api/games", content=b"{not json").status_code == 400
    assert client.post("/api/games", json=[1, 2]).status_code == 400
    assert client.get("/api/games/nope").status_code == 404
    assert client.post("/api/games/nope/move", json={"move": "a2a3"}).status_code == 404


def test_a_generated_variant_is_looked_up_and_played_to_the_end(client: TestClient) -> None:
    """A generated id (not in the list) is looked up as the list shows variants, and played like any other; a
    malformed or out-of-range one is refused in one line naming the valid forms."""
    found = client.get("/api/variants/grav_5x4_k3")
    assert found.status_code == 200, found.text
    assert found.json() == {"name": "grav_5x4_k3", "family": "gomoku", "size": "5x4",
                            "description": "3 in a row on 5x4, with gravity (generated)",
                            "players": ["black", "white"]}  # fmt: skip
    assert client.get("/api/variants/gardner").json()["family"] == "chess"
    refused = [
        ("mnk_2x9_k3", "out of range"),
        ("mnk_8x8_k9", "k=9"),
        ("grav_7x6_k04", "malformed"),
        ("mnk_16x16_k5", "out of range"),
        ("monochromatic", "cannot be played"),
        ("nope", "unknown"),
    ]
    for bad, why in refused:
        response = client.get(f"/api/variants/{bad}")
        assert response.status_code == 400 and why in response.json()["error"], (bad, response.text)
        assert "\n" not in response.json()["error"]
    game = new_game(client, variant="grav_5x4_k3", opponent="greedy", seed=1)
    assert game["variant"] == "grav_5x4_k3" and game["position"]["fen"] == "5/5/5/5 x"
    while not game["position"]["over"]:
        response = client.post(f"/api/games/{game['id']}/move", json={"move": game["legal"][0]})
        assert response.status_code == 200, response.text
        game = response.json()
    assert game["position"]["termination"] in ("line", "full-board")


def test_a_fen_start(client: TestClient) -> None:
    game = new_game(client, fen="4k/5/5/5/K2Q1 w - - 0 1")
    assert game["position"]["fen"].startswith("4k/5/5/5/K2Q1")


def test_only_models_under_models_can_be_loaded(client: TestClient, project: Path) -> None:
    hostile = [
        "net:../secret.pt",
        f"net:{project / 'secret.pt'}",
        "policy:/etc/passwd",
        "net:starts/r0/../../../secret.pt",
        "net:nothere.pt",
        "python:os:system",
        "human",
    ]
    for spec in hostile:
        response = client.post("/api/games", json={"variant": "gardner", "opponent": spec})
        assert response.status_code == 400, (spec, response.text)
        assert str(project) not in response.json()["error"].replace(str(project / "secret.pt"), "")
    for model in ("../secret.pt", "/etc/passwd", "starts/r0/joat.json"):
        game = new_game(client)
        response = client.post(f"/api/games/{game['id']}/inspect", json={"model": model})
        assert response.status_code == 400, model


def test_a_study_model_by_list_and_by_registry_name(client: TestClient) -> None:
    for spec in ("net:starts/r0/joat.pt:sims=4", "net:joat@r0:sims=4", "policy:joat@r0"):
        game = new_game(client, color="black", opponent=spec)
        assert len(game["moves"]) == 1 and game["opponent"] == spec


def test_inspect_a_network(client: TestClient) -> None:
    game = new_game(client, opponent="net:joat@r0:sims=4")
    response = client.post(f"/api/games/{game['id']}/inspect", json={"simulations": 16})
    assert response.status_code == 200, response.text
    result = response.json()
    assert -1 <= result["value"] <= 1 and result["turn"] == "white"
    assert abs(sum(result["priors"].values()) - 1) < 1e-4
    assert set(result["priors"]) == set(result["cells"]) == set(game["legal"])
    assert all(result["cells"][m] == game["paths"][m][-1] for m in game["legal"])  # a move's destination
    assert all(m["cell"] == result["cells"][m["move"]] for m in result["moves"])
    assert sum(m["visits"] for m in result["moves"]) <= 16 and result["moves"][0]["visits"] > 0
    assert set(result["visits"]) == set(result["q"]) == set(game["legal"]) and sum(result["visits"].values()) <= 16
    assert all(result["visits"][m["move"]] == m["visits"] and result["q"][m["move"]] == m["q"] for m in result["moves"])
    # Analysis of the person's own side with a model picked from the list, against a non-network opponent.
    game = new_game(client)
    assert client.post(f"/api/games/{game['id']}/inspect", json={}).status_code == 400
    response = client.post(f"/api/games/{game['id']}/inspect", json={"model": "starts/r0/joat.pt", "simulations": 0})
    assert response.status_code == 200 and "visits" not in response.json()["moves"][0]
    assert "visits" not in response.json() and "q" not in response.json()


def test_dark_chess_shows_only_the_players_view(client: TestClient) -> None:
    game = new_game(client, variant="dark", color="white")
    position = game["position"]
    assert position["fen"] is None and " fog" in position["svg"]
    # Black's pieces at the start are beyond what White's pieces reach: none is drawn
    assert position["svg"].count('class="piece black"') == 0


def test_watch_lists_filters_and_replays(client: TestClient) -> None:
    listed = client.get("/api/records").json()["records"]
    assert len(listed) == 3
    assert len(client.get("/api/records", params={"variant": "los_alamos"}).json()["records"]) == 1
    assert len(client.get("/api/records", params={"player": "greedy", "opponent": "random"}).json()["records"]) == 3
    assert client.get("/api/records", params={"player": "joat"}).json()["records"] == []
    first = listed[0]
    game = client.get("/api/records/game", params={"file": first["file"], "index": first["index"]}).json()
    assert len(game["positions"]) == len(game["moves"]) + 1 == first["plies"] + 1
    assert (game["first"], game["second"], game["players"]) == ("random", "greedy", ["white", "black"])
    assert (first["first"], first["second"]) == ("random", "greedy")
    assert game["cells"] == [[m[:2], m[2:4]] for m in game["moves"]]
    assert game["termination"] == first["termination"]
    for name in ("../../models/starts/r0/joat.json", "/etc/passwd", "nothere.pgn"):
        assert client.get("/api/records/game", params={"file": name}).status_code == 404
    assert client.get("/api/records/game", params={"file": first["file"], "index": 99}).status_code == 404
    assert client.get("/api/records/game", params={"file": first["file"], "index": "x"}).status_code == 400


class _SlowPlayer:
    name = "slow"

    def __init__(self, started: threading.Event) -> None:
        self.started = started

    def play(self, states, rng):  # type: ignore[no-untyped-def]
        from mmc.games.chess import legal_moves

        self.started.set()
        time.sleep(1.5)
        return [legal_moves(s)[0] for s in states]


@pytest.mark.slow  # 1.5 s
def test_a_slow_engine_does_not_block_other_requests(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    started = threading.Event()
    monkeypatch.setitem(PLAYER_KINDS, "slow", PlayerKind("slow", lambda fields, variant: _SlowPlayer(started)))
    game = new_game(client, opponent="slow")
    answers: list[int] = []
    mover = threading.Thread(
        target=lambda: answers.append(client.post(f"/api/games/{game['id']}/move", json={"move": "a2a3"}).status_code)
    )
    mover.start()
    assert started.wait(5)
    begin = time.monotonic()
    assert client.get("/api/options").status_code == 200
    assert time.monotonic() - begin < 1.0
    mover.join()
    assert answers == [200]


@pytest.mark.parametrize("size", [(5, 5), (6, 6), (5, 4), (8, 8), (10, 12), (15, 15)])
def test_board_svg_every_size_and_flipped(size: tuple[int, int]) -> None:
    from mmc.games import BoardView
    from mmc.web.board import SQUARE, board_svg

    height, width = size
    files = tuple("abcdefghijklmno"[:width])
    ranks = tuple(str(r + 1) for r in range(height))
    cells = [(0, "")] * (height * width)
    cells[0], cells[-1] = (1, "♚"), (-1, "♚")  # the first player's king a1, the second's in the far corner
    view = BoardView(files, ranks, tuple(cells))
    corner = files[-1] + ranks[-1]
    for flipped in (False, True):
        svg = board_svg(view, ("white", "black"), flipped=flipped)
        assert svg.count('class="square ') == height * width
        assert f'viewBox="0 0 {width * SQUARE} {height * SQUARE}"' in svg
        a1 = svg.split('data-square="a1" transform="translate(')[1].split(")")[0]
        expected = f"{(width - 1) * SQUARE},0" if flipped else f"0,{(height - 1) * SQUARE}"
        assert a1 == expected
        assert f'data-square="{corner}"' in svg
        assert svg.count('class="piece white"') == svg.count('class="piece black"') == 1
    hidden = board_svg(view._replace(hidden=frozenset({height * width - 1})), ("white", "black"))
    assert hidden.count('class="piece black"') == 0 and " fog" in hidden
    # Another game's player names, and a view's named marks as classes.
    marked = board_svg(view._replace(marks=(("line", (0, 1)),)), ("Red", "Blue"))
    assert 'class="piece red" data-owner="1"' in marked and 'class="piece blue" data-owner="-1"' in marked
    assert marked.count("mark-line") == 2
    with pytest.raises(ValueError, match="15x15"):
        board_svg(BoardView(tuple("abcdefghijklmnop"), ("1",), ((0, ""),) * 16), ("white", "black"))


def test_the_board_is_the_games_board_view(client: TestClient) -> None:
    from mmc.games import get_game, initial_state

    game = new_game(client, variant="los_alamos", seed=2)
    svg = game["position"]["svg"]
    view = get_game("los_alamos").board_view(initial_state("los_alamos"))
    for index, (owner, glyph) in enumerate(view.cells):
        name = view.files[index % 6] + view.ranks[index // 6]
        cell = svg.split(f'data-square="{name}"')[1].split("</g>")[0]
        colour = {1: "white", -1: "black"}.get(owner)
        assert (f'class="piece {colour}"' in cell and glyph in cell) if owner else "piece" not in cell


def test_the_opponents_search_is_kept_with_its_move(client: TestClient) -> None:
    game = new_game(client, color="black", opponent="net:joat@r0:sims=6", seed=1)
    assert game["thought_plies"] == [1]
    back = client.get(f"/api/games/{game['id']}/plies/1").json()
    thought = back["thought"]
    assert back["move"] == game["moves"][0] == thought["move"] and thought["turn"] == "white"
    assert back["position"]["fen"].split()[1] == "w"  # the position it moved from
    assert sum(m["visits"] for m in thought["moves"]) <= thought["simulations"] == 6
    assert -1 <= thought["value"] <= 1 and -1 <= thought["search_value"] <= 1
    assert abs(sum(thought["priors"].values()) - 1) < 1e-4
    visits = {m["move"]: m["visits"] for m in thought["moves"]}
    assert visits[thought["move"]] == max(visits.values())  # it played the most visited
    game = client.post(f"/api/games/{game['id']}/move", json={"move": game["legal"][0]}).json()
    assert game["thought_plies"] == [1, 3]
    assert client.get(f"/api/games/{game['id']}/plies/2").json()["thought"] is None  # the person's move
    for bad in ("0", "4", "x"):
        assert client.get(f"/api/games/{game['id']}/plies/{bad}").status_code == 400, bad


def test_random_keeps_no_search(client: TestClient) -> None:
    game = new_game(client, color="black", opponent="random")
    assert game["thought_plies"] == []
    assert client.get(f"/api/games/{game['id']}/plies/1").json()["thought"] is None


def test_dark_chess_hides_the_opponents_search_until_the_end(client: TestClient) -> None:
    game = new_game(client, variant="dark", color="black", opponent="net:joat@r0:sims=4")
    assert game["thought_plies"] == []
    assert client.get(f"/api/games/{game['id']}/plies/1").status_code == 400


def test_a_whole_bonus_game_where_a_player_moves_twice(client: TestClient, bonus_game: object) -> None:
    """Another game family through the same endpoints: its variants listed, its players' names, one-cell click
    paths, and a player that moves again after a stone next to its own (the turn read from every position)."""
    options = client.get("/api/options").json()
    family = next(f for f in options["families"] if f["name"] == "bonus")
    assert family == {
        "name": "bonus",
        "description": family["description"],
        "players": ["black", "white"],
        "generated": "",
    }
    assert [v["name"] for v in options["variants"] if v["family"] == "bonus"] == ["bonus_2x3", "bonus_3x3"]
    assert (
        client.post("/api/games", json={"variant": "bonus_2x3", "opponent": "random", "color": "red"}).status_code
        == 400
    )

    game = new_game(client, variant="bonus_2x3", seed=4)
    assert game["human"] == "black" and game["players"] == ["black", "white"] and game["moves"] == []
    assert game["position"]["fen"] == ".../... x" and game["position"]["turn"] == "black"
    assert sorted(game["paths"].items()) == [(c, [c]) for c in ("a1", "a2", "b1", "b2", "c1", "c2")]
    assert 'data-square="c2"' in game["position"]["svg"] and "piece" not in game["position"]["svg"]
    doubles = 0
    while not game["position"]["over"]:
        mine = {m for i, m in enumerate(game["moves"]) if _mover(game, i) == "black"}
        bonus = [m for m in game["legal"] if any(_adjacent(m, own) for own in mine)]
        move = (bonus or game["legal"])[0]
        before = len(game["moves"])
        game = client.post(f"/api/games/{game['id']}/move", json={"move": move}).json()
        assert game["moves"][before] == move and game["last_cells"] == [game["moves"][-1]]
        if bonus and not game["position"]["over"]:  # the stone touched its own: black moves again at once
            assert len(game["moves"]) == before + 1 and game["position"]["turn"] == "black"
            doubles += 1
    assert doubles >= 1
    position = game["position"]
    assert position["termination"] == "full-board" and position["result"] in ("1-0", "0-1", "1/2-1/2")
    assert (
        position["svg"].count('class="piece black" data-owner="1"')
        + position["svg"].count('class="piece white" data-owner="-1"')
        == 6
    )
    back = client.get(f"/api/games/{game['id']}/plies/1").json()
    assert back["move"] == game["moves"][0] and back["cells"] == [back["move"]]
    assert back["position"]["fen"] == ".../... x"


def test_a_bonus_game_as_the_second_player(client: TestClient, bonus_game: object) -> None:
    game = new_game(client, variant="bonus_3x3", color="white", opponent="mcts:16", seed=5)
    assert game["human"] == "white" and game["position"]["turn"] == "white"
    assert 'data-flipped="1"' in game["position"]["svg"] and len(game["moves"]) >= 1
    assert game["thought_plies"] == list(range(1, len(game["moves"]) + 1))  # the search of each of its moves
    thought = client.get(f"/api/games/{game['id']}/plies/1").json()["thought"]
    assert thought["move"] == game["moves"][0] and thought["turn"] == "black"
    assert thought["cells"] == {m: m for m in thought["priors"]} and len(thought["priors"]) == 9
    fen = client.post("/api/games", json={"variant": "bonus_3x3", "opponent": "random", "fen": "x.o/.../... o"})
    assert fen.status_code == 200 and fen.json()["human"] == "black"
    assert fen.json()["moves"] and fen.json()["position"]["turn"] == "black"  # white was to move: it moved first
    bad = client.post("/api/games", json={"variant": "bonus_3x3", "opponent": "random", "fen": "xx/... o"})
    assert bad.status_code == 400 and "bonus position" in bad.json()["error"]


def test_watch_a_bonus_record(tmp_path: Path, bonus_game: object) -> None:
    from mmc.games import apply_move, initial_state, legal_moves, outcome
    from mmc.play.records import GameRecord, write_records

    state, moves = initial_state("bonus_2x3"), []
    while outcome(state) is None:
        move = legal_moves(state)[0]
        moves.append(bonus_game.move_text(move))  # type: ignore[attr-defined]
        state = apply_move(state, move)
    final = outcome(state)
    assert final is not None
    record = GameRecord("bonus_2x3", "me", "you", 0, initial_state("bonus_2x3").fen(), tuple(moves),
                        final.result(), final.termination.value)  # fmt: skip
    write_records([record], tmp_path / "data" / "jobs" / "bonus" / "b.pgn")
    client = TestClient(create_app(tmp_path))
    listed = client.get("/api/records", params={"variant": "bonus_2x3"}).json()["records"]
    assert [(r["first"], r["second"], r["plies"]) for r in listed] == [("me", "you", len(moves))]
    shown = client.get("/api/records/game", params={"file": "bonus/b.pgn", "index": 0}).json()
    assert shown["players"] == ["black", "white"] and (shown["first"], shown["second"]) == ("me", "you")
    assert shown["cells"] == [[m] for m in moves] and len(shown["positions"]) == len(moves) + 1
    assert shown["result"] == final.result() and shown["termination"] == "full-board"


def _mover(game: dict, index: int) -> str:
    """Who played move ``index`` of a bonus game: replayed from the start, reading the turn after every move."""
    from mmc.games import apply_move, get_game, initial_state

    bonus = get_game(game["variant"])
    state = initial_state(game["variant"])
    for text in game["moves"][:index]:
        state = apply_move(state, bonus.parse_move(text))
    return bonus.players[0] if int(state.turn) == 1 else bonus.players[1]


def _adjacent(a: str, b: str) -> bool:
    """Whether two cells (``b1``) share a side."""
    return abs(ord(a[0]) - ord(b[0])) + abs(int(a[1:]) - int(b[1:])) == 1


def test_a_connect_four_game_takes_a_click_anywhere_in_a_column(client: TestClient) -> None:
    """A gravity move's click path is one step of alternatives (its own cell first, then the rest of its column);
    the move is drawn on its own cell; the stones, the last stone and the winning line are marked on the board."""
    game = new_game(client, variant="connect4", opponent="greedy", seed=1)
    assert game["players"] == ["black", "white"] and game["position"]["fen"] == "7/7/7/7/7/7 x"
    assert game["paths"]["d1"] == [["d1", "d2", "d3", "d4", "d5", "d6"]]
    game = client.post(f"/api/games/{game['id']}/move", json={"move": "d1"}).json()
    assert len(game["moves"]) == 2 and game["last_cells"] == [game["moves"][-1]]
    assert "mark-last" in game["position"]["svg"] and game["position"]["svg"].count("●") == 2
    top = next(move for move in game["legal"] if move[0] == "d")  # d2, or d3 if white answered on d2
    column = game["paths"][top][0]
    assert column[0] == top and sorted(column) == [f"d{r}" for r in range(1, 7)]
    while not game["position"]["over"]:
        game = client.post(f"/api/games/{game['id']}/move", json={"move": game["legal"][0]}).json()
    assert game["position"]["termination"] in ("line", "full-board")
    if game["position"]["termination"] == "line":
        assert game["position"]["svg"].count("mark-line") >= 4
    look = client.get(f"/api/games/{game['id']}/plies/1").json()
    assert look["move"] == "d1" and look["cells"] == ["d1"]


def test_a_gravity_move_is_shaded_on_its_own_cell() -> None:
    from mmc.games import get_game
    from mmc.web.games import analysis_json

    state = get_game("connect4").initial_state("connect4")
    moves = get_game("connect4").legal_moves(state)
    answer = analysis_json(state, moves, np.full(len(moves), 1 / len(moves)), 0.0, None, 0)
    assert answer["cells"] == {f"{f}1": f"{f}1" for f in "abcdefg"}


def test_every_family_is_prepared_as_the_server_starts(project: Path) -> None:
    """The app prepares each family's rules and search on a thread as it starts (mmc.play.warm.prepare_family), and says
    which are still pending, so that the page can tell a person why a first move waits."""
    from mmc.games import games

    with TestClient(create_app(project, simulations=8)) as client:  # the context runs the app's startup
        status = client.get("/api/options").json()["preparing"]
        assert set(status["pending"]) | set(status["done"]) == {game.name for game in games()}
        deadline = time.monotonic() + 600
        while status["pending"] and time.monotonic() < deadline:
            time.sleep(0.5)
            status = client.get("/api/preparing").json()
        assert status["pending"] == [] and status["current"] is None and status["failed"] == {}
        assert set(status["done"]) == {game.name for game in games()} and all(s >= 0 for s in status["done"].values())
        game = new_game(client, variant="jump_6x6", opponent="greedy", color="white")
        assert game["family"] == "jump" and len(game["moves"]) == 1
    idle = TestClient(create_app(project, simulations=8, prepare=False)).get("/api/preparing").json()
    assert idle["pending"] == [] and idle["done"] == {}  # nothing under way: nothing to wait for


def test_a_family_that_cannot_be_prepared_is_named_and_the_others_go_on() -> None:
    from mmc.web.prepare import Preparation

    def prepare(name: str) -> float:
        if name == "broken":
            raise RuntimeError("no compiler")
        return 0.5

    preparation = Preparation(["broken", "fine"], prepare)
    assert preparation.pending() == []  # not started
    preparation.start()
    assert preparation.wait(30)
    status = preparation.status()
    assert status["done"] == {"fine": 0.5} and status["failed"] == {"broken": "RuntimeError: no compiler"}
