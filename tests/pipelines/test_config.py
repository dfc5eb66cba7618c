"""params.yaml checking: the shipped files load, every bad case names its key in one line and touches nothing."""

from __future__ import annotations

import copy
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml

import mmc.games
from mmc.evaluation.evaluate import EvaluateConfig, RateConfig
from mmc.games.chess import VARIANTS, initial_state, legal_moves
from mmc.loops.alphazero import AlphaZeroConfig
from mmc.meta import AdaptConfig, MetaConfig
from mmc.play import PLAYER_KINDS, Player, register_player
from mmc.play.fairy import FairyPlayer
from mmc.train import TrainConfig
from pipelines.__main__ import main
from pipelines.config import ParamsError, RunnerConfig, flatten, load_params, parse_params
from pipelines.paths import Paths, evaluate_code, expert_code, meta_code

from .conftest import REPO, TINY_PARAMS, tool_env

DEFAULT = yaml.safe_load((REPO / "params.yaml").read_text())


def test_the_shipped_parameter_files_load() -> None:
    study = load_params(REPO / "params.yaml")
    assert study.variants == ["gardner"]
    expert = study.experts["gardner"]
    assert expert.loop.generations >= 1 and study.evaluate.config.games >= 30 and len(study.replicates) >= 2
    assert set(study.evaluate.opponents) >= {"random", "greedy"}
    tiny = load_params(TINY_PARAMS)
    assert set(flatten(yaml.safe_load(TINY_PARAMS.read_text()))) == set(flatten(DEFAULT))
    assert tiny.experts["gardner"].loop.games < expert.loop.games


def test_the_configs_defaults_are_the_default_study() -> None:
    """No default of a config disagrees with params.yaml: a notebook calling mmc without arguments runs what the
    study runs (the search settings excepted: self-play and evaluation search differently)."""
    study = load_params(REPO / "params.yaml")
    assert study.experts["gardner"].loop == AlphaZeroConfig()
    assert (
        study.meta == MetaConfig(train_variants=study.meta.train_variants)
        and study.adapt.config == AdaptConfig()
        and study.evaluate.config == EvaluateConfig()
    )
    assert study.train == TrainConfig() and study.runner == RunnerConfig() and study.rate == RateConfig()


def test_a_variant_override_changes_only_that_variant() -> None:
    data = copy.deepcopy(DEFAULT)
    data["expert"]["variants"] = {"gardner": {}, "baby": {"generations": 9, "search": {"simulations": 8}}}
    study = parse_params(data)
    assert study.variants == ["gardner", "baby"]
    assert study.experts["baby"].loop.generations == 9 and study.experts["baby"].search.simulations == 8
    assert study.experts["gardner"].loop == load_params(REPO / "params.yaml").experts["gardner"].loop
    assert study.experts["baby"].search.gumbel == study.experts["gardner"].search.gumbel


def test_the_expert_recipe_changes_the_experts_alone() -> None:
    """``expert.search`` and ``expert.train`` lay the expert recipe over the shared sections for every expert stage;
    the meta stages and the adaptations read the shared sections; a variant's own override comes last."""
    data = copy.deepcopy(DEFAULT)
    data["expert"]["search"] = {"solver": True, "simulations": 40}
    data["expert"]["train"] = {"value_discount": 0.97}
    data["expert"]["variants"] = {"gardner": {}, "baby": {"search": {"simulations": 8}}}
    study = parse_params(data)
    gardner, baby = study.experts["gardner"], study.experts["baby"]
    assert gardner.search.solver and gardner.search.simulations == 40 and gardner.train.value_discount == 0.97
    assert baby.search.solver and baby.search.simulations == 8 and baby.train.value_discount == 0.97
    assert study.search.simulations == DEFAULT["search"]["simulations"] and not study.search.solver
    assert study.train.value_discount == DEFAULT["train"]["value_discount"]
    data["expert"]["search"] = data["expert"]["train"] = None
    plain = parse_params(data).experts["gardner"]
    assert (plain.search, plain.train) == (study.search, study.train)


def _set(data: dict[str, Any], key: str, value: Any) -> None:
    *parents, last = key.split(".")
    for part in parents:
        data = data[part]
    if value is _DELETE:
        del data[last]
    else:
        data[last] = value


