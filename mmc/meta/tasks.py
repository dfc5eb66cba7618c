"""Task distributions: a study's meta-training variants named as a distribution of variant ids, not only a list.

A distribution is a set of id patterns, some ids or patterns left out, and how many variants to draw from what is
left (the study's ``meta.train_variants``)::

    variants: ["mnk_{4..7}x{4..7}_k{3..4}", "grav_{5..7}x{4..6}_k4"]   # {a..b}: every integer a to b; {x,y}: either
    exclude: [gomoku_6x6, "mnk_{6..7}x7_k4"]                          # named ids leave out their twins too
    draw: 20                                                          # null: every variant left

A pattern expands like a shell's braces into ids of any family, each checked as a variant id (a generated one out
of range is refused with its family's one line). Two ids of the same game (``gomoku_6x6`` and ``mnk_6x6_k4``) are
one variant: the first written stays. The draw is uniform without replacement from the study's seed
(:func:`task_seed`), listed in the support's order, so the same parameters always draw the same variants.

>>> TaskDistribution(("mnk_{3..4}x3_k3",)).support()
('mnk_3x3_k3', 'mnk_4x3_k3')
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from mmc.core.configs import ConfigError, check_fields, config_from_dict
from mmc.core.seeding import derive, root
from mmc.games import get_variant

__all__ = ["MAX_SUPPORT", "TaskDistribution", "same_game", "same_game_key", "study_tasks", "task_seed"]

MAX_SUPPORT = 100_000
"""The most ids a distribution's patterns may expand to."""

_BRACES = re.compile(r"\{([^{}]*)\}")
_RANGE = re.compile(r"(0|[1-9][0-9]*)\.\.(0|[1-9][0-9]*)")


@dataclass(frozen=True)
class TaskDistribution:
    """Variant ids as a distribution: the ids the ``variants`` patterns expand to, less those of ``exclude``, of which
    ``draw`` are drawn (module docstring)."""

    variants: tuple[str, ...]
    """Id patterns: ``{a..b}`` every integer from ``a`` to ``b``, ``{x,y,z}`` any of the texts; a plain id is itself."""
    exclude: tuple[str, ...] = ()
    """Ids or patterns left out (the same game under another id is left out too)."""
    draw: int | None = None
    """Variants drawn without replacement; ``None``: every one left."""

    def __post_init__(self) -> None:
        check_fields(self)
        if not self.variants:
            raise ConfigError("TaskDistribution", "variants", "must give at least one id or pattern")
        if self.draw is not None and self.draw < 1:
            raise ConfigError("TaskDistribution", "draw", f"must be >= 1 or null, got {self.draw}")
        support = self.support()  # every id checked, the draw against what is left
        if not support:
            raise ConfigError("TaskDistribution", "exclude", f"leaves the distribution empty: {self.describe()}")
        if self.draw is not None and self.draw > len(support):
            raise ConfigError(
                "TaskDistribution",
                "draw",
                f"must be <= the {len(support)} variants of the distribution, got {self.draw}",
            )

    @classmethod
    def from_params(cls, spec: Mapping[str, Any]) -> TaskDistribution:
        """The distribution of a parameter mapping (``variants``, and ``exclude`` and ``draw`` if given);
        ``ConfigError`` naming the field at fault."""
        return config_from_dict(cls, spec, keys=_given(spec))

    def support(self) -> tuple[str, ...]:
        """Every variant of the distribution, in the order the patterns give them, one id per game."""
        return self._support

    @cached_property
    def _support(self) -> tuple[str, ...]:
        """:meth:`support`, expanded and checked once per distribution (the draw, the targets' checks and the report
        read it again)."""
        left_out = {same_game_key(name) for name in _expand_all(self.exclude, "exclude")}
        kept: dict[Any, str] = {}
        for name in _expand_all(self.variants, "variants"):
            key = same_game_key(name)
            if key not in left_out:
                kept.setdefault(key, name)
        return tuple(kept.values())

    def sample(self, seed: np.random.SeedSequence) -> tuple[str, ...]:
        """``draw`` variants of the support (all of them if ``draw`` is ``None``), uniformly without replacement from
        ``seed``, in the support's order."""
        support = self.support()
        if self.draw is None:
            return support
        chosen = np.random.default_rng(seed).choice(len(support), size=self.draw, replace=False)
        return tuple(support[i] for i in sorted(int(c) for c in chosen))

    def member(self, variant: str) -> str | None:
        """The id of the support that is the same game as ``variant`` (``gomoku_6x6`` is ``mnk_6x6_k4``), or ``None``
        if ``variant`` lies outside the distribution."""
        key = same_game_key(variant)
        return next((name for name in self.support() if same_game_key(name) == key), None)

    def describe(self, *, draw: bool = True) -> str:
        """One line: the draw (unless ``draw`` is false), the patterns and what is left out."""
        text = ", ".join(self.variants)
        if self.exclude:
            text += f" less {', '.join(self.exclude)}"
        return text if self.draw is None or not draw else f"{self.draw} drawn from {text}"


