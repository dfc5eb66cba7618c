"""Training: self-play examples and their files, mirror augmentation, the replay window and the training loop.

>>> from mmc.train import ExampleBuilder, TrainConfig, train, replay_window
>>> builder = ExampleBuilder()                      # self-play: add(state, policy, game_id), finish_game(...)
>>> losses = train(net, replay_window(generations, window=4), TrainConfig(), torch.Generator().manual_seed(0))
"""

from mmc.train.augment import MIRROR_PLANES, check_mirror_symmetric, is_mirror_symmetric, mirror, mirror_batch
from mmc.train.examples import (
    FORMAT_VERSION,
    ExampleBuilder,
    Examples,
    ExamplesFileError,
    concatenate,
    group_by_size,
    load_examples,
    policy_target,
    save_examples,
)
from mmc.train.train import (
    LR_SCHEDULES,
    EpochLosses,
    TrainConfig,
    Trained,
    learning_rate_at,
    replay_window,
    replay_window_positions,
    train,
    trained_copy,
    value_target,
)

__all__ = [
    "FORMAT_VERSION",
    "LR_SCHEDULES",
    "MIRROR_PLANES",
    "EpochLosses",
    "ExampleBuilder",
    "Examples",
    "ExamplesFileError",
    "TrainConfig",
    "Trained",
    "check_mirror_symmetric",
    "concatenate",
    "group_by_size",
    "is_mirror_symmetric",
    "learning_rate_at",
    "load_examples",
    "mirror",
    "mirror_batch",
    "policy_target",
    "replay_window",
    "replay_window_positions",
    "save_examples",
    "train",
    "trained_copy",
    "value_target",
]