class _Delete:
    """Marks a key to remove (its repr keeps the test ids the same in every pytest-xdist worker)."""

    def __repr__(self) -> str:
        return "<deleted>"


_DELETE = _Delete()
_UNPLAYABLE = "monochromatic cannot be played: White has no legal move at ply 0 (the rule book)"
BAD = [
    ("extra", 1, "params.yaml: extra: unknown key"),
    ("expert.generations", _DELETE, "params.yaml: expert.generations: missing"),
    ("expert.generations", "x", "params.yaml: expert.generations: must be an int, got 'x'"),
    ("expert.generations", True, "params.yaml: expert.generations: must be an int, got True"),
    ("expert.generations", 0, "params.yaml: expert.generations: must be an int >= 1, got 0"),
    ("expert.variants", {"chess960": {}}, "params.yaml: expert.variants: unknown variant 'chess960'"),
    ("expert.variants", {}, "params.yaml: expert.variants: must name at least one variant"),
    ("expert.variants", ["gardner"], "params.yaml: expert.variants: the section must be a mapping"),
    ("expert.variants.gardner", {"games": 0}, "params.yaml: expert.variants.gardner.games: must be an int >= 1, got 0"),
    ("expert.variants.gardner", {"speed": 1}, "params.yaml: expert.variants.gardner.speed: unknown key"),
    (
        "expert.variants.gardner",
        {"search": {"simulations": -1}},
        "params.yaml: expert.variants.gardner.search.simulations: must be > 0, got -1",
    ),
    ("expert.search", {"speed": 1}, "params.yaml: expert.search.speed: unknown key (expected one of simulations,"),
    ("expert.search", ["solver"], "params.yaml: expert.search: the section must be a mapping"),
    ("expert.search", {"solver": 1}, "params.yaml: expert.search.solver: must be a bool, got 1"),
    ("expert.train", {"value_discount": 1.5}, "params.yaml: expert.train.value_discount: must be in"),
    ("expert.search", _DELETE, "params.yaml: expert.search: missing"),
    ("expert.chunks", 1000, "params.yaml: expert.chunks: must be <= games=128, got 1000"),
    ("expert.gate_threshold", 1.5, "params.yaml: expert.gate_threshold: must be in [0, 1], got 1.5"),
    ("search.simulations", 0, "params.yaml: search.simulations: must be > 0, got 0"),
    ("search.gumbel", "yes", "params.yaml: search.gumbel: must be a bool, got 'yes'"),
    ("train.momentum", 1.5, "params.yaml: train.momentum: must be in [0, 1), got 1.5"),
    ("network.blocks", -1, "params.yaml: network.blocks: must be >= 0, got -1"),
    ("network.in_planes", 19, "params.yaml: network.in_planes: unknown key"),
    ("seed", -3, "params.yaml: seed: must be an int >= 0, got -3"),
    ("replicates", [0, 0], "params.yaml: replicates: must be a list of distinct ints >= 0, got [0, 0]"),
    ("replicates", [], "params.yaml: replicates: must be a list of distinct ints >= 0, got []"),
    ("replicates", [-1], "params.yaml: replicates: must be a list of distinct ints >= 0, got [-1]"),
    ("replicates", 2, "params.yaml: replicates: must be a list of ints, got 2"),
    ("device", "gpu", "params.yaml: device: must be one of auto, cpu, cuda, got 'gpu'"),
    ("device", None, "params.yaml: device: must be a str, got None"),
    ("device", _DELETE, "params.yaml: device: missing"),
    ("evaluate.opponents", "random", "params.yaml: evaluate.opponents: must be a list of strings, got 'random'"),
    ("meta.train_variants", ["gardner", "chess960"], "params.yaml: meta.train_variants: unknown variant 'chess960'"),
    ("meta.train_variants", ["gardner", "gardner"], "params.yaml: meta.train_variants: names a variant twice"),
    ("meta.tasks", 9, "params.yaml: meta.tasks: must be <= the 6 train_variants, got 9"),
    ("meta.epsilon", 1.5, "params.yaml: meta.epsilon: must be in [0, 1], got 1.5"),
    ("meta.probs", [0.5, 0.5], "params.yaml: meta.probs: must be null or 6 numbers >= 0 summing to 1"),
    ("meta.probs", [1.0, 0, 0, 0, 0, 0], "params.yaml: meta.probs: gives fewer than tasks=4 variants a chance"),
    ("meta.probs", ["a"], "params.yaml: meta.probs: must be a list of numbers, got ['a']"),
    ("meta.games", 0, "params.yaml: meta.games: must be an int >= 1, got 0"),
    ("adapt.targets", [], "params.yaml: adapt.targets: must name at least one variant"),
    ("adapt.targets", ["monochromatic"], f"params.yaml: adapt.targets: {_UNPLAYABLE}"),
    (
        "meta.train_variants",
        ["gardner", "rifle", "dark", "atomic", "extinction", "monochromatic"],
        f"params.yaml: meta.train_variants: {_UNPLAYABLE}",
    ),
    ("expert.variants", {"monochromatic": {}}, f"params.yaml: expert.variants: {_UNPLAYABLE}"),
    ("learners.metafocus.tasks", 7, "params.yaml: learners.metafocus: learner 'metafocus': tasks must be <= the 6"),
    ("learners.metafocus.reward_games", 0, "params.yaml: learners.metafocus.reward_games: must be"),
    ("learners.metafocus.speed", 1, "params.yaml: learners.metafocus.speed: unknown key"),
    ("learners.joat", {"epsilon": 1}, "params.yaml: learners.joat.epsilon: unknown key"),
    ("learners.maml", {}, "params.yaml: learners.maml: unknown learner 'maml' (installed: joat, metafocus, multit"),
    ("learners.Maml", {}, "params.yaml: learners.Maml: learner name 'Maml' must be 1-32 lower-case letters, digits"),
    ("learners.scratch", {}, "params.yaml: learners.scratch: scratch plays no games and has no stage"),
    ("learners.budget", 100, "params.yaml: learners.joat: learner 'joat' plays 1536 self-play games (meta.generat"),
    ("learners.budget", _DELETE, "params.yaml: learners.budget: missing key"),
    ("learners.budget", -1, "params.yaml: learners.budget: must be an int >= 0, got -1"),
    ("learners.multitask", _DELETE, "params.yaml: adapt.starts: multitask is a learner the study does not train"),
    ("adapt.starts", ["joat", "multitask", "scratch"], "params.yaml: learners.metafocus: makes no start of adapt.sta"),
    ("adapt.starts", ["joat", "maml"], "params.yaml: adapt.starts: unknown learner 'maml' (installed: joat,"),
    ("adapt.starts", ["metafocus"], "params.yaml: adapt.starts: metafocus needs joat among the starts"),
    ("adapt.budgets", [0], "params.yaml: adapt.starts: metafocus needs a budget > 0 in adapt.budgets"),
    ("adapt.budgets", [0, -5], "params.yaml: adapt.budgets: must be distinct self-play game counts >= 0"),
    ("adapt.budgets", [0, 2.5], "params.yaml: adapt.budgets: must be a list of ints, got [0, 2.5]"),
    ("adapt.starts", ["joat", "expert-baby"], "params.yaml: adapt.starts: unknown start 'expert-baby' (known: joat,"),
    ("adapt.speed", 1, "params.yaml: adapt.speed: unknown key"),
    ("evaluate.games", 0, "params.yaml: evaluate.games: must be an int >= 1, got 0"),
    ("evaluate.search.simulations", 0, "params.yaml: evaluate.search.simulations: must be > 0, got 0"),
    ("evaluate.search.c_puct", _DELETE, "params.yaml: evaluate.search.c_puct: missing"),
    ("evaluate.simulations", 24, "params.yaml: evaluate.simulations: unknown key"),
    ("adapt.epochs", 0, "params.yaml: adapt.epochs: must be an int >= 1, got 0"),
    ("runner.kind", "ray", "params.yaml: runner.kind: must be one of process, dask, thread, got 'ray'"),
    ("runner.address", "tcp://127.0.0.1:8786", "params.yaml: runner.address: is only used with kind: dask"),
    ("train.moves_left_weight", 0.5, "params.yaml: train.moves_left_weight: is 0.5, but network.moves_left is false"),
    ("search.moves_left_slope", 0.02, "params.yaml: search.moves_left_slope: is 0.02, but network.moves_left is"),
    ("evaluate.search.moves_left_slope", 0.02, "params.yaml: evaluate.search.moves_left_slope: is 0.02, but"),
    (
        "expert.search",
        {"solver": True, "moves_left_slope": 0.02},
        "params.yaml: expert.search.moves_left_slope (expert gardner): is 0.02, but network.moves_left is false",
    ),
    ("network.moves_left", 1, "params.yaml: network.moves_left: must be a bool"),
]


