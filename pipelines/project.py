"""A study anywhere: ``python -m pipelines init DIR`` makes a self-contained study project outside this checkout.

The new folder holds what ``make study`` needs and nothing else: ``params.yaml`` (a frozen benchmark's definition, or
a profile this module proposes for a game family, an installed game's included), ``dvc.yaml`` (the installed
package's pipeline, ``pipelines.studies.anywhere_dvc_yaml``), ``reports/study.ipynb`` (the report notebook), a
``.gitignore``, and git and DVC initialised with one commit. Everything comes from the installed packages
(``pipelines/template``, ``pipelines/frozen``), so it works wherever ``meta-minichess`` is installed::

    python -m pipelines init ~/studies/k4 --benchmark kinarow-v1 --learners my_learner
    python -m pipelines init ~/studies/hexapawn --family hexapawn
    cd ~/studies/k4 && python -m pipelines study       # the servers, outputs, MLflow runs and report of make study

The study's folder is its own project: its outputs, ``mlflow.db`` and Prefect home are there, and its servers are its
own (``pipelines.services``). Its jobs are keyed with the installed code's hash (``pipelines.paths.code_root``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from pipelines import TELEMETRY_OFF
from pipelines.benchmarks import get_benchmark
from pipelines.studies import TEMPLATE, anywhere_dvc_yaml

__all__ = ["SIZES", "InitError", "init_study", "propose"]

SIZES = {
    # key: (small, tiny)
    "replicates": ([0, 1], [0]),
    "network.blocks": (2, 1),
    "network.filters": (32, 8),
    "network.value_hidden": (64, 8),
    "search.simulations": (32, 4),
    "train.epochs": (4, 1),
    "expert.generations": (6, 2),
    "expert.games": (32, 4),
    "expert.concurrent": (32, 4),
    "meta.tasks": (2, 2),
    "meta.generations": (6, 2),
    "meta.games": (16, 2),
    "meta.epochs": (4, 1),
    "meta.concurrent": (32, 2),
    "learners.budget": (192, 16),
    "learners.metafocus.iterations": (3, 2),
    "learners.metafocus.games": (8, 2),
    "learners.metafocus.positions": (32, 8),
    "learners.metafocus.reward_games": (4, 2),
    "learners.metafocus.reward_simulations": (8, 2),
    "learners.metafocus.epochs": (4, 1),
    "learners.metafocus.concurrent": (32, 2),
    "adapt.budgets": ([0, 32], [0, 2]),
    "adapt.epochs": (4, 1),
    "adapt.concurrent": (32, 2),
    "evaluate.games": (16, 2),
    "evaluate.search.simulations": (16, 2),
    "evaluate.settle_games": (8, 0),
    "rate.ladder_games": (16, 2),
    "rate.games": (10, 2),
    "rate.neighbours": (2, 1),
    "rate.bootstrap": (100, 20),
}  # fmt: skip
"""The budgets of the profile :func:`propose` makes for a family: ``small`` (minutes a stage on 2 cores: a first
answer) and ``tiny`` (seconds a stage: to try the pipeline, not for numbers). The other keys are the chess-v1
benchmark's."""
BASE = "chess-v1"
"""The benchmark whose definition a proposed profile starts from (every key, with the study's tested settings)."""
GITIGNORE = """\
# what the study's services write (DVC adds its outputs' own .gitignore lines when they run)
/mlflow.db
/mlartifacts/
/.prefect/
/.mlflow-ui/
/data/report.failed
"""


class InitError(ValueError):
    """A study that ``init`` cannot make; the message is one line."""


def propose(family: str, size: str = "small") -> dict[str, Any]:
    """A study profile for game family ``family`` (any installed one): its variants that a study may take, the last
    held out as the target, the others meta-training tasks, the first the expert's; the budgets of :data:`SIZES`;
    random, greedy and the unadapted start as opponents, random < mcts:25 < greedy as the ladder; the family's move
    cap (or the rule book's game length, where longer) everywhere. :class:`InitError` for an unknown family or one
    with fewer than two variants."""
    from mmc.games import games, get_family

    try:
        game = get_family(family)
    except (KeyError, ValueError):
        raise InitError(f"no game family {family!r} (the families: {', '.join(g.name for g in games())})") from None
    variants = [name for name, info in game.variants.items() if info.in_default_study]
    if len(variants) < 2:
        raise InitError(f"family {family!r} has {len(variants)} variant(s) a study may take: a study needs one to "
                        "train on and one held out")  # fmt: skip
    *trained, target = variants[:5]
    longest = max((game.game_plies(v) for v in variants) if game.game_plies else [0])
    plies = max(game.default_max_plies, longest)
    square = min(game.variants[v].height * game.variants[v].width for v in (*trained, target))
    params = get_benchmark(BASE).study_params()
    params["benchmark"] = None
    which = 0 if size == "small" else 1
    for key, values in SIZES.items():
        _put(params, key, values[which])
    params["expert"]["variants"] = {trained[0]: {}}
    params["expert"]["search"] = {"solver": True, "endgame_starts": 0.0}
    params["expert"]["train"] = {"value_discount": 0.97, "convert_weight": 1.0, "convert_plies": 1}
    params["meta"]["train_variants"] = trained
    params["meta"]["tasks"] = params["learners"]["metafocus"]["tasks"] = min(2, len(trained))
    params["adapt"]["targets"] = [target]
    params["adapt"]["starts"] = ["joat", "metafocus", "multitask", f"expert-{trained[0]}", "scratch"]
    params["evaluate"]["opponents"] = ["random", "greedy", "unadapted"]
    params["evaluate"]["opening_plies"] = 1 if square <= 16 else 2 if square <= 36 else 4
    params["rate"]["anchors"] = ["random", "mcts:25", "greedy"]
    for section in (params["expert"], params["meta"], params["learners"]["metafocus"], params["adapt"],
                    params["evaluate"]):  # fmt: skip
        section["max_plies"] = plies
    return params


