"""Training examples: the builder's targets and values, validation, concatenation and the .npz files."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

from mmc import games
from mmc.games.chess import (
    NUM_PLANES,
    Color,
    Outcome,
    Termination,
    action_space,
    apply_move,
    from_fen,
    initial_state,
    legal_moves,
    observation_planes,
)
from mmc.games.chess.actions import NUM_POLICY_PLANES
from mmc.train import (
    ExampleBuilder,
    Examples,
    ExamplesFileError,
    concatenate,
    group_by_size,
    load_examples,
    policy_target,
    save_examples,
)
from mmc.train.examples import VARIANT_DTYPE

from . import assert_examples_equal, examples_of, random_policy, random_positions

WHITE_CHECKMATED = "r3k/pb2p/PP3/P2qP/4K w - - 0 17"


def play_game(variant: str, plies: int, seed: int, builder: ExampleBuilder, game_id: int) -> None:
    """Add ``plies`` positions of a seeded random game (uniform policies) to ``builder``."""
    rng = np.random.default_rng(seed)
    state = initial_state(variant)
    for _ in range(plies):
        moves = legal_moves(state)
        builder.add(state, np.full(len(moves), 1 / len(moves)), game_id, 0.0)
        state = apply_move(state, moves[rng.integers(len(moves))])


# --- the builder -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "white_value"),
    [
        (Color.WHITE, 1.0),
        (Outcome(Color.WHITE, Termination.CHECKMATE), 1.0),
        (Color.BLACK, -1.0),
        (Outcome(Color.BLACK, Termination.EXTINCTION), -1.0),
        (None, 0.0),
        (Outcome(None, Termination.REPETITION), 0.0),
    ],
)
def test_builder_values_are_the_result_from_each_side_to_moves_view(
    result: Outcome | Color | None, white_value: float
) -> None:
    builder = ExampleBuilder()
    play_game("gardner", 7, seed=1, builder=builder, game_id=3)
    assert builder.playing == (3,)
    assert builder.finish_game(3, result) == 7
    (examples,) = builder.build()
    white_to_move = examples.planes[:, 16, 0, 0] == 1
    np.testing.assert_array_equal(white_to_move, np.arange(7) % 2 == 0)
    np.testing.assert_array_equal(examples.value, np.where(white_to_move, white_value, -white_value))
    np.testing.assert_array_equal(examples.ply, np.arange(7))
    np.testing.assert_array_equal(examples.game_id, np.full(7, 3))
    assert examples.variant.tolist() == ["gardner"] * 7


def test_builder_rows_hold_the_planes_and_the_policy_on_the_engines_action_layout() -> None:
    rng = np.random.default_rng(0)
    for variant in ("gardner", "los_alamos", "extinction"):
        states = random_positions(variant, 6, seed=2)
        policies = [random_policy(s, rng) for s in states]
        examples = examples_of(states, policies)
        for row, (state, policy) in enumerate(zip(states, policies, strict=True)):
            space = action_space(variant)
            index = space.policy_index[space.legal_actions(state)]
            np.testing.assert_array_equal(examples.planes[row], observation_planes(state))
            np.testing.assert_allclose(examples.policy[row].ravel()[index], policy, rtol=1e-6)
            legal = np.zeros(examples.legal[row].size, dtype=bool)
            legal[index] = True
            np.testing.assert_array_equal(examples.legal[row].ravel(), legal)
            assert examples.legal[row].sum() == len(legal_moves(state))


def test_builder_splits_board_sizes_and_waits_for_every_game() -> None:
    builder = ExampleBuilder()
    play_game("los_alamos", 4, seed=0, builder=builder, game_id=0)
    play_game("gardner", 5, seed=1, builder=builder, game_id=1)
    play_game("atomic", 3, seed=2, builder=builder, game_id=2)
    builder.finish_game(0, Color.WHITE)
    builder.finish_game(1, None)
    with pytest.raises(ValueError, match=r"games \[2\] have no result yet"):
        builder.build()
    builder.discard_game(2)
    small, large = builder.build()
    assert (small.board_shape, len(small)) == ((5, 5), 5)
    assert (large.board_shape, len(large)) == ((6, 6), 4)
    assert len(builder) == 9


def test_builder_rejects_bad_policies_and_misuse() -> None:
    state = initial_state("gardner")
    n = len(legal_moves(state))
    builder = ExampleBuilder()
    uniform = np.full(n, 1 / n)
    with pytest.raises(ValueError, match=rf"expected \[{n}\]"):
        builder.add(state, uniform[:-1], 0, 0.0)
    with pytest.raises(ValueError, match="sum to 1"):
        builder.add(state, uniform * 0.9, 0, 0.0)
    with pytest.raises(ValueError, match="non-negative"):
        builder.add(state, np.concatenate(([-0.1, 0.1 + 1 / n], uniform[2:])), 0, 0.0)
    with pytest.raises(ValueError, match="finite"):
        builder.add(state, np.concatenate(([np.nan], uniform[1:])), 0, 0.0)
    with pytest.raises(ValueError, match="no legal move"):
        builder.add(from_fen("gardner", WHITE_CHECKMATED), [], 0, 0.0)
    with pytest.raises(ValueError, match=r"search_value must be in \[-1, 1\], got 1.5"):
        builder.add(state, uniform, 0, 1.5)
    with pytest.raises(ValueError, match=r"search_value must be in \[-1, 1\], got nan"):
        builder.add(state, uniform, 0, float("nan"))
    builder.add(state, uniform, 2, 0.0)
    with pytest.raises(ValueError, match="game 2: final ply 0 is not after its last position's ply 0"):
        builder.finish_game(2, None, final_ply=0)
    with pytest.raises(ValueError, match="no position of game 5"):
        builder.finish_game(5, None)
    builder.add(state, uniform, 1, 0.0)
    builder.finish_game(1, None)
    with pytest.raises(ValueError, match="game 1 is already finished"):
        builder.add(state, uniform, 1, 0.0)


def test_policy_target_renormalises_within_tolerance() -> None:
    state = initial_state("gardner")
    n = len(legal_moves(state))
    target, legal = policy_target(state, np.full(n, 1 / n) * (1 + 5e-5))
    assert target.shape == legal.shape == (NUM_POLICY_PLANES, 5, 5)
    assert abs(float(target.sum(dtype=np.float64)) - 1) < 1e-6
    assert legal.sum() == n


# --- validation and concatenation ------------------------------------------------------------------------


def small_examples(variant: str = "gardner", count: int = 5, seed: int = 0) -> Examples:
    rng = np.random.default_rng(seed)
    states = random_positions(variant, count, seed=seed)
    return examples_of(states, [random_policy(s, rng) for s in states], list(rng.choice([-1.0, 0.0, 1.0], count)))


def replace(examples: Examples, **arrays: np.ndarray) -> dict[str, np.ndarray]:
    names = ("planes", "policy", "legal", "value", "search_value", "variant")
    fields = {name: getattr(examples, name) for name in names}
    return {**fields, "game_id": examples.game_id, "ply": examples.ply, "plies_left": examples.plies_left, **arrays}


def test_examples_reject_bad_arrays_by_name() -> None:
    ex = small_examples()
    with pytest.raises(ValueError, match=r"Examples\.value must be a numpy array of dtype float32"):
        Examples(**replace(ex, value=ex.value.astype(np.float64)))
    with pytest.raises(ValueError, match=r"Examples\.ply must have shape \[5\]"):
        Examples(**replace(ex, ply=ex.ply[:4]))
    with pytest.raises(ValueError, match=rf"Examples\.planes must have shape \[N, {NUM_PLANES}, H, W\]"):
        Examples(**replace(ex, planes=ex.planes[:, : NUM_PLANES - 1]))
    with pytest.raises(ValueError, match=r"Examples\.variant: los_alamos is played on 6x6"):
        Examples(**replace(ex, variant=np.full(5, "los_alamos", dtype=VARIANT_DTYPE)))
    with pytest.raises(ValueError, match=r"Examples\.value must be finite and in \[-1, 1\]"):
        Examples(**replace(ex, value=ex.value * 2 + 1.5))
    with pytest.raises(ValueError, match=r"Examples\.search_value must be finite and in \[-1, 1\]"):
        Examples(**replace(ex, search_value=np.full(5, np.nan, np.float32)))
    with pytest.raises(ValueError, match=r"Examples\.plies_left must be >= 1"):
        Examples(**replace(ex, plies_left=np.zeros(5, np.int32)))
    legal = ex.legal.copy()
    legal[0].ravel()[np.flatnonzero(ex.policy[0].ravel())[0]] = False
    with pytest.raises(ValueError, match=r"Examples\.policy puts probability on illegal actions \(rows \[0\]"):
        Examples(**replace(ex, legal=legal))
    with pytest.raises(ValueError, match=r"Examples\.policy must sum to 1 .* row 0"):
        Examples(**replace(ex, policy=ex.policy * np.array([0.5, 1, 1, 1, 1], np.float32)[:, None, None, None]))


def one_position(variant: str) -> Examples:
    """The start position of ``variant`` with a uniform policy, as a finished drawn game."""
    builder, state = ExampleBuilder(), games.initial_state(variant)
    n = len(games.legal_moves(state))
    builder.add(state, np.full(n, 1 / n), 0, 0.0)
    builder.finish_game(0, None)
    (examples,) = builder.build()
    return examples


def test_concatenate_take_and_group_by_size() -> None:
    a, b, c = small_examples(seed=0), small_examples("baby", 3, seed=1), small_examples("los_alamos", 4, seed=2)
    both = concatenate([a, b])
    assert len(both) == 8
    assert_examples_equal(both.take(np.arange(5, 8)), b)
    assert_examples_equal(both.take(both.variant == "gardner"), a)
    with pytest.raises(ValueError, match=r"different board sizes \[\(5, 5\), \(6, 6\)\]"):
        concatenate([a, c])
    with pytest.raises(ValueError, match="at least one"):
        concatenate([])
    with pytest.raises(ValueError, match=r"several game families \(chess, gomoku\)"):  # one board size, two families
        concatenate([a, one_position("mnk_5x5_k4")])
    small, large = group_by_size([c, a, Examples.empty("los_alamos"), b])
    assert_examples_equal(small, both)
    assert_examples_equal(large, c)


# --- files -----------------------------------------------------------------------------------------------


def test_save_load_round_trip_is_exact(tmp_path: Path) -> None:
    for examples in (small_examples(count=7), small_examples("los_alamos", 3), Examples.empty("gardner")):
        path = save_examples(examples, tmp_path / "gen" / f"{examples.board_shape[0]}_{len(examples)}.npz")
        assert_examples_equal(load_examples(path), examples)
    assert sorted(p.name for p in (tmp_path / "gen").iterdir()) == ["5_0.npz", "5_7.npz", "6_3.npz"]  # no temp left


def test_save_replaces_atomically(tmp_path: Path) -> None:
    path = tmp_path / "examples.npz"
    save_examples(small_examples(count=5), path)
    save_examples(small_examples(count=2, seed=3), path)
    assert len(load_examples(path)) == 2
    assert [p.name for p in tmp_path.iterdir()] == ["examples.npz"]


def rewrite(path: Path, **changes: np.ndarray | None) -> None:
    """Rewrite the .npz at ``path`` with some arrays replaced (or removed, for ``None``)."""
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    for name, array in changes.items():
        if array is None:
            del arrays[name]
        else:
            arrays[name] = array
    np.savez(path, **arrays)


def test_load_errors_name_the_file_and_the_array(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"missing\.npz"):
        load_examples(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip file")
    with pytest.raises(ExamplesFileError, match=r"junk\.npz cannot be read"):
        load_examples(tmp_path / "junk.npz")
    with zipfile.ZipFile(tmp_path / "empty.npz", "w"):
        pass
    with pytest.raises(ExamplesFileError, match=r"empty.npz: missing array\(s\) \['planes'"):
        load_examples(tmp_path / "empty.npz")

    examples = small_examples(count=4)
    cases: dict[str, tuple[dict[str, np.ndarray | None], str]] = {
        "no_policy": ({"policy": None}, r"missing array\(s\) \['policy'\]"),
        "short_value": ({"value": examples.value[:3]}, r"Examples\.value must have shape \[4\]"),
        "flat_planes": ({"planes": examples.planes[:, 0]}, r"array 'planes' has shape \[4, 5, 5\]"),
        "packed": ({"legal_packed": np.zeros((4, 3), np.uint8)}, r"array 'legal_packed' is uint8\[4, 3\]"),
        "version": ({"format_version": np.asarray(99)}, "format_version 99"),
        "illegal": (
            {"legal_packed": np.zeros((4, -(-NUM_POLICY_PLANES * 25 // 8)), np.uint8)},
            r"Examples\.policy puts probability on illegal",
        ),
    }
    for name, (changes, message) in cases.items():
        path = save_examples(examples, tmp_path / f"{name}.npz")
        rewrite(path, **changes)
        with pytest.raises(ExamplesFileError, match=rf"{name}\.npz: .*{message}"):
            load_examples(path)


def test_file_holds_documented_arrays(tmp_path: Path) -> None:
    examples = small_examples(count=3)
    path = save_examples(examples, tmp_path / "x.npz")
    with np.load(path, allow_pickle=False) as data:
        assert sorted(data.files) == sorted(
            [
                "planes",
                "policy",
                "legal_packed",
                "value",
                "search_value",
                "variant",
                "game_id",
                "ply",
                "plies_left",
                "format_version",
            ]
        )
        assert data["planes"].shape == (3, NUM_PLANES, 5, 5)
        assert data["variant"].dtype == VARIANT_DTYPE
