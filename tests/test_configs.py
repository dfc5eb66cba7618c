"""mmc.core.configs: every config class checks its fields by their annotations (a bool is not an int); a dict's keys
are checked and its plain values converted."""

from __future__ import annotations

import typing
from dataclasses import asdict, fields, replace
from typing import Annotated, Any

import pytest

from mmc.core.configs import ConfigError, ConfigKeyError, config_from_dict
from mmc.evaluation.evaluate import EvaluateConfig, RateConfig
from mmc.loops.alphazero import AlphaZeroConfig
from mmc.meta import AdaptConfig, MetaConfig, MetaFocusConfig
from mmc.meta.metafocus import FocusConfig
from mmc.nn import NetworkConfig
from mmc.search import SearchConfig
from mmc.train import TrainConfig

CONFIGS = [
    AlphaZeroConfig(),
    NetworkConfig(game="chess"),
    SearchConfig(),
    TrainConfig(),
    MetaConfig(train_variants=("gardner", "baby", "rifle", "dark", "atomic", "extinction")),
    AdaptConfig(),
    MetaFocusConfig(),
    FocusConfig(8),
    EvaluateConfig(),
    RateConfig(),
]


def _base(annotation: Any) -> Any:
    return typing.get_args(annotation)[0] if typing.get_origin(annotation) is Annotated else annotation


def _fields_of(kind: type) -> list[tuple[Any, str]]:
    out = []
    for config in CONFIGS:
        hints = typing.get_type_hints(type(config), include_extras=True)
        out += [(config, f.name) for f in fields(config) if _base(hints[f.name]) is kind]
    return out


INTS = _fields_of(int)


@pytest.mark.parametrize(("config", "name"), INTS, ids=[f"{type(c).__name__}.{n}" for c, n in INTS])
@pytest.mark.parametrize("value", [True, False])
def test_a_bool_is_refused_where_an_int_is_expected(config: Any, name: str, value: bool) -> None:
    with pytest.raises(ConfigError) as caught:
        replace(config, **{name: value})
    assert (caught.value.config, caught.value.field) == (type(config).__name__, name)
    assert str(caught.value) == f"{type(config).__name__}.{name} must be an int, got {value}"


FLOATS = _fields_of(float)


@pytest.mark.parametrize(("config", "name"), FLOATS, ids=[f"{type(c).__name__}.{n}" for c, n in FLOATS])
def test_a_float_field_refuses_a_bool_or_a_string(config: Any, name: str) -> None:
    for value in (True, "1"):
        with pytest.raises(ConfigError) as caught:
            replace(config, **{name: value})
        assert caught.value.field == name and caught.value.problem == f"must be a number, got {value!r}"


def test_an_int_stays_an_int_in_a_float_field_built_directly_and_becomes_a_float_from_a_dict() -> None:
    """Built in code, a value is kept as given (job fingerprints hash its type); from a parsed file, an int in a
    float field is a float, a list in a tuple field a tuple, as the file's loader always made them."""
    assert type(SearchConfig(c_puct=2).c_puct) is int
    built = config_from_dict(SearchConfig, {**asdict(SearchConfig()), "c_puct": 2})
    assert type(built.c_puct) is float and built == SearchConfig(c_puct=2.0)
    given = asdict(MetaConfig(train_variants=("gardner", "baby"), tasks=2))
    meta = config_from_dict(MetaConfig, {**given, "train_variants": ["gardner", "baby"]})
    assert meta.train_variants == ("gardner", "baby")


def test_the_range_and_type_errors_name_the_field_in_one_line() -> None:
    cases = [
        (lambda: AlphaZeroConfig(games=0), "AlphaZeroConfig.games must be an int >= 1, got 0"),
        (lambda: AlphaZeroConfig(arena_games=-1), "AlphaZeroConfig.arena_games must be an int >= 0, got -1"),
        (lambda: SearchConfig(simulations=2.5), "SearchConfig.simulations must be an int, got 2.5"),
        (lambda: SearchConfig(c_puct=0.0), "SearchConfig.c_puct must be > 0, got 0.0"),
        (lambda: TrainConfig(momentum=1.0), "TrainConfig.momentum must be in [0, 1), got 1.0"),
        (lambda: NetworkConfig(game="chess", blocks=-1), "NetworkConfig.blocks must be >= 0, got -1"),
        (lambda: MetaConfig(probs=("a",)), "MetaConfig.probs must be a list of numbers, got ('a',)"),
        (lambda: RateConfig(anchor=None), "RateConfig.anchor must be a str, got None"),
        (lambda: EvaluateConfig(search={}), "EvaluateConfig.search must be a SearchConfig, got {}"),
        (
            lambda: EvaluateConfig(settle_games=5),
            "EvaluateConfig.settle_games must be 0 or even (whole opening pairs), got 5",
        ),
        (lambda: EvaluateConfig(settle_score=0.5), "EvaluateConfig.settle_score must be in (0.5, 1], got 0.5"),
        (lambda: MetaFocusConfig(initial_keep=1.0), "MetaFocusConfig.initial_keep must be in (0, 1), got 1.0"),
    ]
    for build, message in cases:
        with pytest.raises(ConfigError) as caught:
            build()
        assert str(caught.value) == message


@pytest.mark.parametrize("config", CONFIGS, ids=[type(c).__name__ for c in CONFIGS])
def test_a_dict_with_an_unknown_or_a_missing_key_is_named(config: Any) -> None:
    cls, data = type(config), asdict(config)
    assert config_from_dict(cls, data) == config
    first = next(iter(data))
    with pytest.raises(ConfigKeyError) as caught:
        config_from_dict(cls, {**data, "speed": 1})
    assert caught.value.field == "speed" and caught.value.problem.startswith("unknown key (expected one of ")
    assert str(caught.value).startswith(f"{cls.__name__} key 'speed': unknown key")
    with pytest.raises(ConfigKeyError) as caught:
        config_from_dict(cls, {k: v for k, v in data.items() if k != first})
    assert (caught.value.field, caught.value.problem) == (first, "missing")
    assert str(caught.value) == f"{cls.__name__} key {first!r}: missing"


def test_a_nested_config_names_its_field_under_the_outer_one() -> None:
    data = asdict(EvaluateConfig())
    with pytest.raises(ConfigError) as caught:
        config_from_dict(EvaluateConfig, {**data, "search": {**data["search"], "simulations": 0}})
    assert (caught.value.config, caught.value.field) == ("EvaluateConfig", "search.simulations")
    with pytest.raises(ConfigKeyError) as caught:
        config_from_dict(EvaluateConfig, {**data, "search": {**data["search"], "sims": 3}})
    assert caught.value.field == "search.sims"


def test_only_the_listed_keys_may_be_given() -> None:
    config = config_from_dict(NetworkConfig, {"game": "chess", "blocks": 1, "filters": 8, "value_hidden": 8},
                              keys=("game", "blocks", "filters", "value_hidden"))  # fmt: skip
    assert config == NetworkConfig(game="chess", blocks=1, filters=8, value_hidden=8)
    with pytest.raises(ConfigKeyError, match="'in_planes'"):
        config_from_dict(NetworkConfig, {**asdict(config)}, keys=("game", "blocks", "filters", "value_hidden"))
