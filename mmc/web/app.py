"""``mmc serve``: a local web app to play a player, inspect a network and watch the study's games (Starlette).

Routes (JSON unless said)::

    GET  /                          the page (static/index.html; everything it loads is served from static/)
    GET  /api/options               every registered game family (with how it forms generated ids, if it does) and
                                    its playable named variants, models under models/ and registered ones
                                    (``joat@r0``), player kinds, links to MLflow and Prefect: each model's run and
                                    games, each stage's run and Prefect flow run
    GET  /api/variants/{id}         one variant, named or generated (``mnk_7x5_k4``): as /api/options lists them
    GET  /api/preparing             the families still being prepared as the server starts (their rules and search
                                    compiled or loaded: ``mmc.web.prepare``), the one under way, the seconds so far
    POST /api/games                 {variant, opponent, color?, fen?, seed?} -> a new game (``color``: one of the
                                    family's players, the first if absent; ``fen``: a position text)
    GET  /api/games/{id}            the game
    GET  /api/games/{id}/plies/{n}  the position before move n and, for the opponent's move, its search then
    POST /api/games/{id}/move       {move: "b2b3"} (the move's text) -> the game after the move and the opponent's
                                    replies
    POST /api/games/{id}/inspect    {model?, simulations?} -> a network's value, prior and search of the position
    GET  /api/records?variant=&player=&opponent=&stage=   the study's game records
    GET  /api/records/game?file=&index=                   one record, every position of it

The app reaches a game only through its family's :class:`mmc.games.Game`: the board is its ``board_view``, a
move is its text and the cells a person clicks to make it (``move_cells``), side names are ``Game.players``.
Bad input gets status 400 (404 for an unknown game or file) and ``{"error": message}``. Moves and searches run
in the thread pool, so a slow engine does not hold up other requests.

Each route is a function of this module, named in :func:`create_app`'s table, grouped by concern: the page and what
it offers, the games in progress, the study's records. What they share is the app's state (``request.app.state``,
set by :func:`create_app`): ``study`` (:class:`~mmc.web.study.Study`), ``games`` (:class:`~mmc.web.games.Games`),
``preparation`` (:class:`~mmc.web.prepare.Preparation`), ``links`` (:class:`Links`) and ``simulations`` (Inspect's
default search).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from mmc.games import Game, game_of
from mmc.games import games as all_games
from mmc.play.baselines import list_baselines
from mmc.play.players import MAX_SIMULATIONS, player_kinds
from mmc.play.records import GameRecord, RecordError, read_records, replay
from mmc.web.games import (
    MODEL_KINDS,
    REFUSED_KINDS,
    GameError,
    Games,
    drawn_cells,
    playable_variants,
    position_json,
    side_name,
    start_state,
)
from mmc.web.prepare import Preparation
from mmc.web.study import Run, Study, player_name, self_play_prefix

__all__ = ["Links", "create_app"]

STATIC = Path(__file__).parent / "static"
MAX_LISTED = 500
"""The most game records one listing returns."""

Handler = Callable[[Request], Awaitable[Response]]


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _guarded(handler: Handler) -> Handler:
    """Bad input as a 4xx JSON message, never a server error."""

    @functools.wraps(handler)
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except GameError as error:
            return _error(str(error))
        except KeyError as error:
            return _error(f"not found: {error.args[0]}", 404)

    return wrapped


def variant_json(game: Game, name: str) -> dict[str, Any]:
    """A variant as the page lists it: its id, family, board size, description and the family's players."""
    v = game.variants[name]
    return {"name": name, "family": game.name, "size": f"{v.width}x{v.height}", "description": v.description,
            "players": list(game.players)}  # fmt: skip


