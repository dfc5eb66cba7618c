"""The starts of adaptation: names round-trip, each start's rules, the study's comparisons in their order."""

from __future__ import annotations

import pytest

from mmc.evaluation.starts import (
    Start,
    StartError,
    adapted_models,
    check_starts,
    comparisons,
    known_starts,
    model_label,
    parse_model_label,
    title,
)
from mmc.meta import Learned, Learner, LearnerError, LearnerSetup, Service, get_learner
from mmc.meta.learners import check_name
from mmc.meta.registry import register_learner

STARTS = ["joat", "metafocus", "multitask", "expert-gardner", "scratch"]
LEARNERS = ["joat", "multitask", "metafocus"]


@pytest.mark.parametrize("name", STARTS)
def test_a_start_is_its_name(name: str) -> None:
    start = Start.parse(name)
    assert str(start) == name and f"{start}" == name and Start.parse(start) is start
    assert start == Start(name) and hash(start) == hash(Start(name))
    assert model_label(start, 100) == f"{name}-b100" and model_label(start, 0, 1) == f"{name}-b0-r1"


def test_each_start_knows_what_it_adapts_and_its_budget_zero_model() -> None:
    joat, focus, expert, scratch = (Start.parse(n) for n in ("joat", "metafocus", "expert-gardner", "scratch"))
    assert focus.adapts_from == joat and not focus.zero_shot and not focus.has_model(0) and focus.has_model(1)
    assert joat.adapts_from == joat and joat.zero_shot and joat.has_model(0) and focus.parent == joat
    assert expert.expert == "gardner" and expert.adapts_from == expert and joat.expert is None
    assert scratch.is_scratch and not joat.is_scratch and scratch.has_model(0)
    with pytest.raises(StartError, match="unknown start 'expert-'"):
        Start.parse("expert-")
    with pytest.raises(StartError, match="unknown start 'Jaot!'"):
        Start.parse("Jaot!")


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
    assert [(model_label(*a), model_label(*b)) for a, b in comparisons(["joat", "metafocus"], (5,))] == [
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
        (["metafocus"], (5,), "metafocus needs joat among the starts (it starts from joat's network)"),
        (["joat", "metafocus"], (0,), "metafocus needs a budget > 0 in adapt.budgets (at 0 it is joat)"),
    ],
)
def test_check_starts_names_the_first_problem(starts: list[str], budgets: tuple[int, ...], message: str) -> None:
    with pytest.raises(StartError) as raised:
        check_starts(starts, ["gardner"], budgets, LEARNERS)
    assert str(raised.value) == message


def test_check_starts_parses_known_starts() -> None:
    assert known_starts(["gardner", "rifle"], LEARNERS) == [
        "joat", "multitask", "metafocus", "expert-gardner", "expert-rifle", "scratch"
    ]  # fmt: skip
    assert check_starts(STARTS, ["gardner"], (0, 20), LEARNERS) == [Start(name) for name in STARTS]


class _Contender(Learner):
    """A meta-learner of this test (a contender: no baseline, a zero-shot model of its own)."""

    name = "test_contender"
    title = "Contender"

    def learn(self, setup: LearnerSetup, service: Service) -> Learned:
        return Learned(setup.initial_network())


class _Child(Learner):
    """A learner that starts from the contender and keeps a zero-shot model of its own."""

    name = "test_child"
    starts_from = "test_contender"

    def learn(self, setup: LearnerSetup, service: Service) -> Learned:
        assert setup.start is not None
        return Learned(setup.start)


CONTENDER, CHILD = register_learner(_Contender()), register_learner(_Child())


def test_every_contender_is_compared_with_every_start_and_a_child_with_its_parent() -> None:
    """An installed meta-learner stands where JOAT does: against every start with a zero-shot model (a contender
    listed before it and its parent or child excepted), then each learner against the one it starts from at every
    budget, then adapted against unadapted; a title names it in prose."""
    starts = ["joat", "metafocus", "multitask", "test_contender", "test_child", "scratch"]
    pairs = [(model_label(*a), model_label(*b)) for a, b in comparisons(starts, (0, 5)) if a[1] == b[1] == 0]
    assert pairs == [
        ("joat-b0", "multitask-b0"),
        ("joat-b0", "test_contender-b0"),
        ("joat-b0", "test_child-b0"),
        ("joat-b0", "scratch-b0"),
        ("test_contender-b0", "multitask-b0"),
        ("test_contender-b0", "scratch-b0"),
        ("test_child-b0", "multitask-b0"),
        ("test_child-b0", "scratch-b0"),
        ("test_child-b0", "test_contender-b0"),
    ]
    assert ("metafocus-b5", "joat-b5") in [(model_label(*a), model_label(*b)) for a, b in comparisons(starts, (0, 5))]
    assert title("test_contender") == "Contender" and title("test_child") == "test_child" and title("joat") == "JOAT"
    assert title("expert-gardner") == "expert-gardner" and Start("test_child").parent == Start("test_contender")


def test_a_learner_name_must_fit_every_label_and_be_free() -> None:
    for bad in ("Reptile", "2nd", "a-b", "x" * 33, "my.learner"):
        with pytest.raises(LearnerError, match="lower-case letters, digits or _"):
            check_name(bad)
    with pytest.raises(LearnerError, match="'expert' is reserved"):
        check_name("expert")
    with pytest.raises(LearnerError, match="learner name 'test_contender' is taken"):
        register_learner(_Contender())
    with pytest.raises(LearnerError, match=r"unknown learner 'maml' \(installed: joat, metafocus, multitask, scratch"):
        get_learner("maml")
