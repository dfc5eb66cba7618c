"""Training examples: positions, their search policy targets and game results, as arrays of one board size.

An :class:`Examples` holds ``N`` rows of one board size ``H x W`` of one game family (a 5x5 and a 6x6 batch cannot
share an array; :func:`group_by_size` splits and merges). Every array is indexed by row first, ``C`` and ``P`` the
family's ``Game.num_planes`` and ``Game.num_policy_planes``::

    planes   float32[N, C, H, W]                  the side to move's input planes (``Game.observation_planes``)
    policy   float32[N, P, H, W]                  search policy target on the family's policy planes
                                                  (``Game.action_space``); >= 0, 0 off the legal actions, sums to 1
    legal    bool[N, P, H, W]                     the legal actions, same layout
    value    float32[N]                           game result from the side to move's view, in [-1, 1]
                                                  (+1 win, 0 draw, -1 loss)
    search_value float32[N]                       the root search's mean value from the side to move's view,
                                                  in [-1, 1] (``TrainConfig.search_value_weight`` mixes it in)
    plies_left int32[N]                           plies from the position to the end of its game, >= 1
                                                  (``TrainConfig.value_discount`` discounts the result by them)
    variant  <U24[N]                              variant id; its board is H x W
    game_id  int64[N]                             the game the position comes from
    ply      int32[N]                             the position's ply (``State.ply``)

On disk (:func:`save_examples`, :func:`load_examples`) a file is one ``.npz`` (zip-compressed: the policy
planes are mostly zeros) with the same names, except that ``legal`` is stored bit-packed as
``legal_packed: uint8[N, ceil(P * H * W / 8)]`` (``np.packbits`` of each flattened row), plus
``format_version: int64[]`` (:data:`FORMAT_VERSION`). No pickled objects: files load with
``allow_pickle=False``.

Self-play fills examples through an :class:`ExampleBuilder`: ``add(state, policy, game_id, search_value)`` for each
searched position, ``finish_game(game_id, winner)`` once the game is over, ``build()`` at the end.
"""

from __future__ import annotations

import logging
import os
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from mmc.core.atomic import atomic_write
from mmc.games import MAX_VARIANT_ID, Game, Outcome, game_of, get_game, get_variant

__all__ = [
    "FORMAT_VERSION",
    "ExampleBuilder",
    "Examples",
    "ExamplesFileError",
    "concatenate",
    "group_by_size",
    "load_examples",
    "policy_target",
    "save_examples",
]

logger = logging.getLogger(__name__)

FORMAT_VERSION = 2
"""Version of the ``.npz`` layout written by :func:`save_examples` (2: ``search_value`` and ``plies_left`` added)."""
SUM_TOLERANCE = 1e-4
"""How far from 1 a policy target's sum may be."""
VARIANT_DTYPE = np.dtype(f"<U{MAX_VARIANT_ID}")

_DTYPES = {
    "planes": np.dtype(np.float32),
    "policy": np.dtype(np.float32),
    "legal": np.dtype(np.bool_),
    "value": np.dtype(np.float32),
    "search_value": np.dtype(np.float32),
    "variant": VARIANT_DTYPE,
    "game_id": np.dtype(np.int64),
    "ply": np.dtype(np.int32),
    "plies_left": np.dtype(np.int32),
}


class ExamplesFileError(ValueError):
    """An examples file that exists but cannot be read as one; the message names the file and the array."""