async def _body(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise GameError("the request body must be JSON") from None
    if not isinstance(body, dict):
        raise GameError("the request body must be a JSON object")
    return body


def _text(body: dict[str, Any], key: str, default: str | None = None) -> str:
    value = body.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise GameError(f"{key} must be a non-empty string")
    return value


def _int(value: Any, key: str, low: int, high: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = low - 1
    if not low <= number <= high:
        raise GameError(f"{key} must be an integer in [{low}, {high}], got {value!r}")
    return number


@dataclass(frozen=True)
class Links:
    """Where the page sends a person to see a run: the MLflow UI's and the Prefect UI's addresses."""

    mlflow: str
    """The MLflow UI (``mmc serve --mlflow-url``)."""
    prefect: str
    """The Prefect UI (``mmc serve --prefect-url``)."""

    def run(self, run: Run) -> dict[str, str | None]:
        """A run's name, its page in MLflow and its Prefect flow run's page (None without one)."""
        return {
            "run": run.name,
            "mlflow": f"{self.mlflow}/#/experiments/{run.experiment_id}/runs/{run.run_id}",
            "prefect": f"{self.prefect}/runs/flow-run/{run.flow_run_id}" if run.flow_run_id else None,
        }


def create_app(project: str | Path = ".", *, mlflow_url: str = "http://127.0.0.1:5000",
               prefect_url: str = "http://127.0.0.1:4200", simulations: int = 32,
               device: str = "cpu", prepare: bool = True) -> Starlette:  # fmt: skip
    """The app over the study in ``project``; ``simulations``: the Inspect search's default. With ``prepare``, every
    family is made ready to play as the app starts (:class:`~mmc.web.prepare.Preparation`, on a thread)."""
    routes: list[BaseRoute] = [
        Route("/", index),
        Route("/api/options", options),
        Route("/api/variants/{variant_id}", variant),
        Route("/api/preparing", preparing),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{game_id}", show_game),
        Route("/api/games/{game_id}/move", move, methods=["POST"]),
        Route("/api/games/{game_id}/plies/{ply}", look_back),
        Route("/api/games/{game_id}/inspect", inspect, methods=["POST"]),
        Route("/api/records", records),
        Route("/api/records/game", record_game),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=_lifespan)
    study = Study(Path(project))
    app.state.study = study
    app.state.games = Games(study, device)
    app.state.preparation = Preparation([game.name for game in all_games()])
    app.state.links = Links(mlflow_url, prefect_url)
    app.state.simulations = simulations
    app.state.prepare = prepare
    return app


@contextlib.asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    """The app's start (every family prepared, unless ``create_app(prepare=False)``) and end (the engine processes of
    the games still open closed)."""
    if app.state.prepare:
        app.state.preparation.start()
    yield
    app.state.games.close()


# -- the page and what it offers -----------------------------------------------------------------------------------


async def index(request: Request) -> Response:
    """The page itself (``static/index.html``): the Play tab (with its Inspect panel) and the Watch tab, driven
    by the routes below."""
    return FileResponse(STATIC / "index.html")


async def options(request: Request) -> Response:
    """What the page offers: ``families`` (name, description, players, generated-id rule), ``variants`` (every
    playable variant: name, family, size, description, players), ``models`` (the study's checkpoints),
    ``registered`` (MLflow registered models), ``model_links`` and ``stages`` (each run's MLflow and Prefect
    links), ``kinds`` (the opponent spec forms), ``baselines`` (the shipped trained opponents: name, variant,
    family), ``simulations`` (Inspect's default) and ``preparing``."""
    state = request.app.state
    study: Study = state.study
    links: Links = state.links
    experiment = study.experiment_id()
    mlflow = f"{links.mlflow}/#/experiments/{experiment}/runs" if experiment else links.mlflow
    models = await run_in_threadpool(study.models)
    registered = await run_in_threadpool(study.registered)
    stage_runs = await run_in_threadpool(study.runs)
    kinds = [k.usage for name, k in player_kinds().items() if name not in REFUSED_KINDS]
    variants, families = [], {}
    for game, name in await run_in_threadpool(playable_variants):
        families[game.name] = {"name": game.name, "description": game.description, "players": list(game.players),
                               "generated": game.generated_variants}  # fmt: skip
        variants.append(variant_json(game, name))
    return JSONResponse({
        "preparing": state.preparation.status(),
        "families": list(families.values()),
        "variants": variants,
        "models": models,
        "registered": {name: run.checkpoint() for name, run in registered.items()},
        "model_links": await run_in_threadpool(model_links, study, links, models),
        "stages": [links.run(run) for run in stage_runs.values()],
        "kinds": kinds,
        "baselines": [{"name": b.name, "variant": b.variant, "family": b.family} for b in list_baselines().values()],
        "simulations": state.simulations,
        "links": {"mlflow": mlflow, "prefect": f"{links.prefect}/runs"},
    })  # fmt: skip


def model_links(study: Study, links: Links, models: list[str]) -> dict[str, dict[str, Any]]:
    """Each model's run (MLflow, and the Prefect flow run of its stage) and its games on the Watch tab."""
    runs = study.model_runs(models)
    by_path = {run.checkpoint(): name for name, run in study.registered().items()}
    record_names = list(study.record_files())
    found: dict[str, dict[str, Any]] = {}
    for model in models:
        entry: dict[str, Any] = {"registered": by_path.get(model)}
        if model in runs:
            entry.update(links.run(runs[model]))
        player = player_name(model)
        entry["games"] = f"/?{urlencode({'tab': 'watch', 'player': player})}" if player else None
        prefix = self_play_prefix(model)
        played = prefix is not None and any(name.startswith(prefix) for name in record_names)
        entry["self_play"] = f"/?{urlencode({'tab': 'watch', 'stage': prefix})}" if played else None
        found[model] = entry
    return found


async def preparing(request: Request) -> Response:
    """How far the app is with making every family ready to play (compiling its kernels), per family."""
    return JSONResponse(request.app.state.preparation.status())


@_guarded
async def variant(request: Request) -> Response:
    """One variant by id, generated ids included: name, family, size, description, players; 400 if unknown."""
    name = request.path_params["variant_id"]
    state = await run_in_threadpool(start_state, name, None)  # GameError: unknown, malformed or unplayable
    return JSONResponse(variant_json(game_of(state), name))


# -- the games in progress -----------------------------------------------------------------------------------------


@_guarded
async def new_game(request: Request) -> Response:
    """Start a game. Body: ``variant``, ``opponent`` (a player spec, ``mmc.play.parse_player``), optional
    ``color`` (the person's side), ``fen`` (a start position in the family's text) and ``seed``. Answers the game
    (as ``GET /api/games/{game_id}``), the opponent's first move made if it moves first."""
    games: Games = request.app.state.games
    body = await _body(request)
    fen = body.get("fen") or None
    if fen is not None and not isinstance(fen, str):
        raise GameError("fen must be a string")
    side = body.get("color") or None
    if side is not None and not isinstance(side, str):
        raise GameError("color must be a string")
    args = (_text(body, "variant"), _text(body, "opponent"), side, fen)
    seed = _int(body.get("seed", 0), "seed", 0, 2**32 - 1)
    game = await run_in_threadpool(games.start, *args, seed)
    return JSONResponse(game.json())


@_guarded
async def show_game(request: Request) -> Response:
    """A game: ``id``, ``variant``, ``family``, ``players``, ``human``, ``opponent``, ``position`` (an SVG board
    and its text), ``legal`` (the person's legal moves' texts) and ``paths`` (each one's click path), ``moves``,
    ``last``, ``last_cells``, ``thought_plies`` and ``movers``."""
    games: Games = request.app.state.games
    return JSONResponse(games.get(request.path_params["game_id"]).json())


@_guarded
async def move(request: Request) -> Response:
    """Play the person's move (body: ``{"move": TEXT}``, the family's move text), then the opponent's reply;
    answers the game. 400 if the move is malformed, illegal or not the person's turn."""
    games: Games = request.app.state.games
    game = games.get(request.path_params["game_id"])
    text = _text(await _body(request), "move")

    def play() -> dict[str, Any]:
        with game.lock:
            game.move(text)
            return game.json()

    return JSONResponse(await run_in_threadpool(play))


@_guarded
async def look_back(request: Request) -> Response:
    """Move ``ply`` (1-based) of a game: the position before it, the move, its cells and the opponent's search
    when it played it (``thought``); with hidden information only once the game is over."""
    games: Games = request.app.state.games
    game = games.get(request.path_params["game_id"])
    ply = _int(request.path_params["ply"], "ply", 1, 10**6)

    def look() -> dict[str, Any]:
        with game.lock:  # not while its opponent is moving
            return game.look_back(ply)

    return JSONResponse(await run_in_threadpool(look))


@_guarded
async def inspect(request: Request) -> Response:
    """A network's view of the game's position. Body: ``model`` (default: the opponent's), ``simulations``
    (0: the raw network). Answers ``value``, ``moves`` (the best by visits then prior: ``move``, ``cell``,
    ``prior``, ``visits``, ``q``), every legal move's ``priors``, ``visits`` and ``q``, and ``search_value``."""
    games: Games = request.app.state.games
    game = games.get(request.path_params["game_id"])
    body = await _body(request)
    model = body.get("model") or _opponent_model(game.opponent_spec, game.opponent.name)
    if not isinstance(model, str) or not model:
        raise GameError("pick a model to inspect with (the opponent is not a network)")
    sims = _int(body.get("simulations", request.app.state.simulations), "simulations", 0, MAX_SIMULATIONS)
    state = game.state
    family = game_of(state)
    if family.outcome(state) is not None:
        raise GameError("the game is over")
    if family.variant(state.variant_name).hidden_information and int(state.turn) != game.human:
        raise GameError("with hidden information the position can be inspected only on your turn")
    analyst = await run_in_threadpool(games.analyst, model)
    seed = int(np.random.SeedSequence().generate_state(1)[0])
    result = await run_in_threadpool(analyst.analyse, state, sims, np.random.default_rng(seed))
    return JSONResponse({"model": model, "turn": side_name(family, state.turn), **result})


# -- the study's game records --------------------------------------------------------------------------------------


@_guarded
async def records(request: Request) -> Response:
    """The study's recorded games (self-play and evaluation), at most 500: each one's ``file``, ``index``,
    ``variant``, players, ``result``, ``termination`` and ``plies``. Query filters: ``variant``, ``player``,
    ``opponent``, ``stage`` (a record file's prefix); ``truncated`` says whether more matched."""
    study: Study = request.app.state.study
    query = request.query_params
    wanted = {key: query.get(key, "").strip().lower() for key in ("variant", "player", "opponent", "stage")}
    listed: list[dict[str, Any]] = []
    for name, path in (await run_in_threadpool(study.record_files)).items():
        if wanted["stage"] and not name.lower().startswith(wanted["stage"]):
            continue
        try:
            found = await run_in_threadpool(read_records, path)
        except (OSError, RecordError):
            continue
        for index, record in enumerate(found):
            if _matches(record.variant, record.first, record.second, wanted):
                listed.append({
                    "file": name, "index": index, "variant": record.variant, "first": record.first,
                    "second": record.second, "result": record.result, "termination": record.termination,
                    "plies": len(record.moves),
                })  # fmt: skip
            if len(listed) >= MAX_LISTED:
                return JSONResponse({"records": listed, "truncated": True})
    return JSONResponse({"records": listed, "truncated": False})


@_guarded
async def record_game(request: Request) -> Response:
    """One recorded game, to replay (query: ``file``, ``index``): its tags, players, moves, each move's cells,
    every position as SVG and its caption."""
    study: Study = request.app.state.study
    files = await run_in_threadpool(study.record_files)
    name = request.query_params.get("file", "")
    if name not in files:
        raise KeyError(name)
    index = _int(request.query_params.get("index", "0"), "index", 0, 10**6)
    try:
        found = await run_in_threadpool(read_records, files[name])
        record = found[index]
        answer = await run_in_threadpool(_record_json, record)
    except IndexError:
        raise KeyError(f"{name} game {index}") from None
    except RecordError as error:
        raise GameError(f"{name}: {error}") from None
    return JSONResponse({"file": name, "index": index, **answer})


def _opponent_model(spec: str, name: str) -> str | None:
    """The model an opponent spec plays with (``net:joat@r0:sims=8`` -> ``joat@r0``; a baseline, by the player's
    ``name``: ``baseline`` -> ``baseline:gardner-v1``), None if not a network."""
    kind, *fields = spec.split(":")
    if kind == "baseline":
        return ":".join(name.split(":")[:2])
    return fields[0] if kind in MODEL_KINDS and fields else None


def _record_json(record: GameRecord) -> dict[str, Any]:
    """A record as the Watch tab shows it: its tags, its players' names (``players``: the family's first and second),
    its moves' texts and cells (``cells``: the cells each move is drawn on, ``mmc.web.games.drawn_cells``), and every
    position as SVG (the start, then one per move) with its caption (``captions``: ``BoardView.caption``);
    :class:`RecordError` if its moves do not replay."""
    states = replay(record)
    game = game_of(states[0])
    cells = [drawn_cells(s, game.parse_move(text)) for s, text in zip(states, record.moves, strict=False)]
    return {
        "variant": record.variant, "first": record.first, "second": record.second, "players": list(game.players),
        "result": record.result, "termination": record.termination, "opening_plies": record.opening_plies,
        "moves": list(record.moves), "cells": cells, "positions": [position_json(s, None)["svg"] for s in states],
        "captions": [game.board_view(s).caption for s in states],
    }  # fmt: skip


def _matches(variant: str, first: str, second: str, wanted: dict[str, str]) -> bool:
    """Whether a record passes the filters: ``player`` on either side and ``opponent`` on the other."""
    if wanted["variant"] and wanted["variant"] != variant.lower():
        return False
    sides = [(first.lower(), second.lower()), (second.lower(), first.lower())]
    return any(wanted["player"] in me and wanted["opponent"] in other for me, other in sides)
