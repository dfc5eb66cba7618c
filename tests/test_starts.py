"""The starts of adaptation: names round-trip, each start's rules, the study's comparisons in their order."""

from __future__ import annotations

import pytest

from mmc.starts import (
    JOAT,
    METAFOCUS,
    Start,
    StartError,
    adapted_models,
    check_starts,
    comparisons,
    known_starts,
    model_label,
    parse_model_label,
)

STARTS = ["joat", "metafocus", "multitask", "expert-gardner", "scratch"]


@pytest.mark.parametrize("name", STARTS)
def test_a_start_is_its_name(name: str) -> None:
    start = Start.parse(name)
    assert str(start) == name and f"{start}" == name and Start.parse(start) is start
    assert start == Start(name) and hash(start) == hash(Start(name))
    assert model_label(start, 100) == f"{name}-b100" and model_label(start, 0, 1) == f"{name}-b0-r1"


def test_each_start_knows_what_it_adapts_and_its_budget_zero_model() -> None:
    joat, focus, expert, scratch = (Start.parse(n) for n in ("joat", "metafocus", "expert-gardner", "scratch"))
    assert focus.adapts_from == joat and focus.masked and not focus.has_model(0) and focus.has_model(1)
    assert joat.adapts_from == joat and not joat.masked and joat.has_model(0)
    assert expert.expert == "gardner" and expert.adapts_from == expert and joat.expert is None
    assert scratch.is_scratch and not joat.is_scratch and scratch.has_model(0)
    with pytest.raises(StartError, match="unknown start 'expert-'"):
        Start.parse("expert-")
    with pytest.raises(StartError, match="unknown start 'jaot'"):
        Start.parse("jaot")


def test_a_model_name_parses_back_to_its_start_and_budget() -> None:
    for start in STARTS:
        assert parse_model_label(model_label(start, 100)) == (start, 100)
    assert parse_model_label("expert-baby-b0") == ("expert-baby", 0)
    for bad in ("joat", "joat-b", "-b20", "joat-bx", "joat-b20-r0"):
        with pytest.raises(ValueError, match=f"START-bBUDGET: {bad!r}"):
            parse_model_label(bad)


def test_adapted_models_are_budget_first_without_metafocus_at_zero() -> None:
    models = [(str(s), b) for s, b in adapted_models(["joat", "metafocus", "scratch"], (0, 20))]
    assert models == [("joat", 0), ("scratch", 0), ("joat", 20), ("metafocus", 20), ("scratch", 20)]


def test_comparisons_keep_their_order() -> None:
    """JOAT against each other start per budget, then MetaFocus against JOAT, then each start against itself
    unadapted (MetaFocus's is JOAT's budget-0 model)."""
    pairs = [(model_label(*a), model_label(*b)) for a, b in comparisons(STARTS, (0, 20))]
    assert pairs == [
        ("joat-b0", "multitask-b0"),
        ("joat-b0", "expert-gardner-b0"),
        ("joat-b0", "scratch-b0"),
        ("joat-b20", "multitask-b20"),
        ("joat-b20", "expert-gardner-b20"),
        ("joat-b20", "scratch-b20"),
        ("metafocus-b20", "joat-b20"),
        ("joat-b20", "joat-b0"),
        ("metafocus-b20", "joat-b0"),
        ("multitask-b20", "multitask-b0"),
        ("expert-gardner-b20", "expert-gardner-b0"),
        ("scratch-b20", "scratch-b0"),
    ]
    # without JOAT there is nothing to compare it with; without a budget 0 nothing unadapted
    assert comparisons(["scratch", "multitask"], (0, 5)) == [
        ((Start("scratch"), 5), (Start("scratch"), 0)),
        ((Start("multitask"), 5), (Start("multitask"), 0)),
    ]
    assert [(model_label(*a), model_label(*b)) for a, b in comparisons([JOAT, METAFOCUS], (5,))] == [
        ("metafocus-b5", "joat-b5")
    ]


@pytest.mark.parametrize(
    ("starts", "budgets", "message"),
    [
        ([], (0,), "must name distinct starting models, got []"),
        (["joat", "joat"], (0,), "must name distinct starting models, got ['joat', 'joat']"),
        (
            ["joat", "expert-baby"],
            (0,),
            "unknown start 'expert-baby' (known: joat, multitask, metafocus, expert-gardner, scratch)",
        ),
        (["metafocus"], (5,), "metafocus needs joat among the starts (it is JOAT adapted with a mask)"),
        (["joat", "metafocus"], (0,), "metafocus needs a budget > 0 in adapt.budgets (at 0 it is JOAT)"),
    ],
)
def test_check_starts_names_the_first_problem(starts: list[str], budgets: tuple[int, ...], message: str) -> None:
    with pytest.raises(StartError) as raised:
        check_starts(starts, ["gardner"], budgets)
    assert str(raised.value) == message


def test_check_starts_parses_known_starts() -> None:
    assert known_starts(["gardner", "rifle"]) == [
        "joat", "multitask", "metafocus", "expert-gardner", "expert-rifle", "scratch"
    ]  # fmt: skip
    assert check_starts(STARTS, ["gardner"], (0, 20)) == [Start(name) for name in STARTS]
