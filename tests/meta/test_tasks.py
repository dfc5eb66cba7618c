"""Task distributions (mmc.meta.tasks): patterns expand to variant ids, twins count once, the draw is seeded."""

from __future__ import annotations

import pytest

from mmc.core.configs import ConfigError
from mmc.core.seeding import derive, root
from mmc.meta import TaskDistribution, same_game, study_tasks, task_seed
from mmc.meta.tasks import MAX_SUPPORT


def test_patterns_expand_in_order_and_twins_count_once() -> None:
    d = TaskDistribution(("mnk_{3..4}x{3,5}_k3", "gomoku_6x6", "mnk_6x6_k4", "tictactoe"))
    assert d.support() == ("mnk_3x3_k3", "mnk_3x5_k3", "mnk_4x3_k3", "mnk_4x5_k3", "gomoku_6x6")
    assert d.member("tictactoe") == "mnk_3x3_k3" and d.member("mnk_6x6_k4") == "gomoku_6x6"
    assert d.member("connect4") is None and d.member("gardner") is None
    assert same_game("connect4", "grav_7x6_k4") and not same_game("connect4", "mnk_7x6_k4")
    assert TaskDistribution(("gardner", "dark")).support() == ("gardner", "dark")  # any family's ids


def test_exclusion_leaves_out_twins_too() -> None:
    d = TaskDistribution(("mnk_{5..7}x{5..7}_k4",), exclude=("gomoku_6x6", "mnk_7x{5..6}_k4"))
    assert "mnk_6x6_k4" not in d.support() and "mnk_7x5_k4" not in d.support() and len(d.support()) == 6


def test_the_draw_is_seeded_uniform_and_in_the_supports_order() -> None:
    d = TaskDistribution(("mnk_{4..8}x{4..8}_k{3..4}",), draw=10)
    support = d.support()
    drawn = d.sample(task_seed(0))
    assert len(drawn) == 10 == len(set(drawn)) and list(drawn) == sorted(drawn, key=support.index)
    assert drawn == d.sample(derive(root(0), "tasks")) == study_tasks({"variants": list(d.variants), "draw": 10}, 0)
    seen = {name for seed in range(40) for name in d.sample(task_seed(seed))}
    assert seen == set(support)  # every variant can be drawn
    assert d.sample(task_seed(1)) != drawn
    assert TaskDistribution(d.variants).sample(task_seed(0)) == support  # no draw: all of them
    assert study_tasks(["gardner", "dark"], 0) == ("gardner", "dark")  # a list is itself


@pytest.mark.parametrize(
    ("fields", "field", "problem"),
    [
        ({"variants": ("mnk_{3..16}x3_k3",)}, "variants", "the board 16x3 is out of range"),
        ({"variants": ("mnk_3x3_k{3..4}",)}, "variants", "k=4 is longer than the 3x3 board's longer side"),
        ({"variants": ("mnk_{3..15}x{3..15}_k3", "mnk_{3..15}x{3..15}_k{3..15}") * 300}, "variants", "more than"),
        ({"variants": ("mnk_{x}x3_k3",)}, "variants", "neither a range"),
        ({"variants": ("mnk_{3..{4}}x3_k3",)}, "variants", "unmatched or nested brace"),
        ({"variants": ("nope_{1..2}",)}, "variants", "unknown variant 'nope_1'"),
        ({"variants": ()}, "variants", "at least one"),
        ({"variants": ("gardner",), "exclude": ("gardner",)}, "exclude", "leaves the distribution empty"),
        ({"variants": ("gardner",), "draw": 2}, "draw", "must be <= the 1 variants"),
        ({"variants": ("gardner",), "draw": 0}, "draw", "must be >= 1"),
    ],
)
def test_a_bad_distribution_names_its_field(fields: dict, field: str, problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        TaskDistribution(**fields)
    assert caught.value.field == field and problem in caught.value.problem, caught.value
    assert "\n" not in str(caught.value)
    assert MAX_SUPPORT == 100_000


def test_a_distribution_from_params_names_an_unknown_key() -> None:
    with pytest.raises(ConfigError, match="unknown key"):
        TaskDistribution.from_params({"variants": ["gardner"], "sample": 2})
    with pytest.raises(ConfigError, match="variants"):
        TaskDistribution.from_params({"draw": 2})
    assert TaskDistribution.from_params({"variants": ["gardner", "dark"], "draw": 1}).draw == 1