@dataclass(frozen=True, eq=False)
class Examples:
    """``N`` training rows of one board size; see the module docstring for the schema. Treat as immutable."""

    planes: np.ndarray
    """``float32[N, C, H, W]``: the side to move's input planes."""
    policy: np.ndarray
    """``float32[N, P, H, W]``: search policy target, a distribution over the legal actions."""
    legal: np.ndarray
    """``bool[N, P, H, W]``: legal-action mask."""
    value: np.ndarray
    """``float32[N]``: game result from the side to move's view, in [-1, 1]."""
    search_value: np.ndarray
    """``float32[N]``: the root search's mean value from the side to move's view, in [-1, 1]."""
    variant: np.ndarray
    """``<U24[N]``: variant id of each row."""
    game_id: np.ndarray
    """``int64[N]``: the game each row comes from."""
    ply: np.ndarray
    """``int32[N]``: each row's ply in its game."""
    plies_left: np.ndarray
    """``int32[N]``: plies from each row's position to the end of its game (1: the game's last move was played
    from it)."""

    def __post_init__(self) -> None:
        _validate(self)

    def __len__(self) -> int:
        return len(self.value)

    @property
    def board_shape(self) -> tuple[int, int]:
        """``(H, W)`` of every row."""
        return int(self.planes.shape[2]), int(self.planes.shape[3])

    def take(self, rows: np.ndarray | Sequence[int]) -> Examples:
        """The rows ``rows`` (indices or a boolean mask over rows), as new arrays."""
        index = np.asarray(rows)
        if index.dtype != np.bool_:
            index = index.astype(np.intp)  # an empty list is float64
        return Examples(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    @classmethod
    def empty(cls, variant: str) -> Examples:
        """No rows, of ``variant``'s board and game family."""
        game, v = get_game(variant), get_variant(variant)
        height, width = v.height, v.width
        return cls(
            planes=np.zeros((0, game.num_planes, height, width), np.float32),
            policy=np.zeros((0, game.num_policy_planes, height, width), np.float32),
            legal=np.zeros((0, game.num_policy_planes, height, width), bool),
            value=np.zeros(0, np.float32),
            search_value=np.zeros(0, np.float32),
            variant=np.zeros(0, VARIANT_DTYPE),
            game_id=np.zeros(0, np.int64),
            ply=np.zeros(0, np.int32),
            plies_left=np.zeros(0, np.int32),
        )


def _validate(examples: Examples) -> None:
    """Check dtypes, shapes and the policy targets; ``ValueError`` naming the array otherwise."""
    for name, dtype in _DTYPES.items():
        array = getattr(examples, name)
        if not isinstance(array, np.ndarray) or array.dtype != dtype:
            got = array.dtype if isinstance(array, np.ndarray) else type(array).__name__
            raise ValueError(f"Examples.{name} must be a numpy array of dtype {dtype}, got {got}")
    planes = examples.planes
    game = _family(examples.variant)
    if planes.ndim != 4 or (game is not None and planes.shape[1] != game.num_planes):
        channels = "C" if game is None else game.num_planes
        raise ValueError(f"Examples.planes must have shape [N, {channels}, H, W], got {list(planes.shape)}")
    n, _, height, width = planes.shape
    if game is not None:
        policy_planes = game.num_policy_planes
    else:  # no rows: any plane count will do
        policy_planes = examples.policy.shape[1] if examples.policy.ndim == 4 else -1
    expected = {
        "policy": (n, policy_planes, height, width),
        "legal": (n, policy_planes, height, width),
        **{name: (n,) for name in ("value", "search_value", "variant", "game_id", "ply", "plies_left")},
    }
    for name, shape in expected.items():
        got = getattr(examples, name).shape
        if got != shape:
            raise ValueError(f"Examples.{name} must have shape {list(shape)}, got {list(got)}")
    for name in np.unique(examples.variant):
        v = get_variant(str(name))
        if (v.height, v.width) != (height, width):
            size = f"{v.height}x{v.width}"
            raise ValueError(f"Examples.variant: {name} is played on {size}, the rows are {height}x{width}")
    for name in ("value", "search_value"):
        values = getattr(examples, name)
        if not np.all(np.isfinite(values)) or np.any(np.abs(values) > 1):
            raise ValueError(f"Examples.{name} must be finite and in [-1, 1]")
    if np.any(examples.plies_left < 1):
        raise ValueError("Examples.plies_left must be >= 1")
    actions = policy_planes * height * width
    _check_policy(examples.policy.reshape(n, actions), examples.legal.reshape(n, actions), "Examples.policy")


def _family(variants: np.ndarray) -> Game | None:
    """The one game family of the rows' variants (``None`` without rows); ``ValueError`` for an unknown variant or
    rows of two families."""
    families = {get_game(str(name)) for name in np.unique(variants)}
    if len(families) > 1:
        names = ", ".join(sorted(game.name for game in families))
        raise ValueError(f"Examples.variant: the rows come from several game families ({names})")
    return next(iter(families), None)


def _check_policy(policy: np.ndarray, legal: np.ndarray | None, name: str, chunk: int = 4096) -> None:
    """``policy``, ``float[N, A]``: finite, non-negative, 0 where ``legal`` (``bool[N, A]``; ``None``: every action
    legal) is False, rows sum to 1.

    Checked ``chunk`` rows at a time, so that the temporaries stay small next to a large replay window; the common
    case costs a few reductions, so that self-play can check every searched position's row.
    """
    for start in range(0, len(policy), chunk):
        part = policy[start : start + chunk]
        sums = part.sum(axis=1, dtype=np.float64)
        if not np.isfinite(sums).all() and not np.isfinite(part).all():  # a non-finite entry makes its sum one
            raise ValueError(f"{name} must be finite")
        if part.size and part.min() < 0:
            raise ValueError(f"{name} must be non-negative")
        if legal is not None:
            off_legal = start + np.flatnonzero(np.any(np.where(legal[start : start + chunk], 0, part), axis=1))
            if len(off_legal):
                raise ValueError(f"{name} puts probability on illegal actions (rows {off_legal[:5].tolist()}...)")
        bad = np.flatnonzero(~(np.abs(sums - 1) <= SUM_TOLERANCE))
        if len(bad):
            row = start + bad[0]
            raise ValueError(f"{name} must sum to 1 over the legal actions; row {row} sums to {sums[bad[0]]}")


def policy_target(state: Any, policy: np.ndarray | Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Scatter a distribution over ``legal_moves(state)`` onto the family's policy planes.

    ``policy`` is ``float[len(legal_moves(state))]`` in ``legal_moves`` order (e.g. normalised visit counts);
    it must be finite, non-negative and sum to 1 (it is renormalised exactly). Returns ``(target, legal)``:
    ``float32[P, H, W]`` and ``bool[P, H, W]`` (``P = Game.num_policy_planes``), in the side to move's
    coordinates. ``ValueError`` if the state has no legal move or ``policy`` is not such a distribution.
    """
    game = game_of(state)
    v = game.variants[state.variant_name]
    moves = game.legal_moves(state)
    probs = np.asarray(policy, dtype=np.float64)
    if len(moves) == 0:
        raise ValueError(f"{state.variant_name} position {state.fen()} has no legal move: no policy target")
    if probs.shape != (len(moves),):
        raise ValueError(f"policy has shape {list(probs.shape)}, expected [{len(moves)}] (one per legal move)")
    _check_policy(probs[None], None, "policy")
    space = game.action_space(v.name)
    index = space.policy_index[space.legal_actions(state)]
    target = np.zeros(game.num_policy_planes * v.height * v.width, dtype=np.float32)
    legal = np.zeros(target.shape, dtype=bool)
    np.add.at(target, index, (probs / probs.sum()).astype(np.float32))  # moves that share an action add up
    legal[index] = True
    shape = (game.num_policy_planes, v.height, v.width)
    return target.reshape(shape), legal.reshape(shape)


@dataclass(frozen=True)
class _Row:
    planes: np.ndarray
    policy: np.ndarray
    legal: np.ndarray
    turn: int
    variant: str
    ply: int
    search_value: float


class ExampleBuilder:
    """Collect self-play positions game by game; each game's rows get their values when it ends::

        builder = ExampleBuilder()
        builder.add(state, visit_counts / visit_counts.sum(), 7, root_value)  # every searched position
        builder.finish_game(7, outcome(final_state))                      # at the end of the game
        examples = builder.build()                                        # one Examples per board size

    Game ids must be unique within a builder (rows of a finished game cannot be added to).
    """

    def __init__(self) -> None:
        self._playing: dict[int, list[_Row]] = {}
        self._finished: dict[tuple[int, int], list[Examples]] = {}
        self._finished_ids: set[int] = set()

    def add(self, state: Any, policy: np.ndarray | Sequence[float], game_id: int, search_value: float) -> None:
        """Record ``state`` with its search policy (``float[len(legal_moves(state))]``, see :func:`policy_target`)
        and the search's value of it (the side to move's view, in [-1, 1])."""
        if game_id in self._finished_ids:
            raise ValueError(f"game {game_id} is already finished")
        if not -1 <= search_value <= 1:  # NaN fails too
            raise ValueError(f"search_value must be in [-1, 1], got {search_value!r}")
        target, legal = policy_target(state, policy)
        row = _Row(game_of(state).observation_planes(state), target, legal, state.turn, state.variant_name, state.ply,
                   float(search_value))  # fmt: skip
        self._playing.setdefault(game_id, []).append(row)

    def finish_game(self, game_id: int, result: Outcome | int | None, final_ply: int | None = None) -> int:
        """End game ``game_id``: ``result`` is its :class:`Outcome` or just the winner (``None`` for a draw), and
        ``final_ply`` the ply of its final position (default: one after the last position added, right when
        every position was added).

        Each of its rows gets the value +1 if its side to move won, -1 if it lost, 0 for a draw, and its plies
        to the end. Returns the number of rows; ``ValueError`` if no position of that game was added or
        ``final_ply`` is not after them.
        """
        rows = self._playing.get(game_id)
        if rows is None:
            raise ValueError(f"no position of game {game_id} was added (or it is already finished)")
        final = rows[-1].ply + 1 if final_ply is None else final_ply
        if final <= rows[-1].ply:
            raise ValueError(f"game {game_id}: final ply {final} is not after its last position's ply {rows[-1].ply}")
        del self._playing[game_id]
        winner = result.winner if isinstance(result, Outcome) else result
        value = [0.0 if winner is None else (1.0 if row.turn == winner else -1.0) for row in rows]
        examples = Examples(
            planes=np.stack([row.planes for row in rows]),
            policy=np.stack([row.policy for row in rows]),
            legal=np.stack([row.legal for row in rows]),
            value=np.asarray(value, dtype=np.float32),
            search_value=np.asarray([row.search_value for row in rows], dtype=np.float32),
            variant=np.asarray([row.variant for row in rows], dtype=VARIANT_DTYPE),
            game_id=np.full(len(rows), game_id, dtype=np.int64),
            ply=np.asarray([row.ply for row in rows], dtype=np.int32),
            plies_left=np.asarray([final - row.ply for row in rows], dtype=np.int32),
        )
        self._finished.setdefault(examples.board_shape, []).append(examples)
        self._finished_ids.add(game_id)
        return len(rows)

    def discard_game(self, game_id: int) -> None:
        """Drop the positions of an unfinished game (e.g. one abandoned without a result)."""
        self._playing.pop(game_id, None)

    @property
    def playing(self) -> tuple[int, ...]:
        """Ids of the games with positions but no result yet."""
        return tuple(self._playing)

    def __len__(self) -> int:
        """Rows of the finished games."""
        return sum(len(e) for groups in self._finished.values() for e in groups)

    def build(self) -> list[Examples]:
        """The finished games' rows, one :class:`Examples` per board size sorted by ``(H, W)``.

        ``ValueError`` if some game is still playing: finish or discard it first.
        """
        if self._playing:
            raise ValueError(f"games {sorted(self._playing)[:10]} have no result yet: finish_game or discard_game")
        return [concatenate(self._finished[shape]) for shape in sorted(self._finished)]


def concatenate(parts: Sequence[Examples]) -> Examples:
    """The rows of ``parts`` in order, as one :class:`Examples`; ``ValueError`` if the board sizes differ."""
    if not parts:
        raise ValueError("concatenate needs at least one Examples (the board size is unknown otherwise)")
    shapes = sorted({part.board_shape for part in parts})
    if len(shapes) > 1:
        raise ValueError(f"cannot concatenate examples of different board sizes {shapes}: use group_by_size")
    if len(parts) == 1:
        return parts[0]
    _family(np.concatenate([np.unique(p.variant) for p in parts]))  # rows of one family (the one check parts leave)
    joined = object.__new__(Examples)  # every part was checked when it was made: its rows need no second pass
    for f in fields(Examples):
        object.__setattr__(joined, f.name, np.concatenate([getattr(p, f.name) for p in parts]))
    return joined


def group_by_size(examples: Iterable[Examples]) -> list[Examples]:
    """All rows of ``examples``, one :class:`Examples` per board size, sorted by ``(H, W)``."""
    by_shape: dict[tuple[int, int], list[Examples]] = {}
    for part in examples:
        by_shape.setdefault(part.board_shape, []).append(part)
    return [concatenate(by_shape[shape]) for shape in sorted(by_shape)]


def save_examples(examples: Examples, path: str | os.PathLike[str]) -> Path:
    """Write ``examples`` to ``path`` (``.npz``, see the module docstring) atomically; return ``path``.

    The file is written to a temporary file in the same directory, flushed, then renamed over ``path``, so a
    reader never sees half a file. Parent directories are created.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    arrays = {f.name: getattr(examples, f.name) for f in fields(examples) if f.name != "legal"}
    flat_legal = examples.legal.reshape(len(examples), int(np.prod(examples.legal.shape[1:])))
    arrays["legal_packed"] = np.packbits(flat_legal, axis=1)
    arrays["format_version"] = np.asarray(FORMAT_VERSION, dtype=np.int64)
    atomic_write(target, lambda file: np.savez_compressed(file, **arrays))
    logger.info("saved %d examples (%dx%d) to %s", len(examples), *examples.board_shape, target)
    return target


def load_examples(path: str | os.PathLike[str]) -> Examples:
    """Read a file written by :func:`save_examples`.

    ``FileNotFoundError`` if it is missing; :class:`ExamplesFileError` naming the file (and the array, where
    one is at fault) if it is not a valid examples file: unreadable, an array missing, of the wrong dtype
    or shape, or policy targets that are not distributions over the legal actions.
    """
    source = Path(path)
    if not source.is_file():
        raise FileNotFoundError(f"examples file {source} not found")
    names = [*(name for name in _DTYPES if name != "legal"), "legal_packed", "format_version"]
    try:
        with np.load(source, allow_pickle=False) as data:
            missing = [name for name in names if name not in data.files]
            if missing:
                raise ExamplesFileError(f"examples file {source}: missing array(s) {missing} (has {data.files})")
            arrays = {name: data[name] for name in names}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        if isinstance(error, ExamplesFileError):
            raise
        raise ExamplesFileError(f"examples file {source} cannot be read as .npz: {error}") from error
    version = arrays.pop("format_version")
    if version.shape != () or int(version) != FORMAT_VERSION:
        raise ExamplesFileError(f"examples file {source}: format_version {version} is not {FORMAT_VERSION}")
    arrays["legal"] = _unpack_legal(arrays.pop("legal_packed"), arrays["planes"], arrays["policy"], source)
    if arrays["variant"].dtype.kind == "U" and arrays["variant"].dtype.itemsize <= VARIANT_DTYPE.itemsize:
        arrays["variant"] = arrays["variant"].astype(VARIANT_DTYPE)  # written when ids had at most 16 characters
    try:
        return Examples(**arrays)
    except ValueError as error:
        raise ExamplesFileError(f"examples file {source}: {error}") from error


def _unpack_legal(packed: np.ndarray, planes: np.ndarray, policy: np.ndarray, source: Path) -> np.ndarray:
    """``bool[N, P, H, W]`` from the packed bits, shaped as the ``policy`` targets."""
    if planes.ndim != 4:
        raise ExamplesFileError(
            f"examples file {source}: array 'planes' has shape {list(planes.shape)}, expected [N, C, H, W]"
        )
    if policy.ndim != 4:
        raise ExamplesFileError(
            f"examples file {source}: array 'policy' has shape {list(policy.shape)}, expected [N, P, H, W]"
        )
    n = policy.shape[0]
    size = int(np.prod(policy.shape[1:]))
    expected = (n, (size + 7) // 8)
    if packed.dtype != np.uint8 or packed.shape != expected:
        raise ExamplesFileError(
            f"examples file {source}: array 'legal_packed' is {packed.dtype}{list(packed.shape)}, "
            f"expected uint8{list(expected)}"
        )
    bits = np.unpackbits(packed, axis=1, count=size).astype(bool)
    return bits.reshape(policy.shape)
