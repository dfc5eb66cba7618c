"""Mirror augmentation, checked against the engine: the mirror of an example is the example of the mirrored position.

The mirrored position is built independently of ``mmc.train.augment``: its FEN has every rank reversed, its
history (for the repetition planes) has every board's files reversed, and its policy target moves each
move's mass to the move with mirrored squares, which must be a legal move there.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from mmc.games.chess import VARIANTS, Move, State, apply_move, from_fen, initial_state, legal_moves
from mmc.games.chess.actions import NUM_POLICY_PLANES
from mmc.games.chess.mirror import MIRROR_PLANES, check_mirror_symmetric, is_mirror_symmetric, mirror_batch
from mmc.games.chess.mirror import mirror as mirror_arrays
from mmc.games.chess.variants import CaptureRule
from mmc.train import Examples
from mmc.train.examples import VARIANT_DTYPE
from tests.train import assert_examples_equal, examples_of, random_policy, random_positions


def mirror(examples: Examples) -> Examples:
    """The examples of the mirrored positions (``mirror_arrays`` on their arrays), their variants checked first."""
    check_mirror_symmetric(str(name) for name in np.unique(examples.variant))
    planes, policy, legal = mirror_arrays(examples.planes, examples.policy, examples.legal)
    return dataclasses.replace(examples, planes=planes, policy=policy, legal=legal)


# (variant, start FEN or None for the variant's own): colour-bound and king-promotion positions need a FEN.
POSITIONS = [
    ("gardner", None),
    ("baby", None),
    ("mallet", None),
    ("los_alamos", None),
    ("atomic", None),
    ("rifle", None),
    ("dark", None),
    ("bichromatic", None),
    ("extinction", None),
    ("extinction", "1nbqk/P1pr1/5/2P1p/KQBNR w - - 0 1"),  # a4 promotes forward, to a king too
    ("extinction", "rnbqk/4P/1p3/2p1P/KQBNR b - - 0 1"),  # c2 promotes capturing left and right
    ("monochromatic", "k4/1p1b1/5/1B1R1/4K w - - 0 1"),
    ("monochromatic", "1k3/p1q1b/5/1Q1P1/R3K b - - 0 1"),
]


def mirror_board(board: bytes, width: int) -> bytes:
    arr = np.frombuffer(board, dtype=np.int8).copy()
    ranks = arr[:64].reshape(8, 8)  # a view: the castling and en-passant bytes after it stay as they are
    ranks[:, :width] = ranks[:, width - 1 :: -1]
    return arr.tobytes()


def mirrored_position(state: State) -> State:
    board, *rest = state.fen().split()
    fen = " ".join(["/".join(rank[::-1] for rank in board.split("/")), *rest])
    mirrored = from_fen(state.variant_name, fen, max_plies=state.max_plies)
    width = state.variant.width
    assert mirrored.board == mirror_board(state.board, width)
    return mirrored._replace(history=tuple(mirror_board(b, width) for b in state.history))


def mirrored_policy(state: State, mirrored: State, policy: np.ndarray) -> np.ndarray:
    width = state.variant.width

    def square(s: int) -> int:
        return s - s % 8 + width - 1 - s % 8

    index = {move: i for i, move in enumerate(legal_moves(mirrored))}
    moves = [Move(square(m.from_square), square(m.to_square), m.promotion) for m in legal_moves(state)]
    assert sorted(index) == sorted(moves), "the engine's rules are not mirror-symmetric here"
    out = np.zeros(len(moves))
    out[[index[m] for m in moves]] = policy
    return out


def example_pairs(variant: str, fen: str | None, seed: int, count: int = 6) -> tuple[Examples, Examples]:
    """Examples of seeded random positions, and of their mirrored positions with mirrored policies."""
    states = random_positions(variant, count, seed=seed, fen=fen, max_plies=30 if fen is None else 6)
    return pair_of(states, np.random.default_rng(seed))


def pair_of(states: list[State], rng: np.random.Generator) -> tuple[Examples, Examples]:
    policies = [random_policy(s, rng) for s in states]
    mirrored = [mirrored_position(s) for s in states]
    values = list(rng.choice([-1.0, 0.0, 1.0], len(states)))
    return examples_of(states, policies, values), examples_of(
        mirrored, [mirrored_policy(s, m, p) for s, m, p in zip(states, mirrored, policies, strict=True)], values
    )


def assert_mirrors(original: Examples, expected: Examples) -> None:
    got = mirror(original)
    np.testing.assert_array_equal(got.planes, expected.planes)
    np.testing.assert_array_equal(got.legal, expected.legal)
    np.testing.assert_allclose(got.policy, expected.policy, rtol=1e-6, atol=0)
    for name in ("value", "variant", "game_id", "ply"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))


@pytest.mark.parametrize(("variant", "fen"), POSITIONS)
def test_mirror_is_the_example_of_the_mirrored_position(variant: str, fen: str | None) -> None:
    assert_mirrors(*example_pairs(variant, fen, seed=len(variant)))


def test_mirror_keeps_the_repetition_planes() -> None:
    state = initial_state("gardner")
    states = []
    for uci in ("b1a3", "b5c3", "a3b1", "c3b5", "b1a3", "b5c3", "a3b1", "c3b5"):
        state = apply_move(state, Move.from_uci(uci))
        states.append(state)
    original, expected = pair_of(states, np.random.default_rng(0))
    assert original.planes[:, 12].any() and original.planes[:, 13].any()
    assert_mirrors(original, expected)


def test_the_positions_reach_what_the_mirror_must_handle() -> None:
    """The 6x6 colour flip, king promotions forward and sideways and both sides to move all occur."""
    los_alamos, _ = example_pairs("los_alamos", None, seed=len("los_alamos"))
    light = los_alamos.planes[:, 18]
    assert not np.array_equal(light[:, :, ::-1], light)  # flipping the colour plane would be wrong on 6x6
    forward, _ = example_pairs(*POSITIONS[9], seed=len("extinction"))
    sideways, _ = example_pairs(*POSITIONS[10], seed=len("extinction"))
    assert forward.legal[:, 74].any() and sideways.legal[:, 73].any() and sideways.legal[:, 75].any()
    black = np.concatenate([example_pairs(v, f, seed=len(v))[0].planes[:, 16, 0, 0] == 0 for v, f in POSITIONS])
    assert black.any() and not black.all()


def test_mirror_is_an_involution_and_leaves_the_input_alone() -> None:
    for variant in ("gardner", "los_alamos", "dark"):
        original, _ = example_pairs(variant, None, seed=3)
        before = original.planes.copy()
        twice = mirror(mirror(original))
        assert_examples_equal(twice, original)
        np.testing.assert_array_equal(original.planes, before)
    assert len(mirror(Examples.empty("los_alamos"))) == 0


def test_policy_plane_permutation_follows_the_direction_names() -> None:
    assert sorted(MIRROR_PLANES.tolist()) == list(range(NUM_POLICY_PLANES))
    np.testing.assert_array_equal(MIRROR_PLANES[MIRROR_PLANES], np.arange(NUM_POLICY_PLANES))
    north, northeast, east, south, west, northwest = 0, 1, 2, 4, 6, 7
    for distance in range(7):
        assert MIRROR_PLANES[north * 7 + distance] == north * 7 + distance
        assert MIRROR_PLANES[south * 7 + distance] == south * 7 + distance
        assert MIRROR_PLANES[northeast * 7 + distance] == northwest * 7 + distance
        assert MIRROR_PLANES[east * 7 + distance] == west * 7 + distance
    assert MIRROR_PLANES[56] == 63  # knight (1, 2) <-> (-1, 2)
    assert MIRROR_PLANES[57] == 62  # knight (2, 1) <-> (-2, 1)
    assert MIRROR_PLANES[64:73].tolist() == [66, 65, 64, 69, 68, 67, 72, 71, 70]  # N, B, R x (left, fwd, right)
    assert MIRROR_PLANES[73:76].tolist() == [75, 74, 73]


def test_mirror_batch_matches_mirror() -> None:
    for variant in ("gardner", "los_alamos"):
        original, _ = example_pairs(variant, None, seed=5)
        expected = mirror(original)
        planes, policy, legal = mirror_batch(
            torch.from_numpy(original.planes), torch.from_numpy(original.policy), torch.from_numpy(original.legal)
        )
        np.testing.assert_array_equal(planes.numpy(), expected.planes)
        np.testing.assert_array_equal(policy.numpy(), expected.policy)
        np.testing.assert_array_equal(legal.numpy(), expected.legal)


def test_every_variant_of_the_spec_but_chess_is_mirror_symmetric() -> None:
    assert [name for name in VARIANTS if not is_mirror_symmetric(name)] == ["chess"]
    check_mirror_symmetric(name for name in VARIANTS if name != "chess")
    with pytest.raises(ValueError, match="variant chess is not left-right symmetric"):
        check_mirror_symmetric(["gardner", "chess"])


def test_mirror_refuses_a_variant_that_is_not_symmetric(monkeypatch: pytest.MonkeyPatch) -> None:
    # A capture rule the mirror does not know (say, one that only fires towards the a-file).
    lopsided = dataclasses.replace(VARIANTS["gardner"], name="lopsided", capture=max(CaptureRule) + 1)  # type: ignore[arg-type]
    monkeypatch.setitem(VARIANTS, "lopsided", lopsided)
    assert not is_mirror_symmetric("lopsided")
    original, _ = example_pairs("gardner", None, seed=1)
    variant = np.where(np.arange(len(original)) == 2, "lopsided", "gardner").astype(VARIANT_DTYPE)
    relabelled = dataclasses.replace(original, variant=variant)
    with pytest.raises(ValueError, match="variant lopsided is not left-right symmetric"):
        mirror(relabelled)
