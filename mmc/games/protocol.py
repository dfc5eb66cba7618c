"""The game protocol: everything the layers above the rules know of a game family.

A family (chess and its variants, a k-in-a-row family, a jump game, a user's own) is one package that builds one
:class:`Game` (with :func:`build_game`, which finds each field in the family's modules): its variants as data, the
verbs of its Python API, its text formats, its network layout and its compiled kernels. Search, self-play,
training, players, the arena, rating, records, ``mmc.env``, ``mmc.web``, the CLI and the pipelines reach a game only
through its :class:`Game`, found from a variant id by :func:`mmc.games.get_game` (variant ids are unique across
families).

Conventions every family keeps:

- **Players** are ``+1`` (the first to move: White in chess) and ``-1`` (the second), as ``int``-valued enums
  (chess's ``Color``). A state's ``turn`` is the player to move; a player may move several times in a row (the
  search, the arena and self-play read ``turn`` after every move, never assume that it alternates).
- **States** are immutable and hashable, and carry ``variant_name``, ``max_plies`` (the move cap), ``ply`` (moves
  played since the start), ``turn`` and ``fen()`` (the family's position text, which :attr:`Game.from_text`
  reads back).
- **Moves** are hashable values; :attr:`Game.move_text` and :attr:`Game.parse_move` are their text. Each legal
  move has an ``int32`` *code* for the kernels (:attr:`Game.code_of`, :attr:`Game.move_of_code`), and
  ``legal_moves(state)`` lists the moves in the order of the kernels' ``legal_moves_into`` codes.
- **Outcome** (:class:`Outcome`): the winner (``+1``, ``-1`` or ``None`` for a draw) and the family's termination
  (an enum whose value is its text).

The compiled kernels (:attr:`Game.kernels`, a module) are what the search tree is compiled against
(``mmc.search``; see :func:`mmc.games.jit.specialise`): every one a numba function of the family's position array
``board`` (``int8[BOARD_LEN]``), the player to move ``side`` (+1 or -1) and the variant's rule table ``tab``
(:attr:`Game.table`)::

    BOARD_LEN                    int   bytes of a position array
    MAX_MOVES                    int   the most legal moves a position can have
    ONGOING                      int   the end code of a game that goes on (0)
    ALTERNATES                   bool  True when the turn passes after every move (the tree then negates values
                                       at every level without reading the players)
    legal_moves_into(board, side, tab, out) -> n
                                       the legal move codes into ``out`` (``int32[MAX_MOVES]``); 0 once the
                                       board's own rules have ended the game
    play(board, side, move, tab) -> (next_side, irreversible, plies)
                                       play a legal move in place; the player to move next, whether the move
                                       can never be undone (it restarts the repetition clock), and the plies it
                                       counts towards the move cap (1; 0 for a step that does not finish a move,
                                       such as a hop of a chain that goes on, where a family counts complete moves)
    game_end(board, side, tab, num_moves, repetitions, clock, ply, max_plies) -> code
                                       ONGOING, or why the game is over: num_moves from legal_moves_into,
                                       repetitions the earlier occurrences of the position with the same player
                                       to move since the last irreversible move, clock the moves since then
    end_value(code) -> float           a finished game's value for the side to move: +1 won, -1 lost, 0 drawn
                                       (a score decided at the move cap is a code too)
    status(board, side, tab) -> code   the end code of a position without legal moves (random playouts)
    cutoff_value(board, side, tab) -> float
                                       a playout's value for ``side`` when it stops before the game ends
    fill_planes(board, side, tab, repetitions, clock, ply, max_plies, out)
                                       the network's input planes of ``side``'s view into ``out``
                                       (``float32[num_planes, H, W]``)
"""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np

__all__ = [
    "FIRST",
    "KERNEL_CONSTANTS",
    "KERNEL_FUNCTIONS",
    "MAX_VARIANT_ID",
    "SECOND",
    "ActionSpace",
    "BoardView",
    "BoardViewOf",
    "EngineBinding",
    "FromText",
    "Game",
    "IllegalMoveError",
    "InitialState",
    "KernelState",
    "ObservationPlanes",
    "Outcome",
    "Render",
    "Transform",
    "VariantInfo",
    "build_game",
    "check_kernels",
]

