"""The variants as standard environments: PettingZoo AEC (two agents) and Gymnasium (one agent against a player).

Needs the ``env`` extra (``pip install -e '.[env]'``: PettingZoo and Gymnasium).

>>> from mmc.env import env
>>> game = env(variant="gardner")
>>> game.reset(seed=0)
>>> sorted(game.agents)
['black', 'white']

Importing this package registers the Gymnasium ids ``mmc/Gardner-v0``, ``mmc/LosAlamos-v0``, ... (one per playable
variant, :data:`GYM_IDS`): ``gymnasium.make("mmc/Gardner-v0", opponent="greedy", color="white")``.
"""

from mmc.env.aec import AGENTS, MinichessAEC, env, observation_space, raw_env
from mmc.env.gym import GYM_IDS, MinichessGym, register_envs
from mmc.env.views import PLAYABLE, agent_planes, check_playable, observation, rgb_image

__all__ = [
    "AGENTS",
    "GYM_IDS",
    "PLAYABLE",
    "MinichessAEC",
    "MinichessGym",
    "agent_planes",
    "check_playable",
    "env",
    "observation",
    "observation_space",
    "raw_env",
    "register_envs",
    "rgb_image",
]

register_envs()
