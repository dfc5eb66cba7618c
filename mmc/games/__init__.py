"""Game families behind one protocol (:class:`Game`), and the game API for any variant of any family.

>>> from mmc.games import initial_state, legal_moves, apply_move, outcome
>>> s = initial_state("gardner")
>>> s = apply_move(s, legal_moves(s)[0])

A variant id names its family (:func:`get_game`); the verbs here look the family up from the variant id or the
state and call its own. Layout: ``mmc/games/protocol.py`` (the protocol), ``mmc/games/jit.py`` (compiled kernels
and their cache) and one package per family, a family being one folder to read and a new game one folder to add
(docs/guides/add-a-game.md):

- ``chess/``: the chess family of ``docs/rules/chess.md`` and its variant pages (Gardner minichess, its rule
  variants, Los Alamos and 8x8 chess);
- ``gomoku/``: the k-in-a-row family of ``docs/rules/kinarow.md`` and its variant pages (tic-tac-toe, gomoku from
  6x6 to 15x15 under the freestyle, exact and caro rules, Connect Four);
- ``jump/``: the jump game of ``docs/rules/jump.md`` (steps, hop chains, captures, a race to the far side).

A family outside this package plugs in with :func:`register_game` (a test's, in one process), or as an installed
distribution's ``mmc.games`` entry point, which the registry loads the first time it is asked for a family or a
variant it does not hold, or for the list of them (:mod:`mmc.core.plugins`): whatever a program imports first, its
own game package or this one.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint
from typing import Any

from mmc.core import plugins
from mmc.core.plugins import HOME
from mmc.games.protocol import (
    FIRST,
    MAX_VARIANT_ID,
    SECOND,
    ActionSpace,
    BoardView,
    EngineBinding,
    Game,
    IllegalMoveError,
    KernelState,
    Outcome,
    VariantInfo,
    build_game,
    check_kernels,
)

__all__ = [
    "FIRST",
    "MAX_VARIANT_ID",
    "SECOND",
    "ActionSpace",
    "BoardView",
    "EngineBinding",
    "Game",
    "IllegalMoveError",
    "KernelState",
    "Outcome",
    "VariantInfo",
    "apply_move",
    "build_game",
    "from_text",
    "game_of",
    "games",
    "get_family",
    "get_game",
    "get_variant",
    "initial_state",
    "legal_moves",
    "move_notation",
    "outcome",
    "register_game",
    "unregister_game",
    "variant_ids",
]

_GAMES: dict[str, Game] = {}
_BY_VARIANT: dict[str, Game] = {}
_FOUND: dict[str, Game] = {}
"""Ids found by :func:`_search` (generated ones), so that the next lookup is one dict read."""
_OWNERS: dict[str, str] = {}
"""The distribution each family came from (``mmc.core.plugins.HOME`` for the built-ins and for one registered by
hand), by family name: a clash names it."""
_PLUGINS = {"loaded": False}


def register_game(game: Game, *, distribution: str = HOME) -> Game:
    """Add a family, so that its variant ids resolve to it everywhere; ``ValueError`` in one line if its name or a
    variant id is taken by another family (naming that family and its distribution), or its kernel bundle breaks
    the contract (``check_kernels``: a missing or malformed kernel, named). Registering the same game again changes
    nothing. ``distribution``: the package it comes from, for a later clash's message. Returns ``game``."""
    if _GAMES.get(game.name) is game:
        return game
    if game.name in _GAMES:
        raise ValueError(f"a game family named {game.name!r} is already registered (by {_OWNERS[game.name]})")
    check_kernels(game)
    long = [v for v in game.variants if len(v) > MAX_VARIANT_ID]
    if long:
        raise ValueError(f"game {game.name!r}: variant id {long[0]!r} is longer than {MAX_VARIANT_ID} characters")
    taken = sorted(v for v in game.variants if v in _BY_VARIANT)
    if taken:
        holder = _BY_VARIANT[taken[0]].name
        raise ValueError(f"game {game.name!r}: variant ids already taken by the family {holder!r} of "
                         f"{_OWNERS[holder]}: {', '.join(taken)}")  # fmt: skip
    _GAMES[game.name] = game
    _OWNERS[game.name] = distribution
    for name in game.variants:
        _BY_VARIANT[name] = game
    return game


