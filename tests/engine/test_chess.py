"""8x8 chess's own state: castling rights and the en-passant square in the board, in FEN and in repetitions.

Move generation and game ends are compared with Fairy-Stockfish in test_perft.py and test_oracle.py; here are
the FEN contracts and the rules that read the extra state.
"""

from __future__ import annotations

import pytest

from mmc.engine import FenError, Move, State, Termination, apply_move, from_fen, initial_state, legal_moves, outcome


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