@pytest.mark.parametrize(("key", "value", "message"), BAD, ids=[f"{k}={v!r}"[:40] for k, v, _ in BAD])
def test_a_bad_parameter_is_named_in_one_line(key: str, value: Any, message: str) -> None:
    data = copy.deepcopy(DEFAULT)
    _set(data, key, value)
    with pytest.raises(ParamsError) as caught:
        parse_params(data)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


BOOLS = [
    ("expert.games", True),
    ("runner.workers", False),
    ("evaluate.search.simulations", True),
    ("expert.variants.gardner.search.simulations", True),
    ("network.blocks", False),
]


@pytest.mark.parametrize(("key", "value"), BOOLS)
def test_a_bool_is_not_an_int(key: str, value: bool) -> None:
    data = copy.deepcopy(DEFAULT)
    if key.startswith("expert.variants.gardner."):
        data["expert"]["variants"]["gardner"] = {"search": {"simulations": value}}
    else:
        _set(data, key, value)
    with pytest.raises(ParamsError) as caught:
        parse_params(data)
    assert str(caught.value) == f"params.yaml: {key}: must be an int, got {value}"


def test_a_config_error_names_the_key_of_a_nested_config() -> None:
    data = copy.deepcopy(DEFAULT)
    data["evaluate"]["search"]["speed"] = 1
    with pytest.raises(ParamsError, match=r"^params\.yaml: evaluate\.search\.speed: unknown key \(expected one of"):
        parse_params(data)


