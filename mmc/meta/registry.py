"""The learners this process knows: the built-ins (``mmc.meta.builtin``) and those of the installed packages'
``mmc.learners`` entry points (loaded the first time, through ``mmc.core.plugins``), by name."""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint
from typing import Any

from mmc.core import plugins
from mmc.meta.builtin import BUILT_IN
from mmc.meta.learners import Learner, LearnerError, _valid

__all__ = ["get_learner", "installed_learners", "register_learner"]


@cache
def _registry() -> tuple[dict[str, Learner], dict[str, list[str]]]:
    """Every learner by name (the built-ins, then the plugins in name order), and the names that more than one
    installed package claims, with who claims them."""
    found: dict[str, Learner] = {learner.name: learner for learner in BUILT_IN}
    owner = dict.fromkeys(found, plugins.HOME)
    claimed: dict[str, list[str]] = {}

    def add(point: EntryPoint, obj: Any) -> None:
        learner, dist = _valid(point.name, obj), plugins.distribution(point)
        if learner.name in found:  # a built-in's name stays the built-in's; two packages' is refused when named
            if owner[learner.name] != plugins.HOME:
                claimed.setdefault(learner.name, [owner[learner.name]]).append(dist)
            raise ValueError(f"the learner name {learner.name!r} is taken (by {owner[learner.name]})")
        found[learner.name], owner[learner.name] = learner, dist

    plugins.each(plugins.LEARNERS_GROUP, add)
    return found, claimed


def register_learner(learner: Learner) -> Learner:
    """Add ``learner`` to this process's learners (a notebook's or a test's; a study's stages, which run in processes
    of their own, find learners through the entry point group ``mmc.learners`` only); :class:`LearnerError` if its
    name is malformed or taken, ``TypeError`` if it is no learner."""
    found, _ = _registry()
    try:
        checked = _valid(learner.name if isinstance(learner, Learner) else "", learner)
    except ValueError as error:
        raise LearnerError(f"learner {getattr(learner, 'name', learner)!r}: {error}") from None
    if checked.name in found:
        raise LearnerError(f"learner name {checked.name!r} is taken")
    found[checked.name] = checked
    return checked


def installed_learners() -> dict[str, Learner]:
    """Every learner that loaded: the built-ins and those of installed packages (``mmc.learners``), by name."""
    return dict(_registry()[0])


def get_learner(name: str) -> Learner:
    """The learner named ``name``; :class:`LearnerError` in one line if none is, listing the installed ones, or if
    two installed packages claim the name."""
    found, claimed = _registry()
    if name in claimed:
        raise LearnerError(f"learner {name!r} is claimed by more than one package ({', '.join(claimed[name])}): "
                           "uninstall all but one")  # fmt: skip
    if name not in found:
        raise LearnerError(f"unknown learner {name!r} (installed: {', '.join(sorted(found))})")
    return found[name]