FIRST, SECOND = 1, -1
"""The two players: ``FIRST`` moves first (White in chess), ``SECOND`` second."""

MAX_VARIANT_ID = 24
"""The longest variant id (training rows store it as ``<U24``: ``mmc.train.examples``), ``jump_diagonal_p100``'s 18
with room."""


class IllegalMoveError(ValueError):
    """A move that is not legal in the given state (every family's ``apply_move`` raises it, naming the move)."""


class Outcome(NamedTuple):
    """How a game ended: the winner (``+1`` first player, ``-1`` second, ``None`` for a draw) and the reason."""

    winner: Any
    """``None`` for a draw, else the winning player (an ``int``-valued enum of the family, ``+1`` or ``-1``)."""
    termination: enum.Enum
    """The family's reason (its ``value`` is the text records store, e.g. ``"checkmate"``)."""

    def result(self) -> str:
        """PGN-style result from the first player's view: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if int(self.winner) == FIRST else "0-1"


class VariantInfo(Protocol):
    """What every layer may read of a variant (each family's variant type has these and more)."""

    @property
    def name(self) -> str:
        """The variant id, unique across families."""

    @property
    def description(self) -> str:
        """One line for ``mmc variants``."""

    @property
    def height(self) -> int:
        """Ranks (rows) of the board."""

    @property
    def width(self) -> int:
        """Files (columns) of the board."""

    @property
    def hidden_information(self) -> bool:
        """Whether a player sees only part of the position (the search then samples what it cannot see)."""

    @property
    def in_default_study(self) -> bool:
        """Whether a study may take it as a task or target."""


class ActionSpace(Protocol):
    """A variant's action encoding for the network: an action is an index of the mover's view of a move."""

    @property
    def num_actions(self) -> int:
        """Actions of the variant."""

    @property
    def policy_index(self) -> np.ndarray:
        """``int64[num_actions]``: each action's position in the flattened ``[num_policy_planes, H, W]`` policy
        output."""

    @property
    def lookup(self) -> np.ndarray:
        """``int32[2, num_codes]``: the action of each kernel move code, for the first player (row 0) and the
        second (row 1); -1 for none."""

    def encode(self, move: Any, turn: int) -> int:
        """The action of ``move`` played by ``turn``."""

    def legal_actions(self, state: Any) -> np.ndarray:
        """``int64[n]``: the actions of ``legal_moves(state)``, in the same order."""

    def legal_mask(self, state: Any) -> np.ndarray:
        """``bool[num_actions]``: True for the actions of legal moves."""

    def decode(self, action: int, state: Any) -> Any:
        """The legal move of ``state`` that ``action`` stands for; ``ValueError`` if none."""


class BoardView(NamedTuple):
    """A position as a picture (``Game.board_view``): what the web app draws and the environments' images show.

    Cell ``i`` is file ``i % len(files)`` of rank ``i // len(files)``, ranks from the bottom (the first player's
    side), and is named ``files[f] + ranks[r]`` (``a1`` at the bottom left, as the family's move text names it).
    A piece is drawn in its owner's colour, the name of the player (``Game.players``: the first player's pieces are
    white in chess, black in gomoku).
    """

    files: tuple[str, ...]
    """File names, left to right: ``("a", "b", ...)``."""
    ranks: tuple[str, ...]
    """Rank names, bottom to top: ``("1", "2", ...)``."""
    cells: tuple[tuple[int, str], ...]
    """``(owner, glyph)`` of every cell: owner +1 (first player), -1 (second) or 0 (empty); glyph the one character
    drawn (a chess piece ``♞``, a stone ``●``), ``""`` on an empty cell."""
    hidden: frozenset[int] = frozenset()
    """Cells the viewer cannot see (dark chess), drawn fogged and empty."""
    marks: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """Named sets of cells to tint, e.g. ``("target-first", (...))`` for a player's target region, ``("last", ...)``
    for the last move, ``("line", ...)`` for a winning line."""
    caption: str = ""
    """A line about the position that the cells do not show, drawn beside the board (the jump game's scores); empty
    for none."""


class EngineBinding(NamedTuple):
    """How Fairy-Stockfish (a separate program, over UCI) plays a family's variants (``mmc.play.fairy``)."""

    variants: Mapping[str, str]
    """Variant id -> the engine's ``UCI_Variant`` name, for the variants it plays."""
    variant_file: str | None
    """The variant definitions file to load (``setoption name VariantPath``), or ``None``."""
    start_board: Callable[[str], str]
    """``start_board(variant)``: the board field of the engine's FEN of the start (checked after loading)."""
    position: Callable[[Any], str]
    """``position(state)``: the state as the engine's FEN."""
    parse_move: Callable[[Any, str], Any]
    """``parse_move(state, text)``: the engine's move text as a move of ``state``; ``ValueError`` if it is none."""


class InitialState(Protocol):
    """``initial_state(variant, *, max_plies) -> State``."""

    def __call__(self, variant: str, /, *, max_plies: int) -> Any: ...


class FromText(Protocol):
    """``from_text(variant, text, *, max_plies) -> State``."""

    def __call__(self, variant: str, text: str, /, *, max_plies: int) -> Any: ...


class Render(Protocol):
    """``render(state, *, coordinates=False, viewer=None) -> str``."""

    def __call__(self, state: Any, /, *, coordinates: bool = ..., viewer: Any = ...) -> str: ...


class ObservationPlanes(Protocol):
    """``observation_planes(state, out=None, *, color=None) -> float32[num_planes, H, W]``."""

    def __call__(self, state: Any, /, out: np.ndarray | None = ..., *, color: Any = ...) -> np.ndarray: ...


class BoardViewOf(Protocol):
    """``board_view(state, viewer=None) -> BoardView``."""

    def __call__(self, state: Any, viewer: Any = ..., /) -> BoardView: ...


Transform = Callable[[Any, Any, Any], tuple[Any, Any, Any]]
"""A training symmetry: ``transform(planes, policy, legal) -> (planes, policy, legal)`` on torch batches."""


class KernelState(NamedTuple):
    """A state as the kernels take it (:attr:`Game.kernel_state`): what the search tree's root holds."""

    board: np.ndarray
    """``int8[BOARD_LEN]``: the position array (read it, never write it)."""
    side: int
    """The player to move, +1 or -1."""
    clock: int
    """Moves since the last irreversible move."""
    ply: int
    """Moves since the start."""
    history: Sequence[tuple[bytes, int]]
    """The positions before this one since the last irreversible move, oldest first, each with its player to move
    (what repetition compares; empty in a family without repetition)."""


@dataclass(frozen=True, eq=False, repr=False)
class Game:
    """A game family: its variants, its verbs and its kernels. Every field but the optional hooks is required.

    The verbs take and return the family's own states and moves (module docstring); a variant argument is a
    variant id of this family.
    """

    name: str
    """The family id, e.g. ``"chess"``."""
    description: str
    """One line for ``mmc variants``."""
    variants: Mapping[str, VariantInfo]
    """The family's variants by id, in the order ``mmc variants`` lists them."""
    players: tuple[str, str]
    """The names of the first and the second player, e.g. ``("white", "black")``: environment agents, record tags."""
    default_max_plies: int
    """The move cap a game gets when none is given."""
    terminations: tuple[str, ...]
    """Every reason a game can end, as text (the values of the family's termination enum)."""
    num_planes: int
    """Input planes of the network (:attr:`observation_planes`)."""
    num_policy_planes: int
    """Policy planes of the network: an action's logit is at ``ActionSpace.policy_index`` of ``[P, H, W]``."""
    kernels: types.ModuleType
    """The compiled kernels (module docstring), which ``mmc.search`` compiles its tree against."""

    initial_state: InitialState
    """``initial_state(variant, *, max_plies=default_max_plies) -> State``: the start position."""
    from_text: FromText
    """``from_text(variant, text, *, max_plies=...) -> State``: a position from its text (``state.fen()``); raises
    ``ValueError`` naming what is wrong. The text has no history, so the family says what ``ply`` such a state
    gets: what the text holds (chess: from the FEN's move number; k in a row: the stones on the board) or 0; the
    move cap counts from it."""
    legal_moves: Callable[[Any], tuple[Any, ...]]
    """``legal_moves(state) -> tuple[Move, ...]``: empty once the board's rules have ended the game."""
    apply_move: Callable[[Any, Any], Any]
    """``apply_move(state, move) -> State``; raises :class:`IllegalMoveError` naming the move."""
    outcome: Callable[[Any], Outcome | None]
    """``outcome(state) -> Outcome | None``: how the game ended, ``None`` while it goes on."""
    move_text: Callable[[Any], str]
    """``move_text(move) -> str``: the family's move text (UCI in chess)."""
    parse_move: Callable[[str], Any]
    """``parse_move(text) -> Move``; ``ValueError`` naming the text if it is no move of the family."""
    perft: Callable[[Any, int], int]
    """``perft(state, depth) -> int``: the leaves of the legal-move tree ``depth`` moves deep."""
    render: Render
    """``render(state, *, coordinates=False, viewer=None) -> str``: the board as text for a terminal (``viewer``: the
    player whose view to show, in a variant with hidden information)."""
    observation_planes: ObservationPlanes
    """``observation_planes(state, out=None, *, color=None) -> float32[num_planes, H, W]``: the network's input
    planes of ``color``'s view (default: the player to move)."""
    action_space: Callable[[str], ActionSpace]
    """``action_space(variant) -> ActionSpace``."""
    table: Callable[[str], np.ndarray]
    """``table(variant) -> int16[...]``: the variant's rule table the kernels read."""
    kernel_state: Callable[[Any], KernelState]
    """``kernel_state(state) -> KernelState``: the state as the kernels and the search tree take it."""
    code_of: Callable[[Any], int]
    """``code_of(move) -> int``: a move's kernel code, an ``int32`` >= 0."""
    move_of_code: Callable[[int], Any]
    """``move_of_code(code) -> Move``: the move of a kernel code. A code determines its move without the position
    (the search tree keeps codes, not positions, for its children): two moves of one position never share a code,
    and a code means the same move in every position where it is legal."""
    board_view: BoardViewOf
    """``board_view(state, viewer=None) -> BoardView``: the board as a picture; ``viewer`` (a player) sees only its own
    view in a variant with hidden information."""
    move_cells: Callable[[Any, Any], tuple[str | tuple[str, ...], ...]]
    """``move_cells(state, move) -> steps``: the clicks a person makes, in order, to make ``move``, each step a cell
    name or a tuple of alternative cell names, any one of which makes that step, the move's own cell first (chess:
    from and to; a stone: its cell; a stone under gravity: one step, its cell then every other cell of its column; a
    hop chain: the piece, then each landing cell; a pass: none). Where a move is drawn (its last cell, the page's
    highlights) a step stands for its first cell. Moves with the same steps (chess's promotions) are told apart by
    their text."""
    heuristic: Callable[[Any, Sequence[Any]], np.ndarray]
    """``heuristic(state, moves) -> float64[len(moves)]``: the greedy player's score of each move (higher is
    better for the player to move; the player picks among the best at random). Greedy is Elo 0 of every ladder."""

    determinize: Callable[[Any, int, np.random.Generator], list[KernelState]] | None = None
    """Hidden-information variants: ``determinize(state, count, rng)``, ``count`` full positions consistent with what
    the player to move sees (the search then runs on them). ``None`` where every variant is fully visible."""
    symmetries: Callable[[Sequence[str]], Sequence[Transform]] | None = None
    """``symmetries(variants) -> transforms``: the board symmetries every one of ``variants`` keeps, each a function
    ``transform(planes, policy, legal) -> (planes, policy, legal)`` on torch batches of one board size: ``planes``
    ``float32[B, num_planes, H, W]``, and ``policy`` (``float32``, the search's visit shares) and ``legal``
    (``bool``, the legal actions' mask) laid out as the network's policy output, ``[B, num_policy_planes, H, W]``
    (``ActionSpace.policy_index`` scattered back onto the planes); without the identity. Training applies one of
    them or none, uniformly at random. ``None``: no symmetry."""
    endgame: Callable[[Any, np.random.Generator], Any] | None = None
    """``endgame(state, rng) -> State``: a thinned-out position for self-play's endgame starts; ``None``: none."""
    engine: EngineBinding | None = None
    """How Fairy-Stockfish plays the family's variants, where it does (``fairy:nodes=N`` players and anchors)."""
    opening_plies: int = 4
    """The uniformly random plies that open each game of ``mmc match`` and ``mmc rate`` unless told otherwise: they
    vary the games of deterministic players. A family of short games wants few (a game of 7 plies drowns in 4)."""
    generated_variants: str = ""
    """How the family forms the ids of the variants it generates from parameters, in one line for ``mmc variants``
    (the k-in-a-row family's ``mnk_WxH_kK``); empty if it has none. Iterating :attr:`variants` lists only the named
    variants; looking a generated id up in it builds that variant, and a malformed one of the family's forms raises
    ``ValueError`` naming the valid forms (``KeyError`` stays for an id that is not the family's)."""
    game_plies: Callable[[str], int] | None = None
    """``game_plies(variant) -> int``: the ply by which the rule book ends every game of ``variant``, whatever is
    played (the jump game's move cap, a k-in-a-row board's cells). ``None`` where the rule book takes its ply cap as a
    parameter (chess). A study refuses an evaluation ``max_plies`` below it: it would rate a game cut short under the
    full game's name (``pipelines.study_rules.check_full_games``)."""

    def __repr__(self) -> str:
        return f"Game({self.name!r})"

    def variant(self, name: str) -> VariantInfo:
        """The variant ``name`` of this family; ``ValueError`` naming the family's ids otherwise."""
        try:
            return self.variants[name]
        except KeyError:
            raise ValueError(f"unknown {self.name} variant {name!r} (known: {', '.join(self.variants)})") from None


KERNEL_CONSTANTS: Mapping[str, type] = {"BOARD_LEN": int, "MAX_MOVES": int, "ONGOING": int, "ALTERNATES": bool}
"""The kernel bundle's constants and their types (module docstring)."""
KERNEL_FUNCTIONS: Mapping[str, tuple[str, ...]] = {
    "legal_moves_into": ("board", "side", "tab", "out"),
    "play": ("board", "side", "move", "tab"),
    "game_end": ("board", "side", "tab", "num_moves", "repetitions", "clock", "ply", "max_plies"),
    "end_value": ("code",),
    "status": ("board", "side", "tab"),
    "cutoff_value": ("board", "side", "tab"),
    "fill_planes": ("board", "side", "tab", "repetitions", "clock", "ply", "max_plies", "out"),
}
"""The kernel bundle's functions and their documented arguments (module docstring), which the search tree calls."""


def check_kernels(game: Game) -> None:
    """``ValueError`` in one line naming the family and the kernel when ``game.kernels`` lacks a constant or a
    function of the contract (module docstring), a constant has another type, or a function does not take its
    documented arguments (a numba dispatcher is read through its Python function). Compiles nothing."""
    import inspect

    bundle = game.kernels
    where = f"game {game.name!r}: kernel bundle {getattr(bundle, '__name__', bundle)!r}"
    for name, kind in KERNEL_CONSTANTS.items():
        value = getattr(bundle, name, None)
        if value is None:
            raise ValueError(f"{where} has no {name} (the kernel contract: mmc.games.protocol)")
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{where}: {name} must be a {kind.__name__}, got {value!r}")
    for name, arguments in KERNEL_FUNCTIONS.items():
        function = getattr(bundle, name, None)
        if function is None or not callable(function):
            raise ValueError(f"{where} has no kernel {name}({', '.join(arguments)}) (the kernel contract: "
                             "mmc.games.protocol)")  # fmt: skip
        try:
            parameters = inspect.signature(getattr(function, "py_func", function)).parameters.values()
        except (TypeError, ValueError):
            continue  # a builtin or compiled callable without a signature: its call is its check
        required = [p for p in parameters if p.default is p.empty and p.kind is not p.VAR_KEYWORD]
        takes_any = any(p.kind is p.VAR_POSITIONAL for p in parameters)
        positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if not takes_any and (len(positional) < len(arguments) or len(required) > len(arguments)):
            raise ValueError(f"{where}: kernel {name} takes ({', '.join(p.name for p in parameters)}), the contract "
                             f"calls it with ({', '.join(arguments)})")  # fmt: skip


VALUE_FIELDS = frozenset({"name", "description", "variants", "players", "default_max_plies", "terminations",
                          "num_planes", "num_policy_planes", "kernels", "engine", "opening_plies",
                          "generated_variants"})  # fmt: skip
"""The fields of :class:`Game` that are values (:func:`build_game` finds each under its name in capitals); every other
field is a verb (found under its own name, a callable)."""


def build_game(*parts: types.ModuleType | Mapping[str, Any] | Game, **fields: Any) -> Game:
    """A :class:`Game` from the modules of a family and the fields given by keyword: the one way a family is wired.

    Each field not given is looked up in ``parts``: modules, mappings (a module's ``globals()``) or a :class:`Game`
    whose fields the new family shares (a family built from another, as ``jump_moves`` from ``jump`` in the example
    package ``examples/jump_moves``). In a module or a mapping, a verb (``initial_state``, ``legal_moves``,
    ``render``, ``heuristic``, ... and the optional hooks
    ``determinize``, ``symmetries``, ``endgame``) is found under its own name, where it is callable and no module; a
    value (:data:`VALUE_FIELDS`) under its name in capitals (``VARIANTS``, ``DEFAULT_MAX_PLIES``, ``NUM_PLANES``,
    ``NUM_POLICY_PLANES``, ``ENGINE``, ...), and ``terminations`` also as an enum ``Termination`` (its values). An
    object that several parts bind (a module importing another's function) is found once. ``ValueError`` in one line,
    naming the family and the field, when a keyword is no field of :class:`Game`, two parts define a field
    differently, or a required field is found nowhere."""
    declared = {f.name: f for f in dataclasses.fields(Game)}
    spaces = [_space(part, i) for i, part in enumerate(parts)]
    label = fields.get("name") or next((space["NAME"] for _, space in spaces if "NAME" in space), "?")
    unknown = sorted(set(fields) - set(declared))
    if unknown:
        raise ValueError(f"game {label!r}: {unknown[0]!r} is no field of mmc.games.Game "
                         f"(fields: {', '.join(declared)})")  # fmt: skip
    built = dict(fields)
    for name, field in declared.items():
        if name in built:
            continue
        key = name.upper() if name in VALUE_FIELDS else name
        found: dict[object, tuple[str, str, Any]] = {}  # by identity; plain data (ints, texts, tuples) by value
        for where, space in spaces:
            value = space.get(key, None)
            is_verb = callable(value) and not isinstance(value, types.ModuleType)
            if value is not None and (name in VALUE_FIELDS or is_verb):
                found.setdefault(_same(value), (where, key, value))
            termination = space.get("Termination") if name == "terminations" else None
            if isinstance(termination, type) and issubclass(termination, enum.Enum):
                values = tuple(t.value for t in termination)
                found.setdefault(_same(values), (where, "Termination", values))
        if len(found) > 1:
            (first, what, _), (second, _, _) = list(found.values())[:2]
            raise ValueError(f"game {label!r}: {first} and {second} define {what} differently; pass {name}= to choose")
        if found:
            built[name] = next(iter(found.values()))[2]
        elif field.default is dataclasses.MISSING:
            where = ", ".join(w for w, _ in spaces) or "no parts"
            raise ValueError(f"game {label!r}: no {key} in {where}; pass {name}=")
    return Game(**built)


def _space(part: types.ModuleType | Mapping[str, Any] | Game, index: int) -> tuple[str, Mapping[str, Any]]:
    """A part of :func:`build_game` as a name to show and the names it binds, a game's fields under their keys."""
    if isinstance(part, Game):
        fields = {f.name: getattr(part, f.name) for f in dataclasses.fields(Game)}
        return f"game {part.name!r}", {(k.upper() if k in VALUE_FIELDS else k): v for k, v in fields.items()}
    if isinstance(part, types.ModuleType):
        return part.__name__, vars(part)
    return f"part {index + 1}", part


def _same(value: Any) -> object:
    """What :func:`build_game` compares two parts' bindings by: plain data by value, anything else by identity."""
    plain = type(value) in (str, int, float) or (type(value) is tuple and all(type(v) in (str, int) for v in value))
    return ("value", value) if plain else ("object", id(value))
