"""The example game package (``examples/hexapawn``: Hexapawn and Octapawn, written outside ``mmc`` to the game protocol)
installed as a user would install it, into a temporary target with no network, and run by fresh processes through
the ``mmc`` command, PettingZoo's ``api_test`` and Gymnasium's ``check_env``, a match with its own player kind, and a
generation of the AlphaZero loop; nothing under ``mmc/`` names it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "hexapawn"


def install_package(folder: Path, root: Path) -> Path:
    """The package of ``folder`` built from a copy of it (the build writes beside its sources) and installed into
    ``root/site``, as ``pip install --target`` lays it out, with no network; that folder."""
    source = root / "source"
    shutil.copytree(folder, source)
    site = root / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "--target", str(site), str(source)], check=True, capture_output=True, timeout=300)  # fmt: skip
    return site


def install_example(root: Path) -> Path:
    """The example game package installed into ``root/site`` (:func:`install_package`); that folder."""
    site = install_package(EXAMPLE, root)
    assert (site / "hexapawn" / "game.py").is_file() and list(site.glob("mmc_hexapawn-*.dist-info"))
    return site


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_example(tmp_path_factory.mktemp("hexapawn"))


def _run(site: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])}
    done = subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=env, cwd=site, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "mmc: plugin" not in done.stderr, done.stderr  # it loads cleanly
    return done


def test_mmc_names_no_example_game() -> None:
    assert not list((REPO / "mmc").rglob("hexapawn*"))
    assert not any(("import hexapawn" in p.read_text() or "from hexapawn" in p.read_text())
                   for p in (REPO / "mmc").rglob("*.py"))  # fmt: skip


@pytest.mark.slow  # a pip install and fresh processes: 20-40 s
def test_the_installed_game_through_the_command_line(site: Path) -> None:
    listed = _run(site, "-m", "mmc", "variants").stdout
    assert "hexapawn: Hexapawn and Octapawn" in listed and "  octapawn " in listed
    counts = [_run(site, "-m", "mmc", "perft", "hexapawn", "--depth", str(d)).stdout.strip() for d in range(8)]
    assert counts == ["1", "3", "10", "28", "56", "70", "64", "20"]  # finished games have no moves
    match = _run(site, "-m", "mmc", "match", "pawnrush", "greedy", "--variant", "octapawn", "--games", "4").stdout
    assert match.startswith("pawnrush vs greedy on octapawn: ")
    shown = _run(site, "-m", "mmc", "show", "hexapawn", "--position", "p.p/.P./P.P b").stdout
    assert shown.splitlines()[:3] == ["3 p . p", "2 . P .", "1 P . P"] and shown.splitlines()[-1] == "p.p/.P./P.P b"


@pytest.mark.slow
def test_the_installed_game_in_the_environments_and_the_alphazero_loop(site: Path) -> None:
    script = textwrap.dedent("""
        import warnings

        import numpy as np
        from gymnasium.utils.env_checker import check_env
        from pettingzoo.test import api_test

        from mmc.loops.alphazero import AlphaZeroConfig, alphazero
        from mmc.env import GameGym, env
        from mmc.games import get_family, outcome
        from mmc.nn import NetworkConfig, build_network
        from mmc.play import read_records, replay
        from mmc.search import SearchConfig
        from mmc.core.seeding import root
        from mmc.train import TrainConfig

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for variant in ("hexapawn", "octapawn"):
                api_test(env(variant=variant), num_cycles=30)
            check_env(GameGym(variant="octapawn", opponent="pawnrush"), skip_render_check=True)
        game = get_family("hexapawn")
        net = build_network(NetworkConfig.for_game(game, blocks=1, filters=8, value_hidden=8), seed=0)
        config = AlphaZeroConfig(generations=1, games=8, chunks=2, concurrent=4, max_plies=16, window=1)
        (step,) = alphazero(net, "octapawn", config, SearchConfig(simulations=12), TrainConfig(epochs=1, batch_size=8),
                            root(0))
        assert len(step.self_play.records) == 8 and np.isfinite([loss.total for loss in step.losses]).all()
        assert step.self_play.examples[0].planes.shape[1:] == (3, 4, 4)
        assert all(outcome(replay(record)[-1]) is not None for record in step.self_play.records)
        print("ok", len(step.self_play.records))
        """)  # fmt: skip
    assert _run(site, "-c", script).stdout.splitlines()[-1] == "ok 8"


@pytest.mark.slow  # a fresh process that compiles the game's kernels and search tree: about 20 s
def test_the_game_imported_before_mmc_works_and_its_compiled_code_goes_to_the_users_cache(
    site: Path, tmp_path: Path
) -> None:
    """The trap a new user met: a script that imports its own game package first (which imports ``mmc.games`` while
    it is itself half-imported) still finds its game, since the registry loads the entry points only when asked.
    What numba compiles for it (its kernels, the search tree against them) is cached under the user's cache folder,
    never in an installed package's folder (``mmc.games.jit.UserCacheLocator``)."""
    script = textwrap.dedent("""
        import hexapawn  # before anything of mmc
        import numpy as np

        from mmc.core import plugins
        from mmc.games import get_game, initial_state
        from mmc.play import parse_player, play_match

        assert get_game("octapawn").name == "hexapawn" and initial_state("hexapawn").variant_name == "hexapawn"
        searcher = parse_player("mcts:8", variant="octapawn")
        result = play_match(searcher, parse_player("pawnrush", variant="octapawn"), "octapawn", 2,
                            np.random.default_rng(0))
        assert not plugins.problems(), plugins.problems()
        print("ok", result.games)
        """)  # fmt: skip
    before = {p for p in REPO.joinpath("mmc").rglob("*") if "__pycache__" in p.parts}
    cache = tmp_path / "cache"
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=os.pathsep.join([str(site), str(REPO)]), XDG_CACHE_HOME=str(cache))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=site,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "2"] and "mmc: plugin" not in done.stderr
    cached = [p.name for p in (cache / "numba").rglob("*.nbi")]
    assert any(name.startswith("rules.") for name in cached), cached  # the game's kernels (hexapawn/rules.py)
    assert any("__hexapawn_" in name for name in cached), cached  # the search compiled against them
    added = {p for p in REPO.joinpath("mmc").rglob("*") if "__pycache__" in p.parts} - before
    assert not added, sorted(added)
    assert not list(site.joinpath("hexapawn").rglob("*.nbi"))  # nor in the game's own installed folder
