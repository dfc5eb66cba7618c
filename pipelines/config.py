"""``params.yaml`` -> frozen, typed configs, checked before any work starts.

The file has one section per component or stage plus the shared seed; each section is the fields of a
config dataclass of ``mmc`` (which owns the defaults and the range checks) plus, for some, the names of what
the study runs::

    seed: 0                       # root of every random stream (mmc.core.seeding)
    replicates: [0, 1]            # training replicates: expert, meta, multitask and adapt run once for each
    device: cpu                   # where self-play, training and evaluation run their networks (mmc.nn.DEVICES)
    network: {blocks, filters, value_hidden}          # mmc.nn.NetworkConfig
    search: {...every SearchConfig field...}          # self-play search (mmc.search.SearchConfig)
    train: {...every TrainConfig field...}            # mmc.train.TrainConfig
    expert:                       # the AlphaZero loop per variant
      variants: {gardner: {}}     # one expert stage per key; a value overrides keys of expert/search/train
      search: {solver: true}      # the expert recipe: keys of search/train every expert stage changes ({} or
      train: {...}                # null: none); the meta stages and the adaptations read search/train as they are
      generations: ...            # ...every mmc.loops.alphazero.AlphaZeroConfig field
    meta: {...every mmc.meta.MetaConfig field...}   # train_variants: a list of ids, or a distribution of them
                                                    # ({variants, exclude, draw}: mmc.meta.TaskDistribution)
    learners:                     # the learners that make starts (mmc.meta.learners), one stage NAME@R each
      budget: 1536                # self-play games each may play through the platform (every learner the same)
      joat: {}                    # NAME: its own settings, every field of its settings dataclass (built-in joat
      metafocus: {...}            # and multitask read meta; metafocus: every mmc.meta.MetaFocusConfig field)
    adapt: {targets, starts, ...every mmc.meta.AdaptConfig field...}
    evaluate: {opponents, games, search: {...every SearchConfig field...}, opening_plies, max_plies, settle_games,
               settle_score}
    runner: {kind, workers, address}   # where the jobs run; never changes a result

Every key must be present and no other key may be (a variant's override mapping and the expert recipe list only
what they change). This module reads the file and lays the expert recipe, then each variant's overrides, over the
shared sections; each config checks its keys and values (``mmc.core.configs``: types from its annotations, a bool is
not an int), and :mod:`pipelines.study_rules` the rules across sections. Any problem stops the run with
:class:`ParamsError`, whose message is one line naming the file and the key: ``params.yaml: expert.generations:
must be an int, got 'x'``. Loading starts no process: whether the engine opponents can play is
:func:`pipelines.study_rules.check_players`'s to say (``python -m pipelines check``).

The records it builds (:class:`StudyConfig` and its sections' plans) are :mod:`pipelines.study_config`'s, re-exported
here.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

import yaml

from mmc.core.configs import ConfigError, check_keys, config_from_dict, from_plain, value_problem
from mmc.evaluation.evaluate import EvaluateConfig, RateConfig
from mmc.evaluation.evaluate import slug as opponent_slug
from mmc.loops.alphazero import AlphaZeroConfig
from mmc.meta import AdaptConfig, LearnerError, MetaConfig, TaskDistribution, get_learner, task_seed
from mmc.meta.learners import check_name, learner_settings
from mmc.nn import DeviceError, NetworkConfig, resolve_device
from mmc.search import SearchConfig
from mmc.train import TrainConfig
from pipelines import study_rules as rules
from pipelines.benchmarks import BenchmarkError, check_study, get_benchmark
from pipelines.study_config import (
    NETWORK_KEYS,
    SECTIONS,
    UNADAPTED,
    AdaptPlan,
    EvaluatePlan,
    ExpertConfig,
    LearnerPlan,
    RunnerConfig,
    StudyConfig,
    flatten,
)
from pipelines.study_rules import RuleError

__all__ = [
    "UNADAPTED",
    "AdaptPlan",
    "EvaluatePlan",
    "ExpertConfig",
    "LearnerPlan",
    "ParamsError",
    "RunnerConfig",
    "StudyConfig",
    "flatten",
    "load_params",
    "opponent_slug",
    "parse_params",
]


class ParamsError(ValueError):
    """A parameter file that cannot drive the study; the message is one line naming the file and the key."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        self.source = source
        self.key = key
        self.problem = problem
        super().__init__(f"{source}: {key}: {problem}" if key else f"{source}: {problem}")


