"""Games in progress between a person (clicking on the page) and a player, and what a network thinks of a position.

Everything here is plain Python and ``mmc``: :mod:`mmc.web.app` serves it. A game's moves run in a worker thread
(the app's thread pool), so each game and each loaded network carry a lock.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mmc.games import FIRST, SECOND, Game, game_of, games, get_game
from mmc.play.baselines import baseline_path
from mmc.play.players import Player, close_player, parse_player
from mmc.web.board import board_svg
from mmc.web.study import Study

__all__ = [
    "MAX_GAMES",
    "Analyst",
    "GameError",
    "Games",
    "LiveGame",
    "analysis_json",
    "drawn_cells",
    "move_paths",
    "playable_variants",
    "position_json",
    "side_name",
    "start_state",
    "thought_json",
]

MAX_GAMES = 64
"""Games kept in memory; starting one more forgets the oldest."""
REFUSED_KINDS = {"human", "python"}
"""Player kinds the page does not offer: ``human`` waits on a terminal, ``python`` imports any module."""
MODEL_KINDS = {"net", "policy"}
"""Player kinds whose first field is a checkpoint path: it must name a model under the project's ``models/``."""


class GameError(ValueError):
    """A request the game cannot follow (a malformed or illegal move, a bad position text or player): a 4xx
    message."""


def side_name(game: Game, side: int) -> str:
    """The name of player ``side`` (+1 first, -1 second): ``game.players[0]`` or ``[1]``."""
    return game.players[0] if int(side) == FIRST else game.players[1]


def playable_variants() -> list[tuple[Game, str]]:
    """Every variant of every registered family whose start position has a legal move, family by family."""
    found = []
    for game in games():
        for name in game.variants:
            if game.legal_moves(game.initial_state(name, max_plies=game.default_max_plies)):
                found.append((game, name))
    return found


def position_json(state: Any, viewer: int | None, *, reveal: bool = False) -> dict[str, Any]:
    """What the page draws: the SVG board from ``viewer``'s side (hidden information: only what it sees, unless
    ``reveal``), its caption (``BoardView.caption``: the jump game's scores), the player to move, the position text
    (not when cells are hidden, where it would tell all) and the outcome (``result`` from the first player's view)."""
    game = game_of(state)
    view = game.board_view(state, None if reveal else viewer)
    result = game.outcome(state)
    flipped = viewer is not None and int(viewer) != FIRST
    return {
        "svg": board_svg(view, game.players, flipped=flipped),
        "caption": view.caption,
        "turn": side_name(game, state.turn),
        "fen": None if view.hidden else state.fen(),
        "ply": state.ply,
        "over": result is not None,
        "result": None if result is None else result.result(),
        "termination": None if result is None else result.termination.value,
    }


def move_paths(state: Any) -> dict[str, list[str | list[str]]]:
    """Every legal move of ``state`` as its text -> the clicks a person makes to make it (``Game.move_cells``): each
    step a cell name, or a list of alternative cell names any of which makes the step (a column under gravity)."""
    game = game_of(state)
    return {
        game.move_text(m): [step if isinstance(step, str) else list(step) for step in game.move_cells(state, m)]
        for m in game.legal_moves(state)
    }


def drawn_cells(state: Any, move: Any) -> list[str]:
    """The cells ``move`` is drawn on (highlighted as the last move, shaded by its prior): its click path with each
    step of alternatives reduced to its first cell, the move's own (``Game.move_cells``)."""
    return [step if isinstance(step, str) else step[0] for step in game_of(state).move_cells(state, move)]


def check_spec(spec: str, study: Study) -> str:
    """The player spec with a model path resolved inside the project's ``models/`` (``net:joat@r0:sims=32``,
    ``policy:champion/r0/gardner.pt``); :class:`GameError` for a kind the page refuses or a path outside."""
    kind, *fields = spec.strip().split(":")
    if kind in REFUSED_KINDS:
        raise GameError(f"player kind {kind!r} cannot be played from the page")
    if kind in MODEL_KINDS and fields:
        try:
            fields[0] = str(study.model_path(fields[0]))
        except ValueError as error:
            raise GameError(str(error)) from None
    return ":".join([kind, *fields])


def baseline_file(model: str) -> Path | None:
    """The network file of a ``baseline:NAME`` model (hash-checked: ``mmc.play.baselines``), None for another model."""
    kind, _, name = model.partition(":")
    if kind != "baseline":
        return None
    return baseline_path(name.partition(":")[0])


class Analyst:
    """One checkpoint's network: its value and prior for a position, and a search's visit counts and Q."""

    def __init__(self, path: Path, device: str = "cpu") -> None:
        from mmc.nn import NetworkEvaluator, load_checkpoint, resolve_device
        from mmc.search import NetworkLeafEvaluator

        net, _ = load_checkpoint(path, resolve_device(device))
        self.evaluator = NetworkEvaluator(net)
        self.leaf_evaluator = NetworkLeafEvaluator(net)
        self.lock = threading.Lock()

    def analyse(self, state: Any, simulations: int, rng: np.random.Generator, top: int = 8) -> dict[str, Any]:
        """:func:`analysis_json` of ``state``: the network's value and prior and, with ``simulations``, a search."""
        from mmc.search import SearchConfig, search

        with self.lock:
            priors, values = self.evaluator([state])
            result = None
            if simulations:
                config = SearchConfig(simulations=simulations, temperature_plies=0)
                result = search([state], self.leaf_evaluator, config, rng)[0]
        moves = game_of(state).legal_moves(state)
        return analysis_json(state, moves, priors[0], float(values[0]), result, simulations, top)


