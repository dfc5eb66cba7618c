"""Keyed seeding: streams are named by their place, independent of the order in which they are drawn."""

from __future__ import annotations

import numpy as np
import pytest

from mmc.core.seeding import derive, int_seed, root


def draw(seed: np.random.SeedSequence) -> int:
    return int(seed.generate_state(1)[0])


def test_streams_are_keyed_by_place_not_by_order() -> None:
    base = derive(root(0), "expert", "gardner")
    assert draw(derive(base, "self-play", 0, 1)) == draw(derive(root(0), "expert", "gardner", "self-play", 0, 1))
    keys = [("self-play", 0, 0), ("self-play", 0, 1), ("self-play", 1, 0), ("train", 0), ("arena", 0, 0)]
    assert len({draw(derive(base, *k)) for k in keys}) == len(keys)
    assert draw(derive(root(1), "expert", "gardner")) != draw(base)
    # exactly the child SeedSequence.spawn gives at that spawn key
    (child,) = np.random.SeedSequence(7, spawn_key=(3,)).spawn(1)
    assert draw(derive(np.random.SeedSequence(7), 3, 0)) == draw(child)
    assert 0 <= int_seed(base) < 2**63


def test_a_bad_seed_is_refused() -> None:
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="seed"):
            root(bad)  # type: ignore[arg-type]
