"""The jump game's rules, scenario by scenario (``docs/rules/jump.md``): chains, captures, passes, the end of the
race and the cap, each variant's difference, and the position text with a chain under way."""

from __future__ import annotations

import re

import pytest

from mmc.games import IllegalMoveError
from mmc.games.jump import (
    Player,
    State,
    Termination,
    apply_move,
    complete_moves,
    from_text,
    initial_state,
    legal_moves,
    outcome,
    parse_move,
    perft,
    render,
    scores,
)
from mmc.games.jump.variants import square_of
from tests.games.jump import reference

pytestmark = pytest.mark.xdist_group("jump")


def play(state: State, *texts: str) -> State:
    for text in texts:
        state = apply_move(state, parse_move(text))
    return state


def texts(state: State) -> list[str]:
    return sorted(m.text() for m in legal_moves(state))


def test_a_chain_of_four_hops_captures_three_pieces_and_leaves_an_own_one() -> None:
    """a1 hops over White's a2, White's b3, its own c4 and White's d5: each capture at once, the own piece stays;
    the same player moves until the chain ends by itself at e5 (nothing left to hop), one ply in all."""
    start = from_text("jump", "8/8/8/3w4/2b5/1w6/w7/b7 b 0")
    state = play(start, "a1-a3")
    assert state.turn is Player.BLACK and state.ply == 0 and state.path == (square_of("a1"), square_of("a3"))
    assert state.board_array()[square_of("a2")] == 0, "captured at once"
    assert texts(state) == ["a3-c3", "end@a3"]
    state = play(state, "a3-c3", "c3-c5")
    assert texts(state) == ["c5-e5", "end@c5"] and state.fen() == "8/8/8/2bw4/2b5/8/8/8 b 0 a1-a3-c3-c5"
    state = play(state, "c5-e5")
    assert state.turn is Player.WHITE and state.ply == 1 and state.path == ()
    assert state.fen() == "8/8/8/4b3/2b5/8/8/8 w 1"
    assert complete_moves(start, [parse_move(t) for t in ("a1-a3", "a3-c3", "c3-c5", "c5-e5")]) == ["a1-a3-c3-c5-e5"]
    moves = reference.complete_moves(start.variant, reference.parse(start.variant, start.fen()))
    assert ["a1", "a3", "c3", "c5", "e5"] in [[reference.name(s) for s in path] for path, _ in moves]


def test_a_capture_frees_its_square_at_once_for_a_later_landing() -> None:
    """Black's a3-a5 takes White's a4: White's c4 may then hop over Black's b4 onto a4, where its own piece stood.
    (Within one chain a captured square is never a later landing: landings keep the file and rank parity of the
    chain's start, a hopped square never has it; so a capture frees landings for later moves.)"""
    before = from_text("jump", "8/8/8/8/wbw5/b7/8/8 w 1")
    with pytest.raises(IllegalMoveError, match=r"c4-a4 .*: a4 is not empty$"):
        apply_move(before, parse_move("c4-a4"))
    state = play(from_text("jump", "8/8/8/8/wbw5/b7/8/8 b 0"), "a3-a5")
    assert state.turn is Player.WHITE, "nothing left to hop: the chain ended by itself"
    state = play(state, "c4-a4")
    assert state.fen() == "8/8/8/b7/w7/8/8/8 w 1 c4-a4", "Black's b4 captured in turn; a6 is free to hop on to"
    assert play(state, "end@a4").fen() == "8/8/8/b7/w7/8/8/8 b 2"


def test_a_chain_never_returns_to_its_start() -> None:
    """b2 hops round its own pieces b3, c4, d3 to d2; the hop over c2 back onto b2 is refused, so the chain ends."""
    start = from_text("jump", "7w/8/8/8/2b5/1b1b4/1bb5/8 b 0")
    state = play(start, "b2-b4", "b4-d4")
    assert texts(state) == ["d4-d2", "end@d4"]
    state = play(state, "d4-d2")
    assert state.turn is Player.WHITE and state.path == ()
    paths = ["-".join(map(reference.name, p)) for p, _ in reference.complete_moves(start.variant,
             reference.parse(start.variant, start.fen()))]  # fmt: skip
    assert "b2-b4-d4-d2" in paths and not any(p.startswith("b2-") and p.endswith("-b2") for p in paths)
    mid = from_text("jump", "7w/8/8/8/2b5/1b1b4/2bb4/8 b 0 b2-b4-d4-d2")
    with pytest.raises(IllegalMoveError, match=r"b2 was stood on already in this move$"):
        apply_move(mid, parse_move("d2-b2"))


def test_a_blocked_side_must_pass_and_only_then() -> None:
    state = from_text("jump", "8/8/8/8/8/w7/w7/bww5 b 0")
    assert texts(state) == ["pass"]
    after = play(state, "pass")
    assert after.turn is Player.WHITE and after.ply == 1 and outcome(after) is None
    with pytest.raises(IllegalMoveError, match=r"pass .*: pass only without a step or a hop, and white has one$"):
        apply_move(after, parse_move("pass"))


