"""The starting models of adaptation on disk: where each start's checkpoint is and how its network is loaded (the
starts' rules are ``mmc.starts``). Shared by the ``adapt`` and ``evaluate`` stages, which import no stage module.
"""

from __future__ import annotations

from pathlib import Path

from mmc.nn import PolicyValueNet, build_network, load_checkpoint
from mmc.seeding import derive, int_seed
from mmc.starts import SCRATCH, Start
from pipelines.config import StudyConfig
from pipelines.paths import Paths

__all__ = ["load_start", "start_path"]


def start_path(paths: Paths, start: Start | str, replicate: int) -> Path | None:
    """The checkpoint of a starting model (``None`` for ``scratch``, which is made from the seed; ``metafocus``:
    its JOAT's)."""
    start = Start.parse(start)
    if start.is_scratch:
        return None
    if start.expert is not None:
        return paths.champion(start.expert, replicate)
    return paths.start_model(str(start.adapts_from), replicate)


def load_start(paths: Paths, study: StudyConfig, start: Start | str, replicate: int) -> PolicyValueNet:
    """The starting network of ``start`` in replicate ``replicate`` in eval mode (``metafocus``: its JOAT)."""
    path = start_path(paths, start, replicate)
    if path is None:
        return build_network(study.network, int_seed(derive(study.training_seed(replicate), SCRATCH, "network")))
    if not path.is_file():
        raise FileNotFoundError(f"starting model {str(start)!r}: {path} does not exist (run its stage first)")
    return load_checkpoint(path)[0]