def analysis_json(
    state: Any, moves: Sequence[Any], priors: Any, value: float, result: Any, simulations: int, top: int = 8
) -> dict[str, Any]:
    """A network's view of ``state`` as the page shows it: ``{"value", "simulations", "moves": [{"move", "cell",
    "prior", "visits", "q"}...], "priors", "cells", "visits", "q", "search_value"}`` (``result``: a
    ``mmc.search.SearchResult`` or None, which leaves out the search's keys), every number from the side to move's
    view, value in [-1, 1], moves by visits then prior, at most ``top``. Moves are keyed by their text; ``cell``
    (and ``cells``, by move text) is a move's destination, the last cell it is drawn on (:func:`drawn_cells`; None
    for a pass), where the page's heat map shades the move's prior, visits or value (``priors``, ``visits``,
    ``q``: every legal move's, by move text)."""
    game = game_of(state)
    rows = []
    for i, move in enumerate(moves):
        path = drawn_cells(state, move)
        row: dict[str, Any] = {"move": game.move_text(move), "cell": path[-1] if path else None}
        row["prior"] = float(priors[i])
        if result is not None:
            row["visits"] = int(result.visit_counts[i])
            row["q"] = float(result.q_values[i])
        rows.append(row)
    rows.sort(key=lambda r: (r.get("visits", 0), r["prior"]), reverse=True)
    answer: dict[str, Any] = {"value": value, "simulations": simulations, "moves": rows[:top]}
    answer["priors"] = {r["move"]: r["prior"] for r in rows}
    answer["cells"] = {r["move"]: r["cell"] for r in rows}
    if result is not None:
        answer["search_value"] = float(result.value)
        answer["visits"] = {r["move"]: r["visits"] for r in rows}
        answer["q"] = {r["move"]: r["q"] for r in rows}
    return answer


def thought_json(player: Player, state: Any, move: Any) -> dict[str, Any] | None:
    """What a searching player (``net``, ``mcts``: ``last_results`` of ``mmc.play.search_players.MCTSPlayer``)
    saw in ``state`` when it played ``move``: its network's value and prior, and its search's visits, Q and
    value; None for a player that does not search."""
    results = getattr(player, "last_results", None)
    if not results:
        return None
    result = results[0]
    moves = list(result.moves)
    if move not in moves:
        return None
    game = game_of(state)
    sims = int(result.visit_counts.sum())
    answer = analysis_json(state, moves, result.prior, float(result.network_value), result, sims)
    return {"move": game.move_text(move), "turn": side_name(game, state.turn), **answer}


