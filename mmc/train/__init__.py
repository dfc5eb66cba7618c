"""Training: self-play examples and their files, the replay window and the training loop (augmented with the game's
board symmetries).

>>> from mmc.train import ExampleBuilder, TrainConfig, train, replay_window
>>> builder = ExampleBuilder()                      # self-play: add(state, policy, game_id), finish_game(...)
>>> losses = train(net, replay_window(generations, window=4), TrainConfig(), torch.Generator().manual_seed(0))
"""

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
    conversion_weights,
    learning_rate_at,
    policy_priors,
    replay_window,
    replay_window_positions,
    row_weights,
    surprise_weights,
    target_divergence,
    train,
    trained_copy,
    value_target,
)

__all__ = [
    "FORMAT_VERSION",
    "LR_SCHEDULES",
    "EpochLosses",
    "ExampleBuilder",
    "Examples",
    "ExamplesFileError",
    "TrainConfig",
    "Trained",
    "concatenate",
    "conversion_weights",
    "group_by_size",
    "learning_rate_at",
    "load_examples",
    "policy_priors",
    "policy_target",
    "replay_window",
    "replay_window_positions",
    "row_weights",
    "save_examples",
    "surprise_weights",
    "target_divergence",
    "train",
    "trained_copy",
    "value_target",
]