def _load_plugins() -> None:
    """Register the game of every ``mmc.games`` entry point of the installed distributions, once, the first time the
    registry is asked for a family it does not hold or for the list of them (never while ``mmc.games`` itself is
    being imported, so a game package that imports ``mmc.games`` first is whole when its entry point loads)."""
    if _PLUGINS["loaded"]:
        return
    _PLUGINS["loaded"] = True

    def add(point: EntryPoint, game: Any) -> None:
        if not isinstance(game, Game):
            raise TypeError(f"the object is a {type(game).__name__}, not a mmc.games.Game")
        register_game(game, distribution=plugins.distribution(point))

    plugins.each(plugins.GAMES_GROUP, add)


def unregister_game(name: str) -> None:
    """Remove the family ``name`` (a test's game, say); nothing happens if there is none."""
    game = _GAMES.pop(name, None)
    _OWNERS.pop(name, None)
    if game is not None:
        for variant in game.variants:
            _BY_VARIANT.pop(variant, None)
        for variant in [v for v, found in _FOUND.items() if found is game]:
            del _FOUND[variant]


def games() -> tuple[Game, ...]:
    """Every registered family, in registration order (the built-ins, then the installed packages')."""
    _load_plugins()
    return tuple(_GAMES.values())


def get_family(name: str) -> Game:
    """The family called ``name`` (``Game.name``); ``ValueError`` naming the registered families otherwise."""
    if name not in _GAMES:
        _load_plugins()
    try:
        return _GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game family {name!r} (known: {', '.join(_GAMES)})") from None


def variant_ids() -> tuple[str, ...]:
    """Every variant id of every family, family by family."""
    _load_plugins()
    return tuple(_BY_VARIANT)


def get_game(variant: str) -> Game:
    """The family of the variant ``variant``; ``ValueError`` naming the known ids otherwise."""
    try:
        return _BY_VARIANT[variant]
    except (KeyError, TypeError):
        pass
    found = _FOUND.get(variant) if isinstance(variant, str) else None
    return _search(variant) if found is None else found


def _search(variant: str) -> Game:
    """The family whose ``variants`` holds ``variant`` though its iteration does not list it: added after the family
    was registered, or one of the ids a family generates (the k-in-a-row family's ``mnk_7x5_k4``). A family's
    mapping raises ``KeyError`` for an id that is not its own, or ``ValueError`` for an id of its own form that it
    refuses (a malformed generated id): that one line is the error here."""
    _load_plugins()
    try:
        return _BY_VARIANT[variant]
    except (KeyError, TypeError):
        pass
    if isinstance(variant, str):
        for game in _GAMES.values():
            try:
                game.variants[variant]
            except KeyError:
                continue
            _FOUND[variant] = game
            return game
    raise ValueError(f"unknown variant {variant!r} (known: {', '.join(_BY_VARIANT)})")


def get_variant(variant: str) -> VariantInfo:
    """The variant ``variant`` of whichever family has it; ``ValueError`` naming the known ids otherwise."""
    return get_game(variant).variants[variant]


def game_of(state: Any) -> Game:
    """The family of a state (by its ``variant_name``)."""
    return get_game(state.variant_name)


def initial_state(variant: str, *, max_plies: int | None = None) -> Any:
    """The start position of ``variant``, under the move cap ``max_plies`` (the family's default if ``None``)."""
    game = get_game(variant)
    return game.initial_state(variant, max_plies=game.default_max_plies if max_plies is None else max_plies)


def from_text(variant: str, text: str, *, max_plies: int | None = None) -> Any:
    """A position of ``variant`` from its text; ``ValueError`` naming what is wrong."""
    game = get_game(variant)
    return game.from_text(variant, text, max_plies=game.default_max_plies if max_plies is None else max_plies)


def legal_moves(state: Any) -> tuple[Any, ...]:
    """The legal moves of ``state``; empty once the board's rules have ended the game."""
    return get_game(state.variant_name).legal_moves(state)


def apply_move(state: Any, move: Any) -> Any:
    """The state after ``move``; :class:`IllegalMoveError` if it is not legal."""
    return get_game(state.variant_name).apply_move(state, move)


def outcome(state: Any) -> Outcome | None:
    """How the game of ``state`` ended, or ``None`` while it goes on."""
    return get_game(state.variant_name).outcome(state)


def move_notation(state: Any, move: Any) -> str:
    """The text of ``move``, a move of ``state``'s family, in that family's notation (its :attr:`Game.move_text`)."""
    return get_game(state.variant_name).move_text(move)


def _register_builtin() -> None:
    from mmc.games.chess.game import GAME as CHESS
    from mmc.games.gomoku.game import GAME as GOMOKU
    from mmc.games.jump.game import GAME as JUMP

    register_game(CHESS)
    register_game(GOMOKU)
    register_game(JUMP)


_register_builtin()
