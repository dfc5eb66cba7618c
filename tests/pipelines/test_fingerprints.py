"""A stage's cache keys are derived from what it runs: every params key that dvc.yaml lists for a stage changes
the inputs the stage passes to its ``mmc`` call, and no other key does (save the declared exceptions).

The stage's inputs are what ``pipelines.jobs`` fingerprints job by job, so a listed key that left them unchanged
would be a key DVC reruns the stage for without any effect, and a key that changes them but is not listed would
leave DVC's lock claiming parameters the outputs were not made with. The ``adapt.epochs`` case, which once kept
8-epoch models under ``epochs: 2``, is also checked end to end: the adaptations are trained again.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mmc.meta import FocusModel, save_focus
from mmc.nn import build_network, load_checkpoint, save_checkpoint
from pipelines import adapt, evaluate, expert, starts
from pipelines.adapt import adapt_flow
from pipelines.config import flatten, load_params, parse_params
from pipelines.jobs import digest
from pipelines.paths import Paths
from pipelines.runners import task_runner

from .conftest import REPO, TINY_PARAMS
from .helpers import task_runs, write_params

DEFAULT = yaml.safe_load((REPO / "params.yaml").read_text())
DEFAULT["learners"]["budget"] *= 100  # room for a key's change to play more games (meta.generations + 1)
STAGES = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]

CHANGED = {
    "seed": 1,
    "replicates": [0, 1, 2],
    "device": "auto",
    "search.precision": "bf16",
    "train.search_value_weight": 0.5,
    "evaluate.search.precision": "bf16",
    "meta.train_variants": ["gardner", "baby", "rifle", "atomic", "mallet"],
    "meta.probs": [0.25, 0.15, 0.15, 0.15, 0.15, 0.15],
    "meta.tasks": 3,
    "adapt.budgets": [0, 20],
    "adapt.starts": ["joat", "metafocus", "multitask", "scratch"],
    "adapt.targets": ["gardner", "baby"],
    "evaluate.opponents": ["random", "unadapted"],
    "runner.kind": "thread",
    "rate.anchors": ["random", "greedy", "fairy:nodes=1"],
    "rate.anchor": "random",
    "train.lr_schedule": "cosine",
    "search.endgame_starts": 0.25,
    "search.weak_defence": 0.5,
    "train.policy_surprise": 0.5,
    "train.convert_weight": 4.0,
    "train.moves_left_weight": 0.5,
    "search.moves_left_slope": 0.02,
    "evaluate.search.moves_left_slope": 0.02,
    "evaluate.settle_games": 12,
    "evaluate.settle_score": 0.9,
}
"""A valid other value for keys that a generic change (int + 1, float / 2, not bool) would make invalid."""
NEEDS = {key: {"network.moves_left": True} for key in
         ("train.moves_left_weight", "search.moves_left_slope", "evaluate.search.moves_left_slope")}  # fmt: skip
"""Keys whose change is valid only with other keys changed too: their change is compared against the parameters
with those others changed alone."""
ONE_VALUE = {"evaluate.search.random_opening_plies", "evaluate.search.endgame_starts", "evaluate.search.weak_defence"}
"""Keys with one valid value: self-play's curriculum is 0 in the evaluation
(``mmc.evaluation.evaluate.EvaluateConfig``)."""
NOT_READ = {
    ("multitask", "meta.epsilon"): "the multitask baseline has no outer step (mmc.meta.multitask_generation)",
    ("joat", "train.epochs"): "meta.epochs replaces it (mmc.meta.MetaConfig.training)",
    ("multitask", "train.epochs"): "meta.epochs replaces it (mmc.meta.MetaConfig.training)",
    # a learner is given the study's sections whole (mmc.meta.LearnerSetup); MetaFocus reads a part of them
    **{
        ("metafocus", f"network.{key}"): "it adapts joat's network (its stage's dep), it builds none"
        for key in DEFAULT["network"]
    },
    **{
        ("metafocus", f"meta.{key}"): "it draws its tasks from meta.train_variants alone, uniformly"
        for key in DEFAULT["meta"]
        if key != "train_variants"
    },
    ("metafocus", "train.epochs"): "its own epochs replace it (mmc.meta.MetaFocusConfig.training)",
    ("metafocus", "train.threads"): "its adaptations train side by side, with one thread each",
    **{
        ("expert", f"{section}.{key}"): f"the expert recipe's expert.{section}.{key} replaces it"
        for section in ("search", "train")
        for key in DEFAULT["expert"][section] or {}
    },
}
"""Keys in a stage's inputs that its computation never reads (declared, with the reason)."""


