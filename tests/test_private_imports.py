"""Each package's private names stay inside it: no module of mmc/ or pipelines/ reaches for a ``_``-prefixed module
or name of another package (``from x import _y``, ``import x._y``, ``from x._y import z``, ``module._y``).

A package's own modules may share private modules and names (``mmc/search/forest.py`` uses ``mmc/search/_tree.py``);
what another package may use is the package's public modules and names (``mmc.games.chess.board`` for the compiled
layer).
"""

from __future__ import annotations

import ast
from pathlib import Path

import mmc

ROOT = Path(mmc.__file__).parent.parent
PROJECT = {"mmc", "pipelines"}
NAMEDTUPLE_API = {"_replace", "_fields", "_asdict", "_make", "_field_defaults"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _package(module: str, path: Path) -> str:
    """The package a module belongs to: itself for an ``__init__.py``, else its parent."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _owner(dotted: str) -> str | None:
    """The package that owns the first private part of a dotted module path, or ``None`` if none is private."""
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if _private(part):
            owner = parts[:i]  # a package, or a module whose package owns the name
            return ".".join(owner if ROOT.joinpath(*owner).is_dir() else owner[:-1])
    return None


def _resolve(node: ast.ImportFrom, module: str, path: Path) -> str:
    if node.level == 0:
        return node.module or ""
    base = _package(module, path).split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def offences(path: Path) -> list[str]:
    """What ``path`` imports or reads of other packages' private names, one line each."""
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    package = _package(module, path)
    found: list[str] = []
    imported: dict[str, str] = {}  # local name -> the project module or package it came from

    def check(dotted: str, what: str, lineno: int) -> None:
        owner = _owner(dotted)
        if owner is not None and dotted.split(".")[0] in PROJECT and owner != package:
            found.append(f"{path.relative_to(ROOT)}:{lineno}: {what}")

    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                check(alias.name, f"import {alias.name}", node.lineno)
                bound = alias.name if alias.asname else alias.name.split(".")[0]
                imported[alias.asname or bound] = bound
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(node, module, path)
            if source.split(".")[0] not in PROJECT:
                continue
            check(source, f"from {source} import ...", node.lineno)
            for alias in node.names:
                check(f"{source}.{alias.name}", f"from {source} import {alias.name}", node.lineno)
                imported[alias.asname or alias.name] = f"{source}.{alias.name}"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in imported
            and _private(node.attr)
            and node.attr not in NAMEDTUPLE_API
        ):
            check(f"{imported[node.value.id]}.{node.attr}", f"{node.value.id}.{node.attr}", node.lineno)
    return found


def project_modules() -> list[Path]:
    return sorted([*(ROOT / "mmc").rglob("*.py"), *(ROOT / "pipelines").rglob("*.py")])


def test_no_module_uses_another_packages_private_names() -> None:
    modules = project_modules()
    assert len(modules) > 30
    offenders = [line for path in modules for line in offences(path)]
    assert offenders == [], "\n".join(offenders)


def test_the_check_catches_each_form(tmp_path: Path) -> None:
    """The checker itself: each form of reaching into another package is reported, a package's own use is not."""
    global ROOT
    saved = ROOT
    ROOT = tmp_path
    try:
        search = tmp_path / "mmc" / "search"
        search.mkdir(parents=True)
        (tmp_path / "mmc" / "engine").mkdir()
        bad = search / "bad.py"
        bad.write_text(
            "from mmc.games.chess.state import _array\n"
            "from mmc.games.chess import _kernels\n"
            "import mmc.games.chess._kernels\n"
            "from mmc.games.chess._kernels import status\n"
            "from mmc.games.chess import actions\n"
            "actions._move_type(0, 1, None, 4)\n"
        )
        good = search / "good.py"
        good.write_text(
            "from mmc.search import _tree\n"
            "from mmc.search._tree import Nodes\n"
            "from . import _tree as t\n"
            "from mmc.games.chess import board\n"
            "board.table('gardner')._replace\n"
            "from mmc.search.forest import _grown\n"
        )
        assert len(offences(bad)) == 6, offences(bad)
        assert offences(good) == []
    finally:
        ROOT = saved
