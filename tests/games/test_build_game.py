"""``mmc.games.build_game``, the one way a family is wired: it finds each field of ``Game`` in the family's modules,
and refuses in one line a field it cannot find, one two modules define differently, and a keyword that is no field.
A game wired field by field (``tests/games/bonus.py``, written before the builder) keeps working, and
the builder wires it to the very same objects. The registry's ``move_notation(state, move)`` (no longer a second
``move_text``) names a move in its family's notation."""

from __future__ import annotations

import dataclasses
import enum
import types

import pytest

from mmc.games import Game, build_game, get_family, get_game, initial_state, legal_moves, move_notation
from tests.games import bonus

BONUS_GIVEN = {
    "name": "bonus",
    "description": bonus.GAME.description,
    "players": ("black", "white"),
    "default_max_plies": 16,
    "num_planes": 3,
    "num_policy_planes": 1,
    "kernels": bonus,
    "move_text": bonus.cell_name,
    "code_of": int,
    "move_of_code": int,
    "move_cells": bonus.GAME.move_cells,
}
"""What the bonus game names by hand that its module does not bind under the field's name."""


def test_the_builder_wires_a_game_to_the_objects_its_module_binds() -> None:
    built = build_game(bonus, **BONUS_GIVEN)
    for field in dataclasses.fields(Game):
        assert getattr(built, field.name) is getattr(bonus.GAME, field.name) or (
            getattr(built, field.name) == getattr(bonus.GAME, field.name)
        ), field.name
    assert built.terminations == tuple(t.value for t in bonus.Termination)
    assert built.legal_moves is bonus.legal_moves and built.variants is bonus.VARIANTS


def test_every_built_in_family_takes_its_verbs_from_its_own_package() -> None:
    for family, package in (("chess", "chess"), ("gomoku", "gomoku"), ("jump", "jump")):
        game = get_family(family)
        for field in dataclasses.fields(Game):
            value = getattr(game, field.name)
            module = getattr(getattr(value, "__wrapped__", value), "__module__", None)
            if callable(value) and module not in (None, "builtins"):
                assert module.startswith(f"mmc.games.{package}."), (family, field.name, module)


def _namespace(**changes: object) -> dict[str, object]:
    space = {name: getattr(bonus, name) for name in dir(bonus) if not name.startswith("__")}
    space.update(changes)
    return {name: value for name, value in space.items() if value is not None}


def test_a_field_found_nowhere_is_named_with_the_parts_searched() -> None:
    part = types.ModuleType("bonus_without_heuristic")
    part.__dict__.update(_namespace(heuristic=None))
    with pytest.raises(ValueError, match=r"^game 'bonus': no heuristic in bonus_without_heuristic; pass heuristic=$"):
        build_game(part, **BONUS_GIVEN)
    with pytest.raises(ValueError, match=r"^game 'bonus': no VARIANTS in part 1; pass variants=$"):
        build_game(_namespace(VARIANTS=None), **BONUS_GIVEN)


def test_two_parts_that_define_a_field_differently_are_refused_naming_both() -> None:
    other = types.ModuleType("other_view")
    other.render = lambda state, **_: "?"
    with pytest.raises(ValueError, match=r"^game 'bonus': tests.games.bonus and other_view define render differently; "
                                         r"pass render= to choose$"):  # fmt: skip
        build_game(bonus, other, **BONUS_GIVEN)
    chosen = build_game(bonus, other, **BONUS_GIVEN, render=other.render)
    assert chosen.render is other.render


def test_two_terminations_differently_are_refused_and_one_bound_twice_is_found_once() -> None:
    class Termination(enum.Enum):
        OTHER = "other"

    refused = r"^game 'bonus': tests.games.bonus and part 2 define Termination differently; pass terminations= to"
    with pytest.raises(ValueError, match=refused):
        build_game(bonus, {"Termination": Termination}, **BONUS_GIVEN)
    twice = build_game(bonus, {"Termination": bonus.Termination, "legal_moves": bonus.legal_moves}, **BONUS_GIVEN)
    assert twice.terminations == bonus.GAME.terminations


def test_a_module_bound_under_a_verbs_name_is_not_taken_for_the_verb() -> None:
    built = build_game(bonus, {"render": types.ModuleType("render")}, **BONUS_GIVEN)
    assert built.render is bonus.render


def test_a_keyword_that_is_no_field_is_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"^game 'bonus': 'renderer' is no field of mmc.games.Game \(fields: name, "):
        build_game(bonus, **BONUS_GIVEN, renderer=bonus.render)


def test_a_family_built_from_another_shares_every_field_it_does_not_give() -> None:
    variants = {"bonus_3x3": bonus.VARIANTS["bonus_3x3"]}
    mini = build_game(bonus.GAME, name="bonus_mini", variants=variants)
    assert mini.name == "bonus_mini" and mini.variants is variants
    for field in dataclasses.fields(Game):
        if field.name not in ("name", "variants"):
            assert getattr(mini, field.name) == getattr(bonus.GAME, field.name), field.name
    with pytest.raises(ValueError, match=r"^game 'bonus_mini': game 'bonus' and part 2 define render differently; "):
        build_game(bonus.GAME, {"render": print}, name="bonus_mini")


def test_the_registry_names_a_move_in_its_familys_notation() -> None:
    for variant, text in (("gardner", "a2a3"), ("tictactoe", "b2"), ("jump", "c1-c2")):
        state = initial_state(variant)
        move = next((m for m in legal_moves(state) if move_notation(state, m) == text), None)
        assert move is not None, (variant, text, [move_notation(state, m) for m in legal_moves(state)][:8])
        assert get_game(variant).parse_move(text) == move