def _changed(key: str, value: Any) -> Any:
    if key in CHANGED:
        return CHANGED[key]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value / 2
    raise AssertionError(f"no change defined for {key}={value!r}: add one to CHANGED")


def _set(data: dict[str, Any], key: str, value: Any) -> None:
    """Set the dotted ``key`` of the params mapping ``data`` to ``value``."""
    *parents, last = key.split(".")
    node = data
    for part in parents:
        node = node[part]
    node[last] = value


def _listed(stage: str, key: str) -> bool:
    """Whether dvc.yaml's params of ``stage`` cover ``key`` (a section, or the key itself)."""
    entry = STAGES[stage]
    params = entry.get("do", entry)["params"]
    return any(key == p or key.startswith(f"{p}.") for p in params)


def _project(tmp_path: Path) -> Paths:
    """Upstream models the adapt and evaluate stages load, for every start, budget and replicate a change may ask
    for."""
    paths = Paths(tmp_path)
    study = parse_params(copy.deepcopy(DEFAULT))
    for replicate in CHANGED["replicates"]:
        starts = [paths.start_model("joat", replicate), paths.start_model("multitask", replicate),
                  paths.champion("gardner", replicate)]  # fmt: skip
        for index, path in enumerate(starts):
            net = build_network(study.network, seed=index + 10 * replicate)
            save_checkpoint(net, net.config, path)
        save_checkpoint(load_checkpoint(paths.start_model("joat", replicate))[0],
                        study.network, paths.start_model("metafocus", replicate))  # fmt: skip
        save_focus(FocusModel(study.network.filters), paths.start_state("metafocus", replicate) / "focus.pt")
        for start in ("joat", "metafocus", "multitask", "expert-gardner", "scratch"):
            for budget in (0, 20, 100):
                net = build_network(study.network, seed=budget + len(start) + 1000 * replicate)
                save_checkpoint(net, net.config, paths.adapted("gardner", replicate, start, budget))
    return paths


def _inputs(stage: str, data: dict[str, Any], paths: Paths) -> str:
    """The inputs of ``stage`` (a training stage: of replicate 1) under the parameters ``data``."""
    study = parse_params(data)
    if stage == "expert":
        return digest(expert.inputs(study, "gardner", 1))
    if stage in study.learners.names:
        return digest(starts.learner_setup(study, paths, stage, 1))
    if stage == "adapt":
        return digest(adapt.inputs(study, paths, "gardner", 1))
    given = evaluate.inputs(study, paths, "gardner")
    return digest((given, evaluate.rating_inputs(study, given.cells, given.variant, given.seed)))


