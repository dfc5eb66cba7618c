"""Checking frozen config dataclasses, and building them from plain dicts (JSON, params files).

Every config class checks its fields in ``__post_init__`` with :func:`check_fields`, driven by the field
annotations: ``int`` (a bool is not an int), ``float`` (an int is a number too), ``bool``, ``str``,
``tuple[X, ...]``, ``X | None``, a nested config, and a :class:`Range` declared beside the type::

    games: Count = 128                                   # an int >= 1
    gate_threshold: Annotated[float, Range(0, 1)] = 0.55

A class adds its cross-field rules after that call. :func:`config_from_dict` checks a mapping's keys and
converts its plain values (a list for a tuple, an int for a float, a mapping for a nested config) before the
class checks them. Every problem is a :class:`ConfigError` that names the field in one line.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from types import NoneType, UnionType
from typing import Annotated, Any, TypeVar

__all__ = [
    "POSITIVE",
    "ConfigError",
    "ConfigKeyError",
    "Count",
    "Range",
    "at_least",
    "check_fields",
    "check_keys",
    "config_from_dict",
    "from_plain",
    "value_problem",
]

C = TypeVar("C")


class ConfigError(ValueError):
    """A config field with a bad value. ``str()`` is ``"SearchConfig.simulations must be > 0, got 0"``; the
    parts stay apart (``config``, ``field``, ``problem``) so that a caller can name the field its own way
    (``params.yaml: search.simulations: must be > 0, got 0``). A nested config's field is dotted
    (``EvaluateConfig.search.simulations``)."""

    def __init__(self, config: str, field: str, problem: str) -> None:
        self.config, self.field, self.problem = config, field, problem
        super().__init__(f"{config}.{field} {problem}")


class ConfigKeyError(ConfigError):
    """An unknown or missing key of a config's mapping: ``problem`` is ``"unknown key (expected one of ...)"`` or
    ``"missing"``; ``str()`` is ``"NetworkConfig key 'widht': unknown key (expected one of blocks, ...)"``."""

    def __str__(self) -> str:
        return f"{self.config} key {self.field!r}: {self.problem}"


@dataclass(frozen=True)
class Range:
    """The values a number field may take, declared in its annotation (``Annotated[float, Range(0, 1)]``):
    ``low <= value <= high``, an end left out where ``low_open``/``high_open`` (NaN is never in range). The
    error says ``must be {text}, got {value!r}``; ``text`` defaults to the range's own words (``>= 0``, ``> 0``,
    ``in [0, 1)``)."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    text: str = ""

    def holds(self, value: float) -> bool:
        above = self.low < value if self.low_open else self.low <= value
        below = value < self.high if self.high_open else value <= self.high
        return above and below

    def __str__(self) -> str:
        if self.text:
            return self.text
        # bounds as numbers, 0 and 0.0 alike: typing caches Annotated[float, Range(0, 1)] by equality, so a field
        # may carry an equal Range written with the other type
        low, high = f"{self.low:g}", f"{self.high:g}"
        if self.high == math.inf and not self.high_open:
            return f"{'>' if self.low_open else '>='} {low}"
        return f"in {'(' if self.low_open else '['}{low}, {high}{')' if self.high_open else ']'}"


def at_least(low: int) -> Range:
    """An int field's range ``>= low``, which the error words ``an int >= low``."""
    return Range(low, text=f"an int >= {low}")


POSITIVE = Range(0, low_open=True)
"""``> 0``."""
Count = Annotated[int, at_least(1)]
"""How many of something (games, epochs, plies, workers): an int >= 1."""


def check_fields(config: Any) -> None:
    """``ConfigError`` naming the first field of the dataclass instance ``config`` whose value does not fit its
    annotation (type, then :class:`Range`); fields are checked in declaration order."""
    for name, annotation in _hints(type(config)).items():
        problem = value_problem(annotation, getattr(config, name))
        if problem:
            raise ConfigError(type(config).__name__, name, problem)