BUILT: list[str] = []


@pytest.fixture
def absent_engine(tmp_path: Path) -> Iterator[str]:
    """A player kind ``absent``: Fairy-Stockfish at a path where there is none; each build is recorded."""

    def build(fields: list[str], variant: str) -> Player:
        BUILT.append(variant)
        return FairyPlayer(variant, nodes=1, binary=str(tmp_path / "no-fairy-stockfish"))

    register_player("absent", "absent", build)
    BUILT.clear()
    yield "absent"
    del PLAYER_KINDS["absent"]


def test_loading_starts_no_player_and_check_reports_one_that_cannot_play(
    tmp_path: Path, absent_engine: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Loading params.yaml builds no player (it starts no engine); ``python -m pipelines check`` builds each one
    and names the first that cannot play, in one line, with exit status 2."""
    data = copy.deepcopy(DEFAULT)
    data["evaluate"]["opponents"] = ["random", absent_engine]
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(data))
    study = load_params(tmp_path / "params.yaml")
    assert study.evaluate.opponents == ("random", "absent") and BUILT == []
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 2
    assert BUILT == ["gardner"]
    assert capsys.readouterr().err.startswith(
        f"params.yaml: evaluate.opponents: 'absent' cannot play gardner: Fairy-Stockfish not found at "
        f"{str(tmp_path / 'no-fairy-stockfish')!r}"
    )


def test_check_names_an_unknown_player(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    data = copy.deepcopy(DEFAULT)
    data["evaluate"]["opponents"] = ["nobody"]
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(data))
    assert load_params(tmp_path / "params.yaml").evaluate.opponents == ("nobody",)
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("params.yaml: evaluate.opponents: 'nobody' cannot play gardner") and err.count("\n") == 1


def test_check_plays_the_shipped_opponents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "params.yaml").write_text(TINY_PARAMS.read_text())
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 0
    assert capsys.readouterr().out.startswith("params.yaml: OK")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params.yaml"]


@pytest.mark.skipif(torch.cuda.is_available(), reason="torch sees a CUDA device here")
def test_cuda_without_a_cuda_device_is_named_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({**DEFAULT, "device": "cuda"}))
    with pytest.raises(ParamsError) as caught:
        load_params(tmp_path / "params.yaml")
    assert str(caught.value) == "params.yaml: device: cuda, but torch sees no CUDA device (use auto or cpu)"


def test_the_device_is_kept_as_written() -> None:
    """Each job resolves ``auto`` when it starts; the default is the CPU."""
    assert load_params(REPO / "params.yaml").device == load_params(TINY_PARAMS).device == "cpu"
    assert parse_params({**copy.deepcopy(DEFAULT), "device": "auto"}).device == "auto"


def test_a_file_that_is_not_yaml_or_not_a_mapping(tmp_path: Path) -> None:
    (tmp_path / "params.yaml").write_text("seed: [1\n")
    with pytest.raises(ParamsError, match=r"^params\.yaml: is not valid YAML at line \d+$"):
        load_params(tmp_path / "params.yaml")
    (tmp_path / "params.yaml").write_text("- 1\n")
    with pytest.raises(ParamsError, match=r"^params\.yaml: the file must be a mapping"):
        load_params(tmp_path / "params.yaml")


@pytest.mark.parametrize("command", [["study"], ["expert", "gardner"], ["evaluate", "gardner"], ["check"]])
def test_the_command_line_stops_before_any_work(tmp_path: Path, command: list[str]) -> None:
    """A bad params.yaml: exit status 2, one line on stderr, no file written, no server started or run logged."""
    project = tmp_path / "project"
    project.mkdir()
    data = copy.deepcopy(DEFAULT)
    data["expert"]["generations"] = "x"
    (project / "params.yaml").write_text(yaml.safe_dump(data))
    home = tmp_path / "prefect-home"
    env = {
        **tool_env(),
        "PREFECT_HOME": str(home),
        "PREFECT_API_URL": "http://127.0.0.1:9/api",
        "PYTHONPATH": str(REPO),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pipelines", *command], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert done.stderr == "params.yaml: expert.generations: must be an int, got 'x'\n"
    assert sorted(p.name for p in project.iterdir()) == ["params.yaml"]
    assert not home.exists()


def test_the_code_deps_hold_the_game_layer_the_stages_run() -> None:
    """Every module of ``mmc/games`` that a stage's process loads is in the stages' code deps (a change to it reruns
    the jobs it computes), but the other families' packages: they are registered, and the chess study never runs
    them."""
    script = (
        "import sys, pipelines.expert, pipelines.learn, pipelines.adapt, pipelines.evaluate\n"
        "print('\\n'.join(m.__file__ for m in list(sys.modules.values()) if getattr(m, '__file__', None)))"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True)
    games = REPO / "mmc" / "games"
    loaded = {Path(f).relative_to(REPO).as_posix() for f in done.stdout.split() if Path(f).is_relative_to(games)}
    others = tuple(f"mmc/games/{game.name}/" for game in mmc.games.games() if game.name != "chess")
    code = expert_code("chess")
    missing = {f for f in loaded if not f.startswith(others) and not any(f == c or f.startswith(f"{c}/") for c in code)}
    assert "mmc/games/chess/state.py" in loaded and missing == set()


def test_dvc_yaml_mirrors_the_paths_and_parameters() -> None:
    """The stages' deps cover the code their results depend on; params cover every expert key; outs are Paths'."""
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    expert, evaluate, adapt = stages["expert"], stages["evaluate"]["do"], stages["adapt"]
    meta_train, multitask = stages["joat"]["do"], stages["multitask"]["do"]
    # the training stages run once per replicate; the evaluation, once per target, rates every replicate
    assert expert["matrix"] == {"variant": "${expert.variants}", "replicate": "${replicates}"}
    assert adapt["matrix"] == {"target": "${adapt.targets}", "replicate": "${replicates}"}
    assert stages["joat"]["foreach"] == stages["multitask"]["foreach"] == "${replicates}"
    assert stages["evaluate"]["foreach"] == "${adapt.targets}"
    assert set(expert_code("chess")) <= set(expert["deps"]) and set(evaluate_code("chess")) <= set(evaluate["deps"])
    assert set(meta_code("chess")) <= set(adapt["deps"])
    assert set(meta_code("chess")) <= set(meta_train["deps"]) and set(meta_code("chess")) <= set(multitask["deps"])
    expert_keys = {f"expert.{k}" for k in DEFAULT["expert"] if k != "variants"}
    assert set(expert["params"]) == {"seed", "device", "network", "search", "train",
                                     "expert.variants.${item.variant}", *expert_keys}  # fmt: skip
    train_keys = {f"train.{k}" for k in DEFAULT["train"] if k != "epochs"}  # meta.epochs, adapt.epochs replace it
    budget = {"learners.budget"}
    assert set(meta_train["params"]) == {"seed", "device", "network", "search", *train_keys, "meta", "learners.joat",
                                         *budget}  # fmt: skip
    meta_keys = {f"meta.{k}" for k in DEFAULT["meta"] if k != "epsilon"}
    assert set(multitask["params"]) == {"seed", "device", "network", "search", *train_keys, *meta_keys,
                                        "learners.multitask", *budget}  # fmt: skip
    # MetaFocus starts from JOAT's network: its stage depends on that file, and on its own settings
    metafocus = stages["metafocus"]["do"]
    assert {"models/starts/r${item}/joat.pt", *meta_code("chess")} <= set(metafocus["deps"])
    assert "learners.metafocus" in metafocus["params"] and "meta.train_variants" in metafocus["params"]
    adapt_keys = {f"adapt.{k}" for k in DEFAULT["adapt"] if k != "targets"}
    adapt_train = train_keys - {"train.threads"}  # the adaptations train side by side, with one thread each
    assert set(adapt["params"]) == {"seed", "device", "network", "search", *adapt_train, *adapt_keys}
    assert set(evaluate["params"]) == {
        "seed", "device", "replicates", "network", "adapt.budgets", "adapt.starts", "evaluate", "rate",
    }  # fmt: skip
    paths = Paths(REPO)

    def out_paths(stage: dict[str, Any]) -> set[str]:
        entries = [*stage.get("outs", []), *stage.get("metrics", [])]
        names = {"${item}": "gardner", "${item.variant}": "gardner", "${item.target}": "gardner",
                 "${item.replicate}": "1"}  # fmt: skip
        out = set()
        for entry in entries:
            path = entry if isinstance(entry, str) else next(iter(entry))
            for name, value in names.items():
                path = path.replace(name, value)
            out.add(path)
        return out

    assert out_paths(expert) == {
        paths.relative(p)
        for p in (
            paths.jobs("expert", "gardner-r1"),
            paths.champion("gardner", 1),
            paths.champion("gardner", 1).with_suffix(".json"),
            paths.loss_curve("gardner", 1),
            paths.arena_curve("gardner", 1),
            paths.expert_metrics("gardner", 1),
        )
    }
    assert out_paths(evaluate) == {
        paths.relative(p)
        for p in (
            paths.jobs("evaluate", "gardner"),
            paths.evaluation_table("gardner"),
            paths.evaluation_metrics("gardner"),
            paths.ratings("gardner"),
            paths.rating_table("gardner"),
            paths.curve_table("gardner"),
            paths.comparison_table("gardner"),
            paths.mistake_table("gardner"),
            paths.mistake_comparison_table("gardner"),
            paths.mistake_metrics("gardner"),
        )
    }
    assert out_paths(adapt) == {
        paths.relative(p)
        for p in (paths.adapted_dir("gardner", 1), paths.jobs("adapt", "gardner-r1"), paths.adapt_metrics("gardner", 1))
    }
    for kind, stage in (("joat", meta_train), ("multitask", multitask)):
        assert {p.replace("gardner", "1") for p in out_paths(stage)} == {
            paths.relative(p)
            for p in (
                paths.jobs("learn", f"{kind}-r1"),
                paths.start_model(kind, 1),
                paths.start_model(kind, 1).with_suffix(".json"),
                paths.learn_losses(kind, 1),
                paths.learn_steps(kind, 1),
                paths.learn_metrics(kind, 1),
            )
        }
    assert paths.relative(paths.start_state("metafocus", 1)) in {
        p.replace("${item}", "1") for p in stages["metafocus"]["do"]["outs"] if isinstance(p, str)
    }
    assert out_paths(stages["report"]) == {
        paths.relative(p) for p in (paths.report_html, paths.summary_table, paths.report_inputs)
    }
    # adapt@T-R reads its own replicate's starts; evaluate@T every replicate's
    own = {paths.relative(paths.start_model("joat", 1).parent), paths.relative(paths.champion("gardner", 1).parent)}
    assert own == {d.replace("${item.replicate}", "1") for d in adapt["deps"] if d.startswith("models/")}
    every = {paths.relative(paths.start_model("joat", 1).parent.parent),
             paths.relative(paths.champion("gardner", 1).parent.parent)}  # fmt: skip
    assert every <= set(evaluate["deps"])


def test_a_replicate_not_in_the_parameters_stops_before_any_work(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "params.yaml").write_text(yaml.safe_dump(DEFAULT))
    env = {**tool_env(), "PREFECT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}
    env["PREFECT_API_URL"] = "http://127.0.0.1:9/api"
    done = subprocess.run([sys.executable, "-m", "pipelines", "adapt", "gardner", "5"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr == f"params.yaml: replicates: has no replicate 5 ({DEFAULT['replicates']})\n"
    assert sorted(p.name for p in project.iterdir()) == ["params.yaml"]


def test_the_larger_profile_in_the_docs_gives_valid_parameters() -> None:
    """The `dvc exp run -S ...` line of the larger profile ("Run a study", docs/guides/run-a-study.md), applied to
    params.yaml, loads; every key it sets exists and takes the value it says."""
    lines = (REPO / "docs" / "guides" / "run-a-study.md").read_text().splitlines()
    command = lines[lines.index("# LARGER_PROFILE (a test checks that this line gives valid parameters)") + 1]
    words = shlex.split(command)
    assert words[:3] == ["dvc", "exp", "run"]
    data = copy.deepcopy(DEFAULT)
    settings = dict(word.split("=", 1) for word in words[4::2])
    assert words[3::2] == ["-S"] * len(settings)
    for key, text in settings.items():
        assert key in flatten(DEFAULT), key
        _set(data, key, yaml.safe_load(text))
    study = parse_params(data)
    assert study.replicates == (0, 1, 2, 3) and study.evaluate.config.games == 100
    playable = [name for name in VARIANTS if legal_moves(initial_state(name))]  # every one but monochromatic
    assert sorted(study.targets) == sorted(playable) and len(playable) == 10 and "chess" in playable


GOMOKU = yaml.safe_load((REPO / "studies" / "gomoku" / "params.yaml").read_text())
DISTRIBUTION = {"variants": ["mnk_{4..7}x{4..7}_k{3..4}", "grav_{5..7}x{4..5}_k4"], "exclude": ["mnk_6x6_k4"],
                "draw": 20}  # fmt: skip


def _gomoku(train_variants: Any, targets: list[str] | None = None, seed: int = 0) -> dict[str, Any]:
    """The gomoku study's parameters with these meta-training variants and targets (by default gomoku_8x8 and
    connect4), two tasks a batch."""
    data = copy.deepcopy(GOMOKU)
    data["meta"]["train_variants"] = train_variants
    data["meta"]["tasks"] = data["learners"]["metafocus"]["tasks"] = 2
    data["seed"] = seed
    data["adapt"]["targets"] = ["gomoku_8x8", "connect4"] if targets is None else targets
    return data


def test_a_task_distribution_draws_the_same_variants_from_the_same_seed() -> None:
    """``meta.train_variants`` as a distribution: the variants drawn from the root seed, the same every time, held
    apart from the targets; its support and the draw are mmc.meta.TaskDistribution's."""
    from mmc.meta import TaskDistribution, study_tasks

    study = parse_params(_gomoku(DISTRIBUTION))
    drawn = study.meta.train_variants
    support = TaskDistribution.from_params(DISTRIBUTION).support()
    assert len(drawn) == 20 == len(set(drawn)) and set(drawn) <= set(support) and len(support) == 16 * 2 - 1 + 6
    assert list(drawn) == sorted(drawn, key=support.index)  # in the support's order
    assert "mnk_6x6_k4" not in drawn and study.distribution == TaskDistribution.from_params(DISTRIBUTION)
    assert "grav_7x6_k4" not in support  # connect4, a target, lies outside
    assert parse_params(_gomoku(DISTRIBUTION)).meta.train_variants == drawn == study_tasks(DISTRIBUTION, 0)
    assert parse_params(_gomoku(DISTRIBUTION, seed=1)).meta.train_variants != drawn
    whole = parse_params(_gomoku({"variants": ["mnk_{4..6}x4_k3", "gomoku_6x6"]}))  # no draw: every variant
    assert whole.meta.train_variants == ("mnk_4x4_k3", "mnk_5x4_k3", "mnk_6x4_k3", "gomoku_6x6")
    assert whole.distribution is not None
    assert parse_params(_gomoku(["gomoku_6x6", "mnk_7x5_k4", "grav_5x4_k3"])).distribution is None  # a list