def test_a_side_without_pieces_passes_and_does_not_end_the_race() -> None:
    state = from_text("jump", "8/8/8/8/8/8/8/4b3 w 1")
    assert texts(state) == ["pass"] and outcome(state) is None
    state = play(state, "pass", "e1-e2")
    assert state.ply == 3 and outcome(state) is None and scores(state)[Player.WHITE] == (0, 0)


def test_the_race_ends_when_the_mover_is_all_home() -> None:
    state = play(from_text("jump", "b7/8/4b3/7w/8/8/8/8 b 0"), "e6-e7")
    assert outcome(state) == (Player.BLACK, Termination.ALL_IN_TARGET) and legal_moves(state) == ()
    assert outcome(state).result() == "1-0"


def test_the_race_ends_when_the_move_leaves_the_other_side_all_home() -> None:
    """Black takes White's last piece outside White's target: White is all home, and wins on score though Black
    moved."""
    state = play(from_text("jump", "8/8/8/8/3w4/3b4/8/w7 b 0"), "d3-d5")
    assert outcome(state) == (Player.WHITE, Termination.ALL_IN_TARGET)


def test_the_race_end_is_decided_by_score_and_may_be_drawn() -> None:
    """White moves its last piece home (1 home); Black has 1 piece home too: a draw."""
    state = play(from_text("jump", "b7/8/8/8/8/4w3/8/b7 w 1"), "e3-e2")
    assert outcome(state) == (None, Termination.ALL_IN_TARGET)


def test_the_cap_one_ply_before_and_at_it() -> None:
    state = from_text("jump", "8/b7/8/b7/7w/8/8/8 w 399")
    assert outcome(state) is None and legal_moves(state)
    state = play(state, "h4-h3")
    assert state.ply == 400 and legal_moves(state) == () and perft(state, 1) == 0
    assert outcome(state) == (Player.BLACK, Termination.MOVE_CAP), "1 piece home against none"
    chain = play(from_text("jump", "7w/8/8/8/3w4/3b4/8/8 w 399"), "d4-d2")
    assert chain.ply == 400 and outcome(chain) == (Player.WHITE, Termination.MOVE_CAP), "d3 taken, d2 home"


def test_a_chain_under_way_at_the_cap_goes_on_until_it_ends() -> None:
    state = from_text("jump", "8/3w4/8/3w4/3b4/8/8/8 b 398")
    state = play(state, "d4-d6")
    assert state.ply == 398 and outcome(state) is None and texts(state) == ["d6-d8", "end@d6"]
    state = play(state, "end@d6")
    assert state.ply == 399 and outcome(state) is None


def test_a_lower_max_plies_ends_the_game_by_score() -> None:
    state = from_text("jump", "8/b7/8/b7/7w/8/8/8 w 9", max_plies=10)
    assert outcome(state) is None
    state = play(state, "h4-h3")
    assert legal_moves(state), "a lower cap is no rule of the board: the moves stay"
    assert outcome(state) == (Player.BLACK, Termination.MOVE_CAP)


def test_jump_diagonal_moves_in_eight_directions() -> None:
    assert "c3-d4" in texts(initial_state("jump_diagonal")) and "c3-d4" not in texts(initial_state("jump"))
    with pytest.raises(IllegalMoveError, match=r"d4 is diagonal from c3: jump moves orthogonally only$"):
        apply_move(initial_state("jump"), parse_move("c3-d4"))
    text = "8/8/8/8/8/2w5/1b6/7w b 0"
    assert play(from_text("jump_diagonal", text), "b2-d4").fen() == "8/8/8/8/3b4/8/8/7w w 1", "c3 captured"
    assert texts(from_text("jump", text)) == ["b2-a2", "b2-b1", "b2-b3", "b2-c2"]


def test_jump_halma_keeps_a_hopped_piece() -> None:
    text = "8/8/8/8/3w4/3b4/8/w7 b 0"
    assert play(from_text("jump", text), "d3-d5").fen() == "8/8/8/3b4/8/8/8/w7 w 1"
    assert play(from_text("jump_halma", text), "d3-d5").fen() == "8/8/8/3b4/3w4/8/8/w7 w 1"


def test_jump_6x6_starts_with_six_pieces_and_has_a_cap_of_200() -> None:
    state = initial_state("jump_6x6")
    assert state.fen() == "1w1w1w/2w1w1/3w2/2b3/1b1b2/b1b1b1 b 0"
    assert scores(state) == {Player.BLACK: (0, 6), Player.WHITE: (0, 6)}
    assert outcome(from_text("jump_6x6", "6/b5/5w/b5/6/6 b 200")) == (Player.BLACK, Termination.MOVE_CAP)
    with pytest.raises(ValueError, match="ply 202 is outside 0 to 200"):
        from_text("jump_6x6", "6/b5/6/6/5w/6 b 202")
    with pytest.raises(IllegalMoveError, match="g1 is off the jump_6x6 board"):
        apply_move(from_text("jump_6x6", "5w/6/6/6/6/4bb b 0"), parse_move("e1-g1"))