class _RepeatedKey(yaml.YAMLError):
    def __init__(self, key: str, problem: str) -> None:
        self.key, self.problem = key, problem


class _UniqueKeys(yaml.SafeLoader):
    """YAML's safe loader, but a mapping that gives a key twice (two learners under one name) is an error, not the
    last one silently winning."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)  # type: ignore[no-untyped-call]
            line = key_node.start_mark.line + 1
            if key in seen:
                raise _RepeatedKey(str(key), f"given twice in one mapping (lines {seen[key]} and {line})")
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def load_params(path: str | Path = "params.yaml") -> StudyConfig:
    """Read and check the parameter file ``path``; :class:`ParamsError` names the key at fault."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise ParamsError(path.name, "", f"cannot be read ({error.strerror})") from None
    try:
        data = yaml.load(text, Loader=_UniqueKeys)  # a SafeLoader that refuses a repeated key
    except _RepeatedKey as error:
        raise ParamsError(path.name, error.key, error.problem) from None
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" at line {where.line + 1}" if where is not None else ""
        raise ParamsError(path.name, "", f"is not valid YAML{line}") from None
    return parse_params(data, path.name)


def parse_params(data: Any, source: str = "params.yaml") -> StudyConfig:
    """Check the parsed parameter mapping ``data`` (``source`` names it in errors) and build the configs: each
    section's keys and values by its ``mmc`` config (:func:`mmc.core.configs.config_from_dict`), then the study's
    rules across sections (:mod:`pipelines.study_rules`). Starts no process: whether the engine opponents can
    play is :func:`pipelines.study_rules.check_players`'s to say."""
    try:
        return _parse(data)
    except (ConfigError, RuleError) as error:
        key = error.field if isinstance(error, ConfigError) else error.key
        raise ParamsError(source, key, error.problem) from None


def _parse(data: Any) -> StudyConfig:
    """The study of ``data``; a :class:`ConfigError` (its ``field`` the dotted key) or a rule's error if not."""
    mapping = _mapping(data, "")
    _keys(mapping, "", SECTIONS)
    benchmark = _benchmark(mapping)
    seed = _value(mapping["seed"], "seed", int)
    replicates = _value(mapping["replicates"], "replicates", tuple[int, ...])
    rules.check_replicates(seed, replicates)
    device = _value(mapping["device"], "device", str)
    try:
        resolve_device(device)
    except DeviceError as error:
        raise ConfigError("params", "device", error.problem) from None
    _keys(_mapping(mapping["network"], "network"), "network", NETWORK_KEYS)  # its values once the family is known
    experts = _experts(mapping)
    search = _build(SearchConfig, mapping["search"], "search")
    train = _build(TrainConfig, mapping["train"], "train")
    meta, distribution = _meta(mapping["meta"], seed)
    rules.check_playable("meta.train_variants", meta.train_variants)
    learners = _learners(mapping["learners"], meta)
    adapt_data = _split(mapping["adapt"], "adapt", ("targets", "starts"), AdaptConfig)
    targets = _value(adapt_data.pop("targets"), "adapt.targets", tuple[str, ...])
    starts = _value(adapt_data.pop("starts"), "adapt.starts", tuple[str, ...])
    adapt = AdaptPlan(targets, starts, _build(AdaptConfig, adapt_data, "adapt"))
    rules.check_adapt(targets, starts, adapt.budgets, list(experts), learners.names)
    rules.check_learners(learners.names, starts)
    rules.check_held_out(meta.train_variants, distribution, targets)
    family = rules.check_family(
        [("expert.variants", experts), ("meta.train_variants", meta.train_variants), ("adapt.targets", targets)]
    )
    network = _build(NetworkConfig, {**mapping["network"], "game": family}, "network", keys=(*NETWORK_KEYS, "game"))
    evaluate_data = _split(mapping["evaluate"], "evaluate", ("opponents",), EvaluateConfig)
    opponents = _value(evaluate_data.pop("opponents"), "evaluate.opponents", tuple[str, ...])
    evaluate = EvaluatePlan(opponents, _build(EvaluateConfig, evaluate_data, "evaluate"))
    rules.check_opponents(opponents)
    rules.check_full_games("evaluate.max_plies", evaluate.config.max_plies, targets)
    rate = _build(RateConfig, mapping["rate"], "rate")
    rules.check_anchors(rate, targets)
    rules.check_moves_left(network, [
        ("train.moves_left_weight", train.moves_left_weight),
        ("search.moves_left_slope", search.moves_left_slope),
        ("evaluate.search.moves_left_slope", evaluate.config.search.moves_left_slope),
        *((f"expert.train.moves_left_weight (expert {v})", e.train.moves_left_weight) for v, e in experts.items()),
        *((f"expert.search.moves_left_slope (expert {v})", e.search.moves_left_slope) for v, e in experts.items()),
    ])  # fmt: skip
    runner = _build(RunnerConfig, mapping["runner"], "runner")
    return StudyConfig(
        seed,
        replicates,
        device,
        network,
        search,
        train,
        experts,
        meta,
        learners,
        adapt,
        evaluate,
        rate,
        runner,
        distribution,
        benchmark,
        raw=mapping,
    )


