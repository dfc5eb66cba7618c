"""Building frozen config dataclasses from plain dicts (JSON, params files), with the keys checked."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, TypeVar

__all__ = ["ConfigError", "config_from_dict"]

C = TypeVar("C")


def config_from_dict(cls: type[C], data: Mapping[str, Any]) -> C:
    """``cls(**data)``; ``ValueError`` naming any unknown or missing key first (the fields check their values)."""
    names = [field.name for field in fields(cls)]  # type: ignore[arg-type]
    unknown = sorted(set(data) - set(names))
    if unknown:
        raise ValueError(f"unknown {cls.__name__} key(s) {unknown}; expected {names}")
    missing = [name for name in names if name not in data]
    if missing:
        raise ValueError(f"missing {cls.__name__} key(s) {missing}; expected {names}")
    return cls(**data)


class ConfigError(ValueError):
    """A config field with a bad value. ``str()`` is ``"SearchConfig.simulations must be > 0, got 0"``; the
    parts stay apart (``config``, ``field``, ``problem``) so that a caller can name the field its own way
    (``params.yaml: search.simulations: must be > 0, got 0``)."""

    def __init__(self, config: str, field: str, problem: str) -> None:
        self.config, self.field, self.problem = config, field, problem
        super().__init__(f"{config}.{field} {problem}")