def test_texts_round_trip_with_a_chain_under_way() -> None:
    state = play(from_text("jump", "8/8/8/3w4/2b5/1w6/w7/b7 b 0"), "a1-a3", "a3-c3")
    assert from_text("jump", state.fen()) == state
    assert "chain under way: a1-a3-c3 (black hops on or ends)" in render(state)
    assert [m.text() for m in map(parse_move, ("c3-c4", "c3-c5", "end@e5", "pass", "c3-e5", "c3-d4"))] == [
        "c3-c4", "c3-c5", "end@e5", "pass", "c3-e5", "c3-d4",
    ]  # fmt: skip


BAD_POSITIONS = [
    ("8/8/8/8/8/8/8/b8 b 0", "rank 1 ('b8') has 9 squares, jump has 8 files"),
    ("8/8/8/8/8/8/8/b6 b 0", "rank 1 ('b6') has 7 squares"),
    ("8/8/8/8/8/8/8 b 0", "the board has 7 ranks, jump has 8"),
    ("8/8/8/8/8/8/bbbbbbbb/bb6 b 0", "Black has 10 pieces, jump starts with 9"),
    ("8/8/8/8/8/8/8/8 b 402", "ply 402 is outside 0 to 400 (the cap of jump)"),
    ("8/8/8/8/8/8/8/8 b -2", "the ply count must be a number"),
    ("8/8/8/8/8/8/8/8 b 3", "ply 3 does not fit Black to move (Black moves at even plies)"),
    ("8/8/8/8/8/8/8/8 w 2", "ply 2 does not fit White to move"),
    ("8/8/8/8/8/8/8/8 x 0", "the side to move must be 'b' or 'w'"),
    ("8/8/8/8/8/8/8/8 b", "expected 'BOARD SIDE PLY [CHAIN]', got 2 fields"),
    ("8/8/8/8/8/8/8/7x b 0", "rank 1 ('7x') holds 'x'"),
    ("8/8/8/8/8/2b5/8/8 b 0 c1-d3", "chain 'c1-d3': c1-d3 is no hop of jump"),
    ("8/8/8/8/8/2w5/8/8 b 0 c1-c3", "chain 'c1-c3': c3 holds no Black piece"),
    ("8/8/8/8/8/2b5/8/2b5 b 0 c1-c3", "chain 'c1-c3': c1 was left, it must be empty"),
    ("8/8/8/8/8/2b5/8/8 b 0 c3", "chain 'c3' must name 2 to 100 different squares"),
]


@pytest.mark.parametrize(("text", "message"), BAD_POSITIONS)
def test_a_bad_position_is_refused_in_one_line_naming_the_field(text: str, message: str) -> None:
    with pytest.raises(ValueError) as error:
        from_text("jump", text)
    assert message in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("c3-c5", "c4 is empty: nothing to hop over"),
        ("d4-d5", "d4 holds no black piece"),
        ("a2-b2", "b2 is not empty"),
        ("h1-h2", "h1 holds no black piece"),
        ("end@c3", "no chain is under way"),
        ("pass", "pass only without a step or a hop"),
        ("g1-h2", "h2 is diagonal from g1: jump moves orthogonally only"),
    ],
)
def test_an_illegal_move_names_the_first_square_that_fails(move: str, message: str) -> None:
    state = play(initial_state("jump"), "a1-a2", "b8-a8")
    with pytest.raises(IllegalMoveError) as error:
        apply_move(state, parse_move(move))
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_bad_move_text_is_refused_in_one_line() -> None:
    for text, message in [("c3-c5-e5", "a chain is played one hop at a time"), ("end", "'end@e5'"),
                          ("c3-f3", "f3 is neither a step nor a hop from c3"), ("zz", "expected a step")]:  # fmt: skip
        with pytest.raises(ValueError, match=message):
            parse_move(text)


def test_during_a_chain_only_its_piece_moves() -> None:
    state = play(from_text("jump", "8/8/8/3w4/2b5/1w6/w7/b7 b 0"), "a1-a3")
    refused = [
        ("c4-c5", "c4: a chain is under way: the piece on a3 hops on or ends (end@a3)"),
        ("end@c4", "the piece on a3 hops on or ends"),
        ("a3-a4", "a3: a chain is under way"),
    ]
    for text, message in refused:
        with pytest.raises(IllegalMoveError, match=re.escape(message)):
            apply_move(state, parse_move(text))
