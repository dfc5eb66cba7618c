"""numba's on-disk cache as ``mmc.games.jit`` ties it to the source: a kernel edit in another file of the package
recompiles its callers (plain ``njit(cache=True)`` keeps running the old rule), and a fresh process loads the
search tree compiled for a family instead of compiling it again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

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


@pytest.mark.slow  # a compilation: 8 s
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


TEMPLATES = """
from mmc.games.jit import specialise
from tpl.helper import step  # a helper of the templates' package, as mmc/search/_tree.py is the search's


def walk(x):
    return G.rule(step(x))


def compiled():
    return specialise([(walk, {})], globals(), __import__("pkg.callee", fromlist=["rule"]), "pkg")["walk"]
"""
HELPER = """
from mmc.games.jit import kernel


@kernel
def step(x):
    return x + {offset}
"""
WALK = (
    "from tpl.generic import compiled\n"
    "walk = compiled()\n"
    "print(walk(10), walk.stats.cache_hits.total(), walk.stats.cache_misses.total())"
)


@pytest.mark.slow  # a compilation: 8 s
def test_an_edit_of_a_helper_of_the_templates_recompiles_the_specialised_code(tmp_path: Path) -> None:
    """The search tree's case: a template compiled against a family's bundle calls a helper of its own package; an
    edit of that helper alone (the template's file and the bundle unchanged) gives the specialised copy a fresh
    cache entry, so it never runs the old helper."""
    for name, files in {"pkg": {"callee.py": CALLEE.format(factor=2)},
                        "tpl": {"generic.py": TEMPLATES, "helper.py": HELPER.format(offset=1)}}.items():  # fmt: skip
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
        for file, text in files.items():
            (tmp_path / name / file).write_text(textwrap.dedent(text))
    assert _run(tmp_path, WALK) == ["22", "0", "1"]  # (10 + 1) * 2, compiled and cached
    assert _run(tmp_path, WALK) == ["22", "1", "0"]
    (tmp_path / "tpl" / "helper.py").write_text(textwrap.dedent(HELPER.format(offset=5)))
    assert _run(tmp_path, WALK) == ["30", "0", "1"]  # the new helper, compiled again
    assert _run(tmp_path, WALK) == ["30", "1", "0"]


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


@pytest.mark.slow  # two fresh processes: 13 s
def test_a_fresh_process_loads_the_compiled_tree_from_the_cache() -> None:
    root = Path(__file__).resolve().parents[2]
    _run(root, TREE)  # fills the cache if this checkout's is empty
    misses, hits = _run(root, TREE)
    assert misses == "0" and int(hits) >= 3


PLAY = """
import numpy as np
from mmc.games import get_family
from mmc.nn import NetworkConfig, build_network
from mmc.play import GreedyPlayer, RandomPlayer, play_match
from mmc.play.selfplay import self_play
from mmc.search import SearchConfig
from mmc.search._simulate import compiled_tree
from mmc.search.evaluators import NetworkLeafEvaluator
game = get_family("gomoku")
rng = np.random.default_rng(1)
net = build_network(NetworkConfig.for_game(game, blocks=1, filters=8, value_hidden=8))
self_play(NetworkLeafEvaluator(net), "gomoku_6x6", 2, SearchConfig(simulations=8), rng, max_plies=12)
play_match(GreedyPlayer(), RandomPlayer(), "connect4", 2, rng, max_plies=12)
tree = compiled_tree(game)
names = ("select_leaves", "expand_leaves")
print(sum(getattr(tree, n).stats.cache_misses.total() for n in names),
      sum(getattr(tree, n).stats.cache_hits.total() for n in names))
"""


@pytest.mark.slow
def test_mmc_compile_fills_the_cache_that_a_later_process_plays_from(tmp_path: Path) -> None:
    """``mmc compile gomoku`` in a copy of the package with an empty cache; then a fresh process's self-play and greedy
    match compile no search tree (it loads it)."""
    shutil.copytree(Path(__file__).resolve().parents[2] / "mmc", tmp_path / "mmc",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "mmc.cli", "compile", "gomoku"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("gomoku: compiled in ") and "1 family is in the cache" in done.stdout
    assert list((tmp_path / "mmc" / "search" / "__pycache__").glob("*gomoku*.nbi"))
    played = subprocess.run([sys.executable, "-c", PLAY], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=900, check=True)  # fmt: skip
    misses, hits = played.stdout.split()
    assert misses == "0" and int(hits) >= 2


def test_mmc_compile_names_an_unknown_family_before_compiling(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "mmc.cli", "compile", "gomoku", "hexapawn"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "mmc: error: unknown game family 'hexapawn' (known: chess, gomoku, jump)\n"