def _benchmark(mapping: dict[str, Any]) -> str | None:
    """The frozen benchmark the file names (``pipelines.benchmarks``), checked before anything else: an unknown name
    or version, or a key that contradicts the benchmark, is refused naming the key."""
    name = _value(mapping["benchmark"], "benchmark", str | None)
    if name is None:
        return None
    try:
        benchmark = get_benchmark(name)
    except BenchmarkError as error:
        raise ConfigError("params", "benchmark", str(error)) from None
    if (contradiction := check_study(mapping, benchmark)) is not None:
        raise ConfigError("params", *contradiction)
    return name


def _meta(value: Any, seed: int) -> tuple[MetaConfig, TaskDistribution | None]:
    """Section ``meta``, its ``train_variants`` drawn from the distribution it names if it names one (a mapping:
    ``mmc.meta.study_tasks``, from the root seed); the distribution, or ``None`` for a list of ids."""
    section = dict(_mapping(value, "meta"))
    spec = section.get("train_variants")
    if not isinstance(spec, dict):
        return _build(MetaConfig, section, "meta"), None
    try:
        distribution = TaskDistribution.from_params(spec)
    except ConfigError as error:
        raise ConfigError("params", f"meta.train_variants.{error.field}", error.problem) from None
    section["train_variants"] = list(distribution.sample(task_seed(seed)))
    return _build(MetaConfig, section, "meta"), distribution


def _learners(value: Any, meta: MetaConfig) -> LearnerPlan:
    """Section ``learners``: ``budget`` and each learner's settings, checked by the learner (its settings dataclass,
    then its own ``check`` against the study's meta section and the budget)."""
    section = dict(_mapping(value, "learners"))
    if "budget" not in section:
        raise ConfigError("params", "learners.budget", "missing key: the self-play games every learner may play")
    budget = _value(section.pop("budget"), "learners.budget", int)
    if budget < 0:
        raise ConfigError("params", "learners.budget", f"must be an int >= 0, got {budget}")
    settings = {}
    for name, data in section.items():
        key = f"learners.{name}"
        try:
            if name == "scratch":
                raise LearnerError("scratch plays no games and has no stage: name it in adapt.starts alone")
            check_name(name)
            learner = get_learner(name)
            settings[name] = learner_settings(learner, data, key)
            learner.check(settings[name], meta, budget)
        except LearnerError as error:
            raise ConfigError("params", key, str(error)) from None
    return LearnerPlan(budget, settings)


def _experts(mapping: dict[str, Any]) -> dict[str, ExpertConfig]:
    shared = {"search": _mapping(mapping["search"], "search"), "train": _mapping(mapping["train"], "train")}
    expert = _split(mapping["expert"], "expert", ("variants", *shared), AlphaZeroConfig)
    _keys(shared["search"], "search", _names(SearchConfig))
    _keys(shared["train"], "train", _names(TrainConfig))
    # the expert recipe: the keys of the shared search and train sections that every expert stage changes (the
    # meta stages and the adaptations read those sections as they are); each key's value and where it came from
    recipe: dict[str, tuple[dict[str, Any], dict[str, str]]] = {}
    for (name, section), cls in zip(shared.items(), (SearchConfig, TrainConfig), strict=True):
        part = _part(expert.pop(name), f"expert.{name}", section)
        values, origin = {**section, **part}, {k: f"expert.{name}.{k}" if k in part else f"{name}.{k}" for k in section}
        _build(cls, values, name, origin=origin)  # checked here, even where every variant overrides it
        recipe[name] = values, origin
    variants = _mapping(expert.pop("variants"), "expert.variants")
    if not variants:
        raise ConfigError("params", "expert.variants", "must name at least one variant")
    experts = {}
    for variant, override in variants.items():
        rules.check_variant("expert.variants", variant)
        rules.check_playable("expert.variants", [variant])
        experts[variant] = _expert(variant, override, expert, recipe)
    return experts


