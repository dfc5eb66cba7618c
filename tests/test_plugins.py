"""Games and players from installed distributions (``mmc.core.plugins``: the ``mmc.games`` and ``mmc.players`` entry
points), seen by fresh processes as an installed package would be: ``python -m mmc``, the ``mmc`` command, a
spawned worker; a broken plugin named in one line while everything else works; the kernel contract checked when a
game registers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import types
from dataclasses import replace
from pathlib import Path

import pytest

from mmc.games import Game, get_family, register_game, unregister_game

REPO = Path(__file__).resolve().parents[1]


def _distribution(site: Path, name: str, entry_points: str, modules: dict[str, str] | None = None) -> None:
    """An installed distribution in ``site`` (a folder on the path), as pip lays one out: its modules and its
    ``dist-info`` with the entry points."""
    info = site / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for module, text in (modules or {}).items():
        (site / f"{module}.py").write_text(textwrap.dedent(text))


def _run(site: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(REPO)])}
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=env, cwd=site, timeout=600)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """Three installed distributions: a game (the tests' bonus game) with a player kind, and a broken one."""
    site = tmp_path / "site"
    _distribution(
        site,
        "mmc_bonus_plugin",
        """
        [mmc.games]
        bonus = tests.games.bonus:GAME

        [mmc.players]
        first = bonus_players:first_move
        """,
        {
            "bonus_players": """
            from mmc.games import legal_moves


            class FirstMove:
                name = "first"

                def play(self, states, rng):
                    return [legal_moves(state)[0] for state in states]


            def first_move(fields, variant):
                return FirstMove()


            first_move.usage = "first"
            """
        },
    )
    _distribution(site, "mmc_broken_plugin", "[mmc.games]\nbroken = no_such_module:GAME\n")
    _distribution(site, "mmc_wrong_plugin", "[mmc.players]\nrandom = bonus_players:first_move\n")
    return site


@pytest.mark.slow  # fresh processes: 5 s
def test_an_installed_game_and_player_work_through_every_command(site: Path) -> None:
    listed = _run(site, "-m", "mmc", "variants")
    assert listed.returncode == 0, listed.stderr
    assert "bonus: " in listed.stdout and "bonus_2x3" in listed.stdout and "gardner" in listed.stdout
    problems = listed.stderr.strip().splitlines()
    assert len(problems) == 2, listed.stderr  # each broken plugin in one line, naming its distribution
    assert problems[0].startswith("mmc: plugin broken = no_such_module:GAME of mmc_broken_plugin (mmc.games) left out")
    assert "ModuleNotFoundError" in problems[0]
    assert problems[1].startswith("mmc: plugin random = bonus_players:first_move of mmc_wrong_plugin (mmc.players)")
    assert "the player kind 'random' is taken" in problems[1]
    match = _run(site, "-m", "mmc", "match", "first", "greedy", "--variant", "bonus_3x3", "--games", "2")
    assert match.returncode == 0 and match.stdout.startswith("first vs greedy on bonus_3x3: "), match.stderr
    perft = _run(site, "-m", "mmc", "perft", "bonus_2x3", "--depth", "2")
    assert perft.returncode == 0 and perft.stdout.strip().isdigit(), perft.stderr
    # a spawned worker (the study's process runner) imports mmc afresh and finds the game too
    (site / "spawned.py").write_text(textwrap.dedent("""
        import multiprocessing as mp


        def family(variant):
            from mmc.games import get_game

            return get_game(variant).name


        if __name__ == "__main__":
            with mp.get_context("spawn").Pool(1) as pool:
                print(pool.apply(family, ("bonus_2x3",)))
        """))  # fmt: skip
    spawned = _run(site, "spawned.py")
    assert spawned.returncode == 0 and spawned.stdout.strip() == "bonus", spawned.stderr


@pytest.mark.slow  # a fresh process: 3 s
def test_a_clash_of_variant_ids_is_refused_naming_both_distributions(tmp_path: Path) -> None:
    """Two installed packages whose games claim the same variant ids: the first by entry point name keeps them, the
    other is left out in one line that names its distribution and the one holding the ids; whatever the script
    imported first."""
    site = tmp_path / "site"
    _distribution(site, "mmc_first", "[mmc.games]\nbonus = tests.games.bonus:GAME\n")
    _distribution(site, "mmc_second", "[mmc.games]\ntwin = twin_game:GAME\n", {
        "twin_game": """
            from dataclasses import replace

            from tests.games.bonus import GAME as BONUS

            GAME = replace(BONUS, name="twin")
            """,
    })  # fmt: skip
    script = "import twin_game\nfrom mmc.games import get_game\nprint(get_game('bonus_3x3').name)"
    done = _run(site, "-c", script)
    assert done.returncode == 0 and done.stdout.strip() == "bonus", done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("mmc: plugin twin = twin_game:GAME of mmc_second (mmc.games) left out: ValueError: game "
                           "'twin': variant ids already taken by the family 'bonus' of mmc_first: bonus_")  # fmt: skip


def test_a_game_that_breaks_the_kernel_contract_is_refused_naming_the_kernel() -> None:
    chess = get_family("chess")
    bundle = types.ModuleType("half_kernels")
    for name in ("BOARD_LEN", "MAX_MOVES", "ONGOING", "ALTERNATES", "legal_moves_into", "play", "game_end"):
        setattr(bundle, name, getattr(chess.kernels, name))
    broken = replace(chess, name="halfchess", variants={}, kernels=bundle)
    with pytest.raises(ValueError) as caught:
        register_game(broken)
    message = str(caught.value)
    assert message.startswith("game 'halfchess': kernel bundle 'half_kernels' has no kernel end_value(code)")
    assert "\n" not in message
    bundle.end_value = bundle.play  # the wrong arguments
    bundle.status = bundle.cutoff_value = bundle.fill_planes = bundle.play
    with pytest.raises(ValueError, match=r"kernel end_value takes \(board, side, move, tab\), the contract calls it"):
        register_game(broken)
    bundle.ALTERNATES = 1
    with pytest.raises(ValueError, match="ALTERNATES must be a bool, got 1"):
        register_game(broken)
    with pytest.raises(ValueError):
        get_family("halfchess")
    unregister_game("halfchess")


def test_every_builtin_family_keeps_the_kernel_contract() -> None:
    from mmc.games import games
    from mmc.games.protocol import check_kernels

    for game in games():
        check_kernels(game)
    assert isinstance(get_family("gomoku"), Game)
