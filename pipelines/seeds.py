"""Seeds: one ``SeedSequence`` per stage, variant, generation and worker, all from ``params.yaml``'s ``seed``.

``seed_sequence(seed, "expert", "gardner", 3, 1)`` is ``SeedSequence(seed, spawn_key=(h("expert"),
h("gardner"), 3, 1))``: exactly the child that ``SeedSequence(seed).spawn`` would give at that path of spawn
keys, so streams are independent (NumPy's guarantee for spawned sequences) and each is named by where it is
used rather than by the order of use. ``h`` is a stable 32-bit hash of the name (``hash()`` is salted per
process). Workers are keyed by chunk index, never by process, so the results do not depend on the runner.
"""

from __future__ import annotations

import hashlib

import numpy as np
import torch

__all__ = ["NETWORK_INIT", "generator", "int_seed", "name_key", "seed_sequence", "torch_generator"]

NETWORK_INIT = -1
"""Generation key of the initial network's seed (generations count from 0)."""


def name_key(name: str) -> int:
    """A stable 32-bit key for ``name``."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")


def seed_sequence(
    seed: int, stage: str, variant: str, generation: int = 0, worker: int = 0, purpose: str = ""
) -> np.random.SeedSequence:
    """The sequence of ``stage``/``variant``/``generation``/``worker`` (``purpose`` tells uses at one place apart)."""
    key = (name_key(stage), name_key(variant), generation % 2**32, worker % 2**32, name_key(purpose))
    return np.random.SeedSequence(seed, spawn_key=key)


def generator(sequence: np.random.SeedSequence) -> np.random.Generator:
    """A NumPy generator on ``sequence``."""
    return np.random.default_rng(sequence)


def torch_generator(sequence: np.random.SeedSequence) -> torch.Generator:
    """A torch CPU generator seeded from ``sequence``."""
    return torch.Generator().manual_seed(int_seed(sequence))


def int_seed(sequence: np.random.SeedSequence) -> int:
    """A non-negative 63-bit integer from ``sequence`` (for APIs that take an int seed)."""
    return int(sequence.generate_state(1, np.uint64)[0] >> 1)
