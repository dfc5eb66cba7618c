"""Compiled kernels whose numba cache follows their source: :func:`kernel`, :func:`source_stamp`, :func:`specialise`.

numba's on-disk cache (``cache=True``) keys a compiled function by its own file's timestamp and its bytecode. A
kernel that calls a kernel of another file embeds the callee's machine code, so an edit of the callee alone
leaves the caller's cache stale: it keeps running the old rule. Two tools tie a cache to every file it depends on:

- :func:`kernel`, numba's ``njit(cache=True)`` with the function's cache named after a hash of every ``.py`` file of
  its package (:func:`source_stamp`): an edit anywhere in a game family's package gives all its kernels fresh cache
  entries, so a family's kernels may call each other across files;
- :func:`specialise`, for code generic over a game (the search tree, ``mmc.search``): a fresh copy of each template
  function bound to one family's kernel bundle (the global name ``G``), compiled and cached once per family and
  named after the bundle's and the templates' package's :func:`source_stamp`, so that no family recompiles another's
  tree, and a kernel edit or an edit of the search's own helpers recompiles the tree that calls them.

The names are the cache's only key besides numba's own, so two families (or two versions of one) never share an
entry. The built-in families' entries live in ``mmc``'s own ``__pycache__`` folders (``mmc compile`` fills them);
a family of another package (its kernels, and the trees compiled against them) is cached in the user's cache folder
(:class:`UserCacheLocator`). Stale entries are left behind (a few hundred KB a version).
"""

from __future__ import annotations

import hashlib
import sys
import types
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from numba import njit
from numba.core import caching

__all__ = ["OUTSIDE", "kernel", "source_stamp", "specialise"]

F = TypeVar("F", bound=Callable[..., Any])

OUTSIDE = "__mmc_user_cache__"
"""The attribute that marks a function compiled for a game family of another package (its own kernels, and the
search trees compiled against them): numba caches it in the user's cache folder, never in a package's folder."""


class UserCacheLocator(caching.UserWideCacheLocator):
    """numba's user-wide cache (``~/.cache/numba``, or ``$XDG_CACHE_HOME/numba``) for every function marked
    :data:`OUTSIDE`: an installed package's folder may be read-only (a system site-packages, a container image), and
    ``mmc``'s is not another package's to write in. ``NUMBA_CACHE_DIR``, when set, still comes first."""

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> Any:
        if not getattr(py_func, OUTSIDE, False):
            return None
        return super().from_function(py_func, py_file)


if UserCacheLocator not in caching.CacheImpl._locator_classes:  # after numba's user-provided folder, before in-tree
    caching.CacheImpl._locator_classes.insert(1, UserCacheLocator)


def _outside(module: str) -> bool:
    """Whether ``module`` belongs to another package than ``mmc``."""
    return module.partition(".")[0] != "mmc"


@cache
def source_stamp(module: str) -> str:
    """A short hash of the source of ``module``'s package: every ``.py`` file in the directory of the module, when it
    is a package's (an ``__init__.py`` beside it), else the module's own file."""
    path = Path(sys.modules[module].__file__ or "")
    package = sys.modules[module].__package__ or ""
    files = sorted(path.parent.glob("*.py")) if package and (path.parent / "__init__.py").exists() else [path]
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.name.encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:12]


def kernel(fn: F | None = None, *, depends_on: Iterable[str] = (), **options: Any) -> Any:
    """``numba.njit(cache=True, **options)``, its cache tied to the source of the function's whole package, and of
    the packages of the modules ``depends_on`` names (another package's kernels it calls, whose machine code it
    embeds: ``examples/jump_moves`` calls the jump game's).

    Use as ``@kernel``, ``@kernel(inline="always")`` or ``@kernel(depends_on=("mmc.games.jump.rules",))``.
    """
    others = "".join(f"_{source_stamp(module)}" for module in depends_on)

    def wrap(f: F) -> F:
        f.__qualname__ = f"{f.__qualname__}__{source_stamp(f.__module__)}{others}"
        if _outside(f.__module__):
            setattr(f, OUTSIDE, True)
        return njit(cache=True, **options)(f)  # type: ignore[no-any-return]

    return wrap(fn) if fn is not None else wrap


def specialise(templates: Iterable[tuple[Callable[..., Any], dict[str, Any]]], home: dict[str, Any],
               bundle: types.ModuleType, tag: str) -> dict[str, Any]:  # fmt: skip
    """Compile ``templates`` (plain functions with their ``njit`` options) against the kernel ``bundle``.

    Every template is copied with a globals dict of its own: ``home`` (the template module's globals) with ``G``
    bound to ``bundle`` and each template's name bound to its compiled copy, so that templates calling templates
    call the same family's copies. Each copy is cached under its template's name, ``tag`` and a hash of the bundle's
    (with the modules its ``DEPENDS_ON`` names, if any) and the templates' :func:`source_stamp` (an edit of a helper of
    the templates' package, ``mmc/search/_tree.py``, recompiles the trees as a kernel edit does). Returns the compiled
    copies by name.
    """
    scope = dict(home)
    scope["G"] = bundle
    # the rules' sources (the bundle's package and those its kernels embed: its DEPENDS_ON) and the templates'
    rules = source_stamp(bundle.__name__) + "".join(source_stamp(m) for m in getattr(bundle, "DEPENDS_ON", ()))
    both = f"{rules}{source_stamp(home['__name__'])}"
    suffix = f"{tag}_{hashlib.sha256(both.encode()).hexdigest()[:12]}"
    compiled: dict[str, Any] = {}
    for fn, options in templates:
        copy = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
        copy.__qualname__ = f"{fn.__qualname__}__{suffix}"
        copy.__module__ = fn.__module__
        copy.__doc__ = fn.__doc__
        if _outside(bundle.__name__):  # another package's game: its trees cached in the user's folder
            setattr(copy, OUTSIDE, True)
        compiled[fn.__name__] = scope[fn.__name__] = njit(cache=True, **options)(copy)
    return compiled