@dataclass
class LiveGame:
    """One game in progress: the person plays ``human`` (+1 first player, -1 second); ``opponent`` the other
    side. The player to move is read from the state after every move (a player may move several times in a
    row)."""

    id: str
    human: int
    opponent: Player
    opponent_spec: str
    states: list[Any]
    rng: np.random.Generator
    moves: list[str] = field(default_factory=list)
    """The moves' texts, in order."""
    paths: list[list[str]] = field(default_factory=list)
    """Per move: the cells it is drawn on (:func:`drawn_cells` in the position it was played in)."""
    thoughts: list[dict[str, Any] | None] = field(default_factory=list)
    """Per move: the opponent's search when it played it (:func:`thought_json`), None for the person's."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def state(self) -> Any:
        return self.states[-1]

    @property
    def game(self) -> Game:
        """The game family."""
        return game_of(self.state)

    def _over(self) -> bool:
        return self.game.outcome(self.state) is not None

    def _hidden(self) -> bool:
        """Whether the game hides part of the position and is not over (moves and searches then stay unseen)."""
        return self.game.variant(self.state.variant_name).hidden_information and not self._over()

    def json(self) -> dict[str, Any]:
        """The game as the page needs it: the players' names, the position from the person's side, their legal
        moves' texts (``legal``) with each one's click path (``paths``, :func:`move_paths`), the moves so far, who made
        each (``movers``: a player's moves in a row, a hop chain, are one turn of the list) and the last one's cells
        (:func:`drawn_cells`).
        """
        state, game = self.state, self.game
        mine = not self._over() and int(state.turn) == self.human
        hidden = self._hidden()
        paths = move_paths(state) if mine else {}
        return {
            "id": self.id,
            "variant": state.variant_name,
            "family": game.name,
            "players": list(game.players),
            "human": side_name(game, self.human),
            "opponent": self.opponent_spec,
            "position": position_json(state, self.human, reveal=self._over()),
            "legal": list(paths),
            "paths": paths,
            "moves": [] if hidden else self.moves,
            "last": None if hidden or not self.moves else self.moves[-1],
            "last_cells": [] if hidden or not self.moves else self.paths[-1],
            "thought_plies": [] if hidden else [i + 1 for i, t in enumerate(self.thoughts) if t],
            "movers": [] if hidden else [side_name(game, s.turn) for s in self.states[: len(self.moves)]],
        }

    def look_back(self, ply: int) -> dict[str, Any]:
        """Move ``ply`` (1-based) of the game: the position before it, the move and its cells, and the opponent's
        search when it played it (None for the person's moves); refused with hidden information until the game is
        over."""
        if self._hidden():
            raise GameError("with hidden information the moves can be looked back at only when the game is over")
        if not 1 <= ply <= len(self.moves):
            raise GameError(f"ply must be in [1, {len(self.moves)}], got {ply}")
        return {
            "ply": ply,
            "move": self.moves[ply - 1],
            "cells": self.paths[ply - 1],
            "position": position_json(self.states[ply - 1], self.human, reveal=self._over()),
            "thought": self.thoughts[ply - 1],
        }

    def reply(self) -> None:
        """The opponent plays while it is its turn and the game goes on."""
        while not self._over() and int(self.state.turn) != self.human:
            state = self.state
            move = self.opponent.play([state], self.rng)[0]
            self._push(move, thought_json(self.opponent, state, move))

    def move(self, text: str) -> None:
        """The person's move (its text, ``Game.move_text``), then the opponent's reply; :class:`GameError` if
        malformed, illegal or not the person's turn."""
        if self._over():
            raise GameError("the game is over")
        if int(self.state.turn) != self.human:
            raise GameError("it is not your turn")
        game = self.game
        try:
            move = game.parse_move(text)
        except ValueError as error:
            raise GameError(str(error)) from None
        if move not in game.legal_moves(self.state):
            raise GameError(f"{text} is not a legal move here")
        self._push(move, None)
        self.reply()

    def _push(self, move: Any, thought: dict[str, Any] | None) -> None:
        game, state = self.game, self.state
        self.paths.append(drawn_cells(state, move))
        self.states.append(game.apply_move(state, move))
        self.moves.append(game.move_text(move))
        self.thoughts.append(thought)


def start_state(variant: str, text: str | None) -> Any:
    """The start of a game of ``variant`` (from the position ``text`` if given); :class:`GameError` for an unknown
    variant, a bad position, or a variant whose start position has no legal move (chess's monochromatic)."""
    try:
        game = get_game(variant)
        start = game.initial_state(variant, max_plies=game.default_max_plies)
        state = game.from_text(variant, text, max_plies=game.default_max_plies) if text else start
    except ValueError as error:
        raise GameError(str(error)) from None
    if not game.legal_moves(start):
        raise GameError(f"variant {variant!r} cannot be played: {game.players[0]} has no legal move at the start")
    return state


class Games:
    """The games in progress (at most :data:`MAX_GAMES`, oldest forgotten first) and the loaded networks."""

    def __init__(self, study: Study, device: str = "cpu") -> None:
        self.study = study
        self.device = device
        self._games: OrderedDict[str, LiveGame] = OrderedDict()
        self._analysts: dict[Path, Analyst] = {}
        self._lock = threading.Lock()

    def start(self, variant: str, opponent: str, side: str | None = None, text: str | None = None,
              seed: int = 0) -> LiveGame:  # fmt: skip
        """A new game of ``variant`` where the person plays ``side`` (a name of ``Game.players``, the first player
        if None), from the position ``text`` or the start; the opponent moves first where it is to move.
        :class:`GameError` if any input is bad."""
        state = start_state(variant, text)
        game = game_of(state)
        side = game.players[0] if side is None else side
        if side not in game.players:
            raise GameError(f"side must be one of {', '.join(game.players)}, got {side!r}")
        spec = check_spec(opponent, self.study)
        try:
            player = parse_player(spec, variant=state.variant_name, device=self.device)
        except (ValueError, OSError) as error:
            raise GameError(str(error).replace(str(self.study.models_dir.resolve()) + "/", "")) from None
        human = FIRST if side == game.players[0] else SECOND
        live = LiveGame(uuid.uuid4().hex, human, player, opponent.strip(), [state], np.random.default_rng(seed))
        with self._lock:
            self._games[live.id] = live
            while len(self._games) > MAX_GAMES:
                close_player(self._games.popitem(last=False)[1].opponent)
        with live.lock:
            live.reply()
        return live

    def get(self, game_id: str) -> LiveGame:
        with self._lock:
            live = self._games.get(game_id)
        if live is None:
            raise KeyError(game_id)
        return live

    def analyst(self, model: str) -> Analyst:
        """The network of ``model`` (a name :meth:`Study.model_path` takes), loaded once."""
        try:
            path = baseline_file(model) or self.study.model_path(model)
        except ValueError as error:
            raise GameError(str(error)) from None
        with self._lock:
            if path not in self._analysts:
                self._analysts[path] = Analyst(path, self.device)
            return self._analysts[path]

    def close(self) -> None:
        with self._lock:
            for live in self._games.values():
                close_player(live.opponent)
            self._games.clear()