BAD_DISTRIBUTIONS = [
    ({"variants": ["mnk_{4..7}x4_k03"]}, None, "meta.train_variants.variants: malformed generated gomoku variant id"),
    ({"variants": ["mnk_{4..7}x4_k3"], "exclude": ["mnk_{4..7}x4_k{3,4}"]}, None,
     "meta.train_variants.exclude: leaves the distribution empty"),
    ({"variants": []}, None, "meta.train_variants.variants: must give at least one id or pattern"),
    ({"variants": ["mnk_{14..16}x4_k3"]}, None, "meta.train_variants.variants: generated gomoku variant 'mnk_16x4_k3': "
                                                "the board 16x4 is out of range"),
    ({"variants": ["mnk_{4..5}x4_k3"], "draw": 3}, None, "meta.train_variants.draw: must be <= the 2 variants"),
    ({"variants": ["mnk_4x4_k3"], "size": 3}, None, "meta.train_variants.size: unknown key"),
    ({"variants": ["mnk_{5..7}x{5..7}_k4"]}, ["gomoku_6x6"],
     "adapt.targets: gomoku_6x6 is the same game as the meta-training variant mnk_6x6_k4"),
    (["tictactoe", "gomoku_8x8", "grav_7x6_k4"], ["gomoku_8x8", "connect4"],
     "adapt.targets: connect4 is the same game as the meta-training variant grav_7x6_k4"),
    ({"variants": ["mnk_{4..7}x{4..7}_k4", "grav_{4..7}x{4..6}_k4"], "draw": 9}, ["gomoku_8x8", "connect4"],
     "adapt.targets: connect4 lies inside meta.train_variants' distribution (as grav_7x6_k4) though the draw left"),
]  # fmt: skip


