"""numba's on-disk cache as ``mmc.games.jit`` ties it to the source: a kernel edit in another file of the package
recompiles its callers (plain ``njit(cache=True)`` keeps running the old rule), and a fresh process loads the
search tree compiled for a family instead of compiling it again."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

CALLER = """
from pkg.callee import rule
from mmc.games.jit import kernel


@kernel
def caller(x):
    return rule(x) + 1
"""
CALLEE = """
from mmc.games.jit import kernel


@kernel
def rule(x):
    return x * {factor}
"""
RUN = (
    "from pkg.caller import caller\n"
    "print(caller(10), caller.stats.cache_hits.total(), caller.stats.cache_misses.total())"
)


def _run(root: Path, code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_an_edit_of_a_callee_in_another_file_recompiles_its_caller(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "caller.py").write_text(textwrap.dedent(CALLER))
    (package / "callee.py").write_text(textwrap.dedent(CALLEE.format(factor=2)))
    assert _run(tmp_path, RUN) == ["21", "0", "1"]  # compiled and cached
    assert _run(tmp_path, RUN) == ["21", "1", "0"]  # a fresh process loads it: no compilation
    (package / "callee.py").write_text(textwrap.dedent(CALLEE.format(factor=3)))  # the caller's file is unchanged
    assert _run(tmp_path, RUN) == ["31", "0", "1"]  # the new rule, compiled again
    assert _run(tmp_path, RUN) == ["31", "1", "0"]


TREE = """
import numpy as np
import mmc.games
from mmc.search import RolloutEvaluator, SearchConfig, search
from mmc.search._simulate import compiled_tree
rng = np.random.default_rng(0)
search([mmc.games.initial_state("gardner")], RolloutEvaluator(rng), SearchConfig(simulations=16), rng)
tree = compiled_tree(mmc.games.get_game("gardner"))
names = ("select_leaves", "expand_leaves", "rollout_values")
print(sum(getattr(tree, n).stats.cache_misses.total() for n in names),
      sum(getattr(tree, n).stats.cache_hits.total() for n in names))
"""


def test_a_fresh_process_loads_the_compiled_tree_from_the_cache() -> None:
    root = Path(__file__).resolve().parents[2]
    _run(root, TREE)  # fills the cache if this checkout's is empty
    misses, hits = _run(root, TREE)
    assert misses == "0" and int(hits) >= 3