def _default_settings(name: str) -> dict[str, Any]:
    """Learner ``name``'s settings as its settings dataclass defaults them (``mmc.meta.learners``), as plain values."""
    from mmc.meta import get_learner
    from mmc.meta.learners import LearnerError

    try:
        learner = get_learner(name)
    except LearnerError as error:
        raise InitError(f"--learners: {error}") from None
    return dict(json.loads(json.dumps(dataclasses.asdict(learner.settings()))))


class _Dumper(yaml.SafeDumper):
    """Sections as blocks, lists of plain values on one line (``replicates: [0, 1]``), as the project's files."""


def _list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.Node:
    flat = all(not isinstance(v, dict | list) for v in value)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flat)


_Dumper.add_representer(list, _list)


def _put(params: dict[str, Any], key: str, value: Any) -> None:
    *path, last = key.split(".")
    for part in path:
        params = params.setdefault(part, {})
    params[last] = value


def init_study(
    folder: Path, *, benchmark: str | None = None, family: str | None = None, learners: Sequence[str] = (),
    settings: Sequence[str] = (), size: str = "small",
) -> Path:  # fmt: skip
    """Make a study project in the new or empty ``folder`` (see the module docstring): on ``benchmark``, or on
    ``family`` with :func:`propose`'s profile; ``learners`` added (installed ones included), each with its settings
    dataclass's defaults; ``settings`` as ``KEY=VALUE`` (dotted keys, YAML values: ``learners.NAME.games=8``) over
    the profile. The params are checked as every command checks them before anything is written: :class:`InitError`
    (or ``pipelines.config.ParamsError``) in one line."""
    from pipelines.config import parse_params

    folder = Path(folder).expanduser().resolve()
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InitError(f"{folder}: not an empty folder (init makes a new study in a new or empty one)")
    if (benchmark is None) == (family is None):
        raise InitError("name a benchmark (--benchmark NAME) or a game family (--family NAME), not both")
    params = get_benchmark(benchmark).study_params() if benchmark else propose(str(family), size)
    for name in learners:
        if name not in params["learners"]:
            params["learners"][name] = _default_settings(name)
            params["adapt"]["starts"].append(name)
    for setting in settings:
        key, sep, text = setting.partition("=")
        if not sep or not key:
            raise InitError(f"--set {setting!r}: not KEY=VALUE")
        _put(params, key, yaml.safe_load(text))
    parse_params(params, "params.yaml")  # every check a study makes before it starts
    folder.mkdir(parents=True, exist_ok=True)
    named = f"benchmark {benchmark}" if benchmark else f"the {family} family ({size} profile, python -m pipelines init)"
    header = (f"# A study of {named}; what each key means: the meta-minichess documentation, \"Parameters\"\n"
              "# (docs/reference/params.md). Run it with `python -m pipelines study` here.\n\n")  # fmt: skip
    (folder / "params.yaml").write_text(header + yaml.dump(params, Dumper=_Dumper, sort_keys=False, width=120))
    (folder / "reports").mkdir()
    shutil.copyfile(TEMPLATE / "study.ipynb", folder / "reports" / "study.ipynb")
    (folder / ".gitignore").write_text(GITIGNORE)
    env = {**os.environ, **TELEMETRY_OFF}
    _run(["git", "init", "-q"], folder, env)
    _run(["dvc", "init", "-q"], folder, env)
    (folder / "dvc.yaml").write_text(anywhere_dvc_yaml(folder))
    _run(["git", "add", "-A"], folder, env)
    _run(["git", "-c", "user.email=study@localhost", "-c", "user.name=meta-minichess", "commit", "-q", "-m",
          f"study init: {named}"], folder, env)  # fmt: skip
    return folder


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> None:
    from pipelines.services import executable

    done = subprocess.run([executable(command[0]), *command[1:]], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise InitError(f"{' '.join(command[:2])} in {cwd} failed: {(done.stderr or done.stdout).strip()[-300:]}")