def value_problem(annotation: Any, value: Any) -> str | None:
    """What is wrong with ``value`` as a value of ``annotation`` (``"must be an int, got True"``); ``None`` if
    nothing. A list stands for a tuple (a parsed file's form of it)."""
    if typing.get_origin(annotation) is Annotated:
        base, *marks = typing.get_args(annotation)
        problem = value_problem(base, value)
        if problem:
            return problem
        for mark in marks:
            if isinstance(mark, Range) and not mark.holds(value):
                return f"must be {mark}, got {value!r}"
        return None
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        args = typing.get_args(annotation)
        if value is None and NoneType in args:
            return None
        (annotation,) = [a for a in args if a is not NoneType]
        return value_problem(annotation, value)
    if typing.get_origin(annotation) is tuple:
        item = typing.get_args(annotation)[0]
        if isinstance(value, list | tuple) and not any(value_problem(item, v) for v in value):
            return None
        return f"must be a list of {_PLURALS.get(item, 'values')}, got {_shown(value)}"
    if isinstance(annotation, type) and dataclasses.is_dataclass(annotation):
        return None if isinstance(value, annotation) else f"must be a {annotation.__name__}, got {_shown(value)}"
    ok = {
        bool: isinstance(value, bool),
        int: isinstance(value, int) and not isinstance(value, bool),
        float: isinstance(value, int | float) and not isinstance(value, bool),
        str: isinstance(value, str),
    }[annotation]
    return None if ok else f"must be {_NOUNS[annotation]}, got {_shown(value)}"


def from_plain(annotation: Any, value: Any) -> Any:
    """``value`` as a parsed file holds it, converted to ``annotation``'s form where it fits: a list -> a tuple,
    an int -> a float, a mapping -> a nested config (:func:`config_from_dict`). A value that does not fit is
    returned as it is, for the config's check to name."""
    if value_problem(annotation, value) is not None and not dataclasses.is_dataclass(_base(annotation)):
        return value
    annotation = _base(annotation)
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        if value is None:
            return None
        (annotation,) = [a for a in typing.get_args(annotation) if a is not NoneType]
        annotation = _base(annotation)
    if typing.get_origin(annotation) is tuple:
        item = typing.get_args(annotation)[0]
        return tuple(from_plain(item, v) for v in value)
    if dataclasses.is_dataclass(annotation) and isinstance(value, Mapping):
        return config_from_dict(annotation, value)  # type: ignore[arg-type]
    if annotation is float:
        return float(value)
    return value


def check_keys(config: str, data: Mapping[str, Any], expected: Collection[str]) -> None:
    """:class:`ConfigKeyError` naming the first key of ``data`` not in ``expected``, else the first of
    ``expected`` missing from ``data``."""
    for key in data:
        if key not in expected:
            raise ConfigKeyError(config, key, f"unknown key (expected one of {', '.join(expected)})")
    for key in expected:
        if key not in data:
            raise ConfigKeyError(config, key, "missing")


def config_from_dict(cls: type[C], data: Mapping[str, Any], *, keys: Collection[str] | None = None) -> C:
    """``cls(**data)``, its plain values converted (:func:`from_plain`). The keys must be every field of ``cls``,
    or ``keys`` (the other fields keep their defaults); :class:`ConfigKeyError` names the first unknown or
    missing one. A nested config's :class:`ConfigError` is raised again with its field dotted under ours."""
    hints = _hints(cls)
    expected = list(hints) if keys is None else list(keys)
    check_keys(cls.__name__, data, expected)
    values = {}
    for name in expected:
        try:
            values[name] = from_plain(hints[name], data[name])
        except ConfigError as error:
            raise type(error)(cls.__name__, f"{name}.{error.field}", error.problem) from None
    return cls(**values)


_NOUNS = {bool: "a bool", int: "an int", float: "a number", str: "a str"}
_PLURALS = {int: "ints", float: "numbers", str: "strings"}
_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of the dataclass ``cls``'s fields, in declaration order (cached)."""
    if cls not in _HINTS:
        hints = typing.get_type_hints(cls, include_extras=True)
        _HINTS[cls] = {field.name: hints[field.name] for field in dataclasses.fields(cls)}
    return _HINTS[cls]


def _base(annotation: Any) -> Any:
    """``annotation`` without its ``Annotated`` marks."""
    return typing.get_args(annotation)[0] if typing.get_origin(annotation) is Annotated else annotation


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
