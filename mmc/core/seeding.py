"""Keyed seeding: every random stream of a run is a ``SeedSequence`` named by where it is used.

``derive(seed, "generation", 3, "self-play", 1)`` is ``SeedSequence(seed.entropy, spawn_key=seed.spawn_key +
(h("generation"), 3, h("self-play"), 1))``: exactly the child that ``seed.spawn`` would give at that path of
spawn keys, so the streams are independent (NumPy's guarantee for spawned sequences), and each is named by
its place in the computation rather than by the order in which streams were drawn. ``h`` is a stable 32-bit
hash of a name (``hash()`` is salted per process). The library's loops (``mmc.loops.alphazero``, ``mmc.meta``,
``mmc.evaluation.evaluate``) derive every stream they use from the one ``seed`` they are given, so the same call gives
the same games however its jobs are spread over processes or machines.
"""

from __future__ import annotations

import hashlib

import numpy as np
import torch

__all__ = ["derive", "int_seed", "name_key", "rng", "root", "torch_generator"]


def name_key(name: str) -> int:
    """A stable 32-bit key for ``name``."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")


def root(seed: int) -> np.random.SeedSequence:
    """The root sequence of a run seeded with ``seed`` (``params.yaml``'s ``seed``)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an int >= 0, got {seed!r}")
    return np.random.SeedSequence(seed)


def derive(seed: np.random.SeedSequence, *key: str | int) -> np.random.SeedSequence:
    """The child of ``seed`` at the path ``key`` (names and non-negative ints)."""
    parts = tuple(name_key(part) if isinstance(part, str) else int(part) % 2**32 for part in key)
    return np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + parts)


def rng(seed: np.random.SeedSequence) -> np.random.Generator:
    """A NumPy generator on ``seed``."""
    return np.random.default_rng(seed)


def int_seed(seed: np.random.SeedSequence) -> int:
    """A non-negative 63-bit integer from ``seed`` (for APIs that take an int seed)."""
    return int(seed.generate_state(1, np.uint64)[0] >> 1)


def torch_generator(seed: np.random.SeedSequence) -> torch.Generator:
    """A torch CPU generator seeded from ``seed``."""
    return torch.Generator().manual_seed(int_seed(seed))
