"""The house's plan: which room may import which, no import circle between files, and the library stays pure
(STYLE.md, three layers: ``mmc/`` never imports the orchestration tools, ``pipelines/`` or ``benchmarks/``).

Every import counts, the lazy ones inside functions included: a module imports what any of its lines names. The
rooms, lowest first (``python -m pytest tests/test_layout.py`` shows the circles and the upward imports it finds):

- ``mmc.core``: the ground, what every room uses (configs, seeding, fan-out, atomic writes, the plugin loop); it
  imports nothing of ``mmc``;
- ``mmc.games``: the game protocol, the registry and the families' rules;
- ``mmc.nn``: the network;
- ``mmc.search`` and ``mmc.train``, side by side: the search and the training, each on the network alone;
- ``mmc.play``: players, matches, self-play, records;
- ``mmc.loops``: the AlphaZero loop;
- ``mmc.meta``: the meta-learners and the adaptation;
- ``mmc.evaluation``: evaluation matches, the Elo fit, comparisons and verdicts, leaderboards, the starts' rules;
- ``mmc.env`` and ``mmc.web``, side by side: the environments and the web app;
- ``mmc`` itself: the package's face, its command line and ``__main__``;
- ``pipelines``: the study;
- ``benchmarks``: the measurements.

A module may import its own room and the rooms below it, never one beside or above it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import mmc

REPO = Path(mmc.__file__).resolve().parent.parent
FORBIDDEN = {"prefect", "mlflow", "dvc", "yaml", "pyffish"}
ROOMS = [
    ("mmc.core",),
    ("mmc.games",),
    ("mmc.nn",),
    ("mmc.search", "mmc.train"),
    ("mmc.play",),
    ("mmc.loops",),
    ("mmc.meta",),
    ("mmc.evaluation",),
    ("mmc.env", "mmc.web"),
    ("mmc",),
    ("pipelines",),
    ("benchmarks",),
]
"""The rooms in order, lowest first; the rooms of one entry stand side by side."""
LEVEL = {room: level for level, rooms in enumerate(ROOMS) for room in rooms}


def modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of ``packages`` (folders under ``root``) by its dotted name."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "template" in path.relative_to(root).parts:
                continue
            parts = list(path.relative_to(root).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_graph(found: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of ``found`` it imports (at the top or in a function; ``from P import m`` of a module m
    is an import of m, of anything else an import of P)."""
    graph: dict[str, set[str]] = {name: set() for name in found}
    for name, path in found.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in found else base for alias in node.names]
            for target in targets:
                while target and target not in found:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: every strongly connected group of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:  # iterative, so that a long chain needs no deep recursion
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(found)


def room_of(name: str) -> str:
    """The room of a module: ``mmc.X`` for a module in the folder ``mmc/X/``, ``mmc`` for one at its root."""
    parts = name.split(".")
    if parts[0] != "mmc":
        return parts[0]
    if len(parts) > 1 and f"mmc.{parts[1]}" in LEVEL:
        return f"mmc.{parts[1]}"
    return "mmc"


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a room beside or above the importer's (or of a room the plan does not know)."""
    found = []
    for name, targets in sorted(graph.items()):
        mine = room_of(name)
        for target in sorted(targets):
            theirs = room_of(target)
            if theirs == mine:
                continue
            if mine not in LEVEL or theirs not in LEVEL or LEVEL[theirs] >= LEVEL[mine]:
                found.append(f"{name} ({mine}) imports {target} ({theirs})")
    return found


def test_every_room_is_in_the_plan() -> None:
    folders = {f"mmc.{p.name}" for p in (REPO / "mmc").iterdir() if (p / "__init__.py").is_file()}
    assert folders == {room for rooms in ROOMS for room in rooms if room.startswith("mmc.")}
    loose = sorted(p.name for p in (REPO / "mmc").glob("*.py"))  # the root keeps the face, __main__ and the CLI
    assert [name for name in loose if name not in ("__init__.py", "__main__.py") and not name.startswith("cli")] == []


def test_no_import_circle_and_no_upward_import() -> None:
    graph = import_graph(modules(REPO, ["mmc", "pipelines", "benchmarks"]))
    assert circles(graph) == []
    assert upward(graph) == []


def test_the_checks_find_a_constructed_circle_and_an_upward_import(tmp_path: Path) -> None:
    for name, text in {
        "mmc/__init__.py": "",
        "mmc/core/__init__.py": "",
        "mmc/core/a.py": "def f():\n    from mmc.core import b\n",  # a lazy import counts
        "mmc/core/b.py": "from mmc.core.a import f\n",
        "mmc/games/__init__.py": "",
        "mmc/games/c.py": "from . import d\n",
        "mmc/games/d.py": "import mmc.play.e\n",
        "mmc/play/__init__.py": "",
        "mmc/play/e.py": "",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = import_graph(modules(tmp_path, ["mmc"]))
    assert circles(graph) == [["mmc.core.a", "mmc.core.b"]]
    assert upward(graph) == ["mmc.games.d (mmc.games) imports mmc.play.e (mmc.play)"]


def test_mmc_imports_no_orchestration_or_gpl_oracle() -> None:
    offenders = []
    for path in Path(mmc.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []
