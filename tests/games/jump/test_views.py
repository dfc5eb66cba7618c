"""What the network and people see of the jump game: the input planes and the action encoding from the mover's
view, the greedy heuristic, the board as a picture and the clicks of each action."""

from __future__ import annotations

import numpy as np
import pytest

from mmc.games.jump import (
    action_space,
    apply_move,
    board_view,
    from_text,
    initial_state,
    legal_moves,
    move_cells,
    observation_planes,
    outcome,
    parse_move,
)
from mmc.games.jump.actions import END_PLANE, HOP_PLANE, NUM_POLICY_PLANES, PASS_PLANE, STEP_PLANE
from mmc.games.jump.greedy import SCORE_UNIT, WIN_VALUE, heuristic
from mmc.games.jump.observe import (
    CAPTURE,
    CELLS,
    CHAIN_PIECE,
    CHAIN_VISITED,
    OPPONENT_PIECES,
    OPPONENT_TARGET,
    OWN_PIECES,
    OWN_TARGET,
    PLIES_LEFT,
    REACH,
)

pytestmark = pytest.mark.xdist_group("jump")

CHAIN = "8/8/8/3w4/2b5/1w6/w7/b7 b 0"
"""Black's a1 hops a1-a3-c3-c5-e5, taking a2, b3 and d5 (tests/games/jump/test_rules.py)."""


def test_both_players_see_their_pieces_race_up() -> None:
    state = initial_state("jump")
    black, white = observation_planes(state), observation_planes(state, color=-1)
    assert black[OWN_PIECES, 0].tolist() == [1, 0, 1, 0, 1, 0, 1, 0]  # a1 c1 e1 g1
    assert white[OWN_PIECES, 0].tolist() == [0, 1, 0, 1, 0, 1, 0, 1]  # h8 f8 d8 b8: ranks flipped, files kept
    np.testing.assert_array_equal(black[OWN_PIECES], white[OPPONENT_PIECES, ::-1])
    for view in (black, white):
        assert view[OWN_TARGET, 6:].all() and not view[OWN_TARGET, :6].any()
        assert view[OPPONENT_TARGET, :2].all() and not view[OPPONENT_TARGET, 2:].any()
        assert view[CELLS].all() and not view[CHAIN_PIECE].any() and (view[PLIES_LEFT] == 1.0).all()
    assert (observation_planes(initial_state("jump_6x6"))[PLIES_LEFT] == 0.5).all(), "200 plies left, over 400"


def test_a_chain_under_way_is_in_the_planes() -> None:
    state = apply_move(apply_move(from_text("jump", CHAIN), parse_move("a1-a3")), parse_move("a3-c3"))
    planes = observation_planes(state)
    assert np.argwhere(planes[CHAIN_PIECE]).tolist() == [[2, 2]]  # c3
    assert sorted(map(tuple, np.argwhere(planes[CHAIN_VISITED]).tolist())) == [(0, 0), (2, 0), (2, 2)]


def _squares(plane: np.ndarray) -> list[str]:
    return sorted("abcdefgh"[f] + str(r + 1) for r, f in np.argwhere(plane).tolist())


def test_the_planes_show_where_the_rule_lets_the_viewer_go_and_what_it_takes() -> None:
    orthogonal = ["a3", "b1", "b4", "c3", "c5", "d4"]  # a1 steps to b1 and hops a2 to a3; c4 steps four ways
    jump = observation_planes(from_text("jump", CHAIN))
    assert _squares(jump[REACH]) == orthogonal and _squares(jump[CAPTURE]) == ["a2"]
    halma = observation_planes(from_text("jump_halma", CHAIN))
    assert _squares(halma[REACH]) == orthogonal and not halma[CAPTURE].any()  # a hopped piece stays
    diagonal = observation_planes(from_text("jump_diagonal", CHAIN))  # and b2, b5, d3, a hop over d5 to e6
    assert _squares(diagonal[REACH]) == sorted([*orthogonal, "b2", "b5", "d3", "e6"])
    assert _squares(diagonal[CAPTURE]) == ["a2", "d5"]
    white = observation_planes(from_text("jump", CHAIN), color=-1)  # ranks flipped: d5's step to d6 on row 2
    assert white[REACH, 2, 3] == 1 and white[REACH].sum() == 8 and not white[CAPTURE].any()
    chain = apply_move(from_text("jump", CHAIN), parse_move("a1-a3"))  # a3's next hop goes over b3 to c3
    assert _squares(observation_planes(chain)[REACH]) == ["c3"] and _squares(observation_planes(chain)[CAPTURE]) == [
        "b3"
    ]
    assert not observation_planes(chain, color=-1)[REACH:].any()  # the opponent's chain: nothing of the viewer's


def test_every_legal_action_has_its_own_logit() -> None:
    rng = np.random.default_rng(0)
    for variant in ("jump", "jump_diagonal", "jump_6x6"):
        space = action_space(variant)
        v = space.variant
        assert space.num_actions == NUM_POLICY_PLANES * v.height * v.width
        state = initial_state(variant)
        while outcome(state) is None:
            moves = legal_moves(state)
            actions = space.legal_actions(state)
            assert len(set(actions.tolist())) == len(moves) and (actions >= 0).all()
            assert [space.decode(int(a), state) for a in actions] == list(moves)
            assert space.legal_mask(state).sum() == len(moves)
            state = apply_move(state, moves[int(rng.integers(len(moves)))])


def test_actions_are_read_from_the_movers_view() -> None:
    space = action_space("jump")
    plane = lambda action: action // 64  # noqa: E731
    cell = lambda action: divmod(action % 64, 8)  # noqa: E731
    north = space.encode(parse_move("c3-c4"), 1)
    assert plane(north) == STEP_PLANE + 0 and cell(north) == (2, 2)
    south = space.encode(parse_move("d6-d5"), -1)  # White's step towards its target: "up" in its view
    assert plane(south) == STEP_PLANE + 0 and cell(south) == (2, 3)
    assert plane(space.encode(parse_move("d6-e5"), -1)) == STEP_PLANE + 1  # SE for White is NE in its view
    assert plane(space.encode(parse_move("c3-c5"), 1)) == HOP_PLANE + 0
    end = space.encode(parse_move("end@e5"), -1)
    assert plane(end) == END_PLANE and cell(end) == (3, 4), "at the chain's cell, rank 5 is row 3 for White"
    assert space.encode(parse_move("pass"), 1) == space.encode(parse_move("pass"), -1) == PASS_PLANE * 64


def test_greedy_scores_a_hop_by_the_best_chain_it_starts() -> None:
    state = from_text("jump", CHAIN)
    moves = legal_moves(state)
    scores = dict(zip((m.text() for m in moves), heuristic(state, moves), strict=True))
    assert max(scores, key=scores.get) == "a1-a3", "the chain that takes three pieces"
    after = apply_move(apply_move(apply_move(state, parse_move("a1-a3")), parse_move("a3-c3")), parse_move("c3-c5"))
    assert scores["a1-a3"] == heuristic(after, [parse_move("c5-e5")])[0]
    won = from_text("jump", "b7/8/4b3/7w/8/8/8/8 b 0")
    assert heuristic(won, [parse_move("e6-e7")])[0] == WIN_VALUE
    home = from_text("jump", "8/8/4b3/7w/8/8/8/8 b 0")
    assert heuristic(home, [parse_move("e6-e7")])[0] - heuristic(home, [parse_move("e6-e5")])[0] > SCORE_UNIT


def test_the_picture_marks_targets_and_chain_and_the_clicks_follow_the_chain() -> None:
    state = apply_move(from_text("jump", CHAIN), parse_move("a1-a3"))
    view = board_view(state)
    marks = dict(view.marks)
    assert len(marks["target-first"]) == len(marks["target-second"]) == 16
    assert marks["chain"] == (0, 16) and view.cells[16] == (1, "●") and view.cells[0] == (0, "")
    assert view.caption.startswith("score: black 0 of 2 home, white 0 of 2 home; chain under way: a1-a3")
    assert [move_cells(state, m) for m in legal_moves(state)] == [("a3", "c3"), ("a3",)]
    start = initial_state("jump")
    assert move_cells(start, parse_move("c3-c4")) == ("c3", "c4") and move_cells(start, parse_move("pass")) == ()