@pytest.mark.parametrize("stage", ["expert", "joat", "multitask", "metafocus", "adapt", "evaluate"])
def test_a_stage_inputs_change_exactly_with_its_dvc_params(
    stage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _project(tmp_path)
    # the stages load their upstream models afresh each time; here each model file is loaded once (the files do not
    # change during the test, and the inputs only read the networks): evaluate loads 26 a call, 90 calls
    loaded: dict[Path, Any] = {}

    def load_once(path: Path) -> Any:
        return loaded[path] if path in loaded else loaded.setdefault(path, load_checkpoint(path))

    for module in (evaluate, starts):
        monkeypatch.setattr(module, "load_checkpoint", load_once)
    before = _inputs(stage, copy.deepcopy(DEFAULT), paths)
    assert before == _inputs(stage, copy.deepcopy(DEFAULT), paths), "the same params give the same inputs"
    wrong = []
    for key, value in flatten(DEFAULT).items():
        if key.startswith("expert.variants") or key == "runner.address" or key in ONE_VALUE:  # address: kind dask
            continue
        if value is None or value == {}:  # an empty expert recipe: nothing to change
            continue
        base = copy.deepcopy(DEFAULT)
        for other, other_value in NEEDS.get(key, {}).items():
            _set(base, other, other_value)
        data = copy.deepcopy(base)
        _set(data, key, _changed(key, value))
        changed = _inputs(stage, data, paths) != (_inputs(stage, base, paths) if key in NEEDS else before)
        if changed != _listed(stage, key) and (stage, key) not in NOT_READ:
            wrong.append(f"{key}: {'changes the inputs, not listed' if changed else 'listed, changes nothing'}")
    assert not wrong, f"{stage}: " + "; ".join(wrong)


def test_an_expert_variant_override_changes_only_its_own_inputs(tmp_path: Path) -> None:
    data = copy.deepcopy(DEFAULT)
    data["expert"]["variants"] = {"gardner": {}, "baby": {}}
    both = parse_params(data)
    data["expert"]["variants"]["baby"] = {"search": {"simulations": 8}}
    changed = parse_params(data)
    assert digest(expert.inputs(both, "gardner", 0)) == digest(expert.inputs(changed, "gardner", 0))
    assert digest(expert.inputs(both, "baby", 0)) != digest(expert.inputs(changed, "baby", 0))


def test_each_replicate_trains_from_its_own_seed(tmp_path: Path) -> None:
    """Replicates differ in their seeds and initial networks, nothing else; a replicate's inputs do not depend on
    which other replicates the study runs."""
    study = parse_params(copy.deepcopy(DEFAULT))
    first, second = expert.inputs(study, "gardner", 0), expert.inputs(study, "gardner", 1)
    configs = [digest((x.config, x.search, x.training)) for x in (first, second)]
    assert digest(first) != digest(second) and configs[0] == configs[1] and first.device == second.device
    one, other = (starts.learner_setup(study, Paths(tmp_path), "joat", r) for r in (0, 1))
    assert digest(one.seed) != digest(other.seed) and digest(one.initial_network()) != digest(other.initial_network())
    assert digest((one.meta, one.search, one.train, one.tasks, one.budget)) == digest(
        (other.meta, other.search, other.train, other.tasks, other.budget)
    )
    paths = _project(tmp_path)
    one, two = adapt.inputs(study, paths, "gardner", 0), adapt.inputs(study, paths, "gardner", 1)
    assert all(digest(a.seed) != digest(b.seed) for a, b in zip(one.adaptations, two.adaptations, strict=True))
    data = copy.deepcopy(DEFAULT)
    data["replicates"] = [1]
    alone = parse_params(data)
    assert digest(expert.inputs(alone, "gardner", 1)) == digest(expert.inputs(study, "gardner", 1))


def test_changing_adapt_epochs_trains_the_adaptations_again(prefect_server: str, tmp_path: Path) -> None:
    paths = Paths(tmp_path)
    changes: dict[str, Any] = {"runner.kind": "thread", "adapt.starts": ["scratch"], "learners": {"budget": 0}}
    study = load_params(write_params(tmp_path, TINY_PARAMS, changes))
    runner = task_runner(study.runner)
    flow = adapt_flow.with_options(task_runner=runner)
    assert flow("gardner", 0, study, tmp_path, return_state=True).is_completed()
    first = load_checkpoint(paths.adapted("gardner", 0, "scratch", 2))[0]
    study = load_params(write_params(tmp_path, TINY_PARAMS, {**changes, "adapt.epochs": 3}))
    state = flow("gardner", 0, study, tmp_path, return_state=True)
    # the self-play is the same (the epochs do not enter it); the training is redone with 3 epochs
    assert set(task_runs(prefect_server, str(state.state_details.flow_run_id))) == {"train-scratch-b2"}
    metrics = json.loads(paths.adapt_metrics("gardner", 0).read_text())
    record = json.loads((paths.jobs("adapt", "gardner-r0") / "train-scratch-b2.done.json").read_text())
    assert len(record["summary"]["losses"]) == 3 and metrics["scratch"]["b2"]["games"] == 2
    second = load_checkpoint(paths.adapted("gardner", 0, "scratch", 2))[0]
    assert any(not a.equal(b) for a, b in zip(first.state_dict().values(), second.state_dict().values(), strict=True))
