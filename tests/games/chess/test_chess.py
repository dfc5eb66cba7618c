"""8x8 chess's own state: castling rights and the en-passant square in the board, in FEN and in repetitions; its
action encoding (AlphaZero's 8x8x73 on the shared policy planes).

Move generation and game ends are compared with Fairy-Stockfish in test_perft.py and test_oracle.py; here are
the FEN contracts, the rules that read the extra state and the encoding of castling, en passant and promotions.
"""

from __future__ import annotations

import pytest

from mmc.games.chess import (
    FenError,
    Move,
    State,
    Termination,
    action_space,
    apply_move,
    from_fen,
    initial_state,
    legal_moves,
    outcome,
)
from mmc.games.chess.actions import NUM_POLICY_PLANES


def play(state: State, *moves: str) -> State:
    for text in moves:
        state = apply_move(state, Move.from_uci(text))
    return state


def test_start_fen_has_the_castling_rights() -> None:
    state = initial_state("chess")
    assert state.fen() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    assert state.castling_rights == 15 and state.ep_square is None
    assert len(legal_moves(state)) == 20


def test_en_passant_square_is_written_only_when_the_capture_is_legal() -> None:
    state = play(initial_state("chess"), "e2e4")
    assert state.fen().split()[3] == "-"  # no black pawn can take
    state = play(state, "a7a6", "e4e5", "d7d5")
    assert state.fen().split()[3] == "d6" and state.ep_square == 43
    assert "e5d6" in {m.uci() for m in legal_moves(state)}
    # Either form reads back: a FEN naming an en-passant square whose capture is impossible keeps no square.
    assert from_fen("chess", "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2").fen().split()[3] == "-"


def test_en_passant_capture_that_exposes_the_king_is_not_legal() -> None:
    # White: Kh5, pawn e5; Black: pawn d7 steps to d5, rook a5 on the same rank: exd6 would open the rank.
    state = play(from_fen("chess", "4k3/3p4/8/r3P2K/8/8/8/8 b - - 0 1"), "d7d5")
    assert state.ep_square is None and "e5d6" not in {m.uci() for m in legal_moves(state)}


def test_castling_moves_the_rook_and_spends_the_rights() -> None:
    state = from_fen("chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert {"e1g1", "e1c1"} <= {m.uci() for m in legal_moves(state)}
    state = play(state, "e1g1")
    assert state.fen() == "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
    state = play(state, "a8b8")  # the a8 rook moves: Black keeps only the king's side
    assert state.fen().split()[2] == "k"


def test_no_castling_out_of_or_through_check() -> None:
    through = from_fen("chess", "4kr2/8/8/8/8/8/8/4K2R w K - 0 1")  # f1 attacked by the f8 rook
    assert "e1g1" not in {m.uci() for m in legal_moves(through)}
    out_of = from_fen("chess", "4r1k1/8/8/8/8/8/8/4K2R w K - 0 1")  # e1 in check
    assert "e1g1" not in {m.uci() for m in legal_moves(out_of)}


def test_lost_castling_rights_make_a_different_position_for_repetition() -> None:
    start = from_fen("chess", "4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    # The rook's round trip spends the right: the start position never occurs again.
    state = play(start, "h1h2", "e8d8", "h2h1", "d8e8", "h1h2", "e8d8", "h2h1", "d8e8")
    assert state.fen().split()[:3] == ["4k3/8/8/8/8/8/8/4K2R", "w", "-"]
    assert state.repetitions() == 1
    state = play(state, "h1h2", "e8d8", "h2h1", "d8e8")
    assert outcome(state) is not None and outcome(state).termination is Termination.REPETITION  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("fen", "field"),
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "castling field 'KQkq'"),  # no h1 rook
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w K - 0 1", "castling field 'K'"),  # king not on e1
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "castling field 'KQkx'"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1", "en passant field 'e3'"),  # wrong rank
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1", "en passant field 'e6'"),  # no pawn passed
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1", "en passant field 'z9'"),
    ],
)
def test_impossible_castling_or_en_passant_is_refused_naming_the_field(fen: str, field: str) -> None:
    with pytest.raises(FenError, match=field) as err:
        from_fen("chess", fen)
    assert "\n" not in str(err.value)


def test_the_family_still_refuses_castling_and_en_passant_fields() -> None:
    with pytest.raises(FenError, match="castling field must be '-' in gardner"):
        from_fen("gardner", "rnbqk/ppppp/5/PPPPP/RNBQK w K - 0 1")


ENCODING_POSITIONS = {
    "start": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "black castles both ways": "r3k2r/pppq1ppp/2n1bn2/2bpp3/2BPP3/2N1BN2/PPPQ1PPP/R3K2R b KQkq - 4 8",
    "en passant": "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "black en passant": "rnbqkbnr/pp1ppppp/8/8/2pPP3/8/PPP2PPP/RNBQKBNR b KQkq d3 0 3",
    "promotions": "r1n1k3/1P4P1/8/8/8/8/1p4p1/R1N1K3 w Qq - 0 1",
    "black promotions": "r1n1k3/1P4P1/8/8/8/8/1p4p1/R1N1K3 b Qq - 0 1",
}


@pytest.mark.parametrize("name", ENCODING_POSITIONS)
def test_every_legal_move_has_one_action_that_decodes_back(name: str) -> None:
    state = from_fen("chess", ENCODING_POSITIONS[name])
    space = action_space("chess")
    moves = legal_moves(state)
    actions = [space.encode(m, state.turn) for m in moves]
    assert len(set(actions)) == len(actions) and all(0 <= a < 64 * 73 for a in actions)
    assert [space.decode(a, state) for a in actions] == list(moves)
    index = space.policy_index[actions]
    assert len(set(index.tolist())) == len(actions) and index.max() < NUM_POLICY_PLANES * 64


def test_castling_en_passant_and_underpromotion_use_alphazeros_planes() -> None:
    """Castling is the king's queen-like move of two squares, en passant a pawn's diagonal step, an underpromotion
    one of the nine planes 64..72; Black's moves are read from Black's side (mirrored ranks)."""
    space = action_space("chess")
    east, west, north_east = 2, 6, 1

    def plane(fen: str, uci: str) -> tuple[int, int, int]:
        state = from_fen("chess", fen)
        index = int(space.policy_index[space.encode(Move.from_uci(uci), state.turn)])
        return index // 64, index // 8 % 8, index % 8

    kiwipete, black = ENCODING_POSITIONS["kiwipete"], ENCODING_POSITIONS["black castles both ways"]
    assert plane(kiwipete, "e1g1") == (east * 7 + 1, 0, 4)
    assert plane(kiwipete, "e1c1") == (west * 7 + 1, 0, 4)
    assert plane(black, "e8g8") == (east * 7 + 1, 0, 4)  # rank 8 is Black's home rank 0
    assert plane(ENCODING_POSITIONS["en passant"], "e5f6") == (north_east * 7, 4, 4)
    assert plane(ENCODING_POSITIONS["promotions"], "b7a8n") == (64, 6, 1)  # knight x capture left
    assert plane(ENCODING_POSITIONS["promotions"], "b7c8r") == (72, 6, 1)  # rook x capture right
    assert plane(ENCODING_POSITIONS["promotions"], "b7b8q") == (0, 6, 1)  # a queen promotion is a step north
    assert plane(ENCODING_POSITIONS["black promotions"], "b2b1b") == (68, 6, 1)  # bishop x forward