@pytest.mark.parametrize(("spec", "targets", "message"), BAD_DISTRIBUTIONS, ids=[m[:40] for *_, m in BAD_DISTRIBUTIONS])
def test_a_bad_task_distribution_is_named_in_one_line(spec: Any, targets: list[str] | None, message: str) -> None:
    with pytest.raises(ParamsError) as caught:
        parse_params(_gomoku(spec, targets))
    assert str(caught.value).startswith(f"params.yaml: {message}"), str(caught.value)
    assert "\n" not in str(caught.value)


JUMP = yaml.safe_load((REPO / "studies" / "jump" / "params.yaml").read_text())


def test_a_rated_game_cut_short_is_refused_naming_the_shorter_game() -> None:
    """An evaluation cap below the rule book's end of a target's games would rate a shorter game under the full
    game's name: refused, naming the generated variant that is that shorter game where the family has one."""
    data = copy.deepcopy(JUMP)
    data["adapt"]["targets"] = ["jump_p100", "jump_diagonal"]
    with pytest.raises(ParamsError) as caught:
        parse_params(data)
    assert str(caught.value) == (
        "params.yaml: evaluate.max_plies: 100 cuts jump_diagonal's games short of the rule book's end (ply 400): "
        "rate jump_diagonal_p100, the game scored at ply 100, or raise it to 400"
    )
    data["evaluate"]["max_plies"] = 400
    assert parse_params(data).targets == ["jump_p100", "jump_diagonal"]
    board = copy.deepcopy(GOMOKU)
    board["evaluate"]["max_plies"] = 40
    with pytest.raises(ParamsError, match=r"^params.yaml: evaluate.max_plies: 40 cuts mnk_7x7_k4's games short of "
                       r"the rule book's end \(ply 49\): raise it to 49$"):  # fmt: skip
        parse_params(board)
    chess = copy.deepcopy(DEFAULT)
    chess["evaluate"]["max_plies"] = 20  # chess's rule book takes its ply cap as a parameter
    assert parse_params(chess).evaluate.config.max_plies == 20