def _part(value: Any, key: str, section: dict[str, Any]) -> dict[str, Any]:
    """The override mapping at ``key`` (``None`` or some of ``section``'s keys), its keys checked."""
    part = {} if value is None else dict(_mapping(value, key))
    stray = sorted(set(part) - set(section))
    if stray:
        raise ConfigError("params", f"{key}.{stray[0]}", f"unknown key (expected one of {', '.join(section)})")
    return part


def _expert(
    variant: str, override: Any, expert: dict[str, Any], recipe: dict[str, tuple[dict[str, Any], dict[str, str]]]
) -> ExpertConfig:
    """The expert config of ``variant``: the shared search and train sections with the expert recipe laid over
    them (``recipe``: each section's values and the keys they came from), then the variant's override mapping (a
    variant may override keys of ``expert``, ``search`` and ``train``, and only those)."""
    prefix = f"expert.variants.{variant}"
    override = {} if override is None else _mapping(override, prefix)
    unknown = sorted(set(override) - set(expert) - set(recipe))
    if unknown:
        allowed = sorted([*expert, *recipe])
        raise ConfigError(
            "params", f"{prefix}.{unknown[0]}", f"unknown key (a variant may override {', '.join(allowed)})"
        )
    origin = {k: f"{prefix}.{k}" if k in override else f"expert.{k}" for k in expert}
    merged = {**expert, **{k: v for k, v in override.items() if k not in recipe}}
    loop = _build(AlphaZeroConfig, merged, "expert", origin=origin)
    configs = []
    for (name, (section, keys)), cls in zip(recipe.items(), (SearchConfig, TrainConfig), strict=True):
        part = _part(override.get(name), f"{prefix}.{name}", section)
        keys = {k: f"{prefix}.{name}.{k}" if k in part else where for k, where in keys.items()}
        configs.append(_build(cls, {**section, **part}, name, origin=keys))
    return ExpertConfig(variant, loop, configs[0], configs[1])


def _names(cls: Any) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _mapping(value: Any, key: str) -> dict[str, Any]:
    """``value`` if the file gives a mapping of names there (the whole file where ``key`` is empty)."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        what = "the file" if not key else "the section"
        raise ConfigError("params", key, f"{what} must be a mapping of names to values, got {_shown(value)}")
    return value


def _keys(mapping: dict[str, Any], key: str, expected: tuple[str, ...]) -> None:
    """The keys of section ``key`` (``""``: the file) are ``expected``: :func:`mmc.core.configs.check_keys`."""
    try:
        check_keys("params", mapping, expected)
    except ConfigError as error:
        raise ConfigError("params", f"{key}.{error.field}" if key else error.field, error.problem) from None


def _split(value: Any, key: str, own: tuple[str, ...], cls: Any) -> dict[str, Any]:
    """Section ``key`` as a new dict, its keys checked: the study's own keys ``own`` plus ``cls``'s fields."""
    section = dict(_mapping(value, key))
    _keys(section, key, (*own, *_names(cls)))
    return section


def _value(value: Any, key: str, annotation: Any) -> Any:
    """A study's own value (not a config's field), checked and converted as a config's would be."""
    problem = value_problem(annotation, value)
    if problem:
        raise ConfigError("params", key, problem)
    return from_plain(annotation, value)


def _build(
    cls: Any, data: Any, section: str, *, origin: dict[str, str] | None = None, keys: tuple[str, ...] | None = None
) -> Any:
    """``cls`` built from section ``section`` by :func:`mmc.core.configs.config_from_dict` (``keys``: the fields the
    file sets; the others keep their defaults); its error names the key (``origin`` maps a field to the key it
    came from, for a variant's overrides)."""
    try:
        return config_from_dict(cls, _mapping(data, section), keys=keys)
    except ConfigError as error:
        if error.config == "params":
            raise
        raise ConfigError(
            "params", (origin or {}).get(error.field, f"{section}.{error.field}"), error.problem
        ) from None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