def _expand_all(patterns: Sequence[str], field: str) -> list[str]:
    """Every id of ``patterns``, each checked as a variant id; ``ConfigError`` naming ``field`` otherwise."""
    names: list[str] = []
    for pattern in patterns:
        names += _expand(pattern, field)
        if len(names) > MAX_SUPPORT:
            raise ConfigError("TaskDistribution", field, f"expands to more than {MAX_SUPPORT} ids")
    for name in names:
        try:
            get_variant(name)
        except ValueError as error:
            raise ConfigError("TaskDistribution", field, str(error)) from None
    return names


def _expand(pattern: str, field: str) -> list[str]:
    """The ids of one pattern: its braces' choices, every combination, in order (the last brace varies fastest)."""
    parts = _BRACES.split(pattern)  # texts and brace bodies alternate
    if "{" in "".join(parts[::2]) or "}" in "".join(parts[::2]):
        raise ConfigError("TaskDistribution", field, f"pattern {pattern!r} has an unmatched or nested brace")
    choices: list[list[str]] = []
    for body in parts[1::2]:
        span = _RANGE.fullmatch(body)
        if span:
            low, high = int(span[1]), int(span[2])
            if low > high:
                raise ConfigError("TaskDistribution", field, f"pattern {pattern!r}: the range {{{body}}} is empty")
            choices.append([str(n) for n in range(low, high + 1)])
        elif "," in body and all(body.split(",")):
            choices.append(body.split(","))
        else:
            raise ConfigError(
                "TaskDistribution",
                field,
                f"pattern {pattern!r}: {{{body}}} is neither a range {{a..b}} nor a choice {{x,y}}",
            )
    out = []
    for combination in itertools.product(*choices):
        pieces = list(parts)
        pieces[1::2] = combination
        out.append("".join(pieces))
    return out


def same_game_key(variant: str) -> Any:
    """What makes a variant the game it is: its family's data less its id and description (a named variant and its
    generated twin share it), or its id where the family's variant type is no dataclass."""
    v = get_variant(variant)
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        rest = tuple(
            (f.name, getattr(v, f.name)) for f in dataclasses.fields(v) if f.name not in ("name", "description")
        )
        return type(v).__module__, type(v).__qualname__, rest
    return variant


def same_game(a: str, b: str) -> bool:
    """Whether the variant ids ``a`` and ``b`` name the same game (``gomoku_8x8`` and ``mnk_8x8_k5``)."""
    return bool(same_game_key(a) == same_game_key(b))


def task_seed(seed: int) -> np.random.SeedSequence:
    """The stream of a study's task draw: ``("tasks",)`` of the root seed ``seed`` (one draw for every replicate)."""
    return derive(root(seed), "tasks")


def study_tasks(spec: Sequence[str] | Mapping[str, Any], seed: int) -> tuple[str, ...]:
    """A study's meta-training variants from its ``meta.train_variants`` (a list of ids, or a distribution's
    mapping: :class:`TaskDistribution`'s fields) and its root seed; ``ConfigError`` naming the field at fault."""
    if isinstance(spec, Mapping):
        return TaskDistribution.from_params(spec).sample(task_seed(seed))
    return tuple(spec)


def _given(spec: Mapping[str, Any]) -> list[str]:
    """The distribution's fields that ``spec`` gives: ``variants`` is required, ``exclude`` and ``draw`` may be left
    out; ``ConfigError`` naming an unknown key."""
    known = [f.name for f in dataclasses.fields(TaskDistribution)]
    unknown = sorted(str(k) for k in spec if k not in known)
    if unknown:
        raise ConfigError(
            "TaskDistribution", unknown[0], "unknown key (a distribution has variants, and may have exclude and draw)"
        )
    return [k for k in known if k in spec or k == "variants"]
